"""Market-v0: a portfolio over a universe whose assets list and delist, point-in-time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int
from sekai.core import ResetResult, StepResult
from sekai.envs.finance._kernel import passed_arguments, row_infos
from sekai.envs.finance._market_config import MarketConfig, MarketParameters
from sekai.envs.finance._market_kernel import MarketKernel, targets
from sekai.envs.finance._portfolio_weights import check_actions
from sekai.envs.finance._price_sources import History
from sekai.envs.finance._windowed_env import WindowedMarketEnv
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, PointInTime
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import GBM, ListingProcess, MarketModel
from sekai.utils.seeding import SeedType

__all__ = ["MarketEnv", "default_market"]

F64 = NDArray[np.float64]
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


class MarketEnv(MarketParameters, WindowedMarketEnv[dict[str, Any], NDArray[np.float32]]):
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

    Point in time: every read goes through the data's point-in-time guard at
    ``t`` (`now` shows it); the observation, the slots, the features and the
    cost inputs use rows up to ``t``.
    Features are computed once over the data (or over each simulated path)
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
        Rebalance to the target at the fill price, paying the cost model's
        costs; hold over the period: cash earns ``cash_rate`` (pays
        ``margin_rate`` when borrowed), shorts pay ``borrow_rate`` (annual
        rates, [`settle`][sekai.finance.account.settle], over ``dt`` or, for
        dated data without ``dt``, the calendar time between the rows).
        ``execution`` says where a decision fills: ``"close"`` (default) at the
        close the agent has just seen, ``"next_open"`` at row ``t + 1``'s
        ``open`` field, ``"next_close"`` at row ``t + 1``'s close; the weights
        held before the decision earn the move up to the fill (the guide
        "Execution and timing").

        Halts and delistings: in a history, an asset without a price at
        ``t + 1`` that has a price again later is *halted*: the position is carried at its last
        price, cannot be traded while halted (``action_mask()`` 0) and is
        repriced when the asset trades again. An asset whose prices stop for
        good *delists*: it returns ``delisting_return`` over the period and its
        position becomes cash. The default 0 pays the last price; the average
        delisting return of stocks delisted for performance is about -30%
        (CRSP), so set ``delisting_return=-0.3`` for a conservative backtest.
        In a simulated universe every gap is a delisting: a
        [`ListingProcess`][sekai.finance.ListingProcess] column that lists
        again holds a new asset.

        Volume: when the data has a ``volume`` field, an asset with zero or
        missing volume at the decision row cannot be traded in that step
        (``action_mask()`` 0; its weight is kept), so that a volume-based cost
        model is never asked to price a trade against no volume.

    Reward:
        ``reward(outcome)`` of the step's [`StepOutcome`][sekai.finance.StepOutcome]
        (default [`LogReturn`][sekai.finance.LogReturn], log growth net of costs
        and financing).

    Termination:
        ``terminated`` when the equity is wiped out (reported as 0) or a
        margin call closes the account (``maintenance_margin``; the equity left
        is reported, negative if the loss exceeded it); ``truncated`` after
        ``episode_length`` steps.

    Info:
        Every step: ``equity``, ``turnover``, ``cost``, ``financing``,
        ``gross_exposure``, ``n_assets`` (slots with an asset at the new
        row), ``weights`` (cash last), ``untradable`` (slots whose asset could
        not be traded in the step: halted or without volume), ``liquidated``
        (a margin call closed the account), ``timestamp``,
        ``dt`` (the step's length in years), and with a model
        ``latent_state`` (its state series at the new row, by name). Reset:
        ``equity``, ``n_assets``, ``timestamp``.

    Reset options:
        ``{"start": t}`` with a history: the first decision at row (int) or
        time ``t``.

    Baseline:
        [`equal_weight`][sekai.envs.equal_weight] (every listed asset alike).

    Vectorised:
        [`MarketVecEnv`][sekai.envs.MarketVecEnv] runs the same step on many
        sub-envs at once (``sekai.make_vec("Market-v0", n)``), with the same
        trajectories for the same seeds and actions.

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
        execution: When a decision fills: ``"close"``, ``"next_open"`` or
            ``"next_close"``.
        maintenance_margin: The smallest equity the account may keep, as a
            fraction of the gross value of its positions (see
            [`AccountConfig`][sekai.finance.AccountConfig]); None for none.

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

    kernel_type = MarketKernel
    config: MarketConfig

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
        execution: str = "close",
        maintenance_margin: float | None = None,
    ) -> None:
        self.config = MarketConfig.from_arguments("MarketEnv", **passed_arguments(locals()))
        source = self.config.source
        self.sampler = source.sampler if isinstance(source, History) else None
        self._reward = self.config.reward
        self.observation_space = self.config.observation_space()
        self.action_space = self.config.action_space()
        self._kernel: MarketKernel | None = None
        self._over = True

    # -- properties ------------------------------------------------------------------------

    @property
    def equity(self) -> float:
        """The account's value."""
        return self.config.capital if self._kernel is None else float(self._kernel.equity[0])

    @property
    def weights(self) -> F64:
        """The ``(max_assets + 1,)`` drifted weights, cash last (a copy)."""
        if self._kernel is None:
            weights: F64 = _all_cash(self.config.max_assets)[0]
        else:
            weights = self._kernel.weights[0].copy()
        return weights

    @property
    def slot_assets(self) -> tuple[Any, ...]:
        """The asset label in each slot (None for an empty slot)."""
        if self._kernel is None:
            return (None,) * self.config.max_assets
        return self._kernel.slot_assets(0)

    @property
    def now(self) -> PointInTime:
        """The data as known at the current decision row, as agents and wrappers may read it.

        An agent's view ([`PointInTime.agent_view`][sekai.finance.data.PointInTime.agent_view])
        of the history or of the simulated path: rows up to the decision row,
        and no execution side. Reads past that row (``execution_price()``,
        ``advance(1)``, an index after it, ...) raise
        [`LookAheadError`][sekai.error.LookAheadError]; a pickle of it holds those rows only.

        Raises:
            ResetRequired: Before the first reset.
        """
        if self._kernel is None:
            raise ResetRequired("MarketEnv: call reset() first")
        return self._kernel.cursor.at(0).agent_view()

    @property
    def timestamp(self) -> Any:
        """The current row's timestamp."""
        return self.now.time

    @property
    def latent_state(self) -> dict[str, F64] | None:
        """The model's state series at the current row, by name (None for a history)."""
        if self.config.model is None:
            return None
        latent = None if self._kernel is None else self._kernel.latent()
        return {name: np.array(series[0]) for name, series in (latent or {}).items()}

    def action_mask(self) -> NDArray[np.int8]:
        """Which entries of the action count: 1 for the slots that can be traded now (and cash).

        A slot without an asset, or whose asset is halted or has no volume, is 0.
        """
        m = self.config.max_assets
        held = np.zeros(m, dtype=np.int8)
        if self._kernel is not None:
            held = self._kernel.tradable()[0, :-1].astype(np.int8)
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

    def _scores(self, action: Any) -> F64:
        account = self.config.account
        m = self.config.max_assets
        shape = (m,) if account.allow_short else (m + 1,)
        return check_actions(action, shape, "Market action", signed=account.allow_short)[None]

    def _targets(self, action: Any) -> F64:
        scores = self._scores(action)
        kernel = self._kernel
        if kernel is not None:
            return kernel.targets(scores)
        # Before the first reset no slot holds an asset: only cash is tradable.
        weights = _all_cash(self.config.max_assets)
        return targets(scores, weights, weights.copy(), self.config.account)

    # -- the env API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        """Start an episode: a new window of the history, or a new simulated universe.

        Raises:
            ValueError: An unknown option, or a start without room for an episode.
        """
        kernel = self._start(seed, options)
        info = self._reset_infos(kernel, raw=("timestamp",))
        return ResetResult(_first_row(kernel.observe()), info)

    def step(self, action: NDArray[np.float32]) -> StepResult[dict[str, Any]]:
        """Rebalance to the action's target and hold for one period.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: A malformed action.
        """
        kernel = self._stepping()
        rewards, terminated, truncated, infos = kernel.step(self._scores(action))
        done = bool(terminated[0]), bool(truncated[0])
        self._over = done[0] or done[1]
        info = row_infos(infos, raw=("timestamp",))
        return StepResult(_first_row(kernel.observe()), float(rewards[0]), *done, info)

    def __repr__(self) -> str:
        return f"MarketEnv({self.config.describe()})"


_FIRST = np.zeros(1, dtype=np.intp)


def _all_cash(max_assets: int) -> F64:
    """``(1, max_assets + 1)`` weights all in cash."""
    weights = np.zeros((1, max_assets + 1))
    weights[0, -1] = 1.0
    return weights


def _first_row(observation: dict[str, Any]) -> dict[str, Any]:
    """The single env's observation: row 0 of the kernel's batched one."""
    return {
        key: _first_row(value) if isinstance(value, dict) else value[0]
        for key, value in observation.items()
    }
