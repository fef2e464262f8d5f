"""Acrobot-v1: swing a two-link arm above a line (classic control)."""

from __future__ import annotations

import math
from math import pi
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import StepResult
from sekai.envs.classic_control._common import discrete_action, reset_bounds
from sekai.envs.classic_control._env_base import ClassicEnv
from sekai.error import ResetRequired
from sekai.spaces import Box, Discrete
from sekai.utils.seeding import SeedType

__all__ = ["AcrobotEnv", "SeedType", "bound", "wrap"]

RESET_LOW = -0.1
RESET_HIGH = 0.1
GRAVITY = 9.8


def wrap(x: float, m: float, M: float) -> float:
    """Shift ``x`` by whole periods ``M - m`` until ``m <= x <= M`` (for angles).

    Unlike `bound`, which cuts ``x`` off at the limits, ``wrap`` moves
    it around the circle: with ``m = -180`` and ``M = 180``, ``x = 190``
    becomes ``-170``.
    """
    period = M - m
    while x > M:
        x = x - period
    while x < m:
        x = x + period
    return x


def bound(x: float, m: float, M: float) -> float:
    """Clip ``x`` to ``[m, M]``."""
    return min(max(x, m), M)


def acrobot_reset_bounds(options: dict[str, Any] | None) -> tuple[float, float]:
    """The bounds of the four initial state variables: ``(-0.1, 0.1)`` unless options say."""
    return reset_bounds(options, "Acrobot", RESET_LOW, RESET_HIGH)


class AcrobotEnv(ClassicEnv[np.int64, np.float64]):
    """Two links chained to a fixed pivot; a torque on the joint between them swings the tip up.

    The state is ``(θ1, θ2, ω1, ω2)``: the angle of the first link from
    hanging straight down, the angle of the second link relative to the
    first, and their angular velocities. The equations of motion are those
    of Sutton & Barto's *Reinforcement Learning: An Introduction* (the
    ``"book"`` variant, the default; ``"nips"`` drops a term as Sutton's 1996
    NIPS paper does), integrated over ``dt = 0.2`` s by one fourth-order
    Runge-Kutta step; the angles are then wrapped into ``[-π, π]`` and the
    velocities clipped to ``±4π`` and ``±9π``. This reproduces Gymnasium's
    ``Acrobot-v1`` bit for bit, and ``reset(seed=s)`` draws the same initial
    state.

    Observation:
        ``Box((6,), float32)``: ``cos θ1``, ``sin θ1``, ``cos θ2``, ``sin θ2``
        (bounds ±1), ``ω1`` (±4π) and ``ω2`` (±9π).

    Action:
        ``Discrete(3)``: a torque of -1, 0 or +1 (``AVAIL_TORQUE``) on the
        joint between the links.

    Reward:
        ``-1.0`` per step, ``0.0`` on the terminating step.

    Termination:
        ``terminated`` when the tip rises more than one link length above the
        pivot: ``-cos θ1 - cos(θ1 + θ2) > 1``. The registered ``Acrobot-v1``
        truncates after 500 steps (reward threshold -100).

    Reset:
        The four state variables uniform in ``[-0.1, 0.1]`` (the options
        ``{"low": l, "high": h}`` change the bounds), rounded to float32 as
        Gymnasium does.

    The parameters are class attributes, as in Gymnasium; assigning one on an
    instance changes that env from its next step on. With
    ``torque_noise_max > 0`` every step adds uniform noise in
    ``±torque_noise_max`` to the torque, drawn from the env's generator.

    Attributes:
        dt: Seconds per step (0.2).
        LINK_LENGTH_1: Length of the first link (1.0).
        LINK_LENGTH_2: Length of the second link (1.0; only drawn).
        LINK_MASS_1: Mass of the first link (1.0).
        LINK_MASS_2: Mass of the second link (1.0).
        LINK_COM_POS_1: Position of the first link's centre of mass (0.5).
        LINK_COM_POS_2: Position of the second link's centre of mass (0.5).
        LINK_MOI: Moment of inertia of each link (1.0).
        MAX_VEL_1: Speed limit of the first link (4π).
        MAX_VEL_2: Speed limit of the second link (9π).
        AVAIL_TORQUE: The torques of the three actions.
        torque_noise_max: Amplitude of the torque noise (0.0).
        book_or_nips: ``"book"`` or ``"nips"``: the variant of the dynamics.
        state: The float64 state (a fresh array; assignable). ``None`` before
            the first reset.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 15,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.classic_control.rendering:AcrobotRenderer",
    }

    _name = "Acrobot"
    _size = _width = 4
    _bounds = staticmethod(acrobot_reset_bounds)

    dt = 0.2
    LINK_LENGTH_1 = 1.0
    LINK_LENGTH_2 = 1.0
    LINK_MASS_1 = 1.0
    LINK_MASS_2 = 1.0
    LINK_COM_POS_1 = 0.5
    LINK_COM_POS_2 = 0.5
    LINK_MOI = 1.0
    MAX_VEL_1 = 4 * pi
    MAX_VEL_2 = 9 * pi
    AVAIL_TORQUE = (-1.0, 0.0, 1.0)
    torque_noise_max = 0.0
    book_or_nips = "book"

    def __init__(self) -> None:
        high = np.array([1.0, 1.0, 1.0, 1.0, self.MAX_VEL_1, self.MAX_VEL_2], dtype=np.float32)
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Discrete(3)

    def _start(self, draws: NDArray[np.float64]) -> None:
        super()._start(draws.astype(np.float32).astype(np.float64))  # rounded as Gymnasium does

    def _observation(self) -> NDArray[np.float32]:
        theta1, theta2, omega1, omega2 = self._current_state()
        return np.array(
            [
                math.cos(theta1),
                math.sin(theta1),
                math.cos(theta2),
                math.sin(theta2),
                omega1,
                omega2,
            ],
            dtype=np.float32,
        )

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Apply a torque to the joint for ``dt`` seconds.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not 0, 1 or 2.
        """
        state = self._state
        if state is None:
            raise ResetRequired("Acrobot: call reset() before step()")
        torque = float(self.AVAIL_TORQUE[discrete_action(action, 3, "Acrobot")])
        noise = self.torque_noise_max
        if noise > 0:
            torque += float(self.rng.uniform(-noise, noise))
        theta1, theta2, omega1, omega2 = self._runge_kutta(state, torque)
        theta1 = wrap(theta1, -pi, pi)
        theta2 = wrap(theta2, -pi, pi)
        omega1 = bound(omega1, -self.MAX_VEL_1, self.MAX_VEL_1)
        omega2 = bound(omega2, -self.MAX_VEL_2, self.MAX_VEL_2)
        self._state = [theta1, theta2, omega1, omega2]
        terminated = -math.cos(theta1) - math.cos(theta2 + theta1) > 1.0
        return StepResult(self._observation(), 0.0 if terminated else -1.0, terminated, False, {})

    def _runge_kutta(self, state: list[float], torque: float) -> list[float]:
        """The state after ``dt`` seconds: one classic fourth-order Runge-Kutta step."""
        dt = self.dt
        half = dt / 2.0
        k1 = self._derivatives(state, torque)
        k2 = self._derivatives([s + half * k for s, k in zip(state, k1, strict=True)], torque)
        k3 = self._derivatives([s + half * k for s, k in zip(state, k2, strict=True)], torque)
        k4 = self._derivatives([s + dt * k for s, k in zip(state, k3, strict=True)], torque)
        sixth = dt / 6.0
        return [
            s + sixth * (a + 2 * b + 2 * c + d)
            for s, a, b, c, d in zip(state, k1, k2, k3, k4, strict=True)
        ]

    def _derivatives(self, state: list[float], torque: float) -> tuple[float, ...]:
        """The time derivative of ``(θ1, θ2, ω1, ω2)`` under ``torque``.

        The equations of Sutton & Barto (section 11.3 of the first edition),
        term for term in their order (which fixes the floating-point result).
        """
        m1, m2 = self.LINK_MASS_1, self.LINK_MASS_2
        l1 = self.LINK_LENGTH_1
        lc1, lc2 = self.LINK_COM_POS_1, self.LINK_COM_POS_2
        i1 = i2 = self.LINK_MOI
        g = GRAVITY
        theta1, theta2, omega1, omega2 = state
        cos2, sin2 = math.cos(theta2), math.sin(theta2)
        d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * cos2) + i1 + i2
        d2 = m2 * (lc2**2 + l1 * lc2 * cos2) + i2
        phi2 = m2 * lc2 * g * math.cos(theta1 + theta2 - pi / 2.0)
        phi1 = (
            -m2 * l1 * lc2 * omega2**2 * sin2
            - 2 * m2 * l1 * lc2 * omega2 * omega1 * sin2
            + (m1 * lc1 + m2 * l1) * g * math.cos(theta1 - pi / 2)
            + phi2
        )
        if self.book_or_nips == "nips":
            accel2 = (torque + d2 / d1 * phi1 - phi2) / (m2 * lc2**2 + i2 - d2**2 / d1)
        else:
            accel2 = (torque + d2 / d1 * phi1 - m2 * l1 * lc2 * omega1**2 * sin2 - phi2) / (
                m2 * lc2**2 + i2 - d2**2 / d1
            )
        accel1 = -(d2 * accel2 + phi1) / d1
        return omega1, omega2, accel1, accel2
