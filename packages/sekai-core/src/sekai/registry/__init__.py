"""The environment registry: versioned ids, specs, `make`, `make_vec` and plugins.

Environments are registered under ids of the form ``[namespace/]Name[-vN]`` and
built with `make` (one env) or `make_vec` (a vector env of N copies). The
module-level functions act on one global `EnvRegistry` (`default_registry`), which
also finds environments of installed plugin distributions through the
``sekai.envs`` entry-point group; create an `EnvRegistry` of your own for an
isolated registry, e.g. in tests.

sekai 0.2's module paths ``sekai.registry.registry`` (these functions and
`EnvRegistry`) and ``sekai.registry.spec`` (`EnvSpec`, `WrapperSpec`,
``ENV_ID_RE``) are thin re-export modules of this package and of
``sekai.registry.env_spec``.

Examples:
    >>> from sekai.registry import EnvRegistry
    >>> registry = EnvRegistry()
    >>> registry.register("demo/Counter-v0", entry_point=dict, kwargs={"start": 0}).name
    'Counter'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, overload

from sekai import _aliases
from sekai.registry._make_vec import VectorizationMode
from sekai.registry._plugins import ENTRY_POINT_GROUP
from sekai.registry.env_registry import EnvRegistry, current_registry, default_registry
from sekai.registry.env_spec import EnvSpec, WrapperSpec

if TYPE_CHECKING:
    # For annotations only: importing them would load numpy (sekai.core) and
    # sekai-vector, which the registry needs only once an env is made.
    from sekai.core import Env
    from sekai.vector import VecEnv

__all__ = [
    "ENTRY_POINT_GROUP",
    "EnvRegistry",
    "EnvSpec",
    "VectorizationMode",
    "WrapperSpec",
    "all_specs",
    "default_registry",
    "deregister",
    "make",
    "make_vec",
    "pprint_registry",
    "register",
    "register_namespace",
    "spec",
]


def register(id: str, entry_point: str | Callable[..., Any], **kwargs: Any) -> EnvSpec:
    """Register an environment with the global registry and return its spec.

    Args:
        id: The id, of the form ``[namespace/]Name[-vN]`` (e.g. ``"qc/Market-v0"``).
        entry_point: The env class or factory, or ``"package.module:attr"`` naming
            it; a string is imported the first time the env is made.
        **kwargs: The other `EnvSpec` fields: ``reward_threshold``,
            ``nondeterministic``, ``max_episode_steps``, ``kwargs``,
            ``additional_wrappers``, ``vector_entry_point``, ``per_env_kwargs``
            (the constructor kwargs `make_vec` gives one value per sub-env,
            e.g. ``per_env_kwargs={"sampler": "my_pkg.sampling:spawn_each"}``
            with ``spawn_each(value, num_envs)`` returning the ``num_envs``
            values; see `EnvSpec`).

    Raises:
        ValueError: If the id or an entry point is malformed.
        sekai.error.EnvAlreadyRegistered: If the id is already registered.
    """
    return current_registry().register(id, entry_point, **kwargs)


# make and make_vec keep 0.2's run-time signature (``-> Any``); the overloads
# (one per kind of id) are what type checkers see, so callers get an Env /
# VecEnv. An id that names a MultiAgentEnv needs a cast.
@overload
def make(id: str, *, max_episode_steps: int | None = None, **kwargs: Any) -> Env[Any, Any]: ...
@overload
def make(id: EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any) -> Env[Any, Any]: ...
def make(id: str | EnvSpec, *, max_episode_steps: int | None = None, **kwargs: Any) -> Any:
    """Build an environment from its id (looked up in the global registry) or spec.

    The entry point is called with the registered kwargs updated by ``kwargs``.
    A single-agent env is wrapped in ``OrderEnforcing`` (``step()`` before
    ``reset()`` raises `sekai.error.ResetRequired`), then, if there is a time
    limit, in `sekai.core.TimeLimit`, then in the spec's
    ``additional_wrappers``, in order (so they see the truncation). The
    returned env's ``spec`` (set on the innermost env, and read through every
    wrapper) is a copy of the registered spec holding the kwargs and the
    ``max_episode_steps`` actually used.

    Args:
        id: A registered id or an `EnvSpec` (used as it is, without lookup).
        max_episode_steps: Overrides the registered time limit; ``-1`` removes
            it. It is never passed to the env's constructor.
        **kwargs: Keyword arguments for the env's constructor.

    Raises:
        ValueError: If the id is malformed or ``max_episode_steps`` invalid.
        sekai.error.EnvNotFound: If the id is not registered (the message
            suggests close ids and lists the versions that exist).
        sekai.error.NotAnEnv: If the entry point returns something that is
            not a `sekai.core.Env` or `sekai.core.MultiAgentEnv` (the message
            names the id, the entry point and what it returned).
    """
    return current_registry().make(id, max_episode_steps=max_episode_steps, **kwargs)


@overload
def make_vec(
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
    id: str | EnvSpec,
    num_envs: int = 1,
    *,
    vectorization_mode: VectorizationMode | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Callable[[Any], Any]] = (),
    batch_size: int | None = None,
    **env_kwargs: Any,
) -> Any:
    """Build a vector environment of ``num_envs`` copies of a registered env.

    Modes:

    * ``"native"`` (alias ``"vector_entry_point"``): the spec's
      ``vector_entry_point`` is called as ``factory(num_envs=num_envs, **kwargs)``,
      where ``kwargs`` are the registered kwargs updated by ``env_kwargs``, plus
      ``vector_kwargs``, plus ``max_episode_steps`` when there is a time limit.
      There are no per-env objects, so ``wrappers`` or the spec's
      ``additional_wrappers`` raise ValueError.
    * ``"sync"``, ``"async"``, ``"proc"``, ``"ray"``: ``SyncVecEnv``,
      ``AsyncVecEnv``, ``ProcVecEnv`` or ``RayVecEnv`` from `sekai.vector`
      (distribution ``sekai-vector``; ``proc`` needs ``sekai-vector[proc]``,
      ``ray`` needs ``sekai-vector[ray]``), imported now and called as
      ``VecEnvClass(env_fns, **vector_kwargs)``. Each ``env_fns[i]`` builds its
      sub-env with `make` (time limit and additional wrappers included), then
      applies ``wrappers`` in order. Without the distribution, ImportError names
      what to install. For ``"proc"`` without ``num_workers`` in
      ``vector_kwargs``, ``num_workers`` is the number of CPUs this process may
      run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count()``),
      at most ``num_envs``: more worker processes than CPUs only take turns.
      ``ProcVecEnv``'s own default (one process per sub-env) is unchanged.
    * ``None``: ``"native"`` when the spec has a ``vector_entry_point`` and no
      per-env wrappers apply (neither ``wrappers`` nor ``additional_wrappers``),
      else ``"sync"``.

    Per-sub-env kwargs: every sub-env receives the same kwargs objects, except
    those the spec names in ``per_env_kwargs``: the value of each such kwarg
    (registered or given here) goes through its splitter,
    ``splitter(value, num_envs)``, called once, here, and sub-env ``i`` of
    ``sync``/``async``/``proc``/``ray`` receives the ``i``-th value returned
    (e.g. the market envs of ``sekai-envs`` give each sub-env its own
    ``sampler.spawn()`` of an episode sampler). The native implementation
    receives the value itself and makes its per-sub-env values likewise.

    The vector env gets a ``spec`` attribute: a copy of the spec with the kwargs
    and time limit used.

    Args:
        id: A registered id or an `EnvSpec`.
        num_envs: The number of sub-environments (>= 1).
        vectorization_mode: See above.
        vector_kwargs: Keyword arguments for the vector env's constructor (e.g.
            ``autoreset``; ``num_workers``, ``shared_memory`` for ``"proc"``;
            ``num_workers``, ``num_cpus`` for ``"ray"``). The
            time limit is not one of them: ``max_episode_steps`` here raises
            ValueError.
        wrappers: A sequence of callables applied in order to each sub-env.
        batch_size: How many sub-envs ``recv()`` hands back (partial batches,
            see `sekai.vector.VecEnv.send`); ``None`` keeps the backend's
            default (every sub-env). Passed to the sync, async, proc and ray
            backends; a native vector env only takes ``num_envs``.
        **env_kwargs: Keyword arguments for every sub-env (``max_episode_steps``
            overrides the time limit as in `make`; ``-1`` removes it).
    """
    return current_registry().make_vec(
        id,
        num_envs,
        vectorization_mode=vectorization_mode,
        vector_kwargs=vector_kwargs,
        wrappers=wrappers,
        batch_size=batch_size,
        **env_kwargs,
    )


def spec(id: str) -> EnvSpec:
    """The spec registered under ``id`` in the global registry.

    Raises:
        sekai.error.EnvNotFound: If ``id`` is not registered.
    """
    return current_registry().spec(id)


def all_specs() -> list[EnvSpec]:
    """Every spec of the global registry (after loading every plugin and namespace)."""
    return current_registry().all_specs()


def deregister(id: str) -> None:
    """Remove an environment from the global registry.

    Raises:
        sekai.error.EnvNotFound: If ``id`` is not registered.
    """
    current_registry().deregister(id)


def register_namespace(namespace: str, loader: Callable[[], Any]) -> None:
    """Register a lazy loader for ``namespace`` on the global registry.

    ``loader()`` runs once, the first time an id of the namespace is looked up,
    never now: ``register_namespace("qc", lambda: import_module("qc.envs"))``
    defers importing ``qc.envs`` until ``make("qc/...")``.
    """
    current_registry().register_namespace(namespace, loader)


def pprint_registry() -> None:
    """Print every registered environment of the global registry, by namespace."""
    print(current_registry().pprint())


_aliases.install(__name__, _aliases.CORE_ALIASES)
