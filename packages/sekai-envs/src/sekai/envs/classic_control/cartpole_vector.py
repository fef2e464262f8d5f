"""The native vector implementation of CartPole-v1 (all sub-envs in numpy arrays)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._vector_base import (
    ClassicVecEnv,
    check_discrete_actions,
    discrete_action_list,
    numbers_only,
)
from sekai.envs.classic_control.cartpole import CartPoleEnv
from sekai.vector import InfoArrays

__all__ = ["CartPoleVecEnv"]


class CartPoleVecEnv(ClassicVecEnv[np.int64]):
    """``num_envs`` CartPole-v1 simulations advanced together with numpy.

    ``sekai.make_vec("CartPole-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows [`CartPoleEnv`][sekai.envs.CartPoleEnv]
    exactly: the same equations in the same floating-point order, so from the
    same states and actions the observations, rewards and flags are
    bit-identical to N single envs (and to Gymnasium's CartPole-v1). Initial
    states are drawn from each sub-env's own stream (`rngs`) as the
    single env draws them, so for the same seed and actions the trajectories,
    autoresets included, are identical to those of ``SyncVecEnv``,
    ``AsyncVecEnv`` or ``ProcVecEnv`` over ``CartPoleEnv``
    (``make_vec(..., vectorization_mode="sync")``). To keep autoreset cheap,
    initial states are drawn ahead, up to 128 per sub-env at a time (fewer
    beyond 1024 sub-envs); `rngs` puts every generator back at its exact
    position before handing it out.

    Small batches (up to 8 sub-envs) step row by row on Python floats
    while every parameter is a Python number: numpy's fixed cost per call
    outweighs what arrays save there, and the single env's formulas on the
    single env's number types give the same bits as the array code.

    Observation, action, reward and termination are those of
    [`CartPoleEnv`][sekai.envs.CartPoleEnv], batched: observations
    have shape ``(num_envs, 4)`` (float32) and actions are an int array of
    shape ``(num_envs,)`` holding 0 or 1. Finished sub-envs are reset within
    the step (see [`NativeVecEnv`][sekai.vector.NativeVecEnv]), or frozen with
    ``autoreset=False``. Per-env reset options ``{"low": l, "high": h}`` change
    the initial-state bounds as for the single env.

    The physical parameters are the single env's attributes (``gravity``,
    ``masscart``, ``masspole``, ``length``, ``force_mag``, ``tau``,
    ``kinematics_integrator``, ``theta_threshold_radians``, ``x_threshold``),
    read at every step: a value applies to every sub-env, and
    ``set_attr(name, [v0, v1, ...])`` gives each sub-env its own (stored as an
    array of ``num_envs``).

    Args:
        num_envs: Number of sub-envs.
        sutton_barto_reward: Reward 0 per step and -1 on termination.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 500, the
            registered limit).

    Attributes:
        state: ``(num_envs, 4)`` float64 states (a copy; assignable, e.g. to
            start every sub-env from given states).
    """

    metadata: dict[str, Any] = {"render_fps": 50}  # noqa: RUF012 - copied per subclass

    def __init__(
        self,
        num_envs: int,
        *,
        sutton_barto_reward: bool = False,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = CartPoleEnv(sutton_barto_reward=sutton_barto_reward)
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        self.sutton_barto_reward = single.sutton_barto_reward
        self.gravity: Any = single.gravity
        self.masscart: Any = single.masscart
        self.masspole: Any = single.masspole
        self.length: Any = single.length
        self.force_mag: Any = single.force_mag
        self.tau: Any = single.tau
        self.kinematics_integrator = single.kinematics_integrator
        self.theta_threshold_radians: Any = single.theta_threshold_radians
        self.x_threshold: Any = single.x_threshold
        self._step_reward = 0.0 if self.sutton_barto_reward else 1.0
        self._end_reward = -1.0 if self.sutton_barto_reward else 1.0
        self._constant_rewards = np.full(self.num_envs, self._step_reward)

    @property
    def total_mass(self) -> Any:
        """Mass of the cart and the pole together (follows ``masscart`` and ``masspole``)."""
        return self.masspole + self.masscart

    @property
    def polemass_length(self) -> Any:
        """``masspole * length`` (follows both)."""
        return self.masspole * self.length

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._state[indices] = draws

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if self._small:
            parameters = (
                self.gravity,
                self.masscart,
                self.masspole,
                self.length,
                self.force_mag,
                self.tau,
                self.theta_threshold_radians,
                self.x_threshold,
            )
            if numbers_only(parameters):
                return self._step_rows(actions, parameters)
        pushes = check_discrete_actions(actions, 2, "CartPoleVecEnv", self.num_envs)
        state = self._state
        theta, theta_dot = state[:, 2], state[:, 3]
        force_mag, masspole, tau = self.force_mag, self.masspole, self.tau
        total_mass = masspole + self.masscart
        polemass_length = masspole * self.length
        if isinstance(force_mag, np.ndarray):  # one per sub-env
            force = np.where(pushes == 1, force_mag, -force_mag)
        else:
            force = np.array([-force_mag, force_mag]).take(pushes)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        # The time derivatives of (x, x_dot, theta, theta_dot), one row per sub-env.
        rates = np.empty_like(state)
        temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass
        thetaacc = np.divide(
            self.gravity * sintheta - costheta * temp,
            self.length * (4.0 / 3.0 - masspole * (costheta * costheta) / total_mass),
            out=rates[:, 3],
        )
        np.subtract(temp, polemass_length * thetaacc * costheta / total_mass, out=rates[:, 1])
        if self.kinematics_integrator == "euler":
            # state + tau * rates, in CartPoleEnv's floating-point order (x + tau * x_dot,
            # ...; products and sums commute exactly in IEEE).
            rates[:, 0::2] = state[:, 1::2]
            new = np.multiply(rates, _column(tau), out=rates)
            np.add(state, new, out=new)
        else:  # semi-implicit Euler: velocities first, then positions with them
            new = rates
            np.multiply(rates[:, 1::2], _column(tau), out=new[:, 1::2])
            np.add(state[:, 1::2], new[:, 1::2], out=new[:, 1::2])
            np.multiply(new[:, 1::2], _column(tau), out=new[:, 0::2])
            np.add(state[:, 0::2], new[:, 0::2], out=new[:, 0::2])
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():
                new[frozen] = state[frozen]  # a finished sub-env keeps its final state
        self._state = new
        # |x| > t is exactly x < -t or x > t, NaN included. (One 1-D comparison per
        # column: numpy loops slowly over an inner axis of 2.)
        terminated = (np.abs(new[:, 0]) > self.x_threshold) | (
            np.abs(new[:, 2]) > self.theta_threshold_radians
        )
        if self._end_reward == self._step_reward:
            rewards = self._constant_rewards  # NativeVecEnv.step copies what _step returns
        else:
            rewards = np.where(terminated, self._end_reward, self._step_reward)
        return rewards, terminated, self._never, {}

    def _step_rows(
        self, actions: Any, parameters: tuple[Any, ...]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        """`_step` for a small batch: `CartPoleEnv.step`'s formulas, row by row, on floats."""
        pushes = discrete_action_list(actions, 2, "CartPoleVecEnv", self.num_envs)
        gravity, masscart, masspole, length, force_mag, tau, theta_threshold, x_threshold = (
            parameters
        )
        total_mass = masspole + masscart
        polemass_length = masspole * length
        euler = self.kinematics_integrator == "euler"
        frozen = self._frozen.tolist() if not self.autoreset else None
        rows: list[list[float]] = self._state.tolist()
        ends: list[bool] = []
        for i, (row, push) in enumerate(zip(rows, pushes, strict=True)):
            x, x_dot, theta, theta_dot = row
            if frozen is not None and frozen[i]:  # a finished sub-env keeps its final state
                ends.append(
                    bool(
                        x < -x_threshold
                        or x > x_threshold
                        or theta < -theta_threshold
                        or theta > theta_threshold
                    )
                )
                continue
            force = force_mag if push == 1 else -force_mag
            costheta = math.cos(theta)
            sintheta = math.sin(theta)
            temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass
            thetaacc = (gravity * sintheta - costheta * temp) / (
                length * (4.0 / 3.0 - masspole * (costheta * costheta) / total_mass)
            )
            xacc = temp - polemass_length * thetaacc * costheta / total_mass
            if euler:
                x = x + tau * x_dot
                x_dot = x_dot + tau * xacc
                theta = theta + tau * theta_dot
                theta_dot = theta_dot + tau * thetaacc
            else:  # semi-implicit Euler: the positions move with the new velocities
                x_dot = x_dot + tau * xacc
                x = x + tau * x_dot
                theta_dot = theta_dot + tau * thetaacc
                theta = theta + tau * theta_dot
            row[0] = x
            row[1] = x_dot
            row[2] = theta
            row[3] = theta_dot
            ends.append(
                bool(
                    x < -x_threshold
                    or x > x_threshold
                    or theta < -theta_threshold
                    or theta > theta_threshold
                )
            )
        self._state = np.array(rows)
        terminated = np.array(ends)
        if self._end_reward == self._step_reward:
            rewards = self._constant_rewards
        else:
            rewards = np.array([self._end_reward if end else self._step_reward for end in ends])
        return rewards, terminated, self._never, {}


def _column(value: Any) -> Any:
    """A per-sub-env parameter as a column, to scale rows; a scalar as it is."""
    return value[:, None] if isinstance(value, np.ndarray) and value.ndim == 1 else value
