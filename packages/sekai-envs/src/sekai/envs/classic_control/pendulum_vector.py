"""The native vector implementation of Pendulum-v1."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._squares import pow_squares, powf_squares, square
from sekai.envs.classic_control._vector_base import ClassicVecEnv, check_box_actions
from sekai.envs.classic_control.pendulum import PendulumEnv
from sekai.vector import InfoArrays

__all__ = ["PendulumVecEnv"]

_F32 = np.float32
_TURN = 2 * np.pi


def _normalized_angles(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """``angle_normalize(theta)``, ``((θ + π) % 2π) - π``, bit for bit but faster.

    numpy's ``%`` is C ``fmod`` followed by adding the divisor to a negative
    result (and ``+0.0`` for a zero one); written out, it skips the quotient
    that ``np.remainder`` also computes.
    """
    shifted = np.fmod(theta + np.pi, _TURN)
    shifted += np.where(shifted < 0, _TURN, 0.0)
    shifted -= np.pi
    return shifted


class PendulumVecEnv(ClassicVecEnv[NDArray[np.float32]]):
    """``num_envs`` Pendulum-v1 simulations advanced together with numpy.

    ``sekai.make_vec("Pendulum-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows [`PendulumEnv`][sekai.envs.PendulumEnv] bit
    for bit (the same equations in the same floating-point order and
    precision, squares included), and draws its initial states from its own
    stream (`rngs`) as the single env does, so for the same seed and
    actions the trajectories, autoresets included, are identical to those of
    ``SyncVecEnv`` over ``PendulumEnv``.

    Observations have shape ``(num_envs, 3)`` (float32); actions have shape
    ``(num_envs, 1)`` and are converted to float32. The physical parameters
    (``g``, ``m``, ``l``, ``dt``, ``max_speed``, ``max_torque``) are the single
    env's attributes, read at every step; ``set_attr(name, [v0, v1, ...])``
    gives each sub-env its own value.

    Args:
        num_envs: Number of sub-envs.
        g: See [`PendulumEnv`][sekai.envs.PendulumEnv].
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 200).

    Attributes:
        state: ``(num_envs, 2)`` float64 states ``(θ, ω)`` (a copy; assignable).
        last_u: The ``(num_envs,)`` torques of the last step (NaN for a sub-env
            reset since).
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    _by_variable = True  # one contiguous row per state variable: (θ, ω) of every sub-env

    def __init__(
        self,
        num_envs: int,
        *,
        g: float = 10.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = PendulumEnv(g)
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        self.g: Any = single.g
        self.max_speed: Any = single.max_speed
        self.max_torque: Any = single.max_torque
        self.dt: Any = single.dt
        self.m: Any = single.m
        self.l: Any = single.l
        self.last_u = np.full(self.num_envs, np.nan)

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._state[:, indices] = draws.T
        self.last_u[indices] = np.nan

    def _observe(self) -> NDArray[np.float32]:
        theta, omega = self._state
        observations = np.empty((self.num_envs, 3), dtype=np.float32)
        observations[:, 0] = np.cos(theta)
        observations[:, 1] = np.sin(theta)
        observations[:, 2] = omega
        return observations

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        torque = check_box_actions(actions, "PendulumVecEnv", self.num_envs)
        max_torque = _F32(self.max_torque)
        np.minimum(torque, max_torque, out=torque)
        np.maximum(torque, -max_torque, out=torque)
        theta, omega = self._state
        dt, g, m, length = self.dt, self.g, self.m, self.l
        costs = pow_squares(_normalized_angles(theta))
        costs += 0.1 * pow_squares(omega)
        costs += _F32(0.001) * powf_squares(torque)  # float32 product, then float64 sum
        push = _F32(3.0 / (m * square(length))) * torque  # float32 arithmetic
        accel = 3 * g / (2 * length) * np.sin(theta)
        accel += push
        accel *= dt
        new_omega = omega + accel
        max_speed = self.max_speed
        np.minimum(new_omega, max_speed, out=new_omega)
        np.maximum(new_omega, -max_speed, out=new_omega)
        new_theta = new_omega * dt
        new_theta += theta
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                new_theta[frozen] = theta[frozen]
                new_omega[frozen] = omega[frozen]
        self._state[0] = new_theta
        self._state[1] = new_omega
        self.last_u = torque.astype(np.float64)
        np.negative(costs, out=costs)
        return costs, self._never, self._never, {}
