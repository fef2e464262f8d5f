"""CartPole-v1: balance a pole on a cart (classic control)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_bool
from sekai.core import StepResult
from sekai.envs.classic_control._common import discrete_action, reset_bounds
from sekai.envs.classic_control._env_base import ClassicEnv
from sekai.error import ResetRequired
from sekai.spaces import Box, Discrete
from sekai.utils.seeding import SeedType

__all__ = ["CartPoleEnv", "SeedType", "cartpole_reset_bounds"]

# The default physical parameters of the classic task (Barto, Sutton & Anderson, 1983).
GRAVITY = 9.8
MASS_CART = 1.0
MASS_POLE = 0.1
TOTAL_MASS = MASS_POLE + MASS_CART
HALF_LENGTH = 0.5  # half the pole's length
POLE_MASS_LENGTH = MASS_POLE * HALF_LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds between two steps
THETA_THRESHOLD = 12 * 2 * math.pi / 360  # radians
X_THRESHOLD = 2.4
RESET_LOW = -0.05
RESET_HIGH = 0.05


def cartpole_reset_bounds(options: dict[str, Any] | None) -> tuple[float, float]:
    """Read the ``"low"`` / ``"high"`` reset options of CartPole.

    Args:
        options: The options given to ``reset`` (or ``None``).

    Returns:
        The bounds of the uniform distribution of the initial state variables,
        ``(-0.05, 0.05)`` unless the options say otherwise.

    Raises:
        ValueError: A bound is not a finite real number, or ``low > high``.
    """
    return reset_bounds(options, "CartPole", RESET_LOW, RESET_HIGH)


class CartPoleEnv(ClassicEnv[np.int64, np.float64]):
    """A pole hinged on a cart that moves along a frictionless track.

    The agent pushes the cart left or right with a fixed force and is rewarded
    for every step the pole stays upright. The dynamics, reward, termination
    rule and initial-state distribution reproduce Gymnasium's ``CartPole-v1``
    exactly: from the same state and the same actions both give bit-identical
    observations, rewards and flags (the state is kept in float64, Euler
    integration with ``tau = 0.02`` s; the observation is the state rounded to
    float32). ``reset(seed=s)`` even draws the same initial state as
    Gymnasium's ``reset(seed=s)``, since both build their generator the same
    way.

    Observation:
        ``Box((4,), float32)``: cart position (bounds ±4.8), cart velocity
        (unbounded), pole angle in radians (bounds ±0.418, i.e. ±24°) and pole
        angular velocity (unbounded).

    Action:
        ``Discrete(2)``: 0 pushes the cart to the left, 1 to the right.

    Reward:
        ``1.0`` for every step, the terminating one included. With
        ``sutton_barto_reward=True``: ``0.0`` per step and ``-1.0`` on the
        terminating step. Steps taken after termination (without a reset) give
        ``0.0`` (``-1.0`` with the Sutton-Barto reward) and keep
        ``terminated=True``.

    Termination:
        ``terminated`` when the pole angle leaves ±12° (±0.2095 rad) or the cart
        position leaves ±2.4. The env never truncates by itself: the registered
        ``CartPole-v1`` has a 500-step time limit (``max_episode_steps=500``,
        reward threshold 475) applied by ``sekai.make``.

    Reset:
        Each of the four state variables is drawn uniformly from
        ``(-0.05, 0.05)``; the options ``{"low": l, "high": h}`` change the
        bounds.

    The physical parameters are public attributes, read at every step, so
    assigning one (directly or with a vector env's ``set_attr``) changes the
    simulation from the next step on, as in Gymnasium. The observation space
    keeps the bounds of the thresholds given at construction.

    Args:
        sutton_barto_reward: Use the reward of the original formulation (see
            above) instead of +1 per step.

    Attributes:
        gravity: Gravitational acceleration (9.8).
        masscart: Mass of the cart (1.0).
        masspole: Mass of the pole (0.1).
        length: Half the pole's length (0.5).
        force_mag: Magnitude of the force a push applies (10.0).
        tau: Seconds between two steps (0.02).
        kinematics_integrator: ``"euler"`` (the default), or any other value
            for semi-implicit Euler (velocities first), as in Gymnasium.
        theta_threshold_radians: Pole angle beyond which the episode
            terminates (12° in radians).
        x_threshold: Cart position beyond which the episode terminates (2.4).
        sutton_barto_reward: Whether the Sutton-Barto reward is used.
        state: The float64 state ``(x, x_dot, theta, theta_dot)`` (a fresh array;
            assigning a 4-vector sets it, e.g. to replay a trajectory from a
            given state). ``None`` before the first reset.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 50,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.classic_control.rendering:CartPoleRenderer",
    }

    _name = "CartPole"
    _size = _width = 4
    _bounds = staticmethod(cartpole_reset_bounds)

    def __init__(self, sutton_barto_reward: bool = False) -> None:
        flag: object = sutton_barto_reward
        if isinstance(flag, np.bool_):
            flag = bool(flag)
        self.sutton_barto_reward = check_bool(flag, "CartPole: sutton_barto_reward")
        self.gravity = GRAVITY
        self.masscart = MASS_CART
        self.masspole = MASS_POLE
        self.length = HALF_LENGTH
        self.force_mag = FORCE_MAG
        self.tau = TAU
        self.kinematics_integrator = "euler"
        self.theta_threshold_radians = THETA_THRESHOLD
        self.x_threshold = X_THRESHOLD
        high = np.array(
            [self.x_threshold * 2, np.inf, self.theta_threshold_radians * 2, np.inf],
            dtype=np.float32,
        )
        self.observation_space = Box(-high, high, dtype=np.float32)
        self.action_space = Discrete(2)
        self._terminated = False

    @property
    def total_mass(self) -> float:
        """Mass of the cart and the pole together (follows ``masscart`` and ``masspole``)."""
        return self.masspole + self.masscart

    @property
    def polemass_length(self) -> float:
        """``masspole * length`` (follows both)."""
        return self.masspole * self.length

    def _begin(self, values: list[Any]) -> None:
        """Make ``values`` the state of an episode that has not terminated yet."""
        self._state = values
        self._terminated = False

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Push the cart and advance the simulation by ``tau`` seconds.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: ``action`` is not 0 or 1.
        """
        state = self._state
        if state is None:
            raise ResetRequired("CartPole: call reset() before step()")
        force = self.force_mag if discrete_action(action, 2, "CartPole") == 1 else -self.force_mag
        x, x_dot, theta, theta_dot = state
        masspole, tau = self.masspole, self.tau
        total_mass = masspole + self.masscart
        polemass_length = masspole * self.length
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        temp = (force + polemass_length * (theta_dot * theta_dot) * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - masspole * (costheta * costheta) / total_mass)
        )
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        if self.kinematics_integrator == "euler":
            x = x + tau * x_dot
            x_dot = x_dot + tau * xacc
            theta = theta + tau * theta_dot
            theta_dot = theta_dot + tau * thetaacc
        else:  # semi-implicit Euler: the positions move with the new velocities
            x_dot = x_dot + tau * xacc
            x = x + tau * x_dot
            theta_dot = theta_dot + tau * thetaacc
            theta = theta + tau * theta_dot
        state[0] = x
        state[1] = x_dot
        state[2] = theta
        state[3] = theta_dot
        x_threshold, theta_threshold = self.x_threshold, self.theta_threshold_radians
        terminated = bool(
            x < -x_threshold
            or x > x_threshold
            or theta < -theta_threshold
            or theta > theta_threshold
        )
        if not terminated:
            reward = 0.0 if self.sutton_barto_reward else 1.0
        elif not self._terminated:
            self._terminated = True
            reward = -1.0 if self.sutton_barto_reward else 1.0
        else:
            reward = -1.0 if self.sutton_barto_reward else 0.0
        observation = np.array(state, dtype=np.float32)
        return StepResult(observation, reward, terminated, False, {})
