"""The native vector implementation of Acrobot-v1."""

from __future__ import annotations

from math import pi
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._squares import pow_squares, square
from sekai.envs.classic_control._vector_base import ClassicVecEnv, check_discrete_actions
from sekai.envs.classic_control.acrobot import GRAVITY, AcrobotEnv
from sekai.vector import InfoArrays

__all__ = ["AcrobotVecEnv"]


class AcrobotVecEnv(ClassicVecEnv[np.int64]):
    """``num_envs`` Acrobot-v1 simulations advanced together with numpy.

    ``sekai.make_vec("Acrobot-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows [`AcrobotEnv`][sekai.envs.AcrobotEnv] bit
    for bit (the same Runge-Kutta step over the same equations, in the same
    floating-point order, squares included), and draws its initial states
    (and its torque noise, when ``torque_noise_max > 0``) from its own stream
    (`rngs`) as the single env does, so for the same seed and actions
    the trajectories, autoresets included, are identical to those of
    ``SyncVecEnv`` over ``AcrobotEnv``.

    Observations have shape ``(num_envs, 6)`` (float32); actions are an int
    array of shape ``(num_envs,)`` holding 0, 1 or 2. The parameters are the
    single env's (``dt``, ``LINK_MASS_1``, ..., ``torque_noise_max``,
    ``book_or_nips``), read at every step; ``set_attr(name, [v0, v1, ...])``
    gives each sub-env its own numeric value.

    Args:
        num_envs: Number of sub-envs.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Time limit per episode (``make_vec`` passes 500).

    Attributes:
        state: ``(num_envs, 4)`` float64 states ``(θ1, θ2, ω1, ω2)`` (a copy;
            assignable).
    """

    metadata: dict[str, Any] = {"render_fps": 15}  # noqa: RUF012 - copied per subclass

    # One contiguous row per state variable: (θ1, θ2, ω1, ω2) of every sub-env.
    _by_variable = True

    dt: Any = AcrobotEnv.dt
    LINK_LENGTH_1: Any = AcrobotEnv.LINK_LENGTH_1
    LINK_LENGTH_2: Any = AcrobotEnv.LINK_LENGTH_2
    LINK_MASS_1: Any = AcrobotEnv.LINK_MASS_1
    LINK_MASS_2: Any = AcrobotEnv.LINK_MASS_2
    LINK_COM_POS_1: Any = AcrobotEnv.LINK_COM_POS_1
    LINK_COM_POS_2: Any = AcrobotEnv.LINK_COM_POS_2
    LINK_MOI: Any = AcrobotEnv.LINK_MOI
    MAX_VEL_1: Any = AcrobotEnv.MAX_VEL_1
    MAX_VEL_2: Any = AcrobotEnv.MAX_VEL_2
    AVAIL_TORQUE: Any = AcrobotEnv.AVAIL_TORQUE
    torque_noise_max: Any = AcrobotEnv.torque_noise_max
    book_or_nips = AcrobotEnv.book_or_nips

    def __init__(
        self,
        num_envs: int,
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        single = AcrobotEnv()
        super().__init__(num_envs, single, autoreset=autoreset, max_episode_steps=max_episode_steps)
        # The cosines and sines of the two angles of the current state.
        self._cos = np.ones((2, self.num_envs), dtype=np.float64)
        self._sin = np.zeros((2, self.num_envs), dtype=np.float64)

    def _assigned(self) -> None:
        np.cos(self._state[:2], out=self._cos)
        np.sin(self._state[:2], out=self._sin)

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        initial = draws.T.astype(np.float32).astype(np.float64)  # rounded as the single env does
        self._state[:, indices] = initial
        self._cos[:, indices] = np.cos(initial[:2])
        self._sin[:, indices] = np.sin(initial[:2])

    def _observe(self) -> NDArray[np.float32]:
        observations = np.empty((self.num_envs, 6), dtype=np.float32)
        observations[:, 0:4:2] = self._cos.T
        observations[:, 1:4:2] = self._sin.T
        observations[:, 4:] = self._state[2:].T
        return observations

    def _torques(self, actions: Any) -> NDArray[np.float64]:
        """The torque of every sub-env: its action's, plus its noise if any."""
        indices = check_discrete_actions(actions, 3, "AcrobotVecEnv", self.num_envs)
        torques: NDArray[np.float64] = np.asarray(self.AVAIL_TORQUE, dtype=np.float64).take(indices)
        noise = self.torque_noise_max
        if not isinstance(noise, np.ndarray) and not noise > 0:
            self._initial.resume()
            return torques
        amplitudes = np.broadcast_to(np.asarray(noise, dtype=np.float64), torques.shape)
        noisy = amplitudes > 0
        if not self.autoreset:
            noisy &= ~self.frozen  # a frozen sub-env is not stepped: it draws nothing
        if not noisy.any():
            return torques
        # The single env draws its noise during the step: no initial states drawn ahead.
        self._initial.pause()
        rngs = self._followed_rngs()
        for i in noisy.nonzero()[0].tolist():
            torques[i] += float(rngs[i].uniform(-amplitudes[i], amplitudes[i]))
        return torques

    def _coefficients(self) -> tuple[Any, ...]:
        """The parameter products of the equations, grouped as the single env groups them."""
        m1, m2 = self.LINK_MASS_1, self.LINK_MASS_2
        l1 = self.LINK_LENGTH_1
        lc1, lc2 = self.LINK_COM_POS_1, self.LINK_COM_POS_2
        moi = self.LINK_MOI
        g = GRAVITY
        return (
            m1 * square(lc1),  # d1 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos θ2) + I1 + I2
            m2,
            square(l1) + square(lc2),
            2 * l1 * lc2,
            moi,
            square(lc2),  # d2 = m2 (lc2² + l1 lc2 cos θ2) + I2
            l1 * lc2,
            m2 * lc2 * g,  # φ2 = m2 lc2 g cos(θ1 + θ2 - π/2)
            -m2 * l1 * lc2,  # φ1 = -m2 l1 lc2 ω2² sin θ2 - 2 m2 l1 lc2 ω2 ω1 sin θ2 + ...
            2 * m2 * l1 * lc2,
            (m1 * lc1 + m2 * l1) * g,  # ... + (m1 lc1 + m2 l1) g cos(θ1 - π/2) + φ2
            m2 * l1 * lc2,  # the book's extra term: m2 l1 lc2 ω1² sin θ2
            m2 * square(lc2) + moi,  # the denominator: m2 lc2² + I2 - d2² / d1
        )

    def _derivatives(
        self,
        y: NDArray[np.float64],
        torque: NDArray[np.float64],
        coefficients: tuple[Any, ...],
        trig: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    ) -> NDArray[np.float64]:
        """The time derivative of the ``(4, num_envs)`` states ``y`` (see ``AcrobotEnv``).

        Every product and sum is grouped as in the single env; the operands of
        one product or sum may be swapped (IEEE arithmetic commutes exactly).
        ``trig`` is ``(cos θ2, sin θ2)`` when known.
        """
        (
            m1_lc1_sq,
            m2,
            l1_sq_lc2_sq,
            two_l1_lc2,
            moi,
            lc2_sq,
            l1_lc2,
            m2_lc2_g,
            minus_m2_l1_lc2,
            two_m2_l1_lc2,
            arm_g,
            m2_l1_lc2,
            denominator_base,
        ) = coefficients
        theta1, theta2, omega1, omega2 = y
        if trig is None:
            cos2, sin2 = np.cos(theta2), np.sin(theta2)
        else:
            cos2, sin2 = trig
        rates = np.empty_like(y)
        rates[:2] = y[2:]
        squares = pow_squares(y[2:])  # (ω1², ω2²)
        d1 = two_l1_lc2 * cos2
        d1 += l1_sq_lc2_sq
        d1 *= m2
        d1 += m1_lc1_sq
        d1 += moi
        d1 += moi
        d2 = l1_lc2 * cos2
        d2 += lc2_sq
        d2 *= m2
        d2 += moi
        phi2 = theta1 + theta2
        phi2 -= pi / 2.0
        np.cos(phi2, out=phi2)
        phi2 *= m2_lc2_g
        phi1 = minus_m2_l1_lc2 * squares[1]
        phi1 *= sin2
        term = two_m2_l1_lc2 * omega2
        term *= omega1
        term *= sin2
        phi1 -= term
        np.subtract(theta1, pi / 2, out=term)
        np.cos(term, out=term)
        term *= arm_g
        phi1 += term
        phi1 += phi2
        numerator = np.divide(d2, d1, out=term)
        numerator *= phi1
        numerator += torque
        if self.book_or_nips != "nips":
            extra = m2_l1_lc2 * squares[0]
            extra *= sin2
            numerator -= extra
        numerator -= phi2
        denominator = pow_squares(d2)
        denominator /= d1
        np.subtract(denominator_base, denominator, out=denominator)
        accel2 = np.divide(numerator, denominator, out=rates[3])
        accel1 = np.multiply(d2, accel2, out=rates[2])
        accel1 += phi1
        accel1 /= d1
        np.negative(accel1, out=accel1)
        return rates

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        torque = self._torques(actions)
        coefficients = self._coefficients()
        dt = self.dt
        half = dt / 2.0
        y = self._state
        k1 = self._derivatives(y, torque, coefficients, (self._cos[1], self._sin[1]))
        k2 = self._derivatives(half * k1 + y, torque, coefficients)
        k3 = self._derivatives(half * k2 + y, torque, coefficients)
        k4 = self._derivatives(dt * k3 + y, torque, coefficients)
        # y + dt / 6 * (k1 + 2 k2 + 2 k3 + k4), summed left to right
        k2 *= 2
        k1 += k2
        k3 *= 2
        k1 += k3
        k1 += k4
        k1 *= dt / 6.0
        new = k1
        new += y
        period = pi - -pi
        for theta in new[:2]:  # wrap into [-pi, pi] by whole turns
            while True:
                above = theta > pi
                if not above.any():
                    break
                theta[above] -= period
            while True:
                below = theta < -pi
                if not below.any():
                    break
                theta[below] += period
        for omega, limit in ((new[2], self.MAX_VEL_1), (new[3], self.MAX_VEL_2)):
            np.maximum(omega, -limit, out=omega)
            np.minimum(omega, limit, out=omega)
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                new[:, frozen] = y[:, frozen]
        self._state = new
        np.cos(new[:2], out=self._cos)
        np.sin(new[:2], out=self._sin)
        reach = new[1] + new[0]
        np.cos(reach, out=reach)
        reach += self._cos[0]
        terminated = reach < -1.0  # -cos θ1 - cos(θ2 + θ1) > 1
        rewards = np.where(terminated, 0.0, -1.0)
        return rewards, terminated, self._never, {}
