"""The native vector implementation of MountainCarContinuous-v0."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector_base import (
    box_action_values,
    check_box_actions,
    numbers_only,
)
from sekai.envs.classic_control.continuous_mountain_car import (
    ACTION_COST,
    GOAL_REWARD,
    SLOPE,
    ContinuousMountainCarEnv,
)
from sekai.envs.classic_control.mountain_car_vector import _MountainCarVecBase
from sekai.vector import InfoArrays

__all__ = ["ContinuousMountainCarVecEnv"]

_F32 = np.float32
_F64 = np.float64


def _as_held(fresh: NDArray[np.bool_], values: Any) -> NDArray[np.float64]:
    """``values`` as float64 for the ``fresh`` sub-envs and rounded to float32 for the others."""
    held: NDArray[np.float64] = np.where(fresh, values, _F32(values))
    return held


class ContinuousMountainCarVecEnv(_MountainCarVecBase[NDArray[np.float32]]):
    """``num_envs`` MountainCarContinuous-v0 simulations advanced together with numpy.

    ``sekai.make_vec("MountainCarContinuous-v0", num_envs=N)`` builds this
    env by default. Each sub-env follows
    [`ContinuousMountainCarEnv`][sekai.envs.ContinuousMountainCarEnv] bit for
    bit, down to its precision rules (float64 on the first step after a
    reset, float32 after; here every value is held in float64 and rounded to
    float32 where the single env computes in float32), and draws its initial
    positions from its own stream (`rngs`) as the single env does. For
    the same seed and actions the trajectories, autoresets included, are
    identical to those of ``SyncVecEnv`` over the single env.

    Small batches (up to 8 sub-envs) step row by row on Python floats
    while every parameter is a Python number: numpy's fixed cost per call
    outweighs what arrays save there, and the single env's formulas on the
    single env's number types give the same bits as the array code.

    Observations have shape ``(num_envs, 2)`` (float32); actions have shape
    ``(num_envs, 1)`` and are converted to float32. The physical parameters
    are the single env's attributes, read at every step; ``set_attr(name,
    [v0, v1, ...])`` gives each sub-env its own value.

    Args:
        num_envs: Number of sub-envs.
        goal_velocity: See [`ContinuousMountainCarEnv`][sekai.envs.ContinuousMountainCarEnv].
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 999).

    Attributes:
        state: ``(num_envs, 2)`` states ``(position, velocity)`` as float64 (a
            copy; assignable: the sub-envs then compute their next step in
            float64, as after a reset).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        goal_velocity: float = 0.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = ContinuousMountainCarEnv(goal_velocity)
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        self.min_action: Any = single.min_action
        self.max_action: Any = single.max_action
        self.power: Any = single.power
        self.low_state = single.low_state
        self.high_state = single.high_state
        # Sub-envs whose next step computes in float64 (just reset); float32 otherwise.
        self._fresh = np.ones(self.num_envs, dtype=np.bool_)

    def _assigned(self) -> None:
        self._fresh[:] = True  # the next step computes in float64, as after a reset

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        super()._start(indices, draws)
        self._fresh[indices] = True

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if self._small:
            parameters = (
                self.min_action,
                self.max_action,
                self.power,
                self.max_speed,
                self.min_position,
                self.max_position,
                self.goal_position,
                self.goal_velocity,
            )
            if numbers_only(parameters):
                return self._step_rows(
                    box_action_values(actions, "ContinuousMountainCarVecEnv", self.num_envs),
                    parameters,
                )
        throttle = check_box_actions(actions, "ContinuousMountainCarVecEnv", self.num_envs)
        state, fresh = self._state, self._fresh
        # ``held(x)``: x at the precision the single env holds it in: float32 (a step
        # after a step), or float64 for the sub-envs just reset. A float32 sum or
        # product is the float64 one rounded to float32, so both kinds mix exactly.
        held: Callable[[Any], Any] = _F32
        if fresh.any():
            held = partial(_as_held, fresh)
        position, velocity = held(state[:, 0]), held(state[:, 1])
        slope = SLOPE * np.cos(held(3 * position), dtype=np.float64)
        # The force: the float32 action, or the bound (a float64) it goes beyond.
        below = throttle < _F32(self.min_action)
        beyond = below | (throttle > _F32(self.max_action))
        in_range = throttle * _F32(self.power) - slope.astype(_F32)  # float32 arithmetic
        at_bound = np.where(below, self.min_action, self.max_action) * self.power - slope
        velocity = held(velocity + held(np.where(beyond, at_bound, in_range)))
        # The speed limit, compared at the sub-env's precision; a bound replaces the value.
        max_speed = self.max_speed
        too_fast = velocity > held(max_speed)
        too_slow = ~too_fast & (velocity < held(-max_speed))
        speed = np.where(too_fast, max_speed, np.where(too_slow, -max_speed, velocity))
        position = held(position + held(speed))
        min_position, max_position = self.min_position, self.max_position
        past_end = position > held(max_position)
        below_wall = ~past_end & (position < held(min_position))
        new_position = np.where(
            past_end, max_position, np.where(below_wall, min_position, position)
        )
        at_wall = below_wall | (~past_end & (position == held(min_position)))
        stopped = at_wall & (speed < 0)
        new_velocity = np.where(stopped, 0.0, speed)
        # At the goal? A bound (or the stop at the wall) that replaced a value is a
        # float64 in the single env, and compares as one.
        goal_position, goal_velocity = self.goal_position, self.goal_velocity
        position_reached = np.where(
            past_end | below_wall,
            np.where(past_end, max_position >= goal_position, min_position >= goal_position),
            position >= held(goal_position),
        )
        velocity_reached = np.where(
            too_fast | too_slow | stopped,
            np.where(
                too_fast,
                max_speed >= goal_velocity,
                np.where(too_slow, -max_speed >= goal_velocity, goal_velocity <= 0.0),
            ),
            velocity >= held(goal_velocity),
        )
        reached = position_reached & velocity_reached
        squares = throttle.astype(np.float64)
        squares *= squares
        rewards = np.where(reached, GOAL_REWARD, 0.0) - squares * ACTION_COST
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                new_position[frozen] = state[frozen, 0]
                new_velocity[frozen] = state[frozen, 1]
        state[:, 0] = new_position.astype(_F32)
        state[:, 1] = new_velocity.astype(_F32)
        fresh[:] = False
        return rewards, reached, self._never, {}

    def _step_rows(
        self, throttles: NDArray[np.float32], parameters: tuple[Any, ...]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        """`_step` for a small batch: `ContinuousMountainCarEnv.step`'s formulas, row by row.

        Each row is held as the single env holds its state: numpy float64
        scalars just after a reset, float32 ones after a step, so numpy's
        scalar rules give the single env's precision at each operation.
        """
        (
            min_action,
            max_action,
            power,
            max_speed,
            min_position,
            max_position,
            goal_position,
            goal_velocity,
        ) = parameters
        frozen = self._frozen.tolist() if not self.autoreset else None
        fresh = self._fresh.tolist()
        rows: list[list[float]] = self._state.tolist()
        rewards: list[float] = []
        ends: list[bool] = []
        for i, throttle in enumerate(throttles):
            row = rows[i]
            position: Any
            velocity: Any
            position, velocity = row
            if fresh[i]:
                position, velocity = _F64(position), _F64(velocity)
            else:
                position, velocity = _F32(position), _F32(velocity)  # exact: held as float32
            force: Any = throttle
            if throttle < min_action:
                force = min_action
            elif throttle > max_action:
                force = max_action
            velocity = velocity + (force * power - SLOPE * math.cos(3 * position))
            if velocity > max_speed:
                velocity = max_speed
            elif velocity < -max_speed:
                velocity = -max_speed
            position = position + velocity
            if position > max_position:
                position = max_position
            elif position < min_position:
                position = min_position
            if position == min_position and velocity < 0:
                velocity = 0.0  # against the wall
            terminated = bool(position >= goal_position and velocity >= goal_velocity)
            ends.append(terminated)
            rewards.append(
                (GOAL_REWARD if terminated else 0.0) - math.pow(throttle, 2) * ACTION_COST
            )
            if frozen is None or not frozen[i]:
                row[0] = float(_F32(position))
                row[1] = float(_F32(velocity))
        self._state = np.array(rows)
        if True in fresh:  # only after a reset: most steps skip the numpy call
            self._fresh[:] = False
        return np.array(rewards), np.array(ends), self._never, {}
