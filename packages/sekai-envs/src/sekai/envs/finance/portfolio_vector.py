"""The native vector implementation of Portfolio-v0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.envs.finance._cost_inputs import window_volatility
from sekai.envs.finance._portfolio_config import PortfolioConfig, PortfolioObs
from sekai.envs.finance._portfolio_weights import (
    check_actions,
    rebalance,
    short_targets,
    target_weights,
)
from sekai.envs.finance._price_sources import History, Simulated, check_options
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler, WindowSampler
from sekai.finance.simulators import MarketModel
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["PortfolioVecEnv"]

F64 = NDArray[np.float64]
_TINY = float(np.finfo(np.float64).tiny)


class PortfolioVecEnv(NativeVecEnv[PortfolioObs, NDArray[np.float32]]):
    """``num_envs`` Portfolio-v0 simulations advanced together with numpy.

    ``sekai.make_vec("Portfolio-v0", num_envs=N)`` builds this env by
    default. Observations, actions, rewards, infos, termination and the
    action mask are those of [`PortfolioEnv`][sekai.envs.PortfolioEnv],
    batched along a leading ``num_envs`` axis; the accounting runs through the
    same functions, so given the same episodes and actions the results are
    bit-identical to ``num_envs`` single envs. Both kinds of data work, with
    the same defaults: prices (a history, a model, or by default the
    simulated market of ``mu`` / ``sigma`` / ``corr``), and window samplers
    of log returns.

    The env spawns one sampler per sub-env from ``sampler`` (a history's
    start sampler or a window sampler), as ``make_vec`` does for the sub-envs
    of the other backends, and sub-env ``i`` draws its episodes from its own generator,
    ``rngs[i]``. As in the single env, an episode is drawn whole at its reset
    (its returns copied into the batch) and a step draws nothing, so for the
    same seed and actions the trajectories, autoresets included, are
    identical to those of ``SyncVecEnv``, ``AsyncVecEnv`` or ``ProcVecEnv``
    over [`PortfolioEnv`][sekai.envs.PortfolioEnv]. A sub-env that finished
    is reset within the step, or frozen with ``autoreset=False`` (its data is
    then never read past its end).

    Args:
        num_envs: Number of sub-envs.
        prices: See [`PortfolioEnv`][sekai.envs.PortfolioEnv] (and every
            argument below up to ``risk_free_rate``).
        data: A complete MarketData.
        n_assets: Number of assets.
        episode_length: Steps per episode.
        lookback: Returns per observation.
        transaction_cost: Proportional rate or cost model.
        allow_short: Target weights may be negative.
        mu: Drifts of the default simulated market.
        sigma: Volatilities of the default simulated market.
        corr: Correlations of the default simulated market.
        dt: Years per period.
        model: A market model simulated at every reset.
        reward: The reward function (one instance for the batch).
        sampler: The start or window sampler, spawned once per sub-env.
        capital: Starting value.
        max_leverage: Largest gross exposure.
        cost: The former name of ``transaction_cost``.
        risk_free_rate: Log return of cash per period.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.

    Attributes:
        samplers: The sub-envs' samplers, one per sub-env (None for a model).
    """

    def __init__(
        self,
        num_envs: int,
        *,
        prices: ArrayLike | None = None,
        data: MarketData | None = None,
        n_assets: int | None = None,
        episode_length: int = 252,
        lookback: int = 30,
        transaction_cost: float | CostModel = 0.001,
        allow_short: bool = False,
        mu: ArrayLike | None = None,
        sigma: ArrayLike | None = None,
        corr: ArrayLike | None = None,
        dt: float | None = None,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: str | int | EpisodeSampler | WindowSampler = "random",
        capital: float = 1_000_000.0,
        max_leverage: float = 1.0,
        cost: float | None = None,
        risk_free_rate: float = 0.0,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        config = PortfolioConfig(
            "PortfolioVecEnv",
            prices=prices,
            data=data,
            n_assets=n_assets,
            episode_length=episode_length,
            lookback=lookback,
            transaction_cost=transaction_cost,
            cost=cost,
            allow_short=allow_short,
            max_leverage=max_leverage,
            mu=mu,
            sigma=sigma,
            corr=corr,
            dt=dt,
            model=model,
            reward=reward,
            sampler=sampler,
            capital=capital,
            risk_free_rate=risk_free_rate,
        )
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self.n_assets = config.n_assets
        self.allow_short = config.allow_short
        self.cost_model = config.cost_model
        self.capital = config.capital
        self.dt = config.dt
        self.reward_fn = config.reward
        self.samplers = (
            None
            if config.sampler is None
            else [config.spawn_sampler() for _ in range(self.num_envs)]
        )
        n, p, m = self.num_envs, config.n_periods, config.n_assets
        history = config.history
        stamps = np.zeros(1, dtype=np.int64) if history is None else history.timestamps
        self._rows = np.arange(n)
        self._window = np.arange(1 - config.lookback, 1)
        self._returns = np.zeros((n, p, m))  # log returns
        # the same as float32, and every sub-env's observation windows as a view of it
        self._returns32 = np.zeros((n, p, m), dtype=np.float32)
        self._windows = np.lib.stride_tricks.sliding_window_view(
            self._returns32, config.lookback, axis=1
        )
        self._simple = np.zeros((n, p, m))  # simple returns of the same rows
        self._tradable = np.ones((n, p, m + 1))  # 1.0 tradable, 0.0 halted
        priced = config.source is not None
        self._prices = np.ones((n, p, m)) if priced else None  # the price at each row
        self._fields = {name: np.zeros((n, p, m)) for name in config.costs.fields}
        self._times = (
            np.tile(np.arange(p, dtype=stamps.dtype), (n, 1))
            if not priced
            else (np.zeros((n, p), dtype=stamps.dtype))
        )
        self._dated = stamps.dtype.kind == "M"
        self._weights: F64 = np.zeros((n, m + 1))
        self._weights[:, -1] = 1.0
        self._time = np.full(n, config.lookback - 1, dtype=np.intp)
        self._steps = np.zeros(n, dtype=np.int64)
        self._value = np.full(n, config.capital)
        self._action_shape = (n, *config.action_space().shape)

    @property
    def lookback(self) -> int:
        """Returns per observation (fixed for a vector env)."""
        return self.config.lookback

    @property
    def episode_length(self) -> int:
        """Steps per episode (fixed for a vector env)."""
        return self.config.episode_length

    @property
    def time(self) -> NDArray[np.intp]:
        """Each sub-env's current row of its episode data (a copy)."""
        time: NDArray[np.intp] = self._time.copy()
        return time

    @property
    def weights(self) -> F64:
        """``(num_envs, n_assets + 1)`` float64 weights (a copy)."""
        weights: F64 = self._weights.copy()
        return weights

    @property
    def portfolio_value(self) -> F64:
        """Each sub-env's portfolio value (a copy)."""
        value: F64 = self._value.copy()
        return value

    def action_mask(self) -> NDArray[np.bool_]:
        """``(num_envs, *action_shape)`` bool: which entries can be traded now."""
        mask: NDArray[np.bool_] = self._tradable[self._rows, self._time] > 0.0
        return mask[:, : self.n_assets] if self.allow_short else mask

    # -- hooks ------------------------------------------------------------------------------

    def _load(self, index: int, option: dict[str, Any] | None) -> None:
        """Draw sub-env ``index``'s episode from its own generator, as the single env does."""
        config = self.config
        source = config.source
        rng = self.rngs[index]
        lookback, length = config.lookback, config.episode_length
        if source is None:
            sampler = None if self.samplers is None else self.samplers[index]
            episode = config.episode(rng, check_options(option, ("episode",), "Portfolio"), sampler)
            self._returns[index] = episode.log_returns
            self._simple[index] = np.expm1(episode.log_returns)
            self._tradable[index, :, :-1] = ~episode.halted
            return
        if isinstance(source, History):
            start = check_options(option, ("start",), "PortfolioVecEnv").get("start")
            sampler = None if self.samplers is None else self.samplers[index]
            row = source.first_row(rng, start, lookback, length, sampler)
            rows = slice(row - lookback, row + length + 1)
            window = source.data.prices[rows]
            self._times[index] = source.data.timestamps[rows][1:]
            for name, table in self._fields.items():
                table[index] = source.data.field(name)[rows][1:]
        else:
            check_options(option, (), "PortfolioVecEnv")
            window = Simulated.prices(source.simulate(rng, lookback, length))
            self._times[index] = np.arange(1, lookback + length + 1)
        ratio = window[1:] / window[:-1]
        self._returns[index] = np.log(ratio)
        self._simple[index] = ratio - 1.0
        assert self._prices is not None
        self._prices[index] = window[1:]

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        config = self.config
        for index, option in zip(indices.tolist(), options, strict=True):
            self._load(index, option)
        self._returns32[indices] = self._returns[indices]
        self._weights[indices] = 0.0
        self._weights[indices, -1] = 1.0
        self._time[indices] = config.lookback - 1
        self._steps[indices] = 0
        self._value[indices] = config.capital
        if len(indices) == self.num_envs:
            self.reward_fn.reset()
        else:
            mask = np.zeros(self.num_envs, dtype=np.bool_)
            mask[indices] = True
            self.reward_fn.reset(mask)

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        return {"portfolio_value": self._value[indices]}

    def _observe(self) -> PortfolioObs:
        first = self._time + (1 - self.config.lookback)
        windows = self._windows[self._rows, first].transpose(0, 2, 1)
        return {
            "returns": np.ascontiguousarray(windows),
            "weights": self._weights.astype(np.float32),
        }

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        config = self.config
        scores = check_actions(
            actions, self._action_shape, "PortfolioVecEnv actions", signed=config.allow_short
        )
        rows, time = self._rows, self._time
        tradable = self._tradable[rows, time]
        if config.allow_short:
            target = short_targets(scores, self._weights, tradable, config.account)
        else:
            target = target_weights(scores, self._weights, tradable, config.account.max_leverage)
        following = np.minimum(time + 1, config.n_periods - 1)
        market: dict[str, Any] = {"equity": self._value}
        if self._prices is not None:
            market["prices"] = self._prices[rows, time]
            for name, table in self._fields.items():
                market[name] = table[rows, time]
        if config.costs.volatility:
            market["volatility"] = window_volatility(
                self._returns[rows[:, None], time[:, None] + self._window]
            )
        weights, step = rebalance(
            self._weights,
            target,
            self._simple[rows, following],
            dt=self.dt,
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=self._value,
            bounded=config.bounded,
        )
        rewards = np.asarray(self.reward_fn(step.outcome), dtype=np.float64)
        value = np.asarray(step.equity, dtype=np.float64)
        frozen = self.frozen
        if not self.autoreset and frozen.any():
            # A finished sub-env keeps its state: its data has no next period.
            active = ~frozen
            self._weights[active] = weights[active]
            self._value[active] = value[active]
            self._time[active] += 1
            self._steps[active] += 1
        else:
            self._weights = weights
            self._value = value
            self._time += 1
            self._steps += 1
        terminated = np.asarray(step.wiped_out, dtype=np.bool_)
        truncated = ~terminated & (self._steps >= config.episode_length)
        now = self._times[rows, np.minimum(self._time, config.n_periods - 1)]
        infos = {
            "portfolio_value": self._value.copy(),
            "equity": self._value.copy(),
            "weights": self._weights.copy(),
            "turnover": step.turnover,
            "cost": step.cost,
            "log_return": np.log(np.maximum(step.gross, _TINY)),
            "asset_returns": self._simple[rows, following],
            "timestamp": list(now) if self._dated else now,
            "dt": np.full(self.num_envs, self.dt),
        }
        return rewards, terminated, truncated, infos

    def __repr__(self) -> str:
        return f"PortfolioVecEnv(num_envs={self.num_envs}, n_assets={self.n_assets})"
