"""MountainCarContinuous-v0: the mountain car with a continuous throttle (classic control)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import StepResult
from sekai.envs.classic_control._common import box_action
from sekai.envs.classic_control.mountain_car import _MountainCarBase
from sekai.error import ResetRequired
from sekai.spaces import Box
from sekai.utils.seeding import SeedType

__all__ = ["ContinuousMountainCarEnv", "SeedType"]

GOAL_POSITION = 0.45
POWER = 0.0015
SLOPE = 0.0025  # the weight of the slope, fixed (not an attribute) as in Gymnasium
GOAL_REWARD = 100.0
ACTION_COST = 0.1  # times the squared action, every step


class ContinuousMountainCarEnv(_MountainCarBase[NDArray[np.float32], np.floating[Any]]):
    """The mountain car of `MountainCarEnv` driven by a continuous force.

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

    _name = "MountainCarContinuous"

    def __init__(self, goal_velocity: float = 0.0) -> None:
        self.low_state, self.high_state = self._lay_track(goal_velocity, GOAL_POSITION)
        self.min_action = -1.0
        self.max_action = 1.0
        self.power = POWER
        self.action_space = Box(self.min_action, self.max_action, (1,), dtype=np.float32)

    # The state holds numpy scalars, float64 or float32: their type decides the precision
    # of a step, and assigning keeps a float32 array's.
    @property
    def state(self) -> NDArray[np.floating[Any]] | None:
        """The state ``(position, velocity)`` (float64 or float32), or ``None`` before a reset."""
        state = self._state
        if state is None:
            return None
        return np.array(state)

    @state.setter
    def state(self, value: Any) -> None:
        array = np.asarray(value)
        if array.dtype != np.float32:
            array = array.astype(np.float64)
        self._begin(list(self._checked_state(array, value)))

    def _start(self, draws: NDArray[np.float64]) -> None:
        self._begin([draws[0], np.float64(0.0)])  # at rest, in float64

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Apply the force ``action[0]`` for one step.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not a real array of shape ``(1,)``, or is NaN.
        """
        state = self._state
        if state is None:
            raise ResetRequired("MountainCarContinuous: call reset() before step()")
        throttle = box_action(action, "MountainCarContinuous")
        # The clipped force is the float32 action, or the bound (a Python float) it
        # exceeds: numpy's scalar rules then give Gymnasium's precision at each step.
        force: Any = throttle
        if throttle < self.min_action:
            force = self.min_action
        elif throttle > self.max_action:
            force = self.max_action
        position, velocity = state
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
        state[0], state[1] = observation[0], observation[1]
        return StepResult(observation.copy(), reward, terminated, False, {})
