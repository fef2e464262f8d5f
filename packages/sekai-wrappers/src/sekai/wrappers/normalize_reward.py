"""NormalizeReward: scale rewards by the running std of the discounted return."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sekai._internal.validation import check_real
from sekai.core import (
    ActType,
    Env,
    ObsType,
    ResetResult,
    SeedType as SeedType,
    StepResult,
    Wrapper,
)
from sekai.utils.running_stats import RunningMeanStd

__all__ = ["NormalizeReward"]


class NormalizeReward(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Scales rewards by a running estimate of the standard deviation of the discounted return.

    As in OpenAI baselines' ``VecNormalize``: the wrapper keeps the discounted
    return ``G = gamma * G + r`` of the current episode, feeds it to a
    [`RunningMeanStd`][sekai.utils.running_stats.RunningMeanStd] (`return_rms`) and returns
    ``r / sqrt(var(G) + epsilon)``. The mean is not subtracted, only the
    scale changes, so the sign of every reward is kept. ``G`` restarts at 0
    after every step that ends an episode (and on `reset`), so the
    wrapper works on either side of ``AutoReset``.

    Set `update_running_mean` to ``False`` to freeze the statistics;
    `state_dict` / `load_state_dict` save and restore them.

    Args:
        env: The environment to wrap.
        gamma: Discount factor of the return, in ``[0, 1]``.
        epsilon: Added to the variance before taking the square root (>= 0).

    Attributes:
        update_running_mean: Whether rewards update the statistics.

    Raises:
        TypeError: ``gamma`` or ``epsilon`` is not a real number.
        ValueError: ``gamma`` is outside ``[0, 1]`` or ``epsilon`` < 0.
    """

    def __init__(
        self, env: Env[ObsType, ActType], gamma: float = 0.99, epsilon: float = 1e-8
    ) -> None:
        g = check_real(gamma, "NormalizeReward: gamma", minimum=0, maximum=1)
        eps = check_real(epsilon, "NormalizeReward: epsilon", minimum=0)
        super().__init__(env)
        self.gamma = g
        self.epsilon = eps
        self.update_running_mean = True
        self.return_rms = RunningMeanStd(shape=())
        self._return = 0.0
        self._zero = np.zeros((), dtype=np.float64)

    def state_dict(self) -> dict[str, Any]:
        """The return statistics as plain data (see `RunningMeanStd.state_dict`)."""
        return self.return_rms.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by `state_dict`."""
        self.return_rms.load_state_dict(state)

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._return = 0.0
        return result

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        # Update the discounted return and its statistics, then scale the reward.
        reward = float(result.reward)
        self._return = self._return * self.gamma + reward
        rms = self.return_rms
        if self.update_running_mean:
            rms.update_from_moments(self._return, self._zero, 1)
        if result.terminated or result.truncated:
            self._return = 0.0
        scaled = reward / math.sqrt(float(rms.var) + self.epsilon)
        return StepResult(
            result.observation, scaled, result.terminated, result.truncated, result.info
        )
