"""The native vector implementation of MountainCar-v0."""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector_base import (
    ClassicVecEnv,
    check_discrete_actions,
    discrete_action_list,
    numbers_only,
)
from sekai.envs.classic_control.mountain_car import MountainCarEnv, _MountainCarBase, height
from sekai.vector import InfoArrays

__all__ = ["MountainCarVecEnv"]

ActT = TypeVar("ActT")


class _MountainCarVecBase(ClassicVecEnv[ActT]):
    """The track and the resets of both mountain cars' native vector envs (private base).

    Takes the track's parameters from the single env (each may become one
    value per sub-env with ``set_attr``); a reset puts a sub-env at rest at
    the position drawn.
    """

    def __init__(
        self,
        num_envs: int,
        single: _MountainCarBase[ActT, Any],
        *,
        autoreset: bool,
        max_episode_steps: int | None,
    ) -> None:
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        self.goal_velocity: Any = single.goal_velocity
        self.min_position: Any = single.min_position
        self.max_position: Any = single.max_position
        self.max_speed: Any = single.max_speed
        self.goal_position: Any = single.goal_position

    height = staticmethod(height)

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._state[indices, 0] = draws[:, 0]
        self._state[indices, 1] = 0.0


class MountainCarVecEnv(_MountainCarVecBase[np.int64]):
    """``num_envs`` MountainCar-v0 simulations advanced together with numpy.

    ``sekai.make_vec("MountainCar-v0", num_envs=N)`` builds this env by
    default. Each sub-env follows
    [`MountainCarEnv`][sekai.envs.MountainCarEnv] exactly (same
    equations, same floating-point order), and draws its initial positions
    from its own stream (`rngs`) as the single env does, so for the same
    seed and actions the trajectories, autoresets included, are identical to
    those of ``SyncVecEnv`` over ``MountainCarEnv``. Initial positions are
    drawn ahead, a block per sub-env; `rngs` gives every generator back
    at its exact position.

    Small batches (up to 8 sub-envs) step row by row on Python floats
    while every parameter is a Python number: numpy's fixed cost per call
    outweighs what arrays save there, and the single env's formulas on the
    single env's number types give the same bits as the array code.

    Observations have shape ``(num_envs, 2)`` (float32); actions are an int
    array of shape ``(num_envs,)`` holding 0, 1 or 2. The physical parameters
    are the single env's attributes, read at every step; ``set_attr(name,
    [v0, v1, ...])`` gives each sub-env its own value.

    Args:
        num_envs: Number of sub-envs.
        goal_velocity: See [`MountainCarEnv`][sekai.envs.MountainCarEnv].
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 200).

    Attributes:
        state: ``(num_envs, 2)`` float64 states (a copy; assignable).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        goal_velocity: float = 0.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = MountainCarEnv(goal_velocity)
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        self.force: Any = single.force
        self.gravity: Any = single.gravity
        self.low = single.low
        self.high = single.high
        self._rewards = np.full(self.num_envs, -1.0)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if self._small:
            parameters = (
                self.force,
                self.gravity,
                self.max_speed,
                self.min_position,
                self.max_position,
                self.goal_position,
                self.goal_velocity,
            )
            if numbers_only(parameters):
                return self._step_rows(actions, parameters)
        pushes = check_discrete_actions(actions, 3, "MountainCarVecEnv", self.num_envs) - 1
        state = self._state
        position, velocity = state[:, 0], state[:, 1]
        max_speed, min_position = self.max_speed, self.min_position
        accel = np.cos(3 * position)
        accel *= -self.gravity
        accel += pushes * self.force
        velocity = np.clip(velocity + accel, -max_speed, max_speed)
        position = np.clip(position + velocity, min_position, self.max_position)
        velocity[(position == min_position) & (velocity < 0)] = 0.0  # against the wall
        terminated = (position >= self.goal_position) & (velocity >= self.goal_velocity)
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                position[frozen] = state[frozen, 0]
                velocity[frozen] = state[frozen, 1]
        state[:, 0] = position
        state[:, 1] = velocity
        return self._rewards, terminated, self._never, {}

    def _step_rows(
        self, actions: Any, parameters: tuple[Any, ...]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        """`_step` for a small batch: `MountainCarEnv.step`'s formulas, row by row, on floats."""
        choices = discrete_action_list(actions, 3, "MountainCarVecEnv", self.num_envs)
        force, gravity, max_speed, min_position, max_position, goal_position, goal_velocity = (
            parameters
        )
        frozen = self._frozen.tolist() if not self.autoreset else None
        rows: list[list[float]] = self._state.tolist()
        ends: list[bool] = []
        for i, (row, choice) in enumerate(zip(rows, choices, strict=True)):
            position, velocity = row
            if frozen is None or not frozen[i]:
                push = choice - 1
                velocity = velocity + (push * force + math.cos(3 * position) * -gravity)
                velocity = min(max(velocity, -max_speed), max_speed)
                position = min(max(position + velocity, min_position), max_position)
                if position == min_position and velocity < 0:
                    velocity = 0.0  # against the wall
                row[0] = position
                row[1] = velocity
            ends.append(bool(position >= goal_position and velocity >= goal_velocity))
        self._state = np.array(rows)
        return self._rewards, np.array(ends), self._never, {}
