"""Portfolio-v0: allocate wealth across assets and cash, on returns windows or on prices."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.core import ResetResult, StepResult
from sekai.envs.finance._kernel import passed_arguments, row_infos
from sekai.envs.finance._portfolio_config import PortfolioConfig, PortfolioObs, PortfolioParameters
from sekai.envs.finance._portfolio_kernel import PortfolioKernel, PriceMarket
from sekai.envs.finance._portfolio_weights import check_actions
from sekai.envs.finance._windowed_env import WindowedMarketEnv
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, Past
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler, WindowSampler
from sekai.finance.simulators import MarketModel
from sekai.utils.seeding import SeedType

__all__ = ["PortfolioEnv", "SeedType", "equal_weight"]

F64 = NDArray[np.float64]
_FIRST = np.zeros(1, dtype=np.intp)  # the single env is row 0 of its kernel
_RAW = ("timestamp",)


def equal_weight(env: Any) -> NDArray[np.float32]:
    """The baseline policy of Portfolio-v0 and Market-v0: the same weight in every asset.

    The ``1/N`` portfolio (DeMiguel, Garlappi and Uppal, 2009), rebalanced
    every period, is hard to beat out of sample. For a long-only action space
    (scores, cash last) it scores every asset 1 and cash 0; for long/short
    weights it targets ``1 / n`` long in each asset. Where the env has an
    ``action_mask()`` (halted assets, unlisted slots of Market-v0), masked
    entries get 0, so the weight is spread over what can be traded.

    Args:
        env: A Portfolio-v0 or Market-v0 env (or a wrapper of one).

    Returns:
        A float32 action of the env's action space.
    """
    space = env.action_space
    width = int(space.shape[-1])
    short = bool(np.min(space.low) < 0.0)
    mask = getattr(env, "action_mask", None)
    allowed = np.ones(width, dtype=np.bool_) if mask is None else np.asarray(mask(), dtype=bool)
    action = np.ones(width, dtype=np.float32)
    if not short:
        action[-1] = 0.0  # nothing in cash
    action[~allowed] = 0.0
    count = int(np.count_nonzero(action))
    if short and count:
        action /= count
    return action


class PortfolioEnv(PortfolioParameters, WindowedMarketEnv[PortfolioObs, NDArray[np.float32]]):
    """Allocate a portfolio across ``n_assets`` risky assets and cash.

    Two kinds of data (see also the guide):

    * **Prices** (sekai 0.2's constructor, the default): a history given as
      ``prices`` (a ``(T, n)`` array or a DataFrame) or ``data`` (a complete
      [`MarketData`][sekai.finance.MarketData]), played in windows whose first
      row ``sampler`` chooses (``"random"``, ``"sequential"``, an int or a
      start sampler); or a ``model`` simulated at every reset; or, with none
      of the three, correlated geometric Brownian motion built from ``mu``,
      ``sigma`` and ``corr`` (by default 5 assets with drift 0.05, volatility
      0.2 and pairwise correlation 0.3 per year, daily steps). Reads go
      through the point-in-time guard (``data.at(t)``, batched as
      [`PointInTimeBatch`][sekai.finance.data.PointInTimeBatch]): nothing
      after the decision row is seen, the trade executes at the next row's
      prices.
    * **Windows of log returns** (this project's first Portfolio-v0), when
      ``sampler`` is a window sampler (a `sekai.finance.sampling.WindowSampler`): at every reset
      it draws an episode of ``lookback + episode_length`` periods of log
      returns and trading halts, e.g. a
      [`RegimeSwitchingSampler`][sekai.envs.RegimeSwitchingSampler] (assets
      whose drift and volatility follow a hidden Markov chain, with occasional
      halts). ``n_assets`` is the sampler's.

    The step is written once, in a kernel that this env runs on one row and
    [`PortfolioVecEnv`][sekai.envs.PortfolioVecEnv] on one row per sub-env, so
    both give the same numbers bit for bit.

    The defaults are sekai 0.2's whatever the data: a lookback of 30 and a
    starting value (``capital``) of 1,000,000. The first Portfolio-v0's
    defaults were a regime-switching sampler of 4 assets, a lookback of 20 and
    a starting value of 1: ``PortfolioEnv(sampler=RegimeSwitchingSampler(4),
    lookback=20, capital=1.0)`` plays it.

    Observation:
        ``Dict`` with ``"returns"``, a float32 ``Box (lookback, n_assets)``
        of the log returns of the last ``lookback`` periods up to now (row
        ``-1`` the latest), and ``"weights"``, a float32 ``Box (n_assets + 1,)``:
        the current (drifted) weights, cash last, summing to 1; in ``[0, 1]``
        for a long-only account without leverage, unbounded otherwise.

    Action:
        Long-only (default): ``Box(0, 1, (n_assets + 1,))`` scores, cash last,
        divided by their sum (all zeros: all cash); with ``max_leverage`` > 1
        the assets' share is scaled by it and cash borrowed. With
        ``allow_short=True``: ``Box(-1, 1, (n_assets,))`` target weights of the
        assets, scaled down together when their gross exposure exceeds
        ``max_leverage`` ([`project_weights`][sekai.finance.account.project_weights]);
        cash is the rest. Halted assets (window samplers; ``action_mask()``
        False) keep their weight whatever the action says.

    Reward:
        ``reward(outcome)`` of the step's [`StepOutcome`][sekai.finance.StepOutcome],
        by default its log growth net of costs:
        ``log(gross) + log(1 - cost)`` with ``cost`` the cost model's price of
        the rebalance (``transaction_cost * turnover`` for a rate, turnover
        ``sum_i |target_i - w_i|`` over the assets). Cash earns
        ``risk_free_rate`` (a log return per period; over dated data without
        ``dt``, its annual rate over the calendar time between the rows);
        short positions pay ``borrow_rate`` a year.

    Fills (``execution``): ``"close"`` (default) rebalances at the close the
    agent has just seen, ``"next_open"`` at the next row's ``open`` field and
    ``"next_close"`` at the next row's close; the weights held before the
    decision earn the move up to the fill. A window sampler's returns have no
    opens: ``"next_open"`` is refused there. See the guide "Execution and timing".

    Termination:
        ``terminated`` when the portfolio is wiped out (only possible with
        shorts, leverage or costs of 100%); ``truncated`` after
        ``episode_length`` steps.

    Info:
        Every step: ``portfolio_value`` (also ``equity``), ``weights``
        (drifted, cash last), ``turnover``, ``cost`` (fraction of value),
        ``log_return`` (before costs), ``asset_returns`` (simple returns of
        the period), ``untradable`` (assets that could not be traded: halted
        by a window sampler, or without volume at the decision row),
        ``liquidated`` (a margin call closed the account), ``timestamp``
        and ``dt``. Reset: ``portfolio_value``.

    Reset options:
        ``{"episode": Episode}`` plays the given episode (window samplers);
        ``{"start": t}`` starts a history at row or time ``t``.

    Baseline:
        `equal_weight`.

    Args:
        prices: A price history ``(T, n_assets)`` (array or DataFrame).
        data: A complete MarketData.
        n_assets: Number of assets (default: the data's, the model's, the
            window sampler's, the length of ``mu`` / ``sigma`` / ``corr``, or 5).
        episode_length: Steps per episode (252, a trading year of days).
        lookback: Returns per observation.
        transaction_cost: A proportional rate (default 0.001) or a
            [`CostModel`][sekai.finance.CostModel].
        allow_short: Target weights may be negative.
        mu: Drifts of the default simulated market (per year).
        sigma: Volatilities of the default simulated market (per year).
        corr: Correlation matrix of the default simulated market.
        dt: Years per period (default: the data's, the model's, or 1/252).
        model: A market model simulated at every reset.
        reward: The reward function (the env keeps its own copy).
        sampler: For a history, where episodes start: ``"random"``,
            ``"sequential"``, an int or a start sampler (checked, then unused,
            with a model); or a window sampler (a `sekai.finance.sampling.WindowSampler`) to
            play windows of log returns instead of prices.
        capital: Starting value of the portfolio.
        max_leverage: The largest gross exposure of the assets.
        cost: The former name of ``transaction_cost`` (a rate in ``[0, 0.5)``).
        risk_free_rate: Log return of cash per period.
        execution: When a decision fills: ``"close"``, ``"next_open"`` or
            ``"next_close"``.
        borrow_rate: Annual fee on the value of short positions (>= 0).
        maintenance_margin: The smallest equity the account may keep, as a
            fraction of the gross value of its positions (see
            [`AccountConfig`][sekai.finance.AccountConfig]); None for none.

    Raises:
        TypeError, ValueError: A bad argument (the message names it).

    Attributes:
        n_assets: Number of assets.
        allow_short: Whether target weights may be negative.
        cost_model: The cost model.
        transaction_cost: The ``transaction_cost`` argument (or ``cost``'s).
        capital: The starting value.
        dt: Years per period.
        mu: The ``mu`` argument.
        sigma: The ``sigma`` argument.
        corr: The ``corr`` argument.
        sampler: The window sampler, or the history's start sampler, or None
            for a model.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:PortfolioRenderer",
    }
    kernel_type = PortfolioKernel

    def __init__(
        self,
        prices: ArrayLike | None = None,
        *,
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
        execution: str = "close",
        borrow_rate: float = 0.0,
        maintenance_margin: float | None = None,
    ) -> None:
        self.config = PortfolioConfig.from_arguments("PortfolioEnv", **passed_arguments(locals()))
        self.sampler = self.config.sampler
        self._reward = self.config.reward
        self.observation_space = self.config.observation_space()
        self.action_space = self.config.action_space()
        self._kernel: PortfolioKernel | None = None
        self._over = True

    # -- properties ------------------------------------------------------------------------

    @property
    def prices(self) -> F64 | None:
        """The whole price history ``(T, n_assets)`` (read-only), or None."""
        history = self.config.history
        return None if history is None else history.prices

    @property
    def time(self) -> int:
        """Row of the episode's returns the agent has seen last (``lookback - 1`` at a reset)."""
        return 0 if self._kernel is None else int(self._kernel.time[0])

    @property
    def weights(self) -> F64:
        """Current float64 weights (cash last), a copy; all 0 before the first reset."""
        if self._kernel is None:
            return np.zeros(self.config.n_assets + 1)
        weights: F64 = self._kernel.weights[0].copy()
        return weights

    @property
    def portfolio_value(self) -> float:
        """Current value of the portfolio (``capital`` at the reset)."""
        return self.config.capital if self._kernel is None else float(self._kernel.value[0])

    @property
    def equity(self) -> float:
        """The same as `portfolio_value`."""
        return self.portfolio_value

    def _prices(self) -> PriceMarket | None:
        """The kernel's prices, or None before the first reset and with a window sampler."""
        market = None if self._kernel is None else self._kernel.market
        return market if isinstance(market, PriceMarket) else None

    @property
    def price_history(self) -> Past | None:
        """The prices up to now, ``(t + 1, n_assets)`` (reads past now raise LookAheadError).

        None with a window sampler (it draws returns, not prices), and before
        the first reset.
        """
        prices = self._prices()
        return None if prices is None else prices.cursor.at(0).prices

    @property
    def timestamp(self) -> Any:
        """The current row's timestamp (its index in the episode with a window sampler)."""
        prices = self._prices()
        return self.time if prices is None else prices.cursor.at(0).time

    def _started(self, what: str) -> PortfolioKernel:
        if self._kernel is None:
            raise ResetRequired(f"Portfolio: call reset() before {what}()")
        return self._kernel

    def action_mask(self) -> NDArray[np.bool_]:
        """Which entries of the action can be traded now (``False``: halted, or no volume).

        Raises:
            ResetRequired: Before the first reset.
        """
        mask: NDArray[np.bool_] = self._started("action_mask").action_mask()[0]
        return mask

    def action_to_weights(self, action: Any) -> F64:
        """The ``(n_assets + 1,)`` target weights (cash last) ``action`` asks for now.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: A malformed action.
        """
        kernel = self._started("action_to_weights")
        weights: F64 = kernel.targets(self._checked(kernel, action))[0]
        return weights

    @staticmethod
    def _checked(kernel: PortfolioKernel, action: Any) -> F64:
        """``action`` checked, as a batch of one."""
        config = kernel.config
        actions = check_actions(
            action, config.action_shape, "Portfolio action", signed=config.allow_short
        )
        return actions[None]

    # -- the env API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[PortfolioObs]:
        """Draw an episode and start as 100% cash (see the class docstring).

        Args:
            seed: Seed of the env's generator (see [`Env`][sekai.core.Env]).
            options: ``{"episode": Episode}`` (window samplers) or
                ``{"start": t}`` (histories).

        Raises:
            TypeError, ValueError: An unknown or malformed option, or a start
                that leaves no room for an episode.
        """
        kernel = self._start(seed, options)
        return ResetResult(self._observe(kernel), self._reset_infos(kernel))

    def step(self, action: NDArray[np.float32]) -> StepResult[PortfolioObs]:
        """Rebalance to the action's target weights and let one period pass.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: The action has the wrong shape or holds a negative
                (long-only), NaN or infinite value.
        """
        kernel = self._stepping()
        rewards, terminated, truncated, infos = kernel.step(self._checked(kernel, action))
        done = bool(terminated[0]), bool(truncated[0])
        self._over = done[0] or done[1]
        # Timestamps of prices stay numpy scalars; a window sampler's are ints, as always.
        info = row_infos(infos, raw=() if kernel.windowed else _RAW)
        return StepResult(self._observe(kernel), float(rewards[0]), *done, info)

    @staticmethod
    def _observe(kernel: PortfolioKernel) -> PortfolioObs:
        observation = kernel.observe()
        return {"returns": observation["returns"][0], "weights": observation["weights"][0]}

    def __repr__(self) -> str:
        return f"PortfolioEnv({self.config.describe()})"
