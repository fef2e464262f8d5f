"""Sub-env helpers of every backend that holds env objects: build, close, reach attributes.

The in-process backends and the worker processes and actors of the others
build their sub-envs with `build_envs` (or one with `build_env`),
close them with `close_all`, and reach an attribute through a sub-env's
wrapper stack with `read_attr`, `write_attr` and
`call_attr`. sekai 0.2's ``sekai.vector.vec_env`` offered them as
``build_envs``, ``close_envs``, ``env_get_attr`` and ``env_set_attr``
(these functions) and ``env_call`` (`call_attr` with the arguments passed
as a tuple and a dict).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sekai.core import ActType, Env, ObsType, Wrapper
from sekai.error import SpaceMismatch
from sekai.registry._make import check_made_env
from sekai.spaces import Space
from sekai.vector._interrupts import exposed, protected

__all__ = [
    "build_env",
    "build_envs",
    "call_attr",
    "check_env_fns",
    "check_same_spaces",
    "close_all",
    "count_sub_envs",
    "env_call",
    "name_sub_envs",
    "read_attr",
    "write_attr",
]


def name_sub_envs(ids: Iterable[int]) -> str:
    """How a message names sub-envs: ``"sub-env 1"``, ``"sub-envs 1 and 3"``.

    Also ``"sub-envs 0, 2 and 5"``: a single id is named in the singular.
    """
    names = [str(int(i)) for i in ids]
    if len(names) == 1:
        return f"sub-env {names[0]}"
    return f"sub-envs {', '.join(names[:-1])} and {names[-1]}"


def count_sub_envs(count: int) -> str:
    """``"1 sub-env"``, ``"3 sub-envs"``."""
    return f"{count} sub-env{'' if count == 1 else 's'}"


def close_all(envs: Sequence[Env[Any, Any]]) -> None:
    """Close every env even if some raise; re-raise the first error at the end."""
    first: BaseException | None = None
    for env in envs:
        try:
            env.close()
        except BaseException as error:
            if first is None:
                first = error
    if first is not None:
        raise first


def build_env(
    fn: Callable[[], Env[ObsType, ActType]], owner: str, index: int
) -> Env[ObsType, ActType]:
    """Call one env factory; anything but an Env is closed (if it can be) and rejected."""
    return _checked_env(fn(), owner, index)


def _checked_env(env: object, owner: str, index: int) -> Env[Any, Any]:
    return check_made_env(env, f"{owner}: env_fns[{index}]")  # type: ignore[no-any-return]


def check_env_fns(env_fns: object, owner: str) -> Sequence[Callable[[], Any]]:
    """Return ``env_fns`` if it is a non-empty sequence of callables, else raise."""
    if isinstance(env_fns, (str, bytes)) or not isinstance(env_fns, Sequence):
        raise TypeError(
            f"{owner}: env_fns must be a sequence of callables that build an env, got {env_fns!r}"
        )
    if len(env_fns) == 0:
        raise ValueError(f"{owner}: env_fns must hold at least one env factory, got {env_fns!r}")
    for fn in env_fns:
        if not callable(fn):
            raise TypeError(f"{owner}: every entry of env_fns must be callable, got {fn!r}")
    return env_fns


def check_same_spaces(
    owner: str, spaces: Sequence[tuple[int, Space[Any], Space[Any]]]
) -> tuple[Space[Any], Space[Any]]:
    """The observation and action spaces shared by every ``(index, obs, act)`` entry, or raise."""
    _, observation_space, action_space = spaces[0]
    for index, obs_space, act_space in spaces[1:]:
        if obs_space != observation_space:
            raise SpaceMismatch(
                f"{owner}: every sub-env must have the same observation space; sub-env 0 "
                f"has {observation_space!r}, sub-env {index} has {obs_space!r}"
            )
        if act_space != action_space:
            raise SpaceMismatch(
                f"{owner}: every sub-env must have the same action space; sub-env 0 "
                f"has {action_space!r}, sub-env {index} has {act_space!r}"
            )
    return observation_space, action_space


def build_envs(
    env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
    owner: str = "build_envs",
    into: list[Env[ObsType, ActType]] | None = None,
) -> list[Env[ObsType, ActType]]:
    """Call every factory; if one fails, close the envs already built and re-raise.

    Args:
        env_fns: The factories.
        owner: Who builds them, for the error messages.
        into: A list of the caller's to append each env to as soon as its
            factory returns: the caller then owns every env built even if a
            Ctrl-C stops the construction half-way, and closes them if its
            own construction fails later. It is emptied if this fails.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, or a factory
            returned something that is not a ``sekai.core.Env``.
        ValueError: ``env_fns`` is empty.
        SpaceMismatch: The envs do not all have the same spaces.
    """
    check_env_fns(env_fns, owner)
    envs: list[Env[ObsType, ActType]] = [] if into is None else into
    try:
        _build_into(envs, env_fns, owner)
        check_same_spaces(
            owner, [(i, env.observation_space, env.action_space) for i, env in enumerate(envs)]
        )
    except BaseException:
        with contextlib.suppress(Exception):  # the construction error is the one to report
            close_all(envs)
        envs.clear()
        raise
    return envs


@protected
def _build_into(
    envs: list[Env[Any, Any]], env_fns: Sequence[Callable[[], Env[Any, Any]]], owner: str
) -> None:
    # Protected: an env is in ``envs`` as soon as its factory returns; only
    # the factories themselves can be interrupted.
    for i, fn in enumerate(env_fns):
        envs.append(_checked_env(exposed(fn), owner, i))


def read_attr(env: Env[Any, Any], name: str) -> Any:
    """Attribute ``name`` of ``env``: the outermost layer of its wrapper stack that has it."""
    if isinstance(env, Wrapper):
        return env.get_attr(name)
    return getattr(env, name)


def write_attr(env: Env[Any, Any], name: str, value: Any) -> None:
    """Set ``name`` on the outermost layer of ``env``'s wrapper stack that has it.

    Raises:
        AttributeError: No layer has the attribute.
    """
    if isinstance(env, Wrapper):
        env.set_attr(name, value)
        return
    if not hasattr(env, name):
        raise AttributeError(f"{env} has no attribute {name!r} to set")
    setattr(env, name, value)


def call_attr(env: Env[Any, Any], method: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``method`` of ``env`` (found as by `read_attr`); a non-callable is returned."""
    value = read_attr(env, method)
    return value(*args, **kwargs) if callable(value) else value


def env_call(
    env: Env[Any, Any],
    name: str,
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
) -> Any:
    """Call method ``name`` of ``env`` with ``*args`` and ``**kwargs`` (sekai 0.2's form).

    As `call_attr`: the method is found through the wrapper stack, and an
    attribute that is not callable is returned as it is.

    Raises:
        TypeError: ``args`` is not a list or tuple, or ``kwargs`` not a mapping.
    """
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"env_call: args must be a tuple or list, got {args!r}")
    if kwargs is not None and not isinstance(kwargs, Mapping):
        raise TypeError(f"env_call: kwargs must be a mapping or None, got {kwargs!r}")
    return call_attr(env, name, *args, **(kwargs or {}))
