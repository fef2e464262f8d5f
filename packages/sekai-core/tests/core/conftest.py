"""Small environments shared by the sekai.core tests."""

from __future__ import annotations

from typing import Any

import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.utils.seeding import SeedType


class CounterEnv(Env[int, int]):
    """Observation = steps taken + a random offset drawn at reset; ends after ``length`` steps."""

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(self, length: int = 5) -> None:
        self.observation_space = "obs-space"  # type: ignore[assignment]
        self.action_space = "act-space"  # type: ignore[assignment]
        self.length = length
        self.t = 0
        self.offset = 0
        self.closed = 0
        self.calls: list[str] = []
        self.info: dict[str, Any] = {}

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[int]:
        self._set_rng(seed)
        self.calls.append("reset")
        self.t = 0
        self.offset = int(self.rng.integers(0, 1_000_000))
        return ResetResult(self.offset, {"options": options})

    def step(self, action: int) -> StepResult[int]:
        self.calls.append("step")
        self.t += 1
        return StepResult(
            self.offset + self.t, float(action), self.t >= self.length, False, self.info
        )

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def counter_env_cls() -> type[CounterEnv]:
    return CounterEnv


@pytest.fixture
def env() -> CounterEnv:
    return CounterEnv()
