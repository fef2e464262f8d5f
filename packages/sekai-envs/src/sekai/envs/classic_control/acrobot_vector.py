"""The native vector implementation of Acrobot-v1."""

from __future__ import annotations

import math
from math import pi
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._squares import pow_squares, square
from sekai.envs.classic_control._vector_base import (
    ClassicVecEnv,
    check_discrete_actions,
    discrete_action_list,
    numbers_only,
)
from sekai.envs.classic_control.acrobot import GRAVITY, AcrobotEnv, bound, wrap
from sekai.vector import InfoArrays

__all__ = ["AcrobotVecEnv"]


class _Coefficients(NamedTuple):
    """The parameter products of the equations, grouped as the single env groups them.

    ``None`` stands for a factor of exactly 1.0 (a multiplication to skip:
    ``1.0 * x == x``); per-sub-env parameters are arrays.
    """

    m1_lc1_sq: Any  # d1 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos θ2) + I1 + I2
    m2: Any
    l1_sq_lc2_sq: Any
    two_l1_lc2: Any
    moi: Any
    lc2_sq: Any  # d2 = m2 (lc2² + l1 lc2 cos θ2) + I2
    l1_lc2: Any
    gravity: Any  # a column (m2 lc2 g, (m1 lc1 + m2 l1) g), for cos(θ1 + θ2 - π/2), cos(θ1 - π/2)
    minus_m2_l1_lc2: Any  # φ1 = -m2 l1 lc2 ω2² sin θ2 - 2 m2 l1 lc2 ω2 ω1 sin θ2 + ...
    two_m2_l1_lc2: Any
    m2_l1_lc2: Any  # the book's extra term: m2 l1 lc2 ω1² sin θ2
    denominator_base: Any  # the denominator: m2 lc2² + I2 - d2² / d1
    book: bool


def _factor(value: Any) -> Any:
    """``value``, or ``None`` if it is the number 1.0 (a factor to skip)."""
    return None if not isinstance(value, np.ndarray) and value == 1.0 else value


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

    Small batches (up to 32 sub-envs) step row by row on Python floats
    while every parameter is a Python number: numpy's fixed cost per call
    outweighs what arrays save there, and the single env's formulas on the
    single env's number types give the same bits as the array code.

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
    # A Runge-Kutta step costs dozens of numpy calls: rows on floats win up to here.
    _small_batch: ClassVar[int] = 32

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
        self._trig_current = True  # _cos and _sin are those of _state (see _current_trig)
        self._cached: tuple[Any, _Coefficients] | None = None  # (parameters, coefficients)
        self._torque_table: tuple[Any, NDArray[np.float64]] | None = None
        # Small batches: the constants of the row path's equations (with the parameters they
        # come from), and the observations of the current state as a step computed them.
        self._row_constants: tuple[tuple[Any, ...], _RowConstants] | None = None
        self._observation_rows: list[tuple[float, ...]] | None = None

    def _assigned(self) -> None:
        self._observation_rows = None
        np.cos(self._state[:2], out=self._cos)
        np.sin(self._state[:2], out=self._sin)
        self._trig_current = True

    def _current_trig(self) -> None:
        """Bring ``_cos`` and ``_sin`` up to date (a small batch's step leaves them behind)."""
        if not self._trig_current:
            self._assigned()

    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        self._current_trig()
        self._observation_rows = None
        initial = draws.T.astype(np.float32).astype(np.float64)  # rounded as the single env does
        self._state[:, indices] = initial
        self._cos[:, indices] = np.cos(initial[:2])
        self._sin[:, indices] = np.sin(initial[:2])

    def _observe(self) -> NDArray[np.float32]:
        rows = self._observation_rows
        if rows is not None:  # computed by a small batch's step for the current state
            return np.array(rows, dtype=np.float32)
        self._current_trig()
        observations = np.empty((self.num_envs, 6), dtype=np.float32)
        cos, sin, state = self._cos, self._sin, self._state
        # Column by column: numpy copies a (2, n) block into strided columns far slower.
        observations[:, 0] = cos[0]
        observations[:, 1] = sin[0]
        observations[:, 2] = cos[1]
        observations[:, 3] = sin[1]
        observations[:, 4] = state[2]
        observations[:, 5] = state[3]
        return observations

    def _torques(self, actions: Any) -> NDArray[np.float64]:
        """The torque of every sub-env: its action's, plus its noise if any."""
        indices = check_discrete_actions(actions, 3, "AcrobotVecEnv", self.num_envs)
        available = self.AVAIL_TORQUE
        table = self._torque_table
        if table is None or table[0] is not available or not isinstance(available, tuple):
            table = (available, np.asarray(available, dtype=np.float64))
            self._torque_table = table
        torques: NDArray[np.float64] = table[1].take(indices)
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

    def _coefficients(self) -> _Coefficients:
        """The coefficients of the current parameters (computed again when one changes)."""
        parameters = (
            self.LINK_MASS_1,
            self.LINK_MASS_2,
            self.LINK_LENGTH_1,
            self.LINK_COM_POS_1,
            self.LINK_COM_POS_2,
            self.LINK_MOI,
            self.book_or_nips,
        )
        cached = self._cached  # kept for numbers only (immutable): same objects, same values
        if cached is not None and all(a is b for a, b in zip(cached[0], parameters, strict=True)):
            return cached[1]
        m1, m2, l1, lc1, lc2, moi, variant = parameters
        g = GRAVITY
        m2_lc2_g = m2 * lc2 * g
        arm_g = (m1 * lc1 + m2 * l1) * g
        gravity = np.stack(np.broadcast_arrays(np.asarray(m2_lc2_g), np.asarray(arm_g)))
        coefficients = _Coefficients(
            m1_lc1_sq=m1 * square(lc1),
            m2=_factor(m2),
            l1_sq_lc2_sq=square(l1) + square(lc2),
            two_l1_lc2=_factor(2 * l1 * lc2),
            moi=moi,
            lc2_sq=square(lc2),
            l1_lc2=l1 * lc2,
            gravity=gravity.reshape(2, -1).astype(np.float64),  # (2, 1) or (2, num_envs)
            minus_m2_l1_lc2=-m2 * l1 * lc2,
            two_m2_l1_lc2=_factor(2 * m2 * l1 * lc2),
            m2_l1_lc2=m2 * l1 * lc2,
            denominator_base=m2 * square(lc2) + moi,
            book=variant != "nips",
        )
        if not any(isinstance(value, np.ndarray) for value in parameters):
            self._cached = (parameters, coefficients)
        return coefficients

    def _derivatives(
        self,
        y: NDArray[np.float64],
        torque: NDArray[np.float64],
        c: _Coefficients,
        trig: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    ) -> NDArray[np.float64]:
        """The time derivative of the ``(4, num_envs)`` states ``y`` (see ``AcrobotEnv``).

        Every product and sum is grouped as in the single env; the operands of
        one product or sum may be swapped (IEEE arithmetic commutes exactly),
        and ``d1`` is carried negated, ``-d1``, which flips the sign of the
        quotients by it exactly (``a + b / d1 * φ == a - b / -d1 * φ``).
        ``trig`` is ``(cos θ2, sin θ2)`` when known.
        """
        theta1, theta2, omega1, omega2 = y
        if trig is None:
            cos2, sin2 = np.cos(theta2), np.sin(theta2)
        else:
            cos2, sin2 = trig
        # Rows: d2, then the rates (ω1, ω2, ddθ1, ddθ2); d2, ω1 and ω2 are squared together.
        block = np.empty((5, y.shape[1]))
        d2 = block[0]
        rates = block[1:]
        rates[:2] = y[2:]
        np.multiply(cos2, c.l1_lc2, out=d2)
        d2 += c.lc2_sq
        if c.m2 is not None:
            d2 *= c.m2
        d2 += c.moi
        squares = pow_squares(block[:3])  # d2², ω1², ω2²
        if c.two_l1_lc2 is None:
            minus_d1 = np.subtract(-c.l1_sq_lc2_sq, cos2)
        else:
            minus_d1 = np.multiply(cos2, -c.two_l1_lc2)
            minus_d1 -= c.l1_sq_lc2_sq
        if c.m2 is not None:
            minus_d1 *= c.m2
        minus_d1 -= c.m1_lc1_sq
        minus_d1 -= c.moi
        minus_d1 -= c.moi
        # φ2 = m2 lc2 g cos(θ1 + θ2 - π/2), and (m1 lc1 + m2 l1) g cos(θ1 - π/2): one cos call
        gravity = np.empty_like(y[:2])
        np.add(theta1, theta2, out=gravity[0])
        gravity[1] = theta1
        gravity -= pi / 2.0
        np.cos(gravity, out=gravity)
        gravity *= c.gravity
        phi2, arm = gravity
        phi1 = np.multiply(squares[2], c.minus_m2_l1_lc2)
        phi1 *= sin2
        if c.two_m2_l1_lc2 is None:
            term = np.multiply(omega2, omega1)
        else:
            term = np.multiply(omega2, c.two_m2_l1_lc2)
            term *= omega1
        term *= sin2
        phi1 -= term
        phi1 += arm
        phi1 += phi2
        numerator = np.divide(d2, minus_d1, out=term)
        numerator *= phi1
        np.subtract(torque, numerator, out=numerator)
        if c.book:
            extra = np.multiply(squares[1], c.m2_l1_lc2, out=arm)
            extra *= sin2
            numerator -= extra
        numerator -= phi2
        denominator = np.divide(squares[0], minus_d1, out=squares[0])
        denominator += c.denominator_base
        accel2 = np.divide(numerator, denominator, out=rates[3])
        accel1 = np.multiply(d2, accel2, out=rates[2])
        accel1 += phi1
        accel1 /= minus_d1
        return rates

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if self._small:
            parameters = (
                self.dt,
                self.LINK_LENGTH_1,
                self.LINK_MASS_1,
                self.LINK_MASS_2,
                self.LINK_COM_POS_1,
                self.LINK_COM_POS_2,
                self.LINK_MOI,
                self.MAX_VEL_1,
                self.MAX_VEL_2,
                self.torque_noise_max,
            )
            noise = parameters[-1]
            if numbers_only(parameters) and not noise > 0 and isinstance(self.AVAIL_TORQUE, tuple):
                return self._step_rows(actions, parameters)
        self._current_trig()
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
        angles = new[:2]  # wrapped into [-pi, pi] by whole turns
        period = pi - -pi
        while np.fmax.reduce(angles, axis=None) > pi:  # fmax: NaNs stay, as in the single env
            np.subtract(angles, period, out=angles, where=angles > pi)
        while np.fmin.reduce(angles, axis=None) < -pi:
            np.add(angles, period, out=angles, where=angles < -pi)
        for omega, limit in ((new[2], self.MAX_VEL_1), (new[3], self.MAX_VEL_2)):
            np.maximum(omega, -limit, out=omega)
            np.minimum(omega, limit, out=omega)
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():  # a finished sub-env keeps its final state
                new[:, frozen] = y[:, frozen]
        self._state = new
        self._observation_rows = None
        np.cos(angles, out=self._cos)
        np.sin(angles, out=self._sin)
        reach = new[1] + new[0]
        np.cos(reach, out=reach)
        reach += self._cos[0]
        terminated = reach < -1.0  # -cos θ1 - cos(θ2 + θ1) > 1
        rewards = np.subtract(terminated, 1.0)  # 0.0 when terminated, else -1.0
        return rewards, terminated, self._never, {}

    def _step_rows(
        self, actions: Any, parameters: tuple[Any, ...]
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        """`_step` for a small batch without torque noise: `AcrobotEnv.step`, row by row.

        `_runge_kutta_row` runs the single env's Runge-Kutta step on Python
        floats, then the single env's wrapping, clipping and termination test.
        """
        choices = discrete_action_list(actions, 3, "AcrobotVecEnv", self.num_envs)
        self._initial.resume()
        key = (*parameters, self.book_or_nips)
        cached = self._row_constants
        if cached is None or cached[0] != key:  # numbers only: == compares values
            cached = self._row_constants = (key, _RowConstants.of(parameters, self.book_or_nips))
        constants = cached[1]
        max_vel_1, max_vel_2 = parameters[7], parameters[8]
        available = self.AVAIL_TORQUE
        frozen = self._frozen.tolist() if not self.autoreset else None
        theta1s, theta2s, omega1s, omega2s = self._state.tolist()
        new_state: tuple[list[float], ...] = ([], [], [], [])
        observations: list[tuple[float, ...]] = []
        ends: list[bool] = []
        rewards: list[float] = []
        cos = math.cos
        sin = math.sin
        for i, choice in enumerate(choices):
            theta1, theta2, omega1, omega2 = theta1s[i], theta2s[i], omega1s[i], omega2s[i]
            if frozen is None or not frozen[i]:
                theta1, theta2, omega1, omega2 = _runge_kutta_row(
                    theta1, theta2, omega1, omega2, float(available[choice]), constants
                )
                theta1 = wrap(theta1, -pi, pi)
                theta2 = wrap(theta2, -pi, pi)
                omega1 = bound(omega1, -max_vel_1, max_vel_1)
                omega2 = bound(omega2, -max_vel_2, max_vel_2)
            new_state[0].append(theta1)
            new_state[1].append(theta2)
            new_state[2].append(omega1)
            new_state[3].append(omega2)
            cos1 = cos(theta1)
            observations.append((cos1, sin(theta1), cos(theta2), sin(theta2), omega1, omega2))
            end = -cos1 - cos(theta2 + theta1) > 1.0
            ends.append(end)
            rewards.append(0.0 if end else -1.0)
        self._state = np.array(new_state)
        self._trig_current = False
        self._observation_rows = observations
        return np.array(rewards), np.array(ends), self._never, {}


class _RowConstants(NamedTuple):
    """The parameter products of `AcrobotEnv._derivatives`, as its expressions compute them.

    Each is a leading sub-expression of the single env's (Python evaluates
    ``a * b * c * x`` as ``((a * b) * c) * x``), so computing it once gives
    the bits the single env computes at every call.
    """

    dt: float
    m1_lc1_sq: float  # m1 * lc1**2
    m2: float
    l1_sq_lc2_sq: float  # l1**2 + lc2**2
    two_l1_lc2: float  # 2 * l1 * lc2
    i1: float
    i2: float
    lc2_sq: float  # lc2**2
    l1_lc2: float  # l1 * lc2
    m2_lc2_g: float  # m2 * lc2 * g
    minus_m2_l1_lc2: float  # -m2 * l1 * lc2
    two_m2_l1_lc2: float  # 2 * m2 * l1 * lc2
    arm_g: float  # (m1 * lc1 + m2 * l1) * g
    m2_l1_lc2: float  # m2 * l1 * lc2
    base: float  # m2 * lc2**2 + i2
    book: bool

    @classmethod
    def of(cls, parameters: tuple[Any, ...], variant: Any) -> _RowConstants:
        """The constants of ``(dt, l1, m1, m2, lc1, lc2, moi, ...)`` (`_step`'s order)."""
        dt, l1, m1, m2, lc1, lc2, moi = parameters[:7]
        i1 = i2 = moi
        g = GRAVITY
        return cls(
            dt=dt,
            m1_lc1_sq=m1 * lc1**2,
            m2=m2,
            l1_sq_lc2_sq=l1**2 + lc2**2,
            two_l1_lc2=2 * l1 * lc2,
            i1=i1,
            i2=i2,
            lc2_sq=lc2**2,
            l1_lc2=l1 * lc2,
            m2_lc2_g=m2 * lc2 * g,
            minus_m2_l1_lc2=-m2 * l1 * lc2,
            two_m2_l1_lc2=2 * m2 * l1 * lc2,
            arm_g=(m1 * lc1 + m2 * l1) * g,
            m2_l1_lc2=m2 * l1 * lc2,
            base=m2 * lc2**2 + i2,
            book=variant != "nips",
        )


def _runge_kutta_row(
    theta1: float, theta2: float, omega1: float, omega2: float, torque: float, c: _RowConstants
) -> tuple[float, float, float, float]:
    """`AcrobotEnv._runge_kutta` on one state: the same operations on the same floats.

    The derivative is `AcrobotEnv._derivatives` with its parameter products
    taken from ``c``; the stages and the weighted sum are grouped as there.
    """
    cos = math.cos
    sin = math.sin
    half_pi = pi / 2.0
    m2, i1, i2 = c.m2, c.i1, c.i2
    book = c.book

    def rates(
        theta1: float, theta2: float, omega1: float, omega2: float
    ) -> tuple[float, float, float, float]:
        cos2, sin2 = cos(theta2), sin(theta2)
        d1 = c.m1_lc1_sq + m2 * (c.l1_sq_lc2_sq + c.two_l1_lc2 * cos2) + i1 + i2
        d2 = m2 * (c.lc2_sq + c.l1_lc2 * cos2) + i2
        phi2 = c.m2_lc2_g * cos(theta1 + theta2 - half_pi)
        phi1 = (
            c.minus_m2_l1_lc2 * omega2**2 * sin2
            - c.two_m2_l1_lc2 * omega2 * omega1 * sin2
            + c.arm_g * cos(theta1 - pi / 2)
            + phi2
        )
        if book:
            accel2 = (torque + d2 / d1 * phi1 - c.m2_l1_lc2 * omega1**2 * sin2 - phi2) / (
                c.base - d2**2 / d1
            )
        else:
            accel2 = (torque + d2 / d1 * phi1 - phi2) / (c.base - d2**2 / d1)
        accel1 = -(d2 * accel2 + phi1) / d1
        return omega1, omega2, accel1, accel2

    dt = c.dt
    half = dt / 2.0
    a1, a2, a3, a4 = rates(theta1, theta2, omega1, omega2)
    b1, b2, b3, b4 = rates(
        theta1 + half * a1, theta2 + half * a2, omega1 + half * a3, omega2 + half * a4
    )
    c1, c2, c3, c4 = rates(
        theta1 + half * b1, theta2 + half * b2, omega1 + half * b3, omega2 + half * b4
    )
    d1, d2, d3, d4 = rates(theta1 + dt * c1, theta2 + dt * c2, omega1 + dt * c3, omega2 + dt * c4)
    sixth = dt / 6.0
    return (
        theta1 + sixth * (a1 + 2 * b1 + 2 * c1 + d1),
        theta2 + sixth * (a2 + 2 * b2 + 2 * c2 + d2),
        omega1 + sixth * (a3 + 2 * b3 + 2 * c3 + d3),
        omega2 + sixth * (a4 + 2 * b4 + 2 * c4 + d4),
    )
