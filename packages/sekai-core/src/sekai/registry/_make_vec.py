"""`make_vec`: N copies of a registered env behind one vector environment."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from sekai._internal.validation import check_int
from sekai.registry._loading import callable_name, load_reference
from sekai.registry._make import close_quietly, make_env, resolve_time_limit

if TYPE_CHECKING:
    from sekai.registry.env_spec import EnvSpec

__all__ = ["VectorizationMode", "make_vec_from_spec"]

#: How `make_vec` vectorises: ``"native"`` (``"vector_entry_point"`` is an alias),
#: ``"sync"``, ``"async"``, ``"proc"`` or ``"ray"``.
VectorizationMode = Literal["native", "vector_entry_point", "sync", "async", "proc", "ray"]

# The modes an error message offers; "vector_entry_point" is still accepted, as an alias.
_PUBLIC_MODES = ("native", "sync", "async", "proc", "ray")
_MODES = (*_PUBLIC_MODES, "vector_entry_point")
_BACKENDS = {"sync": "SyncVecEnv", "async": "AsyncVecEnv", "proc": "ProcVecEnv", "ray": "RayVecEnv"}
# The distribution (with its extra) a backend needs, and whether `sekai` itself brings it.
_DISTRIBUTIONS = {"proc": ("sekai-vector[proc]", True), "ray": ("sekai-vector[ray]", False)}


class SubEnvFactory:
    """Builds one sub-env of a vector env: `make` of a spec, then the wrappers.

    Picklable whenever the spec, the kwargs and the wrappers are (process-based
    backends send it to their workers).
    """

    def __init__(
        self,
        spec: EnvSpec,
        max_episode_steps: int | None,
        kwargs: dict[str, Any],
        wrappers: tuple[Callable[[Any], Any], ...],
    ) -> None:
        self.spec = spec
        self.max_episode_steps = max_episode_steps
        self.kwargs = kwargs
        self.wrappers = wrappers

    def __call__(self) -> Any:
        env = make_env(self.spec, self.max_episode_steps, dict(self.kwargs))
        try:
            for wrapper in self.wrappers:
                env = wrapper(env)
        except BaseException:
            close_quietly(env)
            raise
        return env

    def worker_modules(self) -> tuple[str, ...]:
        """The modules building the sub-env imports: those its spec names by string.

        A process-based backend that starts a fork server can import them there
        once instead of in each worker (``ProcVecEnv`` does).
        """
        references = [self.spec.entry_point]
        references += [wrapper.entry_point for wrapper in self.spec.additional_wrappers]
        names = (ref.partition(":")[0] for ref in references if isinstance(ref, str))
        return tuple(dict.fromkeys(names))

    def __repr__(self) -> str:
        return f"SubEnvFactory({self.spec.id!r})"


def _per_env_values(spec: EnvSpec, kwargs: dict[str, Any], num_envs: int) -> dict[str, list[Any]]:
    """One value per sub-env of each kwarg the spec names in ``per_env_kwargs``.

    ``kwargs`` are the registered kwargs updated by the caller's; a kwarg absent
    from them is left alone. Each splitter is called once, in the spec's order.
    """
    values: dict[str, list[Any]] = {}
    for name, reference in spec.per_env_kwargs.items():
        if name not in kwargs:
            continue
        what = f"the per_env_kwargs splitter of {name!r} of {spec.id!r}"
        splitter = load_reference(reference, what)
        split = splitter(kwargs[name], num_envs)
        if isinstance(split, (str, bytes)) or not isinstance(split, Sequence):
            raise TypeError(
                f"{what} ({callable_name(reference)}) must return a sequence of "
                f"{num_envs} values, one per sub-env; got {split!r}"
            )
        if len(split) != num_envs:
            raise ValueError(
                f"{what} ({callable_name(reference)}) must return {num_envs} values, one per "
                f"sub-env; got {len(split)}"
            )
        values[name] = list(split)
    return values


def _usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return max(1, len(affinity(0)))
    return os.cpu_count() or 1


def _import_backend(mode: str) -> Any:
    distribution, in_sekai = _DISTRIBUTIONS.get(mode, ("sekai-vector", True))
    class_name = _BACKENDS[mode]
    try:
        module = importlib.import_module("sekai.vector")
        return getattr(module, class_name)
    except (ImportError, AttributeError) as exc:
        raise ImportError(
            f"make_vec(vectorization_mode={mode!r}) needs sekai.vector.{class_name}, "
            f"which is not available: install the {distribution} distribution"
            + (", or the sekai distribution, which includes it" if in_sekai else "")
        ) from exc


def make_vec_from_spec(
    spec: EnvSpec,
    num_envs: int,
    *,
    vectorization_mode: str | None,
    vector_kwargs: dict[str, Any] | None,
    wrappers: Sequence[Callable[[Any], Any]],
    env_kwargs: dict[str, Any],
    batch_size: int | None = None,
) -> Any:
    """The implementation of `sekai.registry.make_vec` for a resolved spec."""
    num_envs = check_int(num_envs, "num_envs", minimum=1)
    if batch_size is not None:
        batch_size = check_int(
            batch_size,
            "make_vec: batch_size",
            minimum=1,
            maximum=num_envs,
            expected=f"None or an int in [1, {num_envs}] (num_envs={num_envs})",
        )
    if vectorization_mode is not None and vectorization_mode not in _MODES:
        raise ValueError(
            f"vectorization_mode must be one of {', '.join(map(repr, _PUBLIC_MODES))} or None; "
            f"got {vectorization_mode!r}"
        )
    if vector_kwargs is None:
        vector_kwargs = {}
    elif not isinstance(vector_kwargs, dict):
        raise TypeError(f"vector_kwargs must be a dict or None; got {vector_kwargs!r}")
    if "max_episode_steps" in vector_kwargs:
        raise ValueError(
            "make_vec got max_episode_steps in vector_kwargs; pass it as "
            "make_vec(..., max_episode_steps=N) instead (it overrides the time limit of "
            f"every sub-env; -1 removes it); got vector_kwargs={vector_kwargs!r}"
        )
    given: object = wrappers  # checked at run time: a lone callable is a common slip
    if isinstance(given, (str, bytes)) or not isinstance(given, Iterable):
        raise TypeError(
            "wrappers must be a sequence of callables taking an env (e.g. [wrap]); "
            f"got {wrappers!r}"
        )
    wrappers = tuple(wrappers)
    for wrapper in wrappers:
        if not callable(wrapper):
            raise TypeError(f"wrappers must be callables taking an env; got {wrapper!r}")

    kwargs = dict(env_kwargs)
    limit = resolve_time_limit(spec, kwargs.pop("max_episode_steps", None))

    mode = vectorization_mode
    if mode is None:
        native_ok = (
            spec.vector_entry_point is not None and not wrappers and not spec.additional_wrappers
        )
        mode = "native" if native_ok else "sync"
    elif mode == "vector_entry_point":
        mode = "native"
    # A native implementation receives the values themselves.
    per_env = {} if mode == "native" else _per_env_values(spec, {**spec.kwargs, **kwargs}, num_envs)

    if batch_size is not None:
        if "batch_size" in vector_kwargs:
            raise ValueError(
                "make_vec got batch_size both as an argument and in vector_kwargs; give it once"
            )
        if mode == "native" and batch_size != num_envs:
            raise ValueError(
                f"make_vec: a native vector env steps all its sub-envs at once, so it cannot "
                f"hand back partial batches (batch_size={batch_size}, num_envs={num_envs}); "
                "choose vectorization_mode='sync', 'async', 'proc' or 'ray'"
            )
        if mode != "native":
            vector_kwargs = {**vector_kwargs, "batch_size": batch_size}
    if mode == "proc" and "num_workers" not in vector_kwargs:
        vector_kwargs = {**vector_kwargs, "num_workers": min(num_envs, _usable_cpus())}

    if mode == "native":
        vec_env = _make_native(spec, num_envs, limit, kwargs, vector_kwargs, wrappers)
    else:
        backend = _import_backend(mode)
        env_fns = []
        for index in range(num_envs):
            sub_kwargs = dict(kwargs)
            sub_kwargs.update((name, split[index]) for name, split in per_env.items())
            sub_limit = -1 if limit is None else limit
            env_fns.append(SubEnvFactory(spec, sub_limit, sub_kwargs, wrappers))
        vec_env = backend(env_fns, **vector_kwargs)

    used = dataclasses.replace(spec, kwargs={**spec.kwargs, **kwargs}, max_episode_steps=limit)
    with contextlib.suppress(AttributeError):  # a vector env that takes no attributes
        vec_env.spec = used
    return vec_env


def _make_native(
    spec: EnvSpec,
    num_envs: int,
    limit: int | None,
    kwargs: dict[str, Any],
    vector_kwargs: dict[str, Any],
    wrappers: tuple[Callable[[Any], Any], ...],
) -> Any:
    if spec.vector_entry_point is None:
        raise ValueError(
            f"environment {spec.id!r} has no native vector implementation "
            "(its spec has no vector_entry_point); use vectorization_mode='sync', "
            "'async', 'proc' or 'ray'"
        )
    if wrappers or spec.additional_wrappers:
        which = "wrappers=" if wrappers else "the spec's additional_wrappers"
        raise ValueError(
            f"vectorization_mode='native' cannot apply per-env wrappers ({which} given for "
            f"{spec.id!r}): a native vector env has no per-env objects; use Vec* wrappers "
            "on the vector env, or vectorization_mode='sync'"
        )
    factory = load_reference(spec.vector_entry_point, f"vector entry point of {spec.id!r}")
    call_kwargs: dict[str, Any] = {**spec.kwargs, **kwargs}
    clash = sorted(set(call_kwargs) & set(vector_kwargs))
    if clash:
        raise ValueError(
            f"make_vec got {clash} both as env kwargs and in vector_kwargs; give each once"
        )
    call_kwargs.update(vector_kwargs)
    if limit is not None:
        call_kwargs["max_episode_steps"] = limit
    if "num_envs" in call_kwargs:
        raise ValueError("num_envs is make_vec's own argument; do not pass it as a kwarg")
    vec_env = factory(num_envs=num_envs, **call_kwargs)
    if vec_env is None:
        raise TypeError(
            f"the vector entry point of {spec.id!r} ({callable_name(spec.vector_entry_point)}) "
            "returned None; it must return the vector environment it builds"
        )
    return vec_env
