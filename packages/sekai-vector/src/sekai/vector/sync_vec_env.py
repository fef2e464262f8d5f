"""SyncVecEnv: sub-envs stepped one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sekai.core import ActType, Env, ObsType
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import per_env_options, per_env_seeds
from sekai.vector._autoreset import FINAL_OBSERVATION, autoreset_info
from sekai.vector._env_list import EnvListVecEnv
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["SyncVecEnv"]

_float64 = np.float64
_bool = np.bool_


class SyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments sequentially, in this process.

    The right backend for fast environments, where the cost of sending work to
    other processes would exceed the work itself. For CPU-heavy simulators use
    ``ProcVecEnv``; for environments that wait on I/O use
    :class:`~sekai.vector.AsyncVecEnv`.

    Observations of array spaces are written straight into the rows of one
    newly allocated batch per step (Dict / Tuple observations leaf by leaf),
    and the shape of the action batch is checked before any sub-env moves.

    Args:
        env_fns: One callable per sub-env, each returning a new
            :class:`~sekai.core.Env`. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see :class:`~sekai.vector.VecEnv`); ``False`` freezes them
            instead.
        copy: Accepted for compatibility and ignored: every batch of
            observations is a new array already.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, or one returned
            something that is not an Env.
        ValueError: ``env_fns`` is empty.
        SpaceMismatch: The sub-envs do not all have the same spaces.

    Example:
        >>> vec = SyncVecEnv([make_env] * 4)  # doctest: +SKIP
        >>> result = vec.reset(seed=42)  # doctest: +SKIP
        >>> result = vec.step(vec.batch_action_space.sample())  # doctest: +SKIP
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        copy: bool = True,
    ) -> None:
        super().__init__(env_fns, autoreset=autoreset)
        self.copy = copy

    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env (see :meth:`VecEnv.reset <sekai.vector.VecEnv.reset>`)."""
        self._check_open()
        n = self.num_envs
        seeds = per_env_seeds(seed, n)
        opts = per_env_options(options, n)
        batcher = self._batcher
        batch = batcher.new()
        write = batcher.write
        infos = []
        for i, env in enumerate(self.envs):
            result = env.reset(seed=seeds[i], options=opts[i])
            write(batch, i, result.observation)
            infos.append(result.info)
        self._frozen.clear()
        self._needs_reset = False
        return VecResetResult(batcher.finish(batch), infos)

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env (see :meth:`VecEnv.step <sekai.vector.VecEnv.step>`)."""
        if self._needs_reset or self._closed:
            raise self._not_ready()
        per_env = self._split_actions(actions)
        batcher = self._batcher
        batch = batcher.new()
        write = None if batcher.is_array else batcher.write
        frozen = self._frozen
        autoreset = self.autoreset
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        for i, env in enumerate(self.envs):
            if frozen.any and frozen.mask[i]:
                obs = frozen.observations[i]
                rewards.append(0.0)
                terminated.append(frozen.terminated[i])
                truncated.append(frozen.truncated[i])
                infos.append({})
            else:
                result = env.step(per_env[i])
                obs = result.observation
                info = result.info
                if (result.terminated or result.truncated) and FINAL_OBSERVATION not in info:
                    if autoreset:
                        reset = env.reset()
                        info = autoreset_info(info, obs, reset.info)
                        obs = reset.observation
                    else:
                        frozen.freeze(i, obs, result.terminated, result.truncated)
                rewards.append(result.reward)
                terminated.append(result.terminated)
                truncated.append(result.truncated)
                infos.append(info)
            if write is None:
                batch[i] = obs
            else:
                write(batch, i, obs)
        return VecStepResult(
            batcher.finish(batch),
            np.array(rewards, dtype=_float64),
            np.array(terminated, dtype=_bool),
            np.array(truncated, dtype=_bool),
            infos,
        )
