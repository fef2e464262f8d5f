"""What the in-process backends (Sync, Async) share: a list of sub-env objects."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from sekai.core import ActType, Env, ObsType, Wrapper
from sekai.error import ResetRequired, SpaceMismatch, VecEnvClosed
from sekai.vector._actions import make_action_splitter
from sekai.vector._arguments import per_env_values
from sekai.vector._autoreset import FrozenEnvs
from sekai.vector._obs_batch import make_obs_stacker
from sekai.vector.vec_env import VecEnv

__all__ = ["EnvListVecEnv", "build_envs", "close_all"]


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


def build_envs(
    env_fns: Sequence[Callable[[], Env[ObsType, ActType]]], owner: str
) -> list[Env[ObsType, ActType]]:
    """Call every factory; if one fails, close the envs already built and re-raise."""
    fns: object = env_fns
    if isinstance(fns, (str, bytes)) or not isinstance(fns, Sequence):
        raise TypeError(
            f"{owner}: env_fns must be a sequence of callables that build an env, got {env_fns!r}"
        )
    if len(env_fns) == 0:
        raise ValueError(f"{owner}: env_fns must hold at least one env factory, got {env_fns!r}")
    for fn in env_fns:
        if not callable(fn):
            raise TypeError(f"{owner}: every entry of env_fns must be callable, got {fn!r}")
    envs: list[Env[ObsType, ActType]] = []
    try:
        for i, fn in enumerate(env_fns):
            env: object = fn()
            if not isinstance(env, Env):
                closer = getattr(env, "close", None)
                if callable(closer):
                    closer()
                raise TypeError(f"{owner}: env_fns[{i}] must return a sekai.core.Env, got {env!r}")
            envs.append(env)
        observation_space, action_space = envs[0].observation_space, envs[0].action_space
        for i, env in enumerate(envs[1:], start=1):
            if env.observation_space != observation_space:
                raise SpaceMismatch(
                    f"{owner}: every sub-env must have the same observation space; sub-env 0 "
                    f"has {observation_space!r}, sub-env {i} has {env.observation_space!r}"
                )
            if env.action_space != action_space:
                raise SpaceMismatch(
                    f"{owner}: every sub-env must have the same action space; sub-env 0 "
                    f"has {action_space!r}, sub-env {i} has {env.action_space!r}"
                )
    except BaseException:
        with contextlib.suppress(Exception):  # the construction error is the one to report
            close_all(envs)
        raise
    return envs


def _read(env: Env[Any, Any], name: str) -> Any:
    if isinstance(env, Wrapper):
        return env.get_attr(name)
    return getattr(env, name)


def _write(env: Env[Any, Any], name: str, value: Any) -> None:
    if isinstance(env, Wrapper):
        env.set_attr(name, value)
        return
    if not hasattr(env, name):
        raise AttributeError(f"{env} has no attribute {name!r} to set")
    setattr(env, name, value)


class EnvListVecEnv(VecEnv[ObsType, ActType]):
    """A vector env over a list of sub-env objects living in this process.

    Holds the sub-envs, the per-space helpers (action splitter, observation
    stacker), the frozen-env state and the attribute access that
    :class:`~sekai.vector.SyncVecEnv` and :class:`~sekai.vector.AsyncVecEnv`
    share.

    Attributes:
        envs: The sub-environments (read-only use: replacing them breaks the
            vector env's bookkeeping).
        autoreset: Whether finished sub-envs are reset within the step.
    """

    def __init__(
        self, env_fns: Sequence[Callable[[], Env[ObsType, ActType]]], *, autoreset: bool
    ) -> None:
        owner = type(self).__name__
        if not isinstance(autoreset, bool):
            raise TypeError(f"{owner}: autoreset must be a bool, got {autoreset!r}")
        self._closed = True  # until construction succeeds
        self.envs: list[Env[ObsType, ActType]] = build_envs(env_fns, owner)
        self.num_envs = len(self.envs)
        first = self.envs[0]
        self.observation_space = first.observation_space
        self.action_space = first.action_space
        self.metadata = first.metadata
        self.autoreset = autoreset
        self._split_actions = make_action_splitter(self.action_space, self.num_envs)
        self._stack = make_obs_stacker(self.observation_space, self.num_envs)
        self._frozen = FrozenEnvs(self.num_envs)
        self._needs_reset = True
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def _not_ready(self) -> Exception:
        """The error for a step() that cannot run (closed, or never reset)."""
        if self._closed:
            return VecEnvClosed(f"{self!r} is closed")
        return ResetRequired(f"{self!r}: call reset() before step()")

    def _check_open(self) -> None:
        if self._closed:
            raise VecEnvClosed(f"{self!r} is closed")

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env (or read it, if it is not callable)."""
        self._check_open()
        results = []
        for env in self.envs:
            value = _read(env, method)
            results.append(value(*args, **kwargs) if callable(value) else value)
        return results

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack."""
        self._check_open()
        return [_read(env, name) for env in self.envs]

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it."""
        self._check_open()
        for env, value in zip(self.envs, per_env_values(values, self.num_envs, name), strict=True):
            _write(env, name, value)

    def close(self) -> None:
        """Close every sub-env; the first error is re-raised after all are closed."""
        if self._closed:
            return
        self._closed = True
        close_all(self.envs)
