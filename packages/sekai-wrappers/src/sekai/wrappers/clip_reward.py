"""ClipReward: clip rewards into a range."""

from __future__ import annotations

import math

from sekai._validation import check_real
from sekai.core import ActType, Env, ObsType, RewardWrapper

__all__ = ["ClipReward"]


class ClipReward(RewardWrapper[ObsType, ActType]):
    """Clips every reward to ``[min_reward, max_reward]``.

    Args:
        env: The environment to wrap.
        min_reward: Lower bound (``-inf``: none).
        max_reward: Upper bound (``inf``: none).

    Raises:
        TypeError: A bound is not a real number.
        ValueError: Both bounds are infinite (nothing to clip), or
            ``min_reward > max_reward``.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_reward: float = -math.inf,
        max_reward: float = math.inf,
    ) -> None:
        low = check_real(min_reward, "ClipReward: min_reward", finite=False)
        high = check_real(max_reward, "ClipReward: max_reward", finite=False)
        if low == -math.inf and high == math.inf:
            raise ValueError("ClipReward: give a finite min_reward or max_reward, got neither")
        if low > high:
            raise ValueError(
                f"ClipReward: min_reward must be <= max_reward, got min_reward={min_reward!r}, "
                f"max_reward={max_reward!r}"
            )
        super().__init__(env)
        self.min_reward = low
        self.max_reward = high

    def reward(self, reward: float) -> float:
        """Clip one reward."""
        return min(max(float(reward), self.min_reward), self.max_reward)
