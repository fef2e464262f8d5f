"""The native vector implementation of Pendulum-v1."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._squares import pow_squares, powf_squares, square
from sekai.envs.classic_control._vector_base import (
    ClassicVecEnv,
    box_action_values,
    check_box_actions,
    numbers_only,
)
from sekai.envs.classic_control.pendulum import PendulumEnv, angle_normalize
from sekai.vector import InfoArrays

__all__ = ["PendulumVecEnv"]

_F32 = np.float32
_TURN = 2 * np.pi


def _normalize_angles(theta: NDArray[np.float64], out: NDArray[np.float64]) -> None:
    """``angle_normalize(theta)``, ``((θ + π) % 2π) - π``, bit for bit but faster, into ``out``.

    numpy's ``%`` is C ``fmod`` followed by adding the divisor to a negative
    result (and ``+0.0`` for a zero one); written out, it skips the quotient
    that ``np.remainder`` also computes.
    """
    np.add(theta, np.pi, out=out)
    np.fmod(out, _TURN, out=out)
    out += (out < 0) * _TURN  # +0.0 for -0.0, as numpy's %
    out -= np.pi


class PendulumVecEnv(ClassicVecEnv[NDArray[np.float32]]):
    """``num_envs`` Pendulum-v1 simulations advanced together with numpy.

    ``sekai.make_vec("Pendulum-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows [`PendulumEnv`][sekai.envs.PendulumEnv] bit
    for bit (the same equations in the same floating-point order and
    precision, squares included), and draws its initial states from its own
    stream (`rngs`) as the single env does, so for the same seed and
    actions the trajectories, autoresets included, are identical to those of
    ``SyncVecEnv`` over ``PendulumEnv``.

    Small batches (up to 8 sub-envs) step row by row on Python floats
    while every parameter is a Python number: numpy's fixed cost per call
    outweighs what arrays save there, and the single env's formulas on the
    single env's number types give the same bits as the array code.

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
        # cos θ and sin θ of the current states: the observation, and sin θ for the next step.
        self._cos = np.ones(self.num_envs)
        self._sin = np.zeros(self.num_envs)
        # The observations of the current state, as a small batch's step computed them.
        self._observation_rows: list[tuple[float, float, float]] | None = None
        self._trig_current = True  # _cos and _sin are those of _state (see _current_trig)

    def _assigned(self) -> None:
        self._observation_rows = None
        np.cos(self._state[0], out=self._cos)
        np.sin(self._state[0], out=self._sin)
        self._trig_current = True

    def _current_trig(self) -> None:
        """Bring ``_cos`` and ``_sin`` up to date (a small batch's step leaves them behind)."""
        if not self._trig_current:
            self._assigned()

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._current_trig()
        self._observation_rows = None
        self._state[:, indices] = draws.T
        theta = draws[:, 0]
        self._cos[indices] = np.cos(theta)
        self._sin[indices] = np.sin(theta)
        self.last_u[indices] = np.nan

    def _observe(self) -> NDArray[np.float32]:
        rows = self._observation_rows
        if rows is not None:
            return np.array(rows, dtype=np.float32)
        self._current_trig()
        observations = np.empty((self.num_envs, 3), dtype=np.float32)
        observations[:, 0] = self._cos
        observations[:, 1] = self._sin
        observations[:, 2] = self._state[1]
        return observations

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if self._small:
            parameters = (self.g, self.max_speed, self.max_torque, self.dt, self.m, self.l)
            if numbers_only(parameters):
                return self._step_rows(
                    box_action_values(actions, "PendulumVecEnv", self.num_envs), parameters
                )
        torque = check_box_actions(actions, "PendulumVecEnv", self.num_envs)
        self._current_trig()
        self._observation_rows = None
        max_torque = _F32(self.max_torque)
        np.minimum(torque, max_torque, out=torque)
        np.maximum(torque, -max_torque, out=torque)
        state = self._state
        theta, omega = state
        dt, g, m, length = self.dt, self.g, self.m, self.l
        # The costs, -(θn² + 0.1 ω² + 0.001 u²), with θn the normalised angle: both float64
        # squares in one call.
        squares = np.empty_like(state)
        _normalize_angles(theta, out=squares[0])
        squares[1] = omega
        squares = pow_squares(squares)
        costs = squares[0]
        speed_costs = np.multiply(squares[1], 0.1, out=squares[1])
        costs += speed_costs
        costs += _F32(0.001) * powf_squares(torque)  # float32 product, then float64 sum
        # ω ← clip(ω + (3g / (2l) · sin θ + 3 / (m l²) · u) · dt), θ ← θ + ω · dt
        push = _F32(3.0 / (m * square(length))) * torque  # float32 arithmetic
        new = np.empty_like(state)
        new_theta, new_omega = new
        np.multiply(3 * g / (2 * length), self._sin, out=new_omega)
        new_omega += push
        new_omega *= dt
        new_omega += omega
        max_speed = self.max_speed
        np.minimum(new_omega, max_speed, out=new_omega)
        np.maximum(new_omega, -max_speed, out=new_omega)
        np.multiply(new_omega, dt, out=new_theta)
        new_theta += theta
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                new[:, frozen] = state[:, frozen]
        self._state = new
        np.cos(new_theta, out=self._cos)
        np.sin(new_theta, out=self._sin)
        self.last_u = torque.astype(np.float64)
        np.negative(costs, out=costs)
        return costs, self._never, self._never, {}

    def _step_rows(
        self, torques: NDArray[np.float32], parameters: tuple[Any, ...]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        """`_step` for a small batch: `PendulumEnv.step`'s formulas, row by row.

        The torques stay numpy float32 scalars and the squares numpy powers,
        as in the single env (its precision at each operation).
        """
        g, max_speed, max_torque, dt, m, length = parameters
        frozen = self._frozen.tolist() if not self.autoreset else None
        thetas, omegas = self._state.tolist()
        new_thetas: list[float] = []
        new_omegas: list[float] = []
        observations: list[tuple[float, float, float]] = []
        rewards: list[float] = []
        last_u: list[float] = []
        for i, torque in enumerate(torques):
            theta, omega = thetas[i], omegas[i]
            if torque > max_torque:
                torque = np.float32(max_torque)
            elif torque < -max_torque:
                torque = np.float32(-max_torque)
            last_u.append(float(torque))
            costs = (
                np.float64(angle_normalize(theta)) ** 2
                + 0.1 * np.float64(omega) ** 2
                + float(0.001 * torque**2)  # float32 arithmetic
            )
            rewards.append(-float(costs))
            if frozen is None or not frozen[i]:
                push = float(3.0 / (m * length**2) * torque)  # float32 arithmetic
                omega = omega + (3 * g / (2 * length) * math.sin(theta) + push) * dt
                omega = min(max(omega, -max_speed), max_speed)
                theta = theta + omega * dt
            new_thetas.append(theta)
            new_omegas.append(omega)
            observations.append((math.cos(theta), math.sin(theta), omega))
        self._state = np.array((new_thetas, new_omegas))
        self._trig_current = False
        self._observation_rows = observations
        self.last_u = np.array(last_u)
        return np.array(rewards), self._never, self._never, {}
