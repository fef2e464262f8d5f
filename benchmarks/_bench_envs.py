"""Environments shared by the benchmarks, each in a sekai and a Gymnasium flavour.

Both flavours do the same work per step, so a ratio between backends measures
the backends, not the environments.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete

BOOK_SHAPE = (100, 40)
"""An order-book snapshot: 100 levels x 40 features, float32 (16 kB)."""

SPIN_SECONDS = 200e-6
"""CPU time one step of the CPU-bound env burns."""

EPISODE_STEPS = 200


def _spin(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        pass


class OrderBookEnv(Env[Any, Any]):
    """Large float32 observations, trivial dynamics: measures data movement."""

    def __init__(self) -> None:
        self.observation_space = Box(-np.inf, np.inf, shape=BOOK_SHAPE, dtype=np.float32)
        self.action_space = Discrete(3)
        self._book = np.zeros(BOOK_SHAPE, dtype=np.float32)
        self._t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self._t = 0
        self._book[:] = self.rng.standard_normal(BOOK_SHAPE, dtype=np.float32)
        return ResetResult(self._book.copy(), {})

    def step(self, action: Any) -> StepResult[Any]:
        self._t += 1
        self._book[self._t % BOOK_SHAPE[0]] += np.float32(0.01) * (int(action) - 1)
        return StepResult(self._book.copy(), 0.0, False, self._t >= EPISODE_STEPS, {})


class SpinEnv(Env[Any, Any]):
    """A CPU-bound simulator: every step burns ``SPIN_SECONDS`` of CPU."""

    def __init__(self) -> None:
        self.observation_space = Box(-1.0, 1.0, shape=(8,), dtype=np.float32)
        self.action_space = Discrete(2)
        self._t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self._t = 0
        return ResetResult(np.zeros(8, dtype=np.float32), {})

    def step(self, action: Any) -> StepResult[Any]:
        _spin(SPIN_SECONDS)
        self._t += 1
        obs = np.full(8, self._t / EPISODE_STEPS, dtype=np.float32)
        return StepResult(obs, 1.0, False, self._t >= EPISODE_STEPS, {})


def gymnasium_envs() -> tuple[type, type]:
    """The Gymnasium flavours of :class:`OrderBookEnv` and :class:`SpinEnv`."""
    import gymnasium

    class GymOrderBookEnv(gymnasium.Env):  # type: ignore[misc]
        def __init__(self) -> None:
            self.observation_space = gymnasium.spaces.Box(
                -np.inf, np.inf, shape=BOOK_SHAPE, dtype=np.float32
            )
            self.action_space = gymnasium.spaces.Discrete(3)
            self._book = np.zeros(BOOK_SHAPE, dtype=np.float32)
            self._t = 0

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            self._t = 0
            self._book[:] = self.np_random.standard_normal(BOOK_SHAPE, dtype=np.float32)
            return self._book.copy(), {}

        def step(self, action: Any) -> Any:
            self._t += 1
            self._book[self._t % BOOK_SHAPE[0]] += np.float32(0.01) * (int(action) - 1)
            return self._book.copy(), 0.0, False, self._t >= EPISODE_STEPS, {}

    class GymSpinEnv(gymnasium.Env):  # type: ignore[misc]
        def __init__(self) -> None:
            self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, shape=(8,), dtype=np.float32)
            self.action_space = gymnasium.spaces.Discrete(2)
            self._t = 0

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            self._t = 0
            return np.zeros(8, dtype=np.float32), {}

        def step(self, action: Any) -> Any:
            _spin(SPIN_SECONDS)
            self._t += 1
            obs = np.full(8, self._t / EPISODE_STEPS, dtype=np.float32)
            return obs, 1.0, False, self._t >= EPISODE_STEPS, {}

    return GymOrderBookEnv, GymSpinEnv
