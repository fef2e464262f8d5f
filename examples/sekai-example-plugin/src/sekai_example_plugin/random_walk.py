"""A one-asset trading environment on a Gaussian random walk."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, SeedType, StepResult
from sekai.spaces import Box, Discrete

__all__ = ["RandomWalkEnv"]


class RandomWalkEnv(Env[NDArray[np.float32], np.int64]):
    """Hold a short, flat or long position in an asset whose log-price is a random walk.

    Observation: the last ``lookback`` log-returns. Action: 0 short, 1 flat, 2 long.
    Reward: position times the next log-return. The episode never terminates on its
    own; the registry adds a time limit.
    """

    def __init__(self, lookback: int = 8, volatility: float = 0.01) -> None:
        if lookback < 1:
            raise ValueError(f"lookback must be >= 1, got {lookback!r}")
        self.lookback = lookback
        self.volatility = volatility
        self.observation_space = Box(-np.inf, np.inf, shape=(lookback,), dtype=np.float32)
        self.action_space = Discrete(3)
        self._returns: NDArray[np.float32] = np.zeros(lookback, dtype=np.float32)

    def reset(
        self,
        *,
        seed: SeedType = None,
        options: dict[str, Any] | None = None,
    ) -> ResetResult[NDArray[np.float32]]:
        self._set_rng(seed)
        self._returns = (self.volatility * self.rng.standard_normal(self.lookback)).astype(
            np.float32
        )
        return ResetResult(self._returns.copy(), {})

    def step(self, action: np.int64) -> StepResult[NDArray[np.float32]]:
        if not self.action_space.contains(action):
            raise ValueError(f"action must be 0, 1 or 2, got {action!r}")
        next_return = float(self.volatility * self.rng.standard_normal())
        self._returns = np.roll(self._returns, -1)
        self._returns[-1] = next_return
        reward = (int(action) - 1) * next_return
        return StepResult(self._returns.copy(), reward, False, False, {})
