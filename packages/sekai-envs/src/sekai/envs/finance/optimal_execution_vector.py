"""The native vector implementation of OptimalExecution-v0 (all sub-envs in numpy arrays)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._oe_model import (
    ExecutionConfig,
    checked_fractions,
    optimal_holdings,
    schedule_fractions,
    shortfall_moments,
)
from sekai.vector import InfoArrays, NativeVecEnv, shared

__all__ = ["OptimalExecutionVecEnv"]

_F64 = NDArray[np.float64]


class OptimalExecutionVecEnv(NativeVecEnv[NDArray[np.float32], NDArray[np.float32]]):
    """``num_envs`` OptimalExecution-v0 episodes advanced together with numpy.

    ``sekai.make_vec("OptimalExecution-v0", num_envs=N)`` builds this env by
    default. Each sub-env is an
    [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv] with
    the same parameters: observations ``(num_envs, 3)`` float32, actions
    ``(num_envs, 1)`` (fractions of the remaining inventory to sell), and the
    same rewards, termination and info keys, computed in the same
    floating-point order. An episode's price shocks are drawn at its reset,
    sub-env ``i`` from its own generator ``rngs[i]``, so for the same seed and
    actions the trajectories, autoresets included, are identical to those of
    ``SyncVecEnv`` over ``OptimalExecutionEnv``. A sub-env that sells
    everything early is reset within the step (or frozen with
    ``autoreset=False``), independently of the others.

    The closed forms are shared by every sub-env:
    ``almgren_chriss_actions()[elapsed_steps]`` is the batch of actions that
    follows the optimal trajectory.

    Args:
        num_envs: Number of sub-envs.
        initial_inventory: See
            [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv].
        s0: Idem.
        sigma: Idem.
        total_time: Idem.
        n_steps: Idem.
        permanent_impact: Idem.
        temporary_impact: Idem.
        fixed_cost: Idem.
        risk_aversion: Idem.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.
    """

    metadata: dict[str, Any] = {"render_fps": 10}  # noqa: RUF012 - copied per subclass

    def __init__(
        self,
        num_envs: int,
        *,
        initial_inventory: float = 1e6,
        s0: float = 50.0,
        sigma: float = 0.95,
        total_time: float = 5.0,
        n_steps: int = 25,
        permanent_impact: float = 2.5e-7,
        temporary_impact: float = 2.5e-6,
        fixed_cost: float = 0.0625,
        risk_aversion: float = 1e-6,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        config = ExecutionConfig.checked(
            "OptimalExecutionVecEnv",
            initial_inventory=initial_inventory,
            s0=s0,
            sigma=sigma,
            total_time=total_time,
            n_steps=n_steps,
            permanent_impact=permanent_impact,
            temporary_impact=temporary_impact,
            fixed_cost=fixed_cost,
            risk_aversion=risk_aversion,
        )
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self.X0 = config.X0
        self.s0 = config.s0
        self.sigma = config.sigma
        self.total_time = config.total_time
        self.n_steps = config.n_steps
        self.gamma = config.gamma
        self.eta = config.eta
        self.epsilon = config.epsilon
        self.risk_aversion = config.risk_aversion
        self.tau = config.tau
        self._move_scale = config.move_scale
        self._penalty_scale = config.penalty_scale
        self._price_unit = config.price_unit
        self._reward_scale = config.reward_scale
        n = self.num_envs
        self._rows = np.arange(n)
        self._shocks: _F64 = np.zeros((n, self.n_steps))
        self._t: NDArray[np.int64] = np.zeros(n, dtype=np.int64)
        self._inventory: _F64 = np.full(n, self.X0)
        self._mid: _F64 = np.full(n, self.s0)
        self._shortfall: _F64 = np.zeros(n)
        self._taus: _F64 = np.full(n, self.tau)

    # -- state (copies, one entry per sub-env) --------------------------------------------------

    @property
    def inventory(self) -> _F64:
        """The shares still held by every sub-env."""
        copy: _F64 = self._inventory.copy()
        return copy

    @property
    def mid(self) -> _F64:
        """The mid-price of every sub-env."""
        copy: _F64 = self._mid.copy()
        return copy

    @property
    def shortfall(self) -> _F64:
        """The implementation shortfall so far of every sub-env (dollars)."""
        copy: _F64 = self._shortfall.copy()
        return copy

    # -- the paper's closed forms (the same for every sub-env) ---------------------------------

    @shared
    def almgren_chriss_trajectory(self) -> _F64:
        """The optimal holdings ``x_0..x_N`` (see ``OptimalExecutionEnv``)."""
        return optimal_holdings(self.config)

    @shared
    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The optimal static schedule as actions, shape ``(n_steps, 1)``."""
        return schedule_fractions(optimal_holdings(self.config))

    def twap_action(self) -> NDArray[np.float32]:
        """The TWAP action of every sub-env, ``(num_envs, 1)``: ``1 / (periods left)``."""
        left = np.maximum(self.n_steps - self._t, 1)
        action: NDArray[np.float32] = (1.0 / left).astype(np.float32)[:, None]
        return action

    @shared
    def expected_shortfall(self, trades: NDArray[Any]) -> tuple[float, float]:
        """``(E, V)`` of a static schedule of trades (see ``OptimalExecutionEnv``)."""
        return shortfall_moments(self.config, trades)

    # -- hooks ----------------------------------------------------------------------------------

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        rngs = self.rngs
        for i in indices.tolist():
            self._shocks[i] = rngs[i].standard_normal(self.n_steps)
        self._t[indices] = 0
        self._inventory[indices] = self.X0
        self._mid[indices] = self.s0
        self._shortfall[indices] = 0.0

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        count = len(indices)
        return {
            "shares_sold": np.zeros(count),
            "execution_price": np.full(count, math.nan),
            "inventory": self._inventory[indices],
            "mid_price": self._mid[indices],
            "implementation_shortfall": self._shortfall[indices],
            "shortfall_bps": self._shortfall[indices] * self._reward_scale,
            "timestamp": self._t[indices] * self.tau,
            "dt": self._taus[:count],
        }

    def _observe(self) -> NDArray[np.float32]:
        observations = np.empty((self.num_envs, 3), dtype=np.float32)
        observations[:, 0] = self._inventory / self.X0
        observations[:, 1] = (self.n_steps - self._t) / self.n_steps
        observations[:, 2] = (self._mid - self.s0) / self._price_unit
        return observations

    def _step(self, actions: Any) -> tuple[_F64, NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        fractions = checked_fractions(actions, "OptimalExecutionVecEnv", batch=True)[:, 0]
        frozen = None if self.autoreset or not self.frozen.any() else self.frozen.copy()
        t = self._t if frozen is None else np.minimum(self._t, self.n_steps - 1)
        held = self._inventory
        mid = self._mid
        last = t + 1 >= self.n_steps
        sold = np.where(last, held, fractions * held)
        fixed = np.where(sold > 0.0, self.epsilon, 0.0)
        price = mid - fixed - self.eta * sold / self.tau
        held = np.where(last, 0.0, held - sold)
        shortfall = self._shortfall + sold * (self.s0 - price)
        rewards = (
            sold * (price - self.s0) - self._penalty_scale * held * held
        ) * self._reward_scale
        mid = mid + self._move_scale * self._shocks[self._rows, t] - self.gamma * sold
        t = t + 1
        terminated = last | (held <= 0.0)
        if frozen is not None:  # a finished sub-env keeps its final state
            keep = ~frozen
            t = np.where(keep, t, self._t)
            held = np.where(keep, held, self._inventory)
            mid = np.where(keep, mid, self._mid)
            shortfall = np.where(keep, shortfall, self._shortfall)
        self._t, self._inventory, self._mid, self._shortfall = t, held, mid, shortfall
        infos = {
            "shares_sold": sold,
            "execution_price": price,
            "inventory": held,
            "mid_price": mid,
            "implementation_shortfall": shortfall,
            "shortfall_bps": shortfall * self._reward_scale,
            "timestamp": t * self.tau,
            "dt": self._taus,
        }
        return rewards, terminated, np.zeros(self.num_envs, dtype=np.bool_), infos

    def __repr__(self) -> str:
        return f"OptimalExecutionVecEnv(num_envs={self.num_envs})"
