"""ClipReward: clip rewards into a range."""

from __future__ import annotations

import math

from sekai._internal.validation import check_real
from sekai.core import ActType, Env, ObsType, RewardWrapper

__all__ = ["ClipReward"]


class ClipReward(RewardWrapper[ObsType, ActType]):
    """Clips every reward to ``[min_reward, max_reward]``.

    A bound that is ``None`` or infinite is no bound; with no bound at all the
    wrapper passes rewards through unchanged (as a float), as sekai 0.2 did.

    Args:
        env: The environment to wrap.
        min_reward: Lower bound (``None`` or ``-inf``: none).
        max_reward: Upper bound (``None`` or ``inf``: none).

    Attributes:
        min_reward: The lower bound as a float (``-inf`` when there is none).
        max_reward: The upper bound as a float (``inf`` when there is none).

    Raises:
        TypeError: A bound is neither a real number nor ``None``.
        ValueError: ``min_reward > max_reward``.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_reward: float | None = -math.inf,
        max_reward: float | None = math.inf,
    ) -> None:
        low = (
            -math.inf
            if min_reward is None
            else check_real(min_reward, "ClipReward: min_reward", finite=False)
        )
        high = (
            math.inf
            if max_reward is None
            else check_real(max_reward, "ClipReward: max_reward", finite=False)
        )
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
