"""`EnvSpec` and `WrapperSpec`: what the registry knows about an environment."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.registry._ids import ENV_ID_RE, parse_env_id
from sekai.registry._loading import callable_name, validate_reference

__all__ = ["ENV_ID_RE", "EnvSpec", "WrapperSpec"]


def _check_entry_point(value: object, what: str, *, optional: bool) -> None:
    if value is None and optional:
        return
    if isinstance(value, str):
        validate_reference(value, what)
    elif not callable(value):
        expected = "a callable, a 'package.module:attr' string" + (" or None" if optional else "")
        raise TypeError(f"{what} must be {expected}; got {value!r}")


def _fields_equal(a: object, b: object, names: tuple[str, ...]) -> bool:
    # Imported here: comparing specs is rare, and sekai.registry stays free of
    # numpy until an env is made.
    from sekai.core._equality import values_equal

    return all(values_equal(getattr(a, name), getattr(b, name)) for name in names)


def _non_str_key(value: object, path: str) -> str | None:
    """The path of the first dict key in ``value`` that JSON would turn into a string."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path}[{key!r}]"
            found = _non_str_key(item, f"{path}[{key!r}]")
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _non_str_key(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _check_per_env_kwargs(value: object) -> dict[str, str | Callable[..., Any]]:
    what = "EnvSpec.per_env_kwargs"
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise TypeError(
            f"{what} must be a dict mapping kwarg names (str) to splitters (callables or "
            f"'package.module:attr' strings); got {value!r}"
        )
    for key, splitter in value.items():
        _check_entry_point(splitter, f"{what}[{key!r}]", optional=False)
    return dict(value)


def _check_kwargs(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise TypeError(f"{what} must be a dict with str keys; got {value!r}")
    return dict(value)


@dataclass
class WrapperSpec:
    """A wrapper that `make()` puts around an environment, described by data.

    Attributes:
        name: A readable name for the wrapper (e.g. its class name).
        entry_point: ``"package.module:attr"`` naming the wrapper class (or any
            callable taking the env as first argument and returning the wrapped env).
        kwargs: Keyword arguments passed to the wrapper after the env.
    """

    name: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"WrapperSpec.name must be a non-empty str; got {self.name!r}")
        if not isinstance(self.entry_point, str):
            raise TypeError(
                "WrapperSpec.entry_point must be a 'package.module:attr' string; "
                f"got {self.entry_point!r}"
            )
        validate_reference(self.entry_point, "WrapperSpec.entry_point")
        self.kwargs = _check_kwargs(self.kwargs, "WrapperSpec.kwargs")

    def __eq__(self, other: object) -> bool:
        """Field by field, comparing numpy arrays in ``kwargs`` by value."""
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _fields_equal(self, other, ("name", "entry_point", "kwargs"))

    def __hash__(self) -> int:
        # From the fields, as a frozen dataclass's: ``kwargs`` is a dict, so
        # this raises TypeError (unhashable), as in sekai 0.2.
        return hash((self.name, self.entry_point, self.kwargs))

    def to_dict(self) -> dict[str, Any]:
        """The wrapper spec as a JSON-compatible dict."""
        return {"name": self.name, "entry_point": self.entry_point, "kwargs": dict(self.kwargs)}


@dataclass
class EnvSpec:
    """Everything needed to build a registered environment, as plain data.

    Ids have the form ``[namespace/]Name[-vN]`` (``"CartPole-v1"``,
    ``"qc/MarketEnv-v0"``, ``"my_ns/CustomEnv"``); the parts are available as
    `namespace`, `name` and `version` (``None`` when absent). Every field is checked
    on construction: a malformed id or entry point raises ValueError, a value of the
    wrong type TypeError. ``kwargs`` is copied, so later changes to the dict that was
    passed in do not reach the spec.

    Attributes:
        id: The environment id.
        entry_point: The environment class or factory, or ``"package.module:attr"``
            naming it (imported the first time the env is made, not before).
        reward_threshold: The return at which the task counts as solved, if any.
        nondeterministic: Whether the env is not reproducible from a seed.
        max_episode_steps: The time limit `make()` applies with
            `sekai.core.TimeLimit` (``None``: no limit). At least 1.
        kwargs: Keyword arguments passed to the entry point.
        additional_wrappers: Wrappers `make()` applies, in order, outside the
            time limit.
        vector_entry_point: Optionally, a natively vectorised implementation (a
            VecEnv class or factory called as ``factory(num_envs=..., **kwargs)``)
            that `make_vec()` prefers.
        per_env_kwargs: The constructor kwargs whose value `make_vec()` turns
            into one value per sub-env, each with its *splitter*: a callable, or
            ``"package.module:attr"`` naming one (imported when first used),
            called as ``splitter(value, num_envs)`` and returning a sequence of
            ``num_envs`` values, the i-th of which sub-env i receives. It is
            called only when the kwarg is given (registered or passed to
            `make_vec`), once per `make_vec` call, before the sub-envs are
            built, with backends ``"sync"``, ``"async"``, ``"proc"`` and
            ``"ray"``; a native implementation (``vector_entry_point``)
            receives the value itself. Use it for stateful arguments that
            sub-envs must not share, e.g. ``{"sampler":
            "sekai.finance.sampling:spawn_samplers"}`` gives each sub-env its
            own copy of an episode sampler. Every other kwarg reaches every
            sub-env as the same object. `make()` ignores this field.
        namespace: The namespace part of the id (derived, not an argument).
        name: The name part of the id (derived).
        version: The version number of the id (derived).
    """

    id: str
    entry_point: str | Callable[..., Any] | None = None
    reward_threshold: float | None = None
    nondeterministic: bool = False
    max_episode_steps: int | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    additional_wrappers: tuple[WrapperSpec, ...] = field(default_factory=tuple)
    vector_entry_point: str | Callable[..., Any] | None = None
    per_env_kwargs: dict[str, str | Callable[..., Any]] = field(default_factory=dict)

    namespace: str | None = field(init=False, repr=False, compare=False)
    name: str = field(init=False, repr=False, compare=False)
    version: int | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.namespace, self.name, self.version = parse_env_id(self.id)
        _check_entry_point(self.entry_point, "EnvSpec.entry_point", optional=True)
        _check_entry_point(self.vector_entry_point, "EnvSpec.vector_entry_point", optional=True)
        threshold = self.reward_threshold
        if threshold is not None:
            self.reward_threshold = check_real(
                threshold,
                "EnvSpec.reward_threshold",
                finite=False,
                expected="a real number (not NaN) or None",
            )
        check_bool(self.nondeterministic, "EnvSpec.nondeterministic")
        limit = self.max_episode_steps
        if limit is not None:
            self.max_episode_steps = check_int(
                limit,
                "EnvSpec.max_episode_steps",
                minimum=1,
                expected="None or an int >= 1",
                type_error=ValueError,  # 0.2 raises ValueError for any bad limit
            )
        self.kwargs = _check_kwargs(self.kwargs, "EnvSpec.kwargs")
        self.per_env_kwargs = _check_per_env_kwargs(self.per_env_kwargs)
        wrappers = self.additional_wrappers
        if isinstance(wrappers, (str, bytes, Mapping)) or not hasattr(wrappers, "__iter__"):
            raise TypeError(
                f"EnvSpec.additional_wrappers must be a sequence of WrapperSpec; got {wrappers!r}"
            )
        self.additional_wrappers = tuple(wrappers)
        for wrapper in self.additional_wrappers:
            if not isinstance(wrapper, WrapperSpec):
                raise TypeError(
                    f"EnvSpec.additional_wrappers must hold WrapperSpec objects; got {wrapper!r}"
                )

    def __eq__(self, other: object) -> bool:
        """Field by field, comparing numpy arrays in ``kwargs`` by value.

        Arrays are equal when they have the same shape and equal elements, so
        a spec whose kwargs hold a price history or asset weights can be
        compared (the ``==`` a dataclass generates raises for arrays).
        """
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _fields_equal(self, other, _ENV_SPEC_FIELDS)

    def __hash__(self) -> int:
        # From the fields, as a frozen dataclass's: ``kwargs`` is a dict, so
        # this raises TypeError (unhashable), as in sekai 0.2.
        return hash(tuple(getattr(self, name) for name in _ENV_SPEC_FIELDS))

    def make(self, **kwargs: Any) -> Any:
        """Build this environment (see `sekai.registry.make`).

        Keyword arguments override the registered ``kwargs``; ``max_episode_steps``
        overrides the time limit (``-1`` removes it) and is not passed to the
        constructor. No registry is consulted.
        """
        from sekai.registry._make import make_env

        max_episode_steps = kwargs.pop("max_episode_steps", None)
        return make_env(self, max_episode_steps, kwargs)

    def to_dict(self) -> dict[str, Any]:
        """The spec's fields as a dict.

        Callable entry points become ``None``; ``per_env_kwargs`` keeps only the
        splitters given as ``"module:attr"`` strings.
        """
        return {
            "id": self.id,
            "entry_point": self.entry_point if isinstance(self.entry_point, str) else None,
            "reward_threshold": self.reward_threshold,
            "nondeterministic": self.nondeterministic,
            "max_episode_steps": self.max_episode_steps,
            "kwargs": dict(self.kwargs),
            "additional_wrappers": [wrapper.to_dict() for wrapper in self.additional_wrappers],
            "vector_entry_point": (
                self.vector_entry_point if isinstance(self.vector_entry_point, str) else None
            ),
            "per_env_kwargs": {
                name: splitter
                for name, splitter in self.per_env_kwargs.items()
                if isinstance(splitter, str)
            },
        }

    def to_json(self) -> str:
        """Serialise the spec to a JSON string.

        Entry points given as callables cannot be written as JSON and become
        ``null`` (splitters of ``per_env_kwargs`` given as callables are left
        out); ``"module:attr"`` strings are kept. Tuples in ``kwargs`` come back
        as lists from `from_json`.

        Raises:
            ValueError: If ``kwargs`` (or a wrapper's kwargs) hold a value JSON
                cannot represent, or a nested dict with a key that is not a
                ``str`` (JSON would turn it into one).
        """
        data = self.to_dict()
        # json.dumps would silently write {1: x} as {"1": x}, which reads back
        # with a different key.
        bad = _non_str_key(data["kwargs"], "kwargs")
        for index, wrapper in enumerate(data["additional_wrappers"]):
            bad = bad or _non_str_key(wrapper["kwargs"], f"additional_wrappers[{index}].kwargs")
        if bad is not None:
            raise ValueError(
                f"EnvSpec {self.id!r} cannot be serialised to JSON: JSON object keys are "
                f"strings, so the key {bad} would come back as a string; use str keys"
            )
        try:
            return json.dumps(data)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"EnvSpec {self.id!r} cannot be serialised to JSON: its kwargs must hold "
                f"only JSON values (str, numbers, bool, None, lists, dicts); {exc}"
            ) from exc

    @classmethod
    def from_json(cls, s: str, *, trust_entry_points: bool = False) -> EnvSpec:
        """Rebuild a spec written by `to_json`.

        Making a spec imports its entry points and calls them with its
        arguments, so JSON naming any ``"module:attr"`` could run any code
        (a shared config or a checkpoint is not necessarily written by
        you). Unless ``trust_entry_points`` is true, every entry point of the
        JSON (``entry_point``, ``vector_entry_point``, each wrapper's
        ``entry_point`` and the ``per_env_kwargs`` splitters) must be:

        * used in the same role by a registered spec, under any id (the
          global registry is asked, which runs the loaders of the installed
          plugins); nothing is imported for it; or
        * as ``entry_point``, ``vector_entry_point`` or a wrapper's
          ``entry_point``, a class defined in sekai or in the package of an
          installed plugin (the package holding the loader of a
          ``sekai.envs`` entry point) that subclasses `sekai.core.Env` or
          `sekai.core.MultiAgentEnv`, ``sekai.vector.VecEnv``, or
          `sekai.core.Wrapper` respectively. Such a reference is imported
          here (its module, then the attribute) to check it; one outside
          those packages, or through a private name, is refused without
          importing it; or
        * as a splitter, one of sekai's (``sekai.finance.sampling:spawn_samplers``),
          compared by name.

        Functions are thus never accepted unless a registered spec uses
        them. The check is made here, once: the spec returned holds only
        entry points that passed it, so its copies (``dataclasses.replace``,
        pickling) and the specs read back from its `to_json` are as safe.
        A spec built in code (``EnvSpec(...)``, ``register``) is not
        checked: its entry points are the program's own choice.

        Args:
            s: The JSON text.
            trust_entry_points: Accept any entry point the JSON names. Only for
                JSON from a source you trust as you trust your own code.

        Raises:
            ValueError: If the text is not JSON or does not describe a spec.
            sekai.error.UntrustedEntryPoint: If an entry point is not
                trusted, or names something in sekai or a plugin that cannot
                be imported (a ValueError too); the message names the field,
                the entry point, the reason and this opt-in.
        """
        check_bool(trust_entry_points, "EnvSpec.from_json: trust_entry_points")
        try:
            data = json.loads(s)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"EnvSpec.from_json expected a JSON object string; {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError(f"EnvSpec.from_json expected a JSON object; got {data!r}")
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"EnvSpec.from_json: unknown field(s) {unknown}; expected some of {sorted(known)}"
            )
        if "id" not in data:
            raise ValueError("EnvSpec.from_json: the JSON object has no 'id'")
        wrappers = data.pop("additional_wrappers", None) or []
        if not isinstance(wrappers, list) or not all(isinstance(w, dict) for w in wrappers):
            raise ValueError(
                "EnvSpec.from_json: additional_wrappers must be a list of objects; "
                f"got {wrappers!r}"
            )
        try:
            parsed = tuple(WrapperSpec(**wrapper) for wrapper in wrappers)
        except TypeError as exc:
            raise ValueError(f"EnvSpec.from_json: bad additional_wrappers entry; {exc}") from exc
        kwargs = data.pop("kwargs", None)
        try:
            spec = cls(**data, kwargs={} if kwargs is None else kwargs, additional_wrappers=parsed)
        except TypeError as exc:  # a field of the wrong JSON type
            raise ValueError(f"EnvSpec.from_json: {exc}") from exc
        if not trust_entry_points:
            from sekai.registry._trust import check_json_entry_points

            check_json_entry_points(spec)
        return spec

    def pprint(self) -> str:
        """A readable multi-line description of the spec, one field per line."""
        lines = [
            f"id: {self.id}",
            f"entry_point: {callable_name(self.entry_point)}",
            f"reward_threshold: {self.reward_threshold}",
            f"nondeterministic: {self.nondeterministic}",
            f"max_episode_steps: {self.max_episode_steps}",
            f"kwargs: {self.kwargs!r}",
        ]
        if self.additional_wrappers:
            lines.append("additional_wrappers:")
            lines.extend(
                f"  - {w.name} ({w.entry_point}) kwargs={w.kwargs!r}"
                for w in self.additional_wrappers
            )
        else:
            lines.append("additional_wrappers: none")
        lines.append(f"vector_entry_point: {callable_name(self.vector_entry_point)}")
        splitters = {name: callable_name(s) for name, s in self.per_env_kwargs.items()}
        lines.append(f"per_env_kwargs: {splitters!r}")
        return "\n".join(lines)


_ENV_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(EnvSpec) if f.compare)
