"""The native vector implementation of MountainCar-v0."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector_base import Bounds, ClassicVecEnv, check_discrete_actions
from sekai.envs.classic_control.mountain_car import (
    RESET_HIGH,
    RESET_LOW,
    MountainCarEnv,
    mountain_car_reset_bounds,
)
from sekai.vector import InfoArrays

__all__ = ["MountainCarVecEnv"]


class MountainCarVecEnv(ClassicVecEnv[np.int64]):
    """``num_envs`` MountainCar-v0 simulations advanced together with numpy.

    ``sekai.make_vec("MountainCar-v0", num_envs=N)`` builds this env by
    default. Each sub-env follows
    :class:`~sekai.envs.classic_control.MountainCarEnv` exactly (same
    equations, same floating-point order), and draws its initial positions
    from its own stream (:attr:`rngs`) as the single env does, so for the same
    seed and actions the trajectories, autoresets included, are identical to
    those of ``SyncVecEnv`` over ``MountainCarEnv``. Initial positions are
    drawn ahead, a block per sub-env; :attr:`rngs` gives every generator back
    at its exact position.

    Observations have shape ``(num_envs, 2)`` (float32); actions are an int
    array of shape ``(num_envs,)`` holding 0, 1 or 2. The physical parameters
    are the single env's attributes, read at every step; ``set_attr(name,
    [v0, v1, ...])`` gives each sub-env its own value.

    Args:
        num_envs: Number of sub-envs.
        goal_velocity: See :class:`~sekai.envs.classic_control.MountainCarEnv`.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 200).

    Attributes:
        state: ``(num_envs, 2)`` float64 states (a copy; assignable).
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    def __init__(
        self,
        num_envs: int,
        *,
        goal_velocity: float = 0.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = MountainCarEnv(goal_velocity)
        super().__init__(
            num_envs,
            single.observation_space,
            single.action_space,
            width=1,
            default_bounds=(RESET_LOW, RESET_HIGH),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.goal_velocity: Any = single.goal_velocity
        self.min_position: Any = single.min_position
        self.max_position: Any = single.max_position
        self.max_speed: Any = single.max_speed
        self.goal_position: Any = single.goal_position
        self.force: Any = single.force
        self.gravity: Any = single.gravity
        self.low = single.low
        self.high = single.high
        self._state = np.zeros((self.num_envs, 2), dtype=np.float64)
        self._rewards = np.full(self.num_envs, -1.0)
        self._never_truncated = np.zeros(self.num_envs, dtype=np.bool_)

    height = staticmethod(MountainCarEnv.height)

    @property
    def state(self) -> NDArray[np.float64]:
        """The ``(num_envs, 2)`` float64 states ``(position, velocity)``, a copy."""
        state: NDArray[np.float64] = self._state.copy()
        return state

    @state.setter
    def state(self, value: Any) -> None:
        array = np.asarray(value, dtype=np.float64)
        if array.shape != self._state.shape or not bool(np.all(np.isfinite(array))):
            raise ValueError(
                f"MountainCarVecEnv state must be finite with shape {self._state.shape}, "
                f"got {value!r}"
            )
        self._state[...] = array

    def _bounds(self, options: dict[str, Any]) -> Bounds:
        return mountain_car_reset_bounds(options)

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._state[indices, 0] = draws[:, 0]
        self._state[indices, 1] = 0.0

    def _observe(self) -> NDArray[np.float32]:
        return self._state.astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
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
        return self._rewards, terminated, self._never_truncated, {}

    def __repr__(self) -> str:
        return f"MountainCarVecEnv(num_envs={self.num_envs})"
