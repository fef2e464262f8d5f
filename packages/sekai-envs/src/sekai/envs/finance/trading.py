"""Trading-v0: hold one asset long, flat or short, on real or simulated prices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.core import ResetResult, StepResult
from sekai.envs.classic_control._common import discrete_action
from sekai.envs.finance._kernel import passed_arguments
from sekai.envs.finance._price_sources import History
from sekai.envs.finance._trading_config import TradingConfig, TradingParameters
from sekai.envs.finance._trading_kernel import TradingKernel, observation
from sekai.envs.finance._windowed_env import WindowedMarketEnv
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, Past, PointInTime
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import MarketModel
from sekai.utils.seeding import SeedType

__all__ = ["SeedType", "TradingEnv", "buy_and_hold"]


def buy_and_hold(env: Any) -> int:
    """The baseline policy of Trading-v0: the action that targets the largest long position.

    Holding the asset fully from the first step and never trading again is
    the benchmark a trading agent must beat: with the default positions
    ``(-1, 0, 1)`` it is action 2, whatever the observation. Works for a
    `TradingEnv`, a [`TradingVecEnv`][sekai.envs.TradingVecEnv] (use
    ``np.full(num_envs, buy_and_hold(vec))``) or a wrapper around either.

    Args:
        env: An env with a ``positions`` attribute (the target positions).

    Returns:
        The index of the largest position.
    """
    positions = np.asarray(env.positions, dtype=np.float64)
    return int(np.argmax(positions))


class TradingEnv(TradingParameters, WindowedMarketEnv[NDArray[np.float32], np.int64]):
    """Trade one asset: choose a target position each period, pay costs, earn its return.

    The agent holds a position in one asset, as a fraction of its equity
    (1 = fully long, -1 = fully short, 0 = flat), and picks a new target
    position among ``positions`` once per period. Moving from the current
    (drifted) position ``p`` to the target ``w`` costs the cost model's price
    of the trade ``w - p`` (``transaction_cost * |w - p|`` for a rate); the
    account then earns ``w * r`` over the period, ``r`` being the asset's
    simple return, and the position drifts to ``w (1 + r) / (1 + w r)``.
    The accounting is `sekai.finance.account`'s (``settle``), the costs
    `sekai.finance.costs`'s, the reward `sekai.finance.rewards`'s.

    Prices: a history given as ``prices`` (a 1-D array, a pandas Series or a
    one-column DataFrame) or ``data`` (a one-asset
    [`MarketData`][sekai.finance.MarketData] without missing prices), played in
    windows of ``episode_length`` decisions whose first row the ``sampler``
    chooses; or a ``model`` (a one-asset [`MarketModel`][sekai.finance.MarketModel]),
    simulated anew at every reset; by default geometric Brownian motion with
    drift ``mu``, volatility ``sigma`` and start ``s0``. At most one of
    ``prices``, ``data`` and ``model``.

    Point in time: at decision row ``t`` the env reads the data through
    ``data.at(t)`` ([`PointInTime`][sekai.finance.data.PointInTime]): observations
    and cost inputs come from rows up to ``t``, and any read of a later row
    raises [`LookAheadError`][sekai.error.LookAheadError]. `price_history`
    gives the same guarded view to agents and wrappers.

    Fills (``execution``): by default a decision fills at the close the agent
    has just seen (row ``t``, a market-on-close order) and the new position
    earns the move to row ``t + 1``: the reward of a step is ``log((1 - c)
    (1 + w (P_{t+1} / P_t - 1)))``. ``"next_open"`` fills at row ``t + 1``'s
    ``open`` field and ``"next_close"`` at row ``t + 1``'s close (one bar of
    latency); the position held before the decision earns the move up to the
    fill price, the new one the move after it, and the cost is charged at the
    fill price. See the guide "Execution and timing".

    Financing: cash earns ``cash_rate``, borrowed cash pays ``margin_rate``
    and a short position pays ``borrow_rate`` (annual rates), over ``dt``
    years per step, or over the calendar time between the rows when the data
    is stamped with dates and ``dt`` is not given.

    Speed: with no transaction cost or a proportional rate (the default) and
    no ``maintenance_margin``, a step does its arithmetic on Python floats,
    a few microseconds; another cost model, or a margin, runs the kernel's
    numpy path on one row. Both give the native env's numbers bit for bit.

    Observation:
        ``Box((lookback + 1,), float32)``: the log returns of the last
        ``lookback`` periods up to now (oldest first), then the current
        position (after drift).

    Action:
        ``Discrete(len(positions))``: the index of the target position; with
        ``hold_action=True`` one more, the last, which holds the position and
        lets it drift (a target such as 0.5 is otherwise restored, and paid
        for, every step).

    Reward:
        ``reward(outcome)`` of the step's
        [`StepOutcome`][sekai.finance.StepOutcome]; by default
        [`LogReturn`][sekai.finance.LogReturn], the log growth of equity net of
        costs, ``log((1 - cost) (1 + w r))``. Rewards then add up to the log of
        final over initial equity.

    Termination:
        ``terminated`` when the equity reaches 0 (a short position in an asset
        that more than doubles, say; the equity is then reported as 0), or, with
        ``maintenance_margin``, when a margin call closes the account (its
        equity is what is left, negative if the loss exceeded it);
        ``truncated`` after ``episode_length`` steps. ``step()`` after either
        raises [`ResetRequired`][sekai.error.ResetRequired].

    Info:
        Every step: ``equity``, ``position`` (after drift), ``price`` (the new
        current price), ``asset_return`` (the period's simple return),
        ``cost`` (fraction of equity at the fill), ``turnover`` (``|w - p|``,
        ``p`` the position at the fill), ``fill_price``, ``untradable`` (no
        volume at the decision row: the position was kept), ``liquidated`` (a
        margin call closed the account), ``timestamp`` (of the new current row)
        and ``dt`` (the step's length in years).
        Reset: ``equity``, ``position``, ``price``, ``timestamp``, ``dt``.

    Reset options:
        ``{"start": t}`` with a history: the first decision at row ``t`` (an
        int) or at the first row stamped at or after time ``t``.

    Baseline:
        `buy_and_hold` (the largest long position throughout).

    Args:
        prices: A price history of one asset.
        data: A one-asset MarketData.
        episode_length: Decisions per episode (>= 1).
        lookback: Log returns per observation (>= 1).
        positions: The target positions the actions choose from.
        transaction_cost: A proportional rate (0.001 = 10 basis points) or a
            [`CostModel`][sekai.finance.CostModel]; ``0`` or ``None`` for free
            trading.
        mu: Drift per year of the default model.
        sigma: Volatility per year of the default model.
        dt: Years per period; default the data's (``1 / periods_per_year``)
            or the model's (1/252 for the default model).
        s0: Start price of the default model.
        model: A one-asset market model.
        reward: The reward function (default [`LogReturn`][sekai.finance.LogReturn]);
            the env keeps its own copy.
        sampler: How a history's episodes start: ``"random"``,
            ``"sequential"``, an int (a fixed first row offset) or a
            [`EpisodeSampler`][sekai.finance.EpisodeSampler].
        capital: Equity at the start of each episode.
        execution: When a decision fills: ``"close"`` (the close just seen),
            ``"next_open"`` (the next row's ``open`` field) or ``"next_close"``.
        cash_rate: Annual rate earned on positive cash (may be negative).
        margin_rate: Annual rate paid on borrowed cash (a position above 1);
            None for ``cash_rate``.
        borrow_rate: Annual fee on the value of a short position (>= 0).
        maintenance_margin: The smallest equity the account may keep, as a
            fraction of its position's value; below it the position is closed
            at the step's close and the episode ends with the equity left
            (negative if the loss exceeded it). None: no margin call; the
            episode ends when the equity is gone, reported as 0.
        hold_action: Add an action (the last, ``len(positions)``) that keeps
            the position as it has drifted: no trade, no cost. Without it the
            account is traded back to the chosen target every step.

    Raises:
        TypeError, ValueError: A bad argument (the message names it).

    Attributes:
        positions: The target positions.
        cost_model: The cost model.
        transaction_cost: The ``transaction_cost`` argument.
        capital: The starting equity.
        dt: Years per period.
        mu: The ``mu`` argument.
        sigma: The ``sigma`` argument.
        s0: The ``s0`` argument.
        sampler: The start sampler (histories).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:TradingRenderer",
    }
    kernel_type = TradingKernel

    def __init__(
        self,
        prices: ArrayLike | None = None,
        *,
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
        execution: str = "close",
        cash_rate: float = 0.0,
        margin_rate: float | None = None,
        borrow_rate: float = 0.0,
        maintenance_margin: float | None = None,
        hold_action: bool = False,
    ) -> None:
        self.config = TradingConfig.from_arguments("TradingEnv", **passed_arguments(locals()))
        source = self.config.source
        self.sampler = source.sampler if isinstance(source, History) else None
        self._reward = self.config.reward
        self.observation_space = self.config.observation_space()
        self.action_space = self.config.action_space()
        self._kernel: TradingKernel | None = None
        self._over = True

    # -- properties -------------------------------------------------------------------------

    @property
    def prices(self) -> NDArray[np.float64] | None:
        """The whole price history (read-only, ``(n_rows,)``), or None for a model.

        A simulated episode's path is not exposed: it would show the future.
        """
        history = self.config.history
        return None if history is None else history.prices[:, 0]

    @property
    def equity(self) -> float:
        """The account's value (``capital`` at each reset)."""
        return self.config.capital if self._kernel is None else float(self._kernel.equity[0])

    @property
    def position(self) -> float:
        """The current position, a fraction of equity (after drift)."""
        return 0.0 if self._kernel is None else float(self._kernel.position[0])

    def _started(self) -> TradingKernel:
        if self._kernel is None:
            raise ResetRequired("TradingEnv: call reset() first")
        return self._kernel

    def _now(self) -> PointInTime:
        return self._started().cursor.at(0)

    @property
    def now(self) -> PointInTime:
        """The data as known at the current decision row, as agents and wrappers may read it.

        An agent's view ([`PointInTime.agent_view`][sekai.finance.data.PointInTime.agent_view]):
        rows up to the decision row, and no execution side. Reads past that row
        (``execution_price()``, ``advance(1)``, an index after it, ...) raise
        [`LookAheadError`][sekai.error.LookAheadError]; a pickle of it holds those rows only.

        Raises:
            ResetRequired: Before the first reset.
        """
        return self._now().agent_view()

    @property
    def price(self) -> float:
        """The current price (at the decision row)."""
        return float(self._now().prices.latest[0])

    @property
    def price_history(self) -> Past:
        """The prices up to now, as a [`Past`][sekai.finance.data.Past] of shape ``(t + 1,)``.

        Index it like an array of every row so far (``[-1]`` is the current
        price); ``np.asarray(env.price_history)`` copies it. Reading a row
        after the current one raises [`LookAheadError`][sekai.error.LookAheadError].
        """
        cursor = self._started().cursor
        data = cursor.data_of(0)
        return Past(data.prices[:, 0], int(cursor.rows[0]), data, "price_history")

    @property
    def timestamp(self) -> Any:
        """The timestamp of the current row (an int for simulations and int-stamped data)."""
        return self._now().time

    # -- the env API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start an episode: a new window of the history, or a new simulated path.

        Args:
            seed: Seed of the env's generator (see [`Env`][sekai.core.Env]).
            options: ``{"start": t}`` (histories only): the first decision row
                or time.

        Raises:
            ValueError: An unknown option, or a start that leaves no room for
                an episode.
        """
        kernel = self._start(seed, options)
        info = self._reset_infos(kernel, raw=("timestamp",))
        return ResetResult(self._observe(self._now()), info)

    def step(self, action: int | np.integer[Any]) -> StepResult[NDArray[np.float32]]:
        """Trade to the chosen target position and hold it for one period.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: ``action`` is not an index into ``positions``.
        """
        kernel = self._stepping()
        choice = discrete_action(action, kernel.n_actions, "TradingEnv")
        reward, terminated, truncated, info = kernel.step_one(choice)
        self._over = terminated or truncated
        # The kernel's own observation, unless a subclass observes otherwise.
        observation = kernel.observe_one() if type(self)._observe is _OBSERVE else None
        if observation is None:
            observation = self._observe(self._now())
        return StepResult(observation, reward, terminated, truncated, info)

    def _observe(self, now: PointInTime) -> NDArray[np.float32]:
        return observation(now.log_returns(self.config.lookback), self.position)

    def __repr__(self) -> str:
        return f"TradingEnv({self.config.describe()})"


_OBSERVE = TradingEnv._observe
