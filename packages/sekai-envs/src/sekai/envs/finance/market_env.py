"""Market-v0: a portfolio over a universe whose assets list and delist, point-in-time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_int
from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance._cost_inputs import window_volatility
from sekai.envs.finance._market_config import MarketConfig
from sekai.envs.finance._portfolio_weights import (
    check_actions,
    rebalance,
    short_targets,
    target_weights,
)
from sekai.envs.finance._price_sources import History, Simulated, check_options
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, PointInTime
from sekai.finance.features import add_features
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import GBM, ListingProcess, MarketModel
from sekai.finance.universe import SlotMap
from sekai.utils.seeding import SeedType

__all__ = ["MarketEnv", "default_market"]

F64 = NDArray[np.float64]
_TINY = float(np.finfo(np.float64).tiny)
_DAY = 1.0 / 252.0


def default_market(n_assets: int = 10, *, dt: float = _DAY) -> ListingProcess:
    """Market-v0's default model: correlated GBM stocks that list and delist.

    ``n_assets`` slots of geometric Brownian motion with drifts from 2% to
    10% a year and volatilities from 15% to 40% (spread evenly over the
    assets), a pairwise correlation of 0.3, wrapped in a
    [`ListingProcess`][sekai.finance.ListingProcess]: 80% of the slots listed at the
    start, an unlisted slot lists at a rate of once a year, a listed one
    delists at 0.25 a year, and at least one asset is always listed. The
    parameters are fixed (no randomness), so two calls give equal models.

    Args:
        n_assets: Slots of the universe (>= 1).
        dt: Years per step (default one trading day).

    Returns:
        The model, ready for ``MarketEnv(model=...)``.
    """
    n = check_int(n_assets, "default_market: n_assets", minimum=1)
    corr = None
    if n > 1:
        corr = np.full((n, n), 0.3)
        np.fill_diagonal(corr, 1.0)
    prices = GBM(
        np.linspace(0.02, 0.10, n),
        np.linspace(0.15, 0.40, n),
        corr=corr,
        dt=dt,
        n_assets=n,
    )
    return ListingProcess(
        prices, initial_listed=0.8, listing_rate=1.0, delisting_rate=0.25, min_listed=1
    )


class MarketEnv(Env[dict[str, Any], NDArray[np.float32]]):
    """Manage a portfolio over a changing universe of assets, on fixed slots.

    The universe is a history (``data``, a [`MarketData`][sekai.finance.MarketData]
    whose NaN prices mark assets not listed at the time) or a model simulated
    at every reset (``model``, by default `default_market`: GBM stocks
    in a [`ListingProcess`][sekai.finance.ListingProcess]). At each decision row ``t``
    the assets with a price are mapped to ``max_assets`` fixed slots by a
    [`SlotMap`][sekai.finance.SlotMap]: an asset keeps its slot while it stays
    listed, a new listing takes the lowest free slot, and assets that find
    no free slot are left out until one frees up. `slot_assets` names
    each slot's asset.

    Point in time: every read goes through ``data.at(t)``; the observation,
    the slots, the features and the cost inputs use rows up to ``t``, the
    trade executes at row ``t + 1``. Features are computed once over the data
    by name (`sekai.finance.features`) and checked to be causal when the
    env is built (a feature that reads the future raises
    [`LookAheadError`][sekai.error.LookAheadError]).

    Observation:
        ``Dict`` with

        - ``"assets"``: a [`MaskedBox`][sekai.spaces.MaskedBox] of ``max_assets``
          slots, each ``(lookback, 2 + len(features))`` float32: the log
          return, the availability flag (1 where the asset had a price), then
          each feature, over the last ``lookback`` rows (missing values are
          0); its ``"mask"`` is 1 for the slots holding an asset;
        - ``"portfolio"``: ``Box((max_assets + 1,))`` drifted weights, cash
          last (in ``[0, 1]`` long-only without leverage);
        - ``"account"``: ``Box((2,))``: log of equity over ``capital``, and
          the gross exposure;
        - ``"market"`` (only with ``exogenous``): ``Box((lookback, E))``: the
          exogenous series, one column each (``E`` columns in all);
        - ``"state"`` (only with ``privileged_state``): the model's latent
          state at ``t``, flattened (a simulation's hidden variables, for
          privileged critics).

    Action:
        Long-only: ``Box(0, 1, (max_assets + 1,))`` scores, cash last, divided
        by their sum and scaled to ``max_leverage`` (all zeros: all cash);
        with ``allow_short``: ``Box(-1, 1, (max_assets,))`` target weights,
        scaled down to a gross exposure of ``max_leverage``. Slots without an
        asset are ignored (``action_mask()`` is 0 for them).

    Dynamics:
        Rebalance to the target, paying the cost model's costs; hold over
        the period: cash earns ``cash_rate`` (pays ``margin_rate`` when
        borrowed), shorts pay ``borrow_rate`` (annual rates,
        [`settle`][sekai.finance.account.settle]). An asset without a price at
        ``t + 1`` delists: it returns ``delisting_return`` over the period and
        its position becomes cash.

    Reward:
        ``reward(outcome)`` of the step's [`StepOutcome`][sekai.finance.StepOutcome]
        (default [`LogReturn`][sekai.finance.LogReturn], log growth net of costs
        and financing).

    Termination:
        ``terminated`` when the equity is wiped out; ``truncated`` after
        ``episode_length`` steps.

    Info:
        Every step: ``equity``, ``turnover``, ``cost``, ``financing``,
        ``gross_exposure``, ``n_assets`` (slots with an asset at the new
        row), ``weights`` (cash last), ``timestamp``, ``dt``, and with a model
        ``latent_state`` (its state series at the new row, by name). Reset:
        ``equity``, ``n_assets``, ``timestamp``.

    Reset options:
        ``{"start": t}`` with a history: the first decision at row (int) or
        time ``t``.

    Baseline:
        [`equal_weight`][sekai.envs.equal_weight] (every listed asset alike).

    Args:
        data: A history (NaN where an asset is not listed).
        model: A market model (default `default_market`).
        max_assets: Slots (default: every asset of the data or model).
        features: Feature names: fields of the data or registered features,
            with an optional ``_<window>`` suffix (``"momentum_60"``).
        exogenous: Names of the data's exogenous series to observe.
        lookback: Rows per observation window.
        episode_length: Decisions per episode.
        sampler: How a history's episodes start (``"random"``,
            ``"sequential"``, an int or an EpisodeSampler).
        transaction_cost: A proportional rate or a CostModel (fields
            ``spread`` and ``volume`` of the data are passed to it).
        reward: The reward function (the env keeps its own copy).
        allow_short: Allow negative weights.
        max_leverage: Largest gross exposure.
        cash_rate: Annual rate earned on cash.
        margin_rate: Annual rate paid on borrowed cash (None: ``cash_rate``).
        borrow_rate: Annual fee on short positions.
        capital: Equity at the start of each episode.
        dt: Years per row (default the data's or the model's).
        delisting_return: Return of an asset over the period it delists (>= -1).
        privileged_state: Add the model's latent state to the observation.

    Attributes:
        config: The validated parameters.
        cost_model: The cost model.
        capital: The starting equity.
        dt: Years per row.
        max_assets: Slots.
        n_total: Assets in the data or model.
        features: The feature names.
        exogenous: The exogenous series names.
        delisting_return: The ``delisting_return`` argument.
        privileged_state: The ``privileged_state`` argument.
        sampler: The start sampler (histories), else None.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:MarketRenderer",
    }

    def __init__(
        self,
        data: MarketData | None = None,
        *,
        model: MarketModel | None = None,
        max_assets: int | None = None,
        features: Sequence[str] = (),
        exogenous: Sequence[str] = (),
        lookback: int = 20,
        episode_length: int = 252,
        sampler: str | int | EpisodeSampler = "random",
        transaction_cost: float | CostModel = 0.001,
        reward: RewardFunction | None = None,
        allow_short: bool = False,
        max_leverage: float = 1.0,
        cash_rate: float = 0.0,
        margin_rate: float | None = None,
        borrow_rate: float = 0.0,
        capital: float = 1_000_000.0,
        dt: float | None = None,
        delisting_return: float = 0.0,
        privileged_state: bool = False,
    ) -> None:
        config = MarketConfig(
            default=default_market,
            data=data,
            model=model,
            max_assets=max_assets,
            features=features,
            exogenous=exogenous,
            lookback=lookback,
            episode_length=episode_length,
            sampler=sampler,
            transaction_cost=transaction_cost,
            reward=reward,
            allow_short=allow_short,
            max_leverage=max_leverage,
            cash_rate=cash_rate,
            margin_rate=margin_rate,
            borrow_rate=borrow_rate,
            capital=capital,
            dt=dt,
            delisting_return=delisting_return,
            privileged_state=privileged_state,
        )
        self.config = config
        self.cost_model = config.cost_model
        self.capital = config.capital
        self.dt = config.dt
        self.max_assets = config.max_assets
        self.n_total = config.n_total
        self.features = config.features
        self.exogenous = config.exogenous
        self.delisting_return = config.delisting_return
        self.privileged_state = config.privileged_state
        self.sampler = config.source.sampler if isinstance(config.source, History) else None
        self._reward = config.reward
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        m = config.max_assets
        self._slots = SlotMap(m)
        self._columns = np.full(m, -1, dtype=np.intp)  # the data column of each slot
        self._weights: F64 = np.zeros((1, m + 1))
        self._weights[0, -1] = 1.0
        self._episode: MarketData | None = None
        self._state: Mapping[str, F64] = {}
        self._row = 0
        self._steps = 0
        self._equity = config.capital
        self._over = True

    # -- properties ------------------------------------------------------------------------

    @property
    def data(self) -> MarketData | None:
        """The history played (with the features added as fields), or None."""
        return self.config.history

    @property
    def model(self) -> MarketModel | None:
        """The model simulated, or None."""
        return self.config.model

    @property
    def lookback(self) -> int:
        """Rows per observation window; a new value applies from the next reset."""
        return self.config.lookback

    @lookback.setter
    def lookback(self, value: int) -> None:
        self.config.lookback = value
        self.observation_space = self.config.observation_space()
        self._over = True

    @property
    def episode_length(self) -> int:
        """Decisions per episode; a new value applies from the next reset."""
        return self.config.episode_length

    @episode_length.setter
    def episode_length(self, value: int) -> None:
        self.config.episode_length = value
        self._over = True

    @property
    def reward_fn(self) -> RewardFunction:
        """The reward function (assignable; the new one is used as given)."""
        return self._reward

    @reward_fn.setter
    def reward_fn(self, value: RewardFunction) -> None:
        if not isinstance(value, RewardFunction):
            raise TypeError(f"MarketEnv: reward_fn must be a RewardFunction, got {value!r}")
        self._reward = value

    @property
    def elapsed_steps(self) -> int:
        """Steps taken in the current episode."""
        return self._steps

    @property
    def equity(self) -> float:
        """The account's value."""
        return self._equity

    @property
    def weights(self) -> F64:
        """The ``(max_assets + 1,)`` drifted weights, cash last (a copy)."""
        weights: F64 = self._weights[0].copy()
        return weights

    @property
    def slot_assets(self) -> tuple[Any, ...]:
        """The asset label in each slot (None for an empty slot)."""
        return self._slots.assets

    @property
    def now(self) -> PointInTime:
        """The data as known at the current decision row (reads past it raise LookAheadError).

        Raises:
            ResetRequired: Before the first reset.
        """
        if self._episode is None:
            raise ResetRequired("MarketEnv: call reset() first")
        return self._episode.at(self._row)

    @property
    def timestamp(self) -> Any:
        """The current row's timestamp."""
        return self.now.time

    @property
    def latent_state(self) -> dict[str, F64] | None:
        """The model's state series at the current row, by name (None for a history)."""
        if self.config.model is None:
            return None
        return {name: np.array(series[self._row]) for name, series in self._state.items()}

    def action_mask(self) -> NDArray[np.int8]:
        """Which entries of the action count: 1 for slots holding an asset (and cash)."""
        held = (self._columns >= 0).astype(np.int8)
        if self.config.account.allow_short:
            return held
        return np.append(held, np.int8(1))

    def target_weights(self, action: Any) -> F64:
        """The ``(max_assets,)`` target weights ``action`` asks for now.

        Raises:
            InvalidAction: A malformed action.
        """
        weights: F64 = self._targets(action)[0, :-1].copy()
        return weights

    def _targets(self, action: Any) -> F64:
        account = self.config.account
        m = self.config.max_assets
        shape = (m,) if account.allow_short else (m + 1,)
        actions = check_actions(action, shape, "Market action", signed=account.allow_short)
        tradable = np.append(self._columns >= 0, True).astype(np.float64)[None]
        if account.allow_short:
            return short_targets(actions[None], self._weights, tradable, account)
        return target_weights(actions[None], self._weights, tradable, account.max_leverage)

    # -- the env API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        """Start an episode: a new window of the history, or a new simulated universe.

        Raises:
            ValueError: An unknown option, or a start without room for an episode.
        """
        self._set_rng(seed)
        config = self.config
        source = config.source
        lookback, length = config.lookback, config.episode_length
        if isinstance(source, History):
            start = check_options(options, ("start",), "MarketEnv").get("start")
            self._row = source.first_row(self.rng, start, lookback, length)
            self._episode = config.history
            self._state = {}
        else:
            check_options(options, (), "MarketEnv")
            simulation = source.simulate(self.rng, lookback, length)
            self._episode = add_features(Simulated.as_data(simulation), config.features)
            self._state = simulation.state
            self._row = lookback
        self._slots.reset()
        self._columns[:] = -1
        self._place(self.now)
        self._weights = np.zeros((1, config.max_assets + 1))
        self._weights[0, -1] = 1.0
        self._equity = config.capital
        self._steps = 0
        self._over = False
        self._reward.reset()
        now = self.now
        info = {
            "equity": self._equity,
            "n_assets": int(np.count_nonzero(self._columns >= 0)),
            "timestamp": now.time,
        }
        return ResetResult(self._observe(now), info)

    def _place(self, now: PointInTime) -> NDArray[np.bool_]:
        """Map the assets listed at ``now`` to slots; return the slots whose asset changed."""
        listed = np.flatnonzero(now.available)
        labels = now.assets
        slots = self._slots.update([labels[column] for column in listed])
        placed = slots >= 0
        columns = np.full(self.config.max_assets, -1, dtype=np.intp)
        columns[slots[placed]] = listed[placed]
        self._columns = columns
        return self._slots.changed

    def step(self, action: NDArray[np.float32]) -> StepResult[dict[str, Any]]:
        """Rebalance to the action's target and hold for one period.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: A malformed action.
        """
        if self._over:
            raise ResetRequired("MarketEnv: the episode is over (or not started); call reset()")
        config = self.config
        target = self._targets(action)
        now = self.now
        columns = self._columns
        held = columns >= 0
        picked = np.where(held, columns, 0)
        price = np.where(held, now.prices.latest[picked], np.nan)
        executed = np.where(held, now.execution_price()[picked], np.nan)
        delisted = held & np.isnan(executed)
        with np.errstate(invalid="ignore"):
            returns = np.where(held, executed / price - 1.0, 0.0)
        returns[delisted] = config.delisting_return
        equity = np.array([self._equity])
        market: dict[str, Any] = {"equity": equity, "prices": price[None]}
        for name in config.costs.fields:
            market[name] = np.where(held, now.field(name).latest[picked], np.nan)[None]
        if config.costs.volatility:
            window = now.log_returns(config.lookback)[:, picked]
            market["volatility"] = np.where(held, window_volatility(window), np.nan)[None]
        weights, step = rebalance(
            self._weights,
            target,
            returns[None],
            dt=self.dt,
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=equity,
            bounded=config.bounded,
        )
        if delisted.any():  # the delisted positions are paid out in cash
            weights[0, -1] += weights[0, :-1][delisted].sum()
            weights[0, :-1][delisted] = 0.0
        reward = float(np.asarray(self._reward(step.outcome))[0])
        self._equity = float(step.equity[0])
        self._row += 1
        self._steps += 1
        now = self.now
        changed = self._place(now)
        weights[0, :-1][changed] = 0.0  # a new asset in a slot starts with no position
        self._weights = weights
        terminated = bool(step.wiped_out[0])
        truncated = not terminated and self._steps >= config.episode_length
        self._over = terminated or truncated
        info: dict[str, Any] = {
            "equity": self._equity,
            "turnover": float(step.turnover[0]),
            "cost": float(step.cost[0]),
            "financing": float(np.asarray(step.financing).reshape(-1)[0]),
            "gross_exposure": float(np.abs(weights[0, :-1]).sum()),
            "n_assets": int(np.count_nonzero(self._columns >= 0)),
            "weights": weights[0].copy(),
            "timestamp": now.time,
            "dt": self.dt,
        }
        latent = self.latent_state
        if latent is not None:
            info["latent_state"] = latent
        return StepResult(self._observe(now), reward, terminated, truncated, info)

    # -- observations ----------------------------------------------------------------------------

    def _observe(self, now: PointInTime) -> dict[str, Any]:
        config = self.config
        lookback, m = config.lookback, config.max_assets
        columns = self._columns
        held = columns >= 0
        slots, picked = np.flatnonzero(held), columns[held]
        values = np.zeros((m, lookback, 2 + len(config.features)), dtype=np.float32)
        values[slots, :, 0] = np.nan_to_num(now.log_returns(lookback)[:, picked].T)
        values[slots, :, 1] = now.mask.window(lookback)[:, picked].T
        for k, name in enumerate(config.features):
            window = now.field(name).window(lookback)[:, picked].T
            values[slots, :, 2 + k] = np.nan_to_num(window)
        weights = self._weights[0]
        growth = max(self._equity / config.capital, _TINY)
        observation: dict[str, Any] = {
            "assets": {"values": values, "mask": held.astype(np.int8)},
            "portfolio": weights.astype(np.float32),
            "account": np.array([np.log(growth), np.abs(weights[:-1]).sum()], dtype=np.float32),
        }
        if config.exogenous:
            series = [
                now.exogenous(name).window(lookback).reshape(lookback, -1)
                for name in config.exogenous
            ]
            observation["market"] = np.nan_to_num(np.concatenate(series, axis=1)).astype(np.float32)
        if config.privileged_state:
            parts = [np.ravel(self._state[name][self._row]) for name in config.state_spec]
            observation["state"] = np.concatenate(parts).astype(np.float32)
        return observation

    def __repr__(self) -> str:
        source = "history" if self.config.history is not None else type(self.model).__name__
        return (
            f"MarketEnv(source={source}, max_assets={self.max_assets}, "
            f"features={list(self.features)!r}, lookback={self.lookback})"
        )
