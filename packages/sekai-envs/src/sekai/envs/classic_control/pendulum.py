"""Pendulum-v1: swing a pendulum up and keep it upright (classic control)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.core import StepResult
from sekai.envs.classic_control._common import box_action
from sekai.envs.classic_control._env_base import Bounds, ClassicEnv
from sekai.error import ResetRequired
from sekai.spaces import Box
from sekai.utils.seeding import SeedType

__all__ = ["DEFAULT_X", "DEFAULT_Y", "PendulumEnv", "SeedType", "angle_normalize"]

DEFAULT_X = math.pi
"""The default bound of the initial angle: uniform in ``[-DEFAULT_X, DEFAULT_X]``."""
DEFAULT_Y = 1.0
"""The default bound of the initial angular velocity: uniform in ``[-DEFAULT_Y, DEFAULT_Y]``."""


def angle_normalize(x: Any) -> Any:
    """Wrap an angle (or an array of angles) into ``[-pi, pi)``."""
    return ((x + np.pi) % (2 * np.pi)) - np.pi


def pendulum_reset_high(options: dict[str, Any] | None) -> NDArray[np.float64]:
    """The upper bounds ``[x, y]`` of the initial angle and angular velocity.

    The initial angle is uniform in ``[-x, x]`` and the angular velocity in
    ``[-y, y]``; ``options`` may set ``"x_init"`` and ``"y_init"`` (defaults
    `DEFAULT_X` and `DEFAULT_Y`).

    Raises:
        ValueError: An option is not a finite real number >= 0.
    """
    if options is None:
        return np.array([DEFAULT_X, DEFAULT_Y])
    bounds = [
        check_real(
            options.get(key, default),
            f"Pendulum reset option {key!r}",
            minimum=0.0,
            type_error=ValueError,
        )
        for key, default in (("x_init", DEFAULT_X), ("y_init", DEFAULT_Y))
    ]
    return np.array(bounds)


class PendulumEnv(ClassicEnv[NDArray[np.float32], np.float64]):
    """A pendulum hinged at one end, to swing up and balance with a limited torque.

    The angle ``θ`` (0 is upright) and angular velocity ``ω`` follow

    ``ω ← clip(ω + (3g / (2l) · sin θ + 3 / (m l²) · u) · dt, ±max_speed)``,
    ``θ ← θ + ω · dt``,

    with the torque ``u`` clipped to ``±max_torque``. This reproduces
    Gymnasium's ``Pendulum-v1`` bit for bit, including its arithmetic (the
    torque terms in float32, as Gymnasium computes them), and
    ``reset(seed=s)`` draws the same initial state.

    Observation:
        ``Box((3,), float32)``: ``cos θ``, ``sin θ`` (bounds ±1) and ``ω``
        (bounds ±8).

    Action:
        ``Box(-2, 2, (1,), float32)``: the torque. Actions are converted to
        float32; values outside ``±max_torque`` are clipped; NaN raises
        ``InvalidAction``.

    Reward:
        ``-(θ² + 0.1 ω² + 0.001 u²)`` with ``θ`` normalised into ``[-π, π)``,
        computed before the step: between about -16.27 and 0.

    Termination:
        Never. The registered ``Pendulum-v1`` truncates after 200 steps (no
        reward threshold).

    Reset:
        ``θ`` uniform in ``[-π, π]`` and ``ω`` in ``[-1, 1]``; the options
        ``{"x_init": x, "y_init": y}`` change the bounds to ``±x`` and ``±y``.

    Args:
        g: The gravitational acceleration.

    Attributes:
        max_speed: The angular speed limit (8).
        max_torque: The largest torque (2).
        dt: Seconds per step (0.05).
        g: See Args.
        m: The pendulum's mass (1).
        l: The pendulum's length (1).
        last_u: The (clipped) torque of the last step, ``None`` after a reset.
        state: The float64 state ``(θ, ω)`` (a fresh array; assignable).
            ``None`` before the first reset.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.classic_control.rendering:PendulumRenderer",
    }

    _name = "Pendulum"
    _size = _width = 2

    def __init__(self, g: float = 10.0) -> None:
        self.g = check_real(g, "Pendulum: g")
        self.max_speed = 8.0
        self.max_torque = 2.0
        self.dt = 0.05
        self.m = 1.0
        self.l = 1.0
        high = np.array([1.0, 1.0, self.max_speed], dtype=np.float32)
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Box(-self.max_torque, self.max_torque, (1,), dtype=np.float32)
        self.last_u: float | None = None

    @staticmethod
    def _bounds(options: dict[str, Any] | None) -> Bounds:
        high = pendulum_reset_high(options)
        return -high, high

    def _start(self, draws: NDArray[np.float64]) -> None:
        super()._start(draws)
        self.last_u = None

    def _observation(self) -> NDArray[np.float32]:
        theta, omega = self._current_state()
        return np.array([math.cos(theta), math.sin(theta), omega], dtype=np.float32)

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Apply the torque ``action[0]`` for ``dt`` seconds.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not a real array of shape ``(1,)``, or is NaN.
        """
        state = self._state
        if state is None:
            raise ResetRequired("Pendulum: call reset() before step()")
        torque = box_action(action, "Pendulum")
        max_torque = self.max_torque
        if torque > max_torque:
            torque = np.float32(max_torque)
        elif torque < -max_torque:
            torque = np.float32(-max_torque)
        self.last_u = float(torque)
        theta, omega = state
        dt = self.dt
        g, m, length = self.g, self.m, self.l
        # The squares are numpy powers, as in Gymnasium (libm's pow, not x * x).
        costs = (
            np.float64(angle_normalize(theta)) ** 2
            + 0.1 * np.float64(omega) ** 2
            + float(0.001 * torque**2)  # float32 arithmetic
        )
        push = float(3.0 / (m * length**2) * torque)  # float32 arithmetic
        omega = omega + (3 * g / (2 * length) * math.sin(theta) + push) * dt
        omega = min(max(omega, -self.max_speed), self.max_speed)
        state[0] = theta + omega * dt
        state[1] = omega
        return StepResult(self._observation(), -float(costs), False, False, {})
