"""The classic-control envs under test, and ways to drive them (shared by this folder)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sekai.envs.classic_control import (
    AcrobotEnv,
    AcrobotVecEnv,
    CartPoleEnv,
    CartPoleVecEnv,
    ContinuousMountainCarEnv,
    ContinuousMountainCarVecEnv,
    MountainCarEnv,
    MountainCarVecEnv,
    PendulumEnv,
    PendulumVecEnv,
)

Policy = Callable[[np.ndarray, np.random.Generator], np.ndarray]
"""Actions for a batch of observations ``(n, obs_dim)``: shape ``(n,)`` or ``(n, 1)``."""


def _discrete_random(n: int) -> Policy:
    return lambda obs, rng: rng.integers(0, n, size=len(obs))


def _toward(index: int, n: int) -> Policy:
    """Push along (action n - 1) or against (0) the sign of ``obs[:, index]``; 10% random."""

    def policy(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        actions = np.where(obs[:, index] >= 0, n - 1, 0)
        noise = rng.random(len(obs)) < 0.1
        return np.where(noise, rng.integers(0, n, size=len(obs)), actions)

    return policy


def _continuous_toward(index: int) -> Policy:
    """A force along ``obs[:, index]``'s sign, from 0.4 to 1.4 (beyond the bounds at times)."""

    def policy(obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        sign = np.where(obs[:, index] >= 0, 1.0, -1.0)
        force = sign * rng.uniform(0.4, 1.4, size=len(obs))
        noise = rng.random(len(obs)) < 0.2
        force = np.where(noise, rng.uniform(-1.0, 1.0, size=len(obs)), force)
        return force.astype(np.float32)[:, None]

    return policy


def _continuous_random(high: float) -> Policy:
    return lambda obs, rng: rng.uniform(-1.5 * high, 1.5 * high, size=(len(obs), 1)).astype(
        np.float32
    )


@dataclass(frozen=True)
class Case:
    """One classic-control task: its classes, Gymnasium's env, and policies that drive it."""

    env_id: str
    single: type[Any]
    vector: type[Any]
    gymnasium_class: str  # "module:Class" under gymnasium.envs.classic_control
    limit: int
    threshold: float | None
    random: Policy  # random actions (beyond the bounds for Box actions)
    goal: Policy  # reaches termination (except Pendulum, which never terminates)

    def gymnasium_env(self, **kwargs: Any) -> Any:
        """A bare Gymnasium env of this task (no wrappers)."""
        import importlib

        module, name = self.gymnasium_class.split(":")
        gym_module = importlib.import_module(f"gymnasium.envs.classic_control.{module}")
        return getattr(gym_module, name)(**kwargs)


CASES: dict[str, Case] = {
    case.env_id: case
    for case in (
        Case(
            "CartPole-v1",
            CartPoleEnv,
            CartPoleVecEnv,
            "cartpole:CartPoleEnv",
            500,
            475.0,
            _discrete_random(2),
            _discrete_random(2),
        ),
        Case(
            "MountainCar-v0",
            MountainCarEnv,
            MountainCarVecEnv,
            "mountain_car:MountainCarEnv",
            200,
            -110.0,
            _discrete_random(3),
            _toward(1, 3),
        ),
        Case(
            "MountainCarContinuous-v0",
            ContinuousMountainCarEnv,
            ContinuousMountainCarVecEnv,
            "continuous_mountain_car:Continuous_MountainCarEnv",
            999,
            90.0,
            _continuous_random(1.0),
            _continuous_toward(1),
        ),
        Case(
            "Pendulum-v1",
            PendulumEnv,
            PendulumVecEnv,
            "pendulum:PendulumEnv",
            200,
            None,
            _continuous_random(2.0),
            _continuous_random(2.0),
        ),
        Case(
            "Acrobot-v1",
            AcrobotEnv,
            AcrobotVecEnv,
            "acrobot:AcrobotEnv",
            500,
            -100.0,
            _discrete_random(3),
            _toward(5, 3),
        ),
    )
}


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> Case:
    """Each classic-control task in turn."""
    return CASES[request.param]


@pytest.fixture
def cases() -> dict[str, Case]:
    """Every classic-control task, by id."""
    return CASES


def single_action(actions: np.ndarray, i: int) -> Any:
    """Row ``i`` of a batch of actions, as the single env takes it."""
    action = actions[i]
    return int(action) if np.ndim(action) == 0 else action


@pytest.fixture
def act() -> Callable[[np.ndarray, int], Any]:
    """``act(batch, i)``: row ``i`` of a batch of actions, as a single env takes it."""
    return single_action
