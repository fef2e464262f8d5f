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
_ROWS_AHEAD = 1 << 17  # initial states drawn ahead, over all sub-envs (4 MB)


class _InitialStates:
    """Initial states drawn ahead, a block at a time, from each sub-env's generator.

    ``rng.uniform(low, high, size=(k, 4))`` consumes a stream exactly as ``k``
    calls of ``rng.uniform(low, high, size=4)`` do: row ``j`` of a block is
    the state the single env draws at its ``j``-th next reset. Taking the
    next row of many sub-envs is then one fancy index, where a call per
    sub-env that resets would cost about a microsecond each, as much as the
    rest of a step at 1024 sub-envs.

    A generator with a block is ahead of its true position by the rows not
    taken yet. :meth:`settle` puts it back (it restores the state saved
    before the block and replays the rows taken) before anything else draws
    from it: a reset with other bounds, a caller reading
    :attr:`CartPoleVecEnv.rngs`, or a re-seed that replaces it (an adopted
    generator is handed back at its true position). When one generator
    serves several sub-envs, their draws interleave, so none draws ahead.
    """

    def __init__(self, count: int) -> None:
        block = self.block = max(8, min(128, _ROWS_AHEAD // count))
        # Sub-env i's block is rows[i * block : (i + 1) * block]; cursor[i] is its next
        # row, and equals ends[i] when the block is used up (or was never drawn).
        self.rows = np.zeros((count * block, 4))
        self.ends = np.arange(1, count + 1, dtype=np.intp) * block
        self.cursor = self.ends.copy()
        self.owners: list[np.random.Generator | None] = [None] * count
        self.saved: list[dict[str, Any] | None] = [None] * count
        self.rngs: tuple[np.random.Generator, ...] | None = None  # the generators followed
        self.shared = False  # a generator serves several sub-envs: no drawing ahead

    def follow(self, rngs: tuple[np.random.Generator, ...]) -> None:
        """Settle the blocks of generators that ``rngs`` replaced, then follow ``rngs``."""
        self.shared = len({id(rng) for rng in rngs}) < len(rngs)
        for index, owner in enumerate(self.owners):
            if owner is not None and (self.shared or owner is not rngs[index]):
                self.settle(index)
        self.rngs = rngs

    def take(self, indices: NDArray[np.intp]) -> NDArray[np.float64]:
        """The next initial state of each sub-env in ``indices``, drawn with the default bounds."""
        rngs = self.rngs
        assert rngs is not None
        if self.shared:
            return np.array(
                [rngs[i].uniform(RESET_LOW, RESET_HIGH, size=4) for i in indices.tolist()]
            ).reshape(-1, 4)
        cursor = self.cursor[indices]
        empty = cursor == self.ends[indices]
        if np.count_nonzero(empty):
            block = self.block
            refill = indices[empty]
            for index in refill.tolist():
                rng = rngs[index]
                self.saved[index] = rng.bit_generator.state
                start = index * block
                self.rows[start : start + block] = rng.uniform(
                    RESET_LOW, RESET_HIGH, size=(block, 4)
                )
                self.owners[index] = rng
            cursor[empty] = refill * block
        self.cursor[indices] = cursor + 1
        states: NDArray[np.float64] = self.rows.take(cursor, axis=0)
        return states

    def settle(self, index: int) -> None:
        """Put sub-env ``index``'s generator back where its draws so far left it."""
        owner, saved = self.owners[index], self.saved[index]
        if owner is None or saved is None:
            return
        owner.bit_generator.state = saved
        taken = int(self.cursor[index]) - index * self.block
        if taken:
            owner.uniform(RESET_LOW, RESET_HIGH, size=(taken, 4))
        self.owners[index] = None
        self.saved[index] = None
        self.cursor[index] = self.ends[index]

    def settle_all(self) -> None:
        """:meth:`settle` every sub-env."""
        for index, owner in enumerate(self.owners):
            if owner is not None:
                self.settle(index)


class CartPoleVecEnv(NativeVecEnv[NDArray[np.float32], np.int64]):
    """``num_envs`` CartPole-v1 simulations advanced together with numpy.

    ``sekai.make_vec("CartPole-v1", num_envs=N)`` builds this env by default.
    Each sub-env follows :class:`~sekai.envs.cartpole.CartPoleEnv` exactly:
    the same equations in the same floating-point order, so from the same
    states and actions the observations, rewards and flags are bit-identical
    to N single envs (and to Gymnasium's CartPole-v1). Initial states are
    drawn from each sub-env's own stream (:attr:`rngs`) as the single env
    draws them, so for the same seed and actions the trajectories, autoresets
    included, are identical to those of ``SyncVecEnv``, ``AsyncVecEnv`` or
    ``ProcVecEnv`` over ``CartPoleEnv`` (``make_vec(...,
    vectorization_mode="sync")``). To keep autoreset cheap, initial states
    are drawn ahead, up to 128 per sub-env at a time (fewer beyond 1024
    sub-envs); :attr:`rngs` puts every generator back at its exact position
    before handing it out.

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
        self._initial = _InitialStates(self.num_envs)

    @property
    def rngs(self) -> tuple[np.random.Generator, ...]:
        """The sub-envs' generators (see :attr:`NativeVecEnv.rngs`), each at its exact position.

        Initial states drawn ahead and not used yet are given back to the
        streams first, so a generator read here continues exactly where a
        single env's would.
        """
        self._initial.settle_all()
        return super().rngs

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
        initial = self._initial
        rngs = self._rngs  # the base's tuple: self.rngs would settle every generator
        if rngs is None or rngs is not initial.rngs:  # first use, or re-seeded
            rngs = super().rngs
            initial.follow(rngs)
        # Autoreset passes only None: counted in C, before the general check.
        if options.count(None) == len(options) or all(not option for option in options):
            self._state[indices] = initial.take(indices)
            return
        bounds = [cartpole_reset_bounds(option) for option in options]  # checked before any draw
        for index, (low, high) in zip(indices.tolist(), bounds, strict=True):
            if low == RESET_LOW and high == RESET_HIGH:
                self._state[index] = initial.take(np.array([index], dtype=np.intp))[0]
            else:
                initial.settle(index)  # the stream continues from its exact position
                self._state[index] = rngs[index].uniform(low, high, size=4)

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
