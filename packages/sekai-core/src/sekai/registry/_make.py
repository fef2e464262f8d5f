"""Building one environment from its spec: entry point, time limit, wrappers."""

from __future__ import annotations

import contextlib
import dataclasses
import reprlib
from typing import TYPE_CHECKING, Any

from sekai._internal.validation import is_int
from sekai.error import NotAnEnv
from sekai.registry._loading import callable_name, load_reference

if TYPE_CHECKING:
    from sekai.core import TimeLimit
    from sekai.registry.env_spec import EnvSpec

__all__ = ["attach_spec", "check_made_env", "close_quietly", "make_env", "resolve_time_limit"]


def resolve_time_limit(spec: EnvSpec, max_episode_steps: int | None) -> int | None:
    """The time limit to apply: the registered one, an override, or none (``-1``).

    Raises:
        ValueError: If the override is not None, -1 or an int >= 1.
    """
    if max_episode_steps is None:
        return spec.max_episode_steps
    if not is_int(max_episode_steps) or (max_episode_steps < 1 and max_episode_steps != -1):
        raise ValueError(
            "max_episode_steps must be None (keep the registered limit), -1 (no limit) "
            f"or an int >= 1; got {max_episode_steps!r}"
        )
    return None if max_episode_steps == -1 else int(max_episode_steps)


def attach_spec(env: Any, spec: EnvSpec) -> None:
    """Set ``spec`` on the innermost env and make sure the outermost object reads it.

    Wrappers forward ``spec`` to the env they wrap, so setting it on the unwrapped env
    is normally enough; an outer object that does not forward it gets it set too.
    """
    inner = getattr(env, "unwrapped", env)
    inner.spec = spec
    if getattr(env, "spec", None) is not spec:
        env.spec = spec


def _time_limit() -> type[TimeLimit[Any, Any]]:
    # Imported at call time: registering and looking up envs stays free of
    # sekai.core's imports (numpy) until an env is actually made.
    from sekai.core import TimeLimit

    return TimeLimit


def _enforce_order_and_limit(env: Any, limit: int | None) -> Any:
    """Wrap a single-agent env in OrderEnforcing, then in TimeLimit if there is a limit.

    A MultiAgentEnv only gets the time limit, which then fails with the
    wrapper's clear error.
    """
    from sekai.core import Env
    from sekai.core.order_enforcing import OrderEnforcing

    if isinstance(env, Env):
        env = OrderEnforcing(env)
    if limit is not None:
        env = _time_limit()(env, limit)
    return env


def make_env(spec: EnvSpec, max_episode_steps: int | None, kwargs: dict[str, Any]) -> Any:
    """Build the environment ``spec`` describes.

    The order is: the entry point called with the registered kwargs updated by
    ``kwargs``; then, for a single-agent env, ``OrderEnforcing`` (so that
    ``step()`` before ``reset()`` raises `sekai.error.ResetRequired`, as in
    sekai 0.2); then `sekai.core.TimeLimit` if there is a limit; then each of
    ``spec.additional_wrappers`` in order. The env gets a copy of ``spec`` whose
    ``kwargs`` and ``max_episode_steps`` are the ones actually used. If a wrapper
    cannot be loaded or applied, the env built so far is closed before the error
    propagates.

    Raises:
        sekai.error.NotAnEnv: The entry point returned something that is not a
            `sekai.core.Env` or `sekai.core.MultiAgentEnv` (it is closed first).
    """
    if spec.entry_point is None:
        hint = (
            "it only has a native vector implementation: build it with make_vec"
            if spec.vector_entry_point is not None
            else "specs read with EnvSpec.from_json lose callable entry points"
        )
        raise ValueError(
            f"environment {spec.id!r} cannot be made: its spec has no entry_point "
            f"(a callable or a 'package.module:attr' string); {hint}"
        )
    limit = resolve_time_limit(spec, max_episode_steps)
    creator = load_reference(spec.entry_point, f"entry point of {spec.id!r}")
    env_kwargs = {**spec.kwargs, **kwargs}
    env = check_made_env(
        creator(**env_kwargs),
        f"the entry point of {spec.id!r} ({callable_name(spec.entry_point)})",
        multi_agent=True,
    )
    try:
        env = _enforce_order_and_limit(env, limit)
        for wrapper_spec in spec.additional_wrappers:
            wrapper = load_reference(
                wrapper_spec.entry_point, f"wrapper {wrapper_spec.name!r} of {spec.id!r}"
            )
            env = wrapper(env, **wrapper_spec.kwargs)
        attach_spec(env, dataclasses.replace(spec, kwargs=env_kwargs, max_episode_steps=limit))
    except BaseException:
        close_quietly(env)
        raise
    return env


def check_made_env(env: object, what: str, *, multi_agent: bool = False) -> Any:
    """Return ``env`` if an env factory returned an environment; else close it and raise.

    The one check of every factory sekai calls for an env: `make`'s entry
    points and the vector envs' ``env_fns``.

    Args:
        env: What the factory returned.
        what: Names the factory in the message (``"SyncVecEnv: env_fns[1]"``,
            ``"the entry point of 'Env-v0' (pkg.mod:make)"``).
        multi_agent: Whether a `sekai.core.MultiAgentEnv` is accepted too.

    Raises:
        sekai.error.NotAnEnv: ``env`` is not a `sekai.core.Env` (nor, when
            accepted, a `sekai.core.MultiAgentEnv`); it was closed first when it
            has a ``close`` method.
    """
    from sekai.core import Env, MultiAgentEnv

    if isinstance(env, Env) or (multi_agent and isinstance(env, MultiAgentEnv)):
        return env
    close_quietly(env)
    expected = "a sekai.core.Env or MultiAgentEnv" if multi_agent else "a sekai.core.Env"
    kind = type(env)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    raise NotAnEnv(f"{what} must return {expected}; it returned {reprlib.repr(env)} (a {name})")


def close_quietly(env: Any) -> None:
    """Close an env that will not be returned (a wrapper around it failed).

    The error being raised is the one that matters, so one from ``close`` is dropped.
    """
    close = getattr(env, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()
