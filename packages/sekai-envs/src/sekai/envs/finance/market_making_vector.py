"""The native vector implementation of MarketMaking-v0 (all sub-envs in numpy arrays)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._mm_model import (
    MarketMakingConfig,
    avellaneda_stoikov_offsets,
    checked_offsets,
    draw_session,
    fill_probability,
)
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["MarketMakingVecEnv"]

_F64 = NDArray[np.float64]
_SIDES = np.array([-1.0, 1.0])  # the sign of each quote's distance: bid below, ask above


class MarketMakingVecEnv(NativeVecEnv[NDArray[np.float32], NDArray[np.float32]]):
    """``num_envs`` MarketMaking-v0 sessions advanced together with numpy.

    ``sekai.make_vec("MarketMaking-v0", num_envs=N)`` builds this env by
    default. Each sub-env is a
    [`MarketMakingEnv`][sekai.envs.MarketMakingEnv] with the same
    parameters: observations ``(num_envs, 2)`` float32, actions ``(num_envs,
    2)`` (bid and ask distances), and the same rewards, termination and info
    keys, computed by the same functions in the same floating-point order. As
    in the single env, a session's randomness (fill uniforms and mid moves)
    is drawn whole at its reset, sub-env ``i`` from its own generator
    ``rngs[i]``, so for the same seed and actions the trajectories, autoresets
    included, are identical to those of ``SyncVecEnv`` (or ``AsyncVecEnv``,
    ``ProcVecEnv``) over ``MarketMakingEnv``. Finished sub-envs are reset
    within the step, or frozen with ``autoreset=False``.

    `avellaneda_stoikov_action` gives the closed-form quotes of every
    sub-env at once, so the paper's 1000-episode simulation is one vector env
    of 1000 sub-envs run for one session.

    Args:
        num_envs: Number of sub-envs.
        s0: See [`MarketMakingEnv`][sekai.envs.MarketMakingEnv].
        sigma: Idem.
        total_time: Idem.
        n_steps: Idem.
        fill_intensity: Idem.
        fill_decay: Idem.
        risk_aversion: Idem.
        max_inventory: Idem.
        order_size: Idem.
        max_offset: Idem.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
    """

    metadata: dict[str, Any] = {"render_fps": 20}  # noqa: RUF012 - copied per subclass

    def __init__(
        self,
        num_envs: int,
        *,
        s0: float = 100.0,
        sigma: float = 2.0,
        total_time: float = 1.0,
        n_steps: int = 200,
        fill_intensity: float = 140.0,
        fill_decay: float = 1.5,
        risk_aversion: float = 0.1,
        max_inventory: int = 50,
        order_size: int = 1,
        max_offset: float = 5.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        config = MarketMakingConfig.checked(
            "MarketMakingVecEnv",
            s0=s0,
            sigma=sigma,
            total_time=total_time,
            n_steps=n_steps,
            fill_intensity=fill_intensity,
            fill_decay=fill_decay,
            risk_aversion=risk_aversion,
            max_inventory=max_inventory,
            order_size=order_size,
            max_offset=max_offset,
        )
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self.s0 = config.s0
        self.sigma = config.sigma
        self.total_time = config.total_time
        self.n_steps = config.n_steps
        self.A = config.A
        self.k = config.k
        self.risk_aversion = config.risk_aversion
        self.max_inventory = config.max_inventory
        self.order_size = config.order_size
        self.max_offset = config.max_offset
        self.dt = config.dt
        self._high = float(config.action_space().high[0])
        self._move_scale = config.move_scale
        self._penalty_scale = config.penalty_scale
        n = self.num_envs
        self._rows = np.arange(n)
        # Time-major, so that the step of sub-envs in lockstep reads one contiguous row.
        self._uniforms: _F64 = np.zeros((self.n_steps, n, 2))
        self._moves: _F64 = np.zeros((self.n_steps, n))
        self._t: NDArray[np.int64] = np.zeros(n, dtype=np.int64)
        self._mid: _F64 = np.full(n, self.s0)
        self._inventory: NDArray[np.int64] = np.zeros(n, dtype=np.int64)
        self._cash: _F64 = np.zeros(n)
        self._wealth: _F64 = np.zeros(n)
        self._bid: _F64 = np.full(n, math.nan)
        self._ask: _F64 = np.full(n, math.nan)
        self._bid_filled: NDArray[np.bool_] = np.zeros(n, dtype=np.bool_)
        self._ask_filled: NDArray[np.bool_] = np.zeros(n, dtype=np.bool_)
        self._dts: _F64 = np.full(n, self.dt)

    # -- state (copies, one entry per sub-env) --------------------------------------------------

    @property
    def mid(self) -> _F64:
        """The mid-price of every sub-env."""
        copy: _F64 = self._mid.copy()
        return copy

    @property
    def inventory(self) -> NDArray[np.int64]:
        """The inventory of every sub-env."""
        copy: NDArray[np.int64] = self._inventory.copy()
        return copy

    @property
    def cash(self) -> _F64:
        """The cash of every sub-env."""
        copy: _F64 = self._cash.copy()
        return copy

    @property
    def wealth(self) -> _F64:
        """Mark-to-market wealth, ``cash + inventory * mid``, of every sub-env."""
        copy: _F64 = self._wealth.copy()
        return copy

    @property
    def bid(self) -> _F64:
        """The last bid price of every sub-env (NaN where not quoted)."""
        copy: _F64 = self._bid.copy()
        return copy

    @property
    def ask(self) -> _F64:
        """The last ask price of every sub-env (NaN where not quoted)."""
        copy: _F64 = self._ask.copy()
        return copy

    @property
    def bid_filled(self) -> NDArray[np.bool_]:
        """Whether each sub-env's last bid was hit."""
        copy: NDArray[np.bool_] = self._bid_filled.copy()
        return copy

    @property
    def ask_filled(self) -> NDArray[np.bool_]:
        """Whether each sub-env's last ask was lifted."""
        copy: NDArray[np.bool_] = self._ask_filled.copy()
        return copy

    @property
    def time_remaining(self) -> _F64:
        """``T - t`` for every sub-env."""
        remaining: _F64 = (self.n_steps - self._t).astype(np.float64) * self.dt
        return remaining

    def fill_probability(self, offset: float) -> float:
        """The chance that a quote ``offset`` from the mid fills within a step (every sub-env)."""
        return float(fill_probability(float(offset), self.config))

    def avellaneda_stoikov_action(self, *, spread_time_term: bool = False) -> NDArray[np.float32]:
        """The closed-form quotes of every sub-env, ``(num_envs, 2)`` float32.

        Row ``i`` is what
        [`avellaneda_stoikov_action`][sekai.envs.MarketMakingEnv.avellaneda_stoikov_action]
        gives in sub-env ``i``'s state, with the same ``spread_time_term``.
        """
        bid, ask = avellaneda_stoikov_offsets(
            self._inventory.astype(np.float64),
            self.time_remaining,
            self.config,
            spread_time_term=spread_time_term,
        )
        offsets = np.clip(np.stack([bid, ask], axis=1), 0.0, self.max_offset)
        action: NDArray[np.float32] = offsets.astype(np.float32)
        return action

    # -- hooks ----------------------------------------------------------------------------------

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        rngs = self.rngs
        for i in indices.tolist():  # drawn as the single env draws
            self._uniforms[:, i], self._moves[:, i] = draw_session(rngs[i], self.n_steps)
        self._t[indices] = 0
        self._mid[indices] = self.s0
        self._inventory[indices] = 0
        self._cash[indices] = 0.0
        self._wealth[indices] = 0.0
        self._bid[indices] = math.nan
        self._ask[indices] = math.nan
        self._bid_filled[indices] = False
        self._ask_filled[indices] = False

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        count = len(indices)
        return {
            "mid_price": self._mid[indices],
            "inventory": self._inventory[indices],
            "cash": self._cash[indices],
            "wealth": self._wealth[indices],
            "pnl": np.zeros(count),
            "bid": self._bid[indices],
            "ask": self._ask[indices],
            "bid_filled": self._bid_filled[indices],
            "ask_filled": self._ask_filled[indices],
            "timestamp": self._t[indices] * self.dt,
            "dt": self._dts[:count],
        }

    def _observe(self) -> NDArray[np.float32]:
        observations = np.empty((self.num_envs, 2), dtype=np.float32)
        observations[:, 0] = self._inventory / self.max_inventory
        observations[:, 1] = (self.n_steps - self._t) / self.n_steps
        return observations

    def _step(self, actions: Any) -> tuple[_F64, NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        offsets = checked_offsets(actions, self._high, "MarketMakingVecEnv", batch=True)
        size = self.order_size
        frozen = None if self.autoreset or not self.frozen.any() else self.frozen.copy()
        t = self._t if frozen is None else np.minimum(self._t, self.n_steps - 1)
        first = int(t[0])
        if bool((t == first).all()):  # sub-envs in lockstep (the usual case): one row
            uniforms, moves = self._uniforms[first], self._moves[first]
        else:
            uniforms, moves = self._uniforms[t, self._rows], self._moves[t, self._rows]
        mid = self._mid
        inventory = self._inventory
        # Column 0 is the bid, column 1 the ask, as in the action.
        quoted = np.empty((self.num_envs, 2), dtype=np.bool_)
        np.less_equal(inventory + size, self.max_inventory, out=quoted[:, 0])
        np.greater_equal(inventory - size, -self.max_inventory, out=quoted[:, 1])
        # mid - delta_b and mid + delta_a (adding a negated number is the same IEEE operation).
        quotes = np.where(quoted, mid[:, None] + offsets * _SIDES, math.nan)
        filled = quoted & (uniforms < fill_probability(offsets, self.config))
        bid, ask = quotes[:, 0], quotes[:, 1]
        bid_filled, ask_filled = filled[:, 0], filled[:, 1]
        inventory = inventory + size * (bid_filled.astype(np.int64) - ask_filled)
        cash = self._cash - np.where(bid_filled, size * bid, 0.0)
        cash = cash + np.where(ask_filled, size * ask, 0.0)
        mid = mid + self._move_scale * moves
        wealth = cash + inventory * mid
        pnl = wealth - self._wealth
        rewards = pnl - self._penalty_scale * inventory * inventory
        t = t + 1
        if frozen is not None:  # a finished sub-env keeps its final state
            keep = ~frozen
            t = np.where(keep, t, self._t)
            mid = np.where(keep, mid, self._mid)
            inventory = np.where(keep, inventory, self._inventory)
            cash = np.where(keep, cash, self._cash)
            wealth = np.where(keep, wealth, self._wealth)
        self._t, self._mid, self._inventory, self._cash, self._wealth = (
            t,
            mid,
            inventory,
            cash,
            wealth,
        )
        self._bid, self._ask, self._bid_filled, self._ask_filled = bid, ask, bid_filled, ask_filled
        terminated = t >= self.n_steps
        infos = {
            "mid_price": mid,
            "inventory": inventory,
            "cash": cash,
            "wealth": wealth,
            "pnl": pnl,
            "bid": bid,
            "ask": ask,
            "bid_filled": bid_filled,
            "ask_filled": ask_filled,
            "timestamp": t * self.dt,
            "dt": self._dts,
        }
        return rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def __repr__(self) -> str:
        return f"MarketMakingVecEnv(num_envs={self.num_envs})"
