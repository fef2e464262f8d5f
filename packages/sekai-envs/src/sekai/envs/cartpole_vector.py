"""The native vector implementation of CartPole-v1 (all sub-envs in numpy arrays)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.cartpole import (
    FORCE_MAG,
    GRAVITY,
    HALF_LENGTH,
    MASS_POLE,
    POLE_MASS_LENGTH,
    RESET_HIGH,
    RESET_LOW,
    TAU,
    THETA_THRESHOLD,
    TOTAL_MASS,
    X_THRESHOLD,
    CartPoleEnv,
    cartpole_reset_bounds,
)
from sekai.error import InvalidAction
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["CartPoleVecEnv"]

_FORCES = np.array([-FORCE_MAG, FORCE_MAG])  # the force of action 0 and of action 1


class CartPoleVecEnv(NativeVecEnv[NDArray[np.float32], np.int64]):
    """``num_envs`` CartPole-v1 simulations advanced together with numpy.

    ``sekai.make_vec("CartPole-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows :class:`~sekai.envs.cartpole.CartPoleEnv` exactly:
    the same equations in the same floating-point order, so from the same
    states and actions the observations, rewards and flags are bit-identical
    to N single envs (and to Gymnasium's CartPole-v1). Initial states are
    drawn from the same uniform distribution; with ``num_envs=1``,
    ``reset(seed=s)`` even gives the same initial state as
    ``CartPoleEnv.reset(seed=s)``. Sub-env ``i`` takes row ``i`` of the
    draws, so the sub-envs are independent but, as for every native env,
    not draw-for-draw equal to a ``SyncVecEnv``'s.

    Observation, action, reward and termination are those of
    :class:`~sekai.envs.cartpole.CartPoleEnv`, batched: observations have
    shape ``(num_envs, 4)`` (float32) and actions are an int array of
    shape ``(num_envs,)`` holding 0 or 1. Finished sub-envs are reset within
    the step (see :class:`~sekai.vector.NativeVecEnv`), or frozen with
    ``autoreset=False``. Per-env reset options ``{"low": l, "high": h}`` change
    the initial-state bounds as for the single env.

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
        super().__init__(
            num_envs,
            single.observation_space,
            single.action_space,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.sutton_barto_reward = single.sutton_barto_reward
        self._state = np.zeros((self.num_envs, 4), dtype=np.float64)
        self._step_reward = 0.0 if self.sutton_barto_reward else 1.0
        self._end_reward = -1.0 if self.sutton_barto_reward else 1.0
        self._constant_rewards = np.full(self.num_envs, self._step_reward)
        self._never_truncated = np.zeros(self.num_envs, dtype=np.bool_)

    @property
    def state(self) -> NDArray[np.float64]:
        """The ``(num_envs, 4)`` float64 states, a copy."""
        state: NDArray[np.float64] = self._state.copy()
        return state

    @state.setter
    def state(self, value: Any) -> None:
        array = np.asarray(value, dtype=np.float64)
        if array.shape != self._state.shape or not bool(np.all(np.isfinite(array))):
            raise ValueError(
                f"CartPoleVecEnv state must be finite with shape {self._state.shape}, got {value!r}"
            )
        self._state[...] = array

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        # Autoreset passes only None: counted in C, before the general check.
        if options.count(None) == len(options) or all(not option for option in options):
            self._state[indices] = self.rng.uniform(RESET_LOW, RESET_HIGH, size=(len(indices), 4))
            return
        for index, option in zip(indices.tolist(), options, strict=True):
            low, high = cartpole_reset_bounds(option)
            self._state[index] = self.rng.uniform(low, high, size=4)

    def _observe(self) -> NDArray[np.float32]:
        return self._state.astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        if actions.dtype.kind not in "iu":
            raise InvalidAction(
                f"CartPoleVecEnv expects integer actions 0 or 1 of shape ({self.num_envs},), "
                f"got {actions!r}"
            )
        indices = actions.astype(np.intp, copy=False)
        # Read as unsigned, a negative action is huge: one comparison finds both faults.
        if indices.size and indices.view(np.uintp).max() > 1:
            raise InvalidAction(
                f"CartPoleVecEnv expects integer actions 0 or 1 of shape ({self.num_envs},), "
                f"got {actions!r}"
            )
        state = self._state
        theta, theta_dot = state[:, 2], state[:, 3]
        force = _FORCES.take(indices)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        # The time derivatives of (x, x_dot, theta, theta_dot), one row per sub-env.
        rates = np.empty_like(state)
        rates[:, 0::2] = state[:, 1::2]
        temp = (force + POLE_MASS_LENGTH * (theta_dot * theta_dot) * sintheta) / TOTAL_MASS
        thetaacc = np.divide(
            GRAVITY * sintheta - costheta * temp,
            HALF_LENGTH * (4.0 / 3.0 - MASS_POLE * (costheta * costheta) / TOTAL_MASS),
            out=rates[:, 3],
        )
        np.subtract(temp, POLE_MASS_LENGTH * thetaacc * costheta / TOTAL_MASS, out=rates[:, 1])
        # state + TAU * rates, in CartPoleEnv's floating-point order (x + TAU * x_dot, ...;
        # products and sums commute exactly in IEEE).
        new = np.multiply(rates, TAU, out=rates)
        np.add(state, new, out=new)
        if not self.autoreset:
            frozen = self.frozen
            if frozen.any():
                new[frozen] = state[frozen]  # a finished sub-env keeps its final state
        self._state = new
        # |x| > t is exactly x < -t or x > t, NaN included. (One 1-D comparison per
        # column: numpy loops slowly over an inner axis of 2.)
        terminated = (np.abs(new[:, 0]) > X_THRESHOLD) | (np.abs(new[:, 2]) > THETA_THRESHOLD)
        if self._end_reward == self._step_reward:
            rewards = self._constant_rewards  # NativeVecEnv.step copies what _step returns
        else:
            rewards = np.where(terminated, self._end_reward, self._step_reward)
        return rewards, terminated, self._never_truncated, {}

    def __repr__(self) -> str:
        return f"CartPoleVecEnv(num_envs={self.num_envs})"
