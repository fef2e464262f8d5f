"""NormalizeReward: scale rewards by the running std of the discounted return."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sekai.core import ActType, Env, ObsType, ResetResult, StepResult, Wrapper
from sekai.utils.running_stats import RunningMeanStd
from sekai.utils.seeding import SeedType
from sekai.wrappers._checks import check_real

__all__ = ["NormalizeReward"]


class NormalizeReward(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Scales rewards by a running estimate of the standard deviation of the discounted return.

    As in OpenAI baselines' ``VecNormalize``: the wrapper keeps the discounted
    return ``G = gamma * G + r`` of the current episode, feeds it to a
    :class:`~sekai.utils.RunningMeanStd` (:attr:`return_rms`) and returns
    ``r / sqrt(var(G) + epsilon)``. The mean is not subtracted, only the
    scale changes, so the sign of every reward is kept. ``G`` restarts at 0
    after every step that ends an episode (and on :meth:`reset`), so the
    wrapper works on either side of ``AutoReset``.

    Set :attr:`update_running_mean` to ``False`` to freeze the statistics;
    :meth:`state_dict` / :meth:`load_state_dict` save and restore them.

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
        g = check_real(gamma, "NormalizeReward", "gamma")
        eps = check_real(epsilon, "NormalizeReward", "epsilon")
        if not 0.0 <= g <= 1.0:
            raise ValueError(f"NormalizeReward: gamma must be in [0, 1], got {gamma!r}")
        if not 0.0 <= eps < math.inf:
            raise ValueError(f"NormalizeReward: epsilon must be finite and >= 0, got {epsilon!r}")
        super().__init__(env)
        self.gamma = g
        self.epsilon = eps
        self.update_running_mean = True
        self.return_rms = RunningMeanStd(shape=())
        self._return = 0.0
        self._zero = np.zeros((), dtype=np.float64)

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env and the discounted return."""
        self._return = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the wrapped env and scale the reward."""
        return self._scale(self.env.step(action))

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of :meth:`reset`."""
        self._return = 0.0
        return await self.env.async_reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of :meth:`step`."""
        return self._scale(await self.env.async_step(action))

    def state_dict(self) -> dict[str, Any]:
        """The return statistics as plain data (see :meth:`RunningMeanStd.state_dict`)."""
        return self.return_rms.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by :meth:`state_dict`."""
        self.return_rms.load_state_dict(state)

    def _scale(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
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
