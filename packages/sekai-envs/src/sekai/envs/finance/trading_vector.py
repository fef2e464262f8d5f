"""The native vector implementation of Trading-v0 (every sub-env in numpy arrays)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.envs.classic_control._vector_base import check_discrete_actions
from sekai.envs.finance._account_step import account_step
from sekai.envs.finance._cost_inputs import window_volatility
from sekai.envs.finance._price_sources import History, check_options
from sekai.envs.finance._trading_config import TradingConfig
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import MarketModel
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["TradingVecEnv"]

F64 = NDArray[np.float64]


class TradingVecEnv(NativeVecEnv[NDArray[np.float32], np.int64]):
    """``num_envs`` Trading-v0 accounts advanced together with numpy.

    ``sekai.make_vec("Trading-v0", num_envs=N)`` builds this env by default.
    Observations, actions, rewards, flags and infos are those of
    [`TradingEnv`][sekai.envs.TradingEnv], batched along a leading
    ``num_envs`` axis: observations ``(num_envs, lookback + 1)`` float32,
    actions an int array ``(num_envs,)``. The accounting, costs and rewards
    run through the same functions on the whole batch.

    Each sub-env draws its episodes from its own generator, ``rngs[i]``, as
    the single env does (a start row from its own copy of the sampler, or a
    simulated path), whole at the reset; a step draws nothing. So for the
    same seed and actions the trajectories, autoresets included, are those
    of ``SyncVecEnv``, ``AsyncVecEnv`` or ``ProcVecEnv`` over
    [`TradingEnv`][sekai.envs.TradingEnv]. At a reset each sub-env copies
    its window of prices (``lookback + episode_length + 1`` rows) into the
    batch; the steps then index arrays. A finished sub-env is reset within
    the step, or frozen with ``autoreset=False``.

    The reward function handles the whole batch (stateful rewards keep one
    state per sub-env and forget the rows that reset). Reset options, one
    dict for all or one per sub-env: ``{"start": t}`` as for the single env.

    Args:
        num_envs: Number of sub-envs.
        prices: See [`TradingEnv`][sekai.envs.TradingEnv] (and every
            argument below up to ``capital``).
        data: A one-asset history.
        episode_length: Decisions per episode.
        lookback: Log returns per observation.
        positions: The target positions.
        transaction_cost: Proportional rate or cost model.
        mu: Drift of the default model.
        sigma: Volatility of the default model.
        dt: Years per period.
        s0: Start price of the default model.
        model: A one-asset market model.
        reward: The reward function (the env keeps its own copy).
        sampler: The start sampler, spawned once per sub-env.
        capital: Starting equity.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.

    Attributes:
        samplers: Each sub-env's start sampler (histories), else None.
    """

    metadata: dict[str, Any] = {"render_fps": 30}  # noqa: RUF012 - copied per subclass

    def __init__(
        self,
        num_envs: int,
        *,
        prices: ArrayLike | None = None,
        data: MarketData | None = None,
        episode_length: int = 252,
        lookback: int = 30,
        positions: Sequence[float] = (-1.0, 0.0, 1.0),
        transaction_cost: float | CostModel = 0.001,
        mu: float = 0.05,
        sigma: float = 0.2,
        dt: float | None = None,
        s0: float = 100.0,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: str | int | EpisodeSampler = "random",
        capital: float = 1_000_000.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        config = TradingConfig(
            "TradingVecEnv",
            prices=prices,
            data=data,
            episode_length=episode_length,
            lookback=lookback,
            positions=positions,
            transaction_cost=transaction_cost,
            mu=mu,
            sigma=sigma,
            dt=dt,
            s0=s0,
            model=model,
            reward=reward,
            sampler=sampler,
            capital=capital,
        )
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self.positions = config.positions
        self.cost_model = config.cost_model
        self.capital = config.capital
        self.dt = config.dt
        self.reward_fn = config.reward
        source = config.source
        self.samplers = (
            [source.sampler.spawn() for _ in range(self.num_envs)]
            if isinstance(source, History)
            else None
        )
        self._targets = config.position_array()
        self._rows = np.arange(self.num_envs)
        self._allocate()

    def _allocate(self) -> None:
        config, n = self.config, self.num_envs
        lookback, length = config.lookback, config.episode_length
        width = lookback + length + 1  # price rows of an episode
        history = config.history
        times = np.zeros(1, dtype=np.int64) if history is None else history.timestamps
        self._lookback = lookback
        self._length = length
        self._window = np.arange(lookback)
        self._prices: F64 = np.ones((n, width))
        self._log_returns: F64 = np.zeros((n, width - 1))
        # the same as float32, and every sub-env's observation windows as a view of it
        self._log_returns32 = np.zeros((n, width - 1), dtype=np.float32)
        self._windows = np.lib.stride_tricks.sliding_window_view(
            self._log_returns32, lookback, axis=1
        )
        self._returns: F64 = np.zeros((n, width - 1))
        self._times = np.zeros((n, width), dtype=times.dtype)
        self._fields = {name: np.zeros((n, width)) for name in config.costs.fields}
        self._steps = np.zeros(n, dtype=np.intp)
        self._position: F64 = np.zeros(n)
        self._equity: F64 = np.full(n, config.capital)
        self._dated = times.dtype.kind == "M"

    # -- state ----------------------------------------------------------------------------------

    @property
    def episode_length(self) -> int:
        """Decisions per episode (fixed for a vector env)."""
        return self._length

    @property
    def lookback(self) -> int:
        """Log returns per observation (fixed for a vector env)."""
        return self._lookback

    @property
    def equity(self) -> F64:
        """Each sub-env's equity (a copy)."""
        equity: F64 = self._equity.copy()
        return equity

    @property
    def position(self) -> F64:
        """Each sub-env's position after drift (a copy)."""
        position: F64 = self._position.copy()
        return position

    @property
    def price(self) -> F64:
        """Each sub-env's current price."""
        price: F64 = self._prices[self._rows, self._lookback + self._steps]
        return price

    # -- hooks ------------------------------------------------------------------------------------

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        config = self.config
        source = config.source
        lookback, length = self._lookback, self._length
        rngs = self.rngs
        for index, option in zip(indices.tolist(), options, strict=True):
            if isinstance(source, History):
                start = check_options(option, ("start",), "TradingVecEnv").get("start")
                assert self.samplers is not None
                row = source.first_row(rngs[index], start, lookback, length, self.samplers[index])
                rows = slice(row - lookback, row + length + 1)
                data = source.data
                self._prices[index] = data.prices[rows, 0]
                self._times[index] = data.timestamps[rows]
                for name, table in self._fields.items():
                    table[index] = data.field(name)[rows, 0]
            else:
                check_options(option, (), "TradingVecEnv")
                path = source.simulate(rngs[index], lookback, length)
                self._prices[index] = path.prices[:, 0]
                self._times[index] = np.arange(lookback + length + 1)
        window = self._prices[indices]
        ratio = window[:, 1:] / window[:, :-1]
        self._log_returns[indices] = np.log(ratio)
        self._log_returns32[indices] = self._log_returns[indices]
        self._returns[indices] = ratio - 1.0
        self._steps[indices] = 0
        self._position[indices] = 0.0
        self._equity[indices] = config.capital
        if len(indices) == self.num_envs:
            self.reward_fn.reset()
        else:
            mask = np.zeros(self.num_envs, dtype=np.bool_)
            mask[indices] = True
            self.reward_fn.reset(mask)

    def _timestamps(self, rows: NDArray[np.intp], columns: NDArray[np.intp]) -> Any:
        times = self._times[rows, columns]
        return list(times) if self._dated else times

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        column = np.full(len(indices), self._lookback, dtype=np.intp)
        return {
            "equity": self._equity[indices],
            "position": self._position[indices],
            "price": self._prices[indices, column],
            "timestamp": self._timestamps(indices, column),
            "dt": np.full(len(indices), self.dt),
        }

    def _observe(self) -> NDArray[np.float32]:
        lookback = self._lookback
        observations = np.empty((self.num_envs, lookback + 1), dtype=np.float32)
        observations[:, :lookback] = self._windows[self._rows, self._steps]
        observations[:, lookback] = self._position
        return observations

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        config = self.config
        choices = check_discrete_actions(
            actions, len(self._targets), "TradingVecEnv", self.num_envs
        )
        rows, lookback = self._rows, self._lookback
        # A frozen sub-env may sit at its last row: read within the window, commit nothing.
        now = lookback + np.minimum(self._steps, self._length - 1)
        price = self._prices[rows, now][:, None]
        returns = self._returns[rows, now][:, None]
        market: dict[str, Any] = {"equity": self._equity, "prices": price}
        for name, table in self._fields.items():
            market[name] = table[rows, now][:, None]
        if config.costs.volatility:
            columns = (now - lookback)[:, None] + self._window
            market["volatility"] = window_volatility(
                self._log_returns[rows[:, None], columns][..., None]
            )
        step = account_step(
            self._position[:, None],
            self._targets[choices][:, None],
            returns,
            dt=self.dt,
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=self._equity,
        )
        rewards = np.asarray(self.reward_fn(step.outcome), dtype=np.float64)
        position = step.drifted[:, 0]
        equity = np.asarray(step.equity, dtype=np.float64)
        frozen = self.frozen
        if not self.autoreset and frozen.any():
            active = ~frozen
            self._position[active] = position[active]
            self._equity[active] = equity[active]
            self._steps[active] += 1
        else:
            self._position = position
            self._equity = equity
            self._steps += 1
        terminated = np.asarray(step.wiped_out, dtype=np.bool_)
        truncated = ~terminated & (self._steps >= self._length)
        after = now + 1
        infos = {
            "equity": self._equity.copy(),
            "position": self._position.copy(),
            "price": self._prices[rows, after],
            "asset_return": returns[:, 0],
            "cost": step.cost,
            "turnover": step.turnover,
            "timestamp": self._timestamps(rows, after),
            "dt": np.full(self.num_envs, self.dt),
        }
        return rewards, terminated, truncated, infos

    def __repr__(self) -> str:
        return f"TradingVecEnv(num_envs={self.num_envs}, {self.config.describe()})"
