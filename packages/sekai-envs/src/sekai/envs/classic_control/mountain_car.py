"""MountainCar-v0: drive an underpowered car up a hill (classic control, discrete actions)."""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.core import StepResult
from sekai.envs.classic_control._common import discrete_action, reset_bounds
from sekai.envs.classic_control._env_base import ClassicEnv
from sekai.error import ResetRequired
from sekai.spaces import Box, Discrete
from sekai.utils.seeding import SeedType

__all__ = ["MountainCarEnv", "SeedType"]

# The task of Moore (1990), as Sutton & Barto (2018, section 10.1) state it.
MIN_POSITION = -1.2
MAX_POSITION = 0.6
MAX_SPEED = 0.07
GOAL_POSITION = 0.5
FORCE = 0.001
GRAVITY = 0.0025
RESET_LOW = -0.6
RESET_HIGH = -0.4


def mountain_car_reset_bounds(options: dict[str, Any] | None) -> tuple[float, float]:
    """The bounds of the initial position: ``(-0.6, -0.4)`` unless ``options`` change them."""
    return reset_bounds(options, "MountainCar", RESET_LOW, RESET_HIGH)


def height(xs: Any) -> Any:
    """The height of the track at position(s) ``xs``: ``0.45 sin(3x) + 0.55``."""
    return np.sin(3 * xs) * 0.45 + 0.55


ActT = TypeVar("ActT")
FloatT = TypeVar("FloatT", bound=np.floating[Any])


class _MountainCarBase(ClassicEnv[ActT, FloatT]):
    """The track and the resets of both mountain cars (private base).

    The track runs from ``min_position`` to ``max_position`` with the speed
    limit ``max_speed``; a reset puts the car at rest at a position drawn
    from ``(-0.6, -0.4)`` (or the bounds of the options ``"low"`` and
    ``"high"``). Subclasses set the goal with `_lay_track` and say at
    which precision the car starts (``_start``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.classic_control.rendering:MountainCarRenderer",
    }

    _size = 2
    _width = 1
    _bounds = staticmethod(mountain_car_reset_bounds)
    height = staticmethod(height)

    def _lay_track(
        self, goal_velocity: float, goal_position: float
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Set the track's attributes and the observation space; return its bounds."""
        self.goal_velocity = check_real(goal_velocity, f"{self._name}: goal_velocity")
        self.min_position = MIN_POSITION
        self.max_position = MAX_POSITION
        self.max_speed = MAX_SPEED
        self.goal_position = goal_position
        low = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        high = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.observation_space = Box(low, high, dtype=np.float32)
        return low, high


class MountainCarEnv(_MountainCarBase[np.int64, np.float64]):
    """A car in a valley that must rock back and forth to reach the hilltop on the right.

    The engine is too weak to climb the slope directly: the car has to build
    momentum by driving up the left slope first. Position ``p`` and velocity
    ``v`` follow

    ``v ← clip(v + (a - 1) · force - cos(3p) · gravity, ±max_speed)``,
    ``p ← clip(p + v, min_position, max_position)``,

    and the velocity is set to zero when the car hits the left wall. This
    reproduces Gymnasium's ``MountainCar-v0`` bit for bit (float64 state,
    float32 observation), and ``reset(seed=s)`` draws the same initial state.

    Observation:
        ``Box((2,), float32)``: position in ``[-1.2, 0.6]``, velocity in
        ``[-0.07, 0.07]``.

    Action:
        ``Discrete(3)``: 0 accelerates to the left, 1 does nothing, 2
        accelerates to the right.

    Reward:
        ``-1.0`` per step.

    Termination:
        ``terminated`` when the position reaches ``goal_position`` (0.5) with
        a velocity of at least ``goal_velocity``. The registered
        ``MountainCar-v0`` truncates after 200 steps (reward threshold -110).

    Reset:
        Position uniform in ``[-0.6, -0.4]`` (the options ``{"low": l,
        "high": h}`` change the bounds), velocity 0.

    The physical parameters are public attributes read at every step (see
    below); assigning one changes the simulation from the next step on.

    Args:
        goal_velocity: The smallest velocity that counts at the goal.

    Attributes:
        min_position: The left wall (-1.2).
        max_position: The right end of the track (0.6).
        max_speed: The speed limit (0.07).
        goal_position: Where the flag stands (0.5).
        goal_velocity: See Args.
        force: The engine's acceleration per step (0.001).
        gravity: The weight of the slope (0.0025).
        low: The lower bounds of the observation, float32.
        high: The upper bounds of the observation, float32.
        state: The float64 state ``(position, velocity)`` (a fresh array;
            assignable). ``None`` before the first reset.
    """

    _name = "MountainCar"

    def __init__(self, goal_velocity: float = 0.0) -> None:
        self.low, self.high = self._lay_track(goal_velocity, GOAL_POSITION)
        self.force = FORCE
        self.gravity = GRAVITY
        self.action_space = Discrete(3)

    def _start(self, draws: NDArray[np.float64]) -> None:
        self._begin([float(draws[0]), 0.0])  # at rest

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Accelerate (or not) for one step.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not 0, 1 or 2.
        """
        state = self._state
        if state is None:
            raise ResetRequired("MountainCar: call reset() before step()")
        push = discrete_action(action, 3, "MountainCar") - 1
        position, velocity = state
        max_speed = self.max_speed
        velocity = velocity + (push * self.force + math.cos(3 * position) * -self.gravity)
        velocity = min(max(velocity, -max_speed), max_speed)
        position = min(max(position + velocity, self.min_position), self.max_position)
        if position == self.min_position and velocity < 0:
            velocity = 0.0  # against the wall
        state[0] = position
        state[1] = velocity
        terminated = position >= self.goal_position and velocity >= self.goal_velocity
        observation = np.array([position, velocity], dtype=np.float32)
        return StepResult(observation, -1.0, terminated, False, {})
