"""`EnvRegistry`: ids to specs, with lazy namespace loaders and plugin entry points."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn, overload

from sekai._internal.validation import check_callable, check_int
from sekai.error import EnvAlreadyRegistered, EnvNotFound
from sekai.registry import _plugins
from sekai.registry._ids import format_env_id, parse_env_id, validate_namespace
from sekai.registry._make import make_env
from sekai.registry._make_vec import VectorizationMode, make_vec_from_spec
from sekai.registry._plugins import ENTRY_POINT_GROUP, EntryPointLike
from sekai.registry.env_spec import EnvSpec, WrapperSpec

if TYPE_CHECKING:  # annotations only: see sekai.registry
    from sekai.core import Env
    from sekai.vector import VecEnv

__all__ = ["ENTRY_POINT_GROUP", "EnvRegistry", "current_registry", "default_registry"]

# The EnvSpec fields `EnvRegistry.register` takes as keyword arguments.
_SPEC_OPTIONS = (
    "additional_wrappers",
    "kwargs",
    "max_episode_steps",
    "nondeterministic",
    "per_env_kwargs",
    "reward_threshold",
    "vector_entry_point",
)

# The registry whose loader is running in this context: the module-level
# functions (``sekai.registry.register`` ...) act on it while a loader runs, so a
# plugin's loader registers into whichever registry asked for it.
_LOADING: ContextVar[EnvRegistry | None] = ContextVar("sekai_registry_loading", default=None)


class EnvRegistry:
    """A mapping from environment ids to `EnvSpec` objects, with lazy loading.

    Environments come from three places:

    * `register`, called directly;
    * lazy namespace loaders (`register_namespace`): the loader of namespace
      ``ns`` runs once, the first time an id ``ns/...`` is looked up (by `spec`,
      `make`, `make_vec`, `deregister`), or when every spec is listed
      (`all_specs`, `pprint`); never when it is registered;
    * plugin distributions, when the registry was created with an
      ``entry_point_group`` (the global registry uses ``"sekai.envs"``). Each entry
      point of the group is a loader: its *name* is the namespace it provides and
      its *value* (``"package.module:function"``) a function called with no
      arguments that registers the envs (naming a module instead is accepted too:
      importing it is the registration). The entry point named ``ns`` loads on the
      first lookup of an id ``ns/...``. A miss on an id with no namespace (like
      ``"CartPole-v1"``), or with a namespace no loader or entry point is named
      after, loads every entry point not loaded yet, as does listing every spec; a
      distribution providing namespace-less ids can therefore give its entry
      point any name (e.g. its own).

    `register` runs the loaders an id lookup would run before adding the id, so
    registering an id a plugin provides raises `EnvAlreadyRegistered` whether or
    not the plugin was loaded already (deregister the plugin's env first to
    replace it). Every loader runs at most once. While it runs, the module-level functions of
    `sekai.registry` act on this registry, so a plugin written against
    ``sekai.registry.register`` fills whichever registry asked for it. A loader
    that raises does not break the registry: a `RuntimeWarning` names the plugin
    and the error, the envs it did not register stay unavailable, and the
    `EnvNotFound` raised for them mentions the failure.

    A new ``EnvRegistry()`` is empty and ignores installed plugins, which makes it
    the isolated registry to use in tests.

    Args:
        entry_point_group: The entry-point group to load plugins from, or ``None``
            (the default) for none.
    """

    def __init__(self, *, entry_point_group: str | None = None) -> None:
        self._specs: dict[str, EnvSpec] = {}
        self._namespace_loaders: dict[str, Callable[[], Any]] = {}
        self._entry_point_group = entry_point_group
        self._pending_entry_points: dict[str, list[EntryPointLike]] | None = None
        self._claimed_namespaces: set[str] = set()
        self._failures: dict[str, str] = {}
        self._lock = threading.RLock()

    # -- registration -------------------------------------------------------------

    def register(
        self,
        id: str,
        entry_point: str | Callable[..., Any] | None,
        *,
        reward_threshold: float | None = None,
        nondeterministic: bool = False,
        max_episode_steps: int | None = None,
        kwargs: dict[str, Any] | None = None,
        additional_wrappers: tuple[WrapperSpec, ...] = (),
        vector_entry_point: str | Callable[..., Any] | None = None,
        per_env_kwargs: Mapping[str, str | Callable[..., Any]] | None = None,
        **unknown: NoReturn,
    ) -> EnvSpec:
        """Register an environment and return its spec.

        Args:
            id: The id, of the form ``[namespace/]Name[-vN]``.
            entry_point: The env class or factory, or ``"package.module:attr"``
                naming it (imported only when the env is first made). ``None``
                only for an env made solely by `make_vec` through its
                ``vector_entry_point``.
            reward_threshold: The return at which the task counts as solved.
            nondeterministic: Whether the env is not reproducible from a seed.
            max_episode_steps: The time limit `make` applies (``None``: none).
            kwargs: Keyword arguments for the entry point (copied).
            additional_wrappers: `WrapperSpec` objects `make` applies, in order.
            vector_entry_point: A natively vectorised implementation for `make_vec`.
            per_env_kwargs: Constructor kwargs that need one value per sub-env in
                `make_vec`: kwarg name -> splitter, a callable or
                ``"package.module:attr"`` string called as
                ``splitter(value, num_envs)`` that returns the ``num_envs``
                values (see `EnvSpec`); ``None`` for none. Any other kwarg
                reaches every sub-env as the same object.
            **unknown: Nothing else is accepted: another keyword raises a TypeError
                that lists the ones above.

        Raises:
            ValueError: If the id or an entry point is malformed.
            TypeError: If a keyword is not one of the above (the message lists
                them), a field has the wrong type, or neither ``entry_point``
                nor ``vector_entry_point`` is given.
            EnvAlreadyRegistered: If the id is taken, including by a namespace
                loader or plugin not loaded yet (they run first, as for a lookup).
        """
        if unknown:
            raise TypeError(
                f"register({id!r}) got unknown argument(s) {sorted(unknown)}; the EnvSpec fields "
                f"it takes are {sorted(_SPEC_OPTIONS)} (the env's own arguments go in "
                "kwargs={...})"
            )
        if entry_point is None and vector_entry_point is None:
            raise TypeError(
                f"register({id!r}) needs an entry_point: the env class or factory, or a "
                "'package.module:attr' string naming it (or, for an env that only has a "
                "native vector implementation, a vector_entry_point); got None"
            )
        splitters = {} if per_env_kwargs is None else per_env_kwargs
        spec = EnvSpec(
            id,
            entry_point,
            reward_threshold=reward_threshold,
            nondeterministic=nondeterministic,
            max_episode_steps=max_episode_steps,
            kwargs={} if kwargs is None else kwargs,
            additional_wrappers=additional_wrappers,
            vector_entry_point=vector_entry_point,
            # A non-mapping reaches EnvSpec as it is, which raises TypeError for it.
            per_env_kwargs=dict(splitters) if isinstance(splitters, Mapping) else splitters,
        )
        with self._lock:
            # Run the loaders that could provide this id first, so a clash with a
            # plugin's id is reported here whatever the order, instead of making
            # the plugin fail (and lose all its envs) when it loads later.
            existing = self._lookup(spec.id, spec.namespace)
            if existing is not None:
                raise EnvAlreadyRegistered(
                    spec.id,
                    message=f"environment {spec.id!r} is already registered (entry point "
                    f"{existing.entry_point!r}); deregister it first or register a new version",
                )
            self._specs[spec.id] = spec
        return spec

    def deregister(self, id: str) -> None:
        """Remove an environment.

        Raises:
            EnvNotFound: If no environment has this id.
        """
        with self._lock:
            spec = self._find(id)
            del self._specs[spec.id]

    def register_namespace(self, namespace: str, loader: Callable[[], Any]) -> None:
        """Register a loader that registers the environments of ``namespace``.

        The loader is called with no arguments, once, the first time an id of the
        namespace is looked up (or every spec is listed); registering it runs
        nothing. Registering another loader for the same namespace before the first
        one ran replaces it; after, the new one runs on the next lookup.

        Raises:
            ValueError: If ``namespace`` is not a valid namespace.
            TypeError: If ``loader`` is not callable.
        """
        validate_namespace(namespace)
        check_callable(loader, "a namespace loader")
        with self._lock:
            self._namespace_loaders[namespace] = loader
            self._claimed_namespaces.add(namespace)

    # -- lookup -------------------------------------------------------------------

    def spec(self, id: str) -> EnvSpec:
        """The spec registered under ``id`` (running lazy loaders as needed).

        Raises:
            ValueError: If ``id`` is malformed.
            EnvNotFound: If nothing is registered under ``id``; the message suggests
                close ids, lists the versions that exist, says when the namespace is
                unknown and names plugins that failed to load.
        """
        return self._find(id)

    def all_specs(self) -> list[EnvSpec]:
        """Every registered spec, in registration order, after running every loader."""
        with self._lock:
            self._load_everything()
            return list(self._specs.values())

    def __len__(self) -> int:
        """Number of registered environments (lazy loaders that have not run are not counted)."""
        return len(self._specs)

    def __contains__(self, id: object) -> bool:
        """Whether ``id`` names a registered environment (running lazy loaders)."""
        if not isinstance(id, str):
            return False
        try:
            self._find(id)
        except (EnvNotFound, ValueError):
            return False
        return True

    # Typed with overloads, as sekai.registry.make (the run-time signature stays 0.2's).
    @overload
    def make(
        self, id: str, *, max_episode_steps: int | None = None, **kwargs: Any
    ) -> Env[Any, Any]: ...
    @overload
    def make(
        self, id: EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any
    ) -> Env[Any, Any]: ...
    def make(
        self, id: str | EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any
    ) -> Any:
        """Build an environment (see `sekai.registry.make`)."""
        spec = id if isinstance(id, EnvSpec) else self._find(id)
        return make_env(spec, max_episode_steps, kwargs)

    @overload
    def make_vec(
        self,
        id: str,
        num_envs: int = 1,
        *,
        vectorization_mode: VectorizationMode | None = None,
        vector_kwargs: dict[str, Any] | None = None,
        wrappers: Sequence[Callable[[Any], Any]] = (),
        batch_size: int | None = None,
        **env_kwargs: Any,
    ) -> VecEnv[Any, Any]: ...
    @overload
    def make_vec(
        self,
        id: EnvSpec,
        num_envs: int = 1,
        *,
        vectorization_mode: VectorizationMode | None = None,
        vector_kwargs: dict[str, Any] | None = None,
        wrappers: Sequence[Callable[[Any], Any]] = (),
        batch_size: int | None = None,
        **env_kwargs: Any,
    ) -> VecEnv[Any, Any]: ...
    def make_vec(
        self,
        id: str | EnvSpec,
        num_envs: int = 1,
        *,
        vectorization_mode: VectorizationMode | None = None,
        vector_kwargs: dict[str, Any] | None = None,
        wrappers: Sequence[Callable[[Any], Any]] = (),
        batch_size: int | None = None,
        **env_kwargs: Any,
    ) -> Any:
        """Build a vector environment (see `sekai.registry.make_vec`)."""
        spec = id if isinstance(id, EnvSpec) else self._find(id)
        return make_vec_from_spec(
            spec,
            num_envs,
            vectorization_mode=vectorization_mode,
            vector_kwargs=vector_kwargs,
            wrappers=wrappers,
            batch_size=batch_size,
            env_kwargs=env_kwargs,
        )

    def pprint(self, *, num_cols: int = 3) -> str:
        """Every registered id as text, grouped by namespace (loads every plugin).

        Ids without a namespace come first, then one block per namespace in
        alphabetical order; plugins that failed to load are listed at the end.
        """
        num_cols = check_int(num_cols, "num_cols", minimum=1, type_error=ValueError)
        specs = self.all_specs()
        groups: dict[str | None, list[str]] = {}
        for spec in specs:
            groups.setdefault(spec.namespace, []).append(spec.id)
        lines: list[str] = []
        if not specs:
            lines.append("(no environments registered)")
        for namespace in sorted(groups, key=lambda ns: (ns is not None, ns or "")):
            ids = sorted(groups[namespace])
            width = max(len(env_id) for env_id in ids)
            lines.append(f"===== {namespace if namespace is not None else '(no namespace)'} =====")
            for start in range(0, len(ids), num_cols):
                row = ids[start : start + num_cols]
                lines.append("  ".join(env_id.ljust(width) for env_id in row).rstrip())
        if self._failures:
            lines.append("===== failed to load =====")
            lines.extend(f"{label}: {error}" for label, error in sorted(self._failures.items()))
        return "\n".join(lines)

    @property
    def failed_plugins(self) -> dict[str, str]:
        """Loaders that raised: a label naming each (plugin or namespace) -> its error."""
        return dict(self._failures)

    # -- internals ----------------------------------------------------------------

    def _find(self, env_id: str) -> EnvSpec:
        namespace, name, version = parse_env_id(env_id)
        with self._lock:
            spec = self._lookup(env_id, namespace)
            if spec is None:
                message, suggestions = self._not_found(env_id, namespace, name, version)
                raise EnvNotFound(env_id, suggestions, message=message)
            return spec

    def _lookup(self, env_id: str, namespace: str | None) -> EnvSpec | None:
        """The spec of ``env_id`` after running the loaders that could provide it."""
        dedicated = False
        if namespace is not None:
            self._load_namespace(namespace)
            dedicated = namespace in self._claimed_namespaces
        spec = self._specs.get(env_id)
        if spec is None and not dedicated:
            self._load_all_entry_points()
            spec = self._specs.get(env_id)
        return spec

    def _entry_points(self) -> dict[str, list[EntryPointLike]]:
        if self._pending_entry_points is None:
            pending: dict[str, list[EntryPointLike]] = {}
            if self._entry_point_group is not None:
                try:
                    found = _plugins.list_entry_points(self._entry_point_group)
                except Exception as exc:  # a broken distribution's metadata
                    found = []
                    self._record_failure(f"entry points of group {self._entry_point_group!r}", exc)
                for entry_point in found:
                    pending.setdefault(entry_point.name, []).append(entry_point)
            self._claimed_namespaces.update(pending)
            self._pending_entry_points = pending
        return self._pending_entry_points

    def _load_namespace(self, namespace: str) -> None:
        loader = self._namespace_loaders.pop(namespace, None)
        if loader is not None:
            self._run_loader(f"namespace loader {namespace!r}", loader)
        for entry_point in self._entry_points().pop(namespace, []):
            self._run_entry_point(entry_point)

    def _load_all_entry_points(self) -> None:
        pending = self._entry_points()
        while pending:
            _, entry_points = pending.popitem()
            for entry_point in entry_points:
                self._run_entry_point(entry_point)

    def _load_everything(self) -> None:
        while self._namespace_loaders:
            namespace = next(iter(self._namespace_loaders))
            self._load_namespace(namespace)
        self._load_all_entry_points()

    def _run_entry_point(self, entry_point: EntryPointLike) -> None:
        def load_and_call() -> None:
            loader = entry_point.load()
            if isinstance(loader, ModuleType):
                return  # importing the module registered its environments
            if not callable(loader):
                raise TypeError(f"the entry point names {loader!r}, which is not callable")
            loader()

        label = f"plugin {entry_point.name!r} ({entry_point.value})"
        self._run_loader(label, load_and_call)

    def _run_loader(self, label: str, loader: Callable[[], Any]) -> None:
        token = _LOADING.set(self)
        try:
            loader()
        except Exception as exc:
            self._record_failure(label, exc)
        finally:
            _LOADING.reset(token)

    def _record_failure(self, label: str, exc: Exception) -> None:
        error = f"{type(exc).__name__}: {exc}"
        self._failures[label] = error
        warnings.warn(
            f"sekai registry: {label} failed to load ({error}); "
            "the environments it provides are unavailable",
            RuntimeWarning,
            stacklevel=2,
        )

    def _not_found(
        self, env_id: str, namespace: str | None, name: str, version: int | None
    ) -> tuple[str, list[str]]:
        """The message of the EnvNotFound for ``env_id`` and the ids it suggests, best first."""
        specs = list(self._specs.values())
        same_name = sorted(
            (s for s in specs if s.namespace == namespace and s.name == name),
            key=lambda s: -1 if s.version is None else s.version,
        )
        listed: set[str] = set()
        if same_name:
            others = [s.id for s in same_name]
            listed.update(others)
            base = format_env_id(namespace, name, None)
            if version is None:
                message = (
                    f"environment {env_id!r} is not registered without a version; "
                    f"the registered versions are: {', '.join(others)} (ask for one of them)"
                )
            elif len(others) == 1:
                message = (
                    f"environment {env_id!r} is not registered: version v{version} of "
                    f"{base!r} does not exist, only {others[0]!r} does"
                )
            else:
                message = (
                    f"environment {env_id!r} is not registered: version v{version} of "
                    f"{base!r} does not exist; the registered versions are: {', '.join(others)}"
                )
        elif namespace is not None and not any(s.namespace == namespace for s in specs):
            known = sorted({s.namespace for s in specs if s.namespace is not None})
            message = (
                f"environment {env_id!r} is not registered: namespace {namespace!r} is unknown "
                "(no registered environment, namespace loader or plugin provides it)"
            )
            close = _close_matches(namespace, known)
            if close:
                message += f"; did you mean namespace {' or '.join(map(repr, close))}?"
            elif known:
                message += f"; known namespaces: {', '.join(known)}"
        elif namespace is not None:
            message = f"environment {env_id!r} is not registered in namespace {namespace!r}"
        else:
            message = f"environment {env_id!r} is not registered"
        candidates = [
            s.id for s in specs if s.name == name and s.namespace != namespace
        ] + _close_ids(env_id, [s.id for s in specs])
        close = [s for s in dict.fromkeys(candidates) if s not in listed][:5]
        if close:
            message += f"; close matches: {', '.join(map(repr, close))}"
        if self._failures:
            failed = "; ".join(f"{label}: {error}" for label, error in self._failures.items())
            message += f" (note: these plugins failed to load: {failed})"
        return message, [s.id for s in same_name] + close


def _close_matches(word: str, candidates: list[str]) -> list[str]:
    import difflib  # only needed to word an error

    return difflib.get_close_matches(word, candidates, n=3, cutoff=0.6)


def _close_ids(env_id: str, ids: list[str]) -> list[str]:
    """Registered ids close to ``env_id``, ignoring case."""
    by_lower: dict[str, str] = {}
    for candidate in ids:
        by_lower.setdefault(candidate.lower(), candidate)
    close = _close_matches(env_id.lower(), list(by_lower))
    return [by_lower[c] for c in close]


#: The registry the module-level functions of `sekai.registry` act on; it loads
#: plugins from the ``sekai.envs`` entry-point group.
default_registry = EnvRegistry(entry_point_group=ENTRY_POINT_GROUP)


def current_registry() -> EnvRegistry:
    """Return the registry the module-level functions act on.

    That is `default_registry`, except while a loader of another registry runs
    (then that registry).
    """
    registry = _LOADING.get()
    return default_registry if registry is None else registry
