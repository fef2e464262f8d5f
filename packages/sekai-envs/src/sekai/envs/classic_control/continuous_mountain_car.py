"""MountainCarContinuous-v0: the mountain car with a continuous throttle (classic control)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_real
from sekai.core import Env, ResetResult, StepResult
from sekai.envs.classic_control._common import box_action
from sekai.envs.classic_control.mountain_car import (
    MAX_POSITION,
    MAX_SPEED,
    MIN_POSITION,
    height,
    mountain_car_reset_bounds,
)
from sekai.error import ResetRequired
from sekai.spaces import Box
from sekai.utils.seeding import SeedType

__all__ = ["ContinuousMountainCarEnv"]

GOAL_POSITION = 0.45
POWER = 0.0015
SLOPE = 0.0025  # the weight of the slope, fixed (not an attribute) as in Gymnasium
GOAL_REWARD = 100.0
ACTION_COST = 0.1  # times the squared action, every step


class ContinuousMountainCarEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """The mountain car of :class:`MountainCarEnv` driven by a continuous force.

    Position ``p`` and velocity ``v`` follow

    ``v ← clip(v + f · power - 0.0025 · cos(3p), ±max_speed)``,
    ``p ← clip(p + v, min_position, max_position)``,

    where ``f`` is the action clipped to ``[min_action, max_action]``; the
    velocity is set to zero when the car hits the left wall. This reproduces
    Gymnasium's ``MountainCarContinuous-v0`` bit for bit, including its
    arithmetic: the first step after a reset computes in float64, later
    steps in float32 (Gymnasium stores the state in float32 after a step),
    and ``reset(seed=s)`` draws the same initial state.

    Observation:
        ``Box((2,), float32)``: position in ``[-1.2, 0.6]``, velocity in
        ``[-0.07, 0.07]``.

    Action:
        ``Box(-1, 1, (1,), float32)``: the force. Actions are converted to
        float32; values outside ``[-1, 1]`` are clipped for the dynamics (but
        not for the reward); NaN raises ``InvalidAction``.

    Reward:
        ``-0.1 · action²`` per step, plus 100 on reaching the goal.

    Termination:
        ``terminated`` when the position reaches ``goal_position`` (0.45)
        with a velocity of at least ``goal_velocity``. The registered
        ``MountainCarContinuous-v0`` truncates after 999 steps (reward
        threshold 90).

    Reset:
        Position uniform in ``[-0.6, -0.4]`` (the options ``{"low": l,
        "high": h}`` change the bounds), velocity 0.

    Args:
        goal_velocity: The smallest velocity that counts at the goal.

    Attributes:
        min_action: The smallest force (-1.0).
        max_action: The largest force (1.0).
        min_position: The left wall (-1.2).
        max_position: The right end of the track (0.6).
        max_speed: The speed limit (0.07).
        goal_position: Where the flag stands (0.45).
        goal_velocity: See Args.
        power: The force's effect on the velocity per step (0.0015).
        low_state: The lower bounds of the observation, float32.
        high_state: The upper bounds of the observation, float32.
        state: The state ``(position, velocity)``: float64 after a reset,
            float32 after a step (a fresh array; assigning keeps a float32
            array's dtype and makes anything else float64). ``None`` before
            the first reset.
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    def __init__(self, goal_velocity: float = 0.0) -> None:
        self.goal_velocity = check_real(goal_velocity, "MountainCarContinuous: goal_velocity")
        self.min_action = -1.0
        self.max_action = 1.0
        self.min_position = MIN_POSITION
        self.max_position = MAX_POSITION
        self.max_speed = MAX_SPEED
        self.goal_position = GOAL_POSITION
        self.power = POWER
        self.low_state = np.array([self.min_position, -self.max_speed], dtype=np.float32)
        self.high_state = np.array([self.max_position, self.max_speed], dtype=np.float32)
        self.observation_space = Box(self.low_state, self.high_state, dtype=np.float32)
        self.action_space = Box(self.min_action, self.max_action, (1,), dtype=np.float32)
        # numpy scalars, float64 or float32: their type decides the precision of a step.
        self._position: np.floating[Any] = np.float64(0.0)
        self._velocity: np.floating[Any] = np.float64(0.0)
        self._started = False

    height = staticmethod(height)

    @property
    def state(self) -> NDArray[np.floating[Any]] | None:
        """The state ``(position, velocity)`` (float64 or float32), or ``None`` before a reset."""
        if not self._started:
            return None
        return np.array([self._position, self._velocity])

    @state.setter
    def state(self, value: Any) -> None:
        array = np.asarray(value)
        if array.dtype != np.float32:
            array = array.astype(np.float64)
        if array.shape != (2,) or not bool(np.all(np.isfinite(array))):
            raise ValueError(f"MountainCarContinuous state must be 2 finite numbers, got {value!r}")
        self._position, self._velocity = array[0], array[1]
        self._started = True

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Place the car at a random position in the valley, at rest.

        Args:
            seed: Seed of the env's generator (see :class:`~sekai.core.Env`).
            options: ``{"low": l, "high": h}`` to change the bounds of the
                initial position.

        Raises:
            ValueError: A bound is not a finite real number, or ``low > high``.
        """
        self._set_rng(seed)
        low, high = mountain_car_reset_bounds(options)
        self._position = np.float64(self.rng.uniform(low=low, high=high))
        self._velocity = np.float64(0.0)
        self._started = True
        return ResetResult(np.array([self._position, 0.0], dtype=np.float32), {})

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Apply the force ``action[0]`` for one step.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not a real array of shape ``(1,)``, or is NaN.
        """
        if not self._started:
            raise ResetRequired("MountainCarContinuous: call reset() before step()")
        throttle = box_action(action, "MountainCarContinuous")
        # The clipped force is the float32 action, or the bound (a Python float) it
        # exceeds: numpy's scalar rules then give Gymnasium's precision at each step.
        force: Any = throttle
        if throttle < self.min_action:
            force = self.min_action
        elif throttle > self.max_action:
            force = self.max_action
        position: Any = self._position
        velocity: Any = self._velocity
        velocity = velocity + (force * self.power - SLOPE * math.cos(3 * position))
        if velocity > self.max_speed:
            velocity = self.max_speed
        elif velocity < -self.max_speed:
            velocity = -self.max_speed
        position = position + velocity
        if position > self.max_position:
            position = self.max_position
        elif position < self.min_position:
            position = self.min_position
        if position == self.min_position and velocity < 0:
            velocity = 0.0  # against the wall
        terminated = bool(position >= self.goal_position and velocity >= self.goal_velocity)
        reward = (GOAL_REWARD if terminated else 0.0) - math.pow(throttle, 2) * ACTION_COST
        observation = np.array([position, velocity], dtype=np.float32)
        self._position, self._velocity = observation[0], observation[1]
        return StepResult(observation.copy(), reward, terminated, False, {})
