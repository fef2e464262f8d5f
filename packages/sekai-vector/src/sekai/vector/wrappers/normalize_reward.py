"""VecNormalizeReward: scale rewards by the std of each sub-env's discounted return."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from sekai._internal.validation import check_real
from sekai.core import ActType, ObsType
from sekai.utils.running_stats import RunningMeanStd
from sekai.vector.results import VecResetResult, VecStepResult, step_result_like
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers.base import VecWrapper

if TYPE_CHECKING:
    pass

__all__ = ["VecNormalizeReward"]


class VecNormalizeReward(VecWrapper[ObsType, ActType, ObsType, ActType]):
    """Scales rewards by a running estimate of the std of the discounted return.

    The vector form of ``NormalizeReward`` (the reward scaling of OpenAI
    baselines' ``VecNormalize``): each sub-env keeps its discounted return
    ``G_i = gamma * G_i + r_i``; every step feeds the returns to one shared
    [`RunningMeanStd`][sekai.utils.running_stats.RunningMeanStd] (`return_rms`) and returns
    ``r / sqrt(var + epsilon)``. The mean is not subtracted, so signs are
    kept. A sub-env's return restarts at 0 when its episode ends; a sub-env
    frozen without autoreset no longer updates the statistics until
    `reset`.

    Set `update_running_mean` to ``False`` to freeze the statistics;
    `state_dict` / `load_state_dict` save and restore them.

    Args:
        venv: The vector env to wrap.
        gamma: Discount factor, in ``[0, 1]``.
        epsilon: Added to the variance before the square root (>= 0).

    Attributes:
        update_running_mean: Whether rewards update the statistics.
        return_rms: The statistics of the discounted returns.

    Raises:
        TypeError: ``gamma`` or ``epsilon`` is not a real number.
        ValueError: ``gamma`` is outside ``[0, 1]`` or ``epsilon`` < 0.
    """

    def __init__(
        self, venv: VecEnv[ObsType, ActType], gamma: float = 0.99, epsilon: float = 1e-8
    ) -> None:
        g = check_real(gamma, "VecNormalizeReward: gamma", minimum=0, maximum=1)
        eps = check_real(epsilon, "VecNormalizeReward: epsilon", minimum=0)
        super().__init__(venv)
        self.gamma = g
        self.epsilon = eps
        self.update_running_mean = True
        self.return_rms = RunningMeanStd(shape=())
        self._returns = np.zeros(self.num_envs, dtype=np.float64)
        self._ignored = np.zeros(self.num_envs, dtype=bool)
        self._any_ignored = False

    def _restart(self) -> None:
        self._returns[:] = 0.0
        self._ignored[:] = False
        self._any_ignored = False

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        self._restart()
        return result

    def state_dict(self) -> dict[str, Any]:
        """The return statistics as plain data."""
        return self.return_rms.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by `state_dict`."""
        self.return_rms.load_state_dict(state)

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        rewards = result.rewards
        ids = result.env_ids  # None: every sub-env; else the rows of a partial batch
        returns = self._returns if ids is None else self._returns[ids]
        ignored = self._ignored if ids is None else self._ignored[ids]
        returns *= self.gamma
        returns += rewards
        done = np.logical_or(result.terminated, result.truncated)
        if self.update_running_mean:
            if self._any_ignored:
                self.return_rms.update(returns[~ignored])
            else:
                self.return_rms.update(returns)
        if done.any():
            if self._any_ignored:
                done &= ~ignored
            returns[done] = 0.0
            frozen = self.venv.frozen
            if frozen.any():  # frozen until reset(): their returns stay out of the statistics
                self._ignored[:] = frozen
                self._any_ignored = True
        if ids is not None:
            self._returns[ids] = returns
        scaled = rewards / np.sqrt(float(self.return_rms.var) + self.epsilon)
        return step_result_like(result, result.observations, scaled)
