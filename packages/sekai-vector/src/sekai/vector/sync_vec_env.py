"""SyncVecEnv: sub-envs stepped one after another in this process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sekai.core import ActType, Env, InfoDict, ObsType, StepResult
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import per_env_options, per_env_seeds
from sekai.vector._autoreset import FINAL_OBSERVATION, autoreset_info, copy_observation
from sekai.vector._env_list import EnvListVecEnv
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["SyncVecEnv"]

_float64 = np.float64
_bool = np.bool_
_array = np.array
_zeros = np.zeros


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
        TypeError: ``env_fns`` is not a sequence of callables, one returned
            something that is not an Env, or ``autoreset`` / ``copy`` is not a
            bool.
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
        if not isinstance(copy, bool):
            raise TypeError(f"SyncVecEnv: copy must be a bool, got {copy!r}")
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
        results = [env.reset(seed=seeds[i], options=opts[i]) for i, env in enumerate(self.envs)]
        self._frozen.clear()
        self._needs_reset = False
        return VecResetResult(
            self._stack([result.observation for result in results]),
            [result.info for result in results],
        )

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env (see :meth:`VecEnv.step <sekai.vector.VecEnv.step>`)."""
        if self._needs_reset or self._closed:
            raise self._not_ready()
        per_env = self._split_actions(actions)
        if self._frozen.any:
            return self._step_with_frozen(per_env)
        results = [env.step(action) for env, action in zip(self.envs, per_env, strict=True)]
        terminated = [result.terminated for result in results]
        truncated = [result.truncated for result in results]
        rewards = _array([result.reward for result in results], _float64)
        if True in terminated or True in truncated:
            observations, infos = self._end_episodes(results)
            return VecStepResult(
                self._stack(observations),
                rewards,
                _array(terminated, _bool),
                _array(truncated, _bool),
                infos,
            )
        n = self.num_envs
        return VecStepResult(
            self._stack([result.observation for result in results]),
            rewards,
            _zeros(n, _bool),
            _zeros(n, _bool),
            [result.info for result in results],
        )

    def _end_episodes(self, results: list[StepResult[Any]]) -> tuple[list[Any], list[InfoDict]]:
        """Autoreset (or freeze) the sub-envs whose episode ended; their observations and infos."""
        observations = [result.observation for result in results]
        infos = [result.info for result in results]
        autoreset = self.autoreset
        for i, result in enumerate(results):
            if (result.terminated or result.truncated) and FINAL_OBSERVATION not in result.info:
                if autoreset:
                    final_observation = copy_observation(result.observation)
                    final_info = dict(result.info)
                    reset = self.envs[i].reset()
                    infos[i] = autoreset_info(final_info, final_observation, reset.info)
                    observations[i] = reset.observation
                else:
                    self._frozen.freeze(i, result.observation, result.terminated, result.truncated)
        return observations, infos

    def _step_with_frozen(self, per_env: list[Any]) -> VecStepResult[Any]:
        """A step while some sub-envs are frozen (autoreset off): only the others move."""
        frozen = self._frozen
        n = self.num_envs
        observations = list(frozen.observations)
        rewards = [0.0] * n
        terminated = list(frozen.terminated)
        truncated = list(frozen.truncated)
        infos: list[InfoDict] = [{} for _ in range(n)]
        mask = frozen.mask.tolist()
        for i, env in enumerate(self.envs):
            if mask[i]:
                continue
            result = env.step(per_env[i])
            observations[i] = result.observation
            rewards[i] = result.reward
            terminated[i] = result.terminated
            truncated[i] = result.truncated
            infos[i] = result.info
            if (result.terminated or result.truncated) and FINAL_OBSERVATION not in result.info:
                frozen.freeze(i, result.observation, result.terminated, result.truncated)
        return VecStepResult(
            self._stack(observations),
            _array(rewards, _float64),
            _array(terminated, _bool),
            _array(truncated, _bool),
            infos,
        )
