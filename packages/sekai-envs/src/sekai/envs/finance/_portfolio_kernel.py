"""Portfolio-v0's kernel: ``n`` portfolios and their step, in arrays (private).

[`PortfolioEnv`][sekai.envs.PortfolioEnv] runs it with one row,
[`PortfolioVecEnv`][sekai.envs.PortfolioVecEnv] with one row per sub-env; the
arithmetic below is the only copy of Portfolio-v0's step. Its parts: the
market the rows play (`PriceMarket`: prices read through the point-in-time
guard; `WindowMarket`: a window sampler's log returns and halts), the action's
target weights and the account step (`sekai.envs.finance._portfolio_weights`)
and the reward function, all batched over the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._cost_inputs import no_volume, priced_volume, window_volatility
from sekai.envs.finance._execution import fill
from sekai.envs.finance._kernel import reset_reward
from sekai.envs.finance._portfolio_config import PortfolioConfig, PortfolioObs, Windows
from sekai.envs.finance._portfolio_weights import rebalance, short_targets, target_weights
from sekai.envs.finance._price_sources import PriceCursor, check_options, cursor_for
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import WindowSampler

__all__ = ["Period", "PortfolioKernel", "PriceMarket", "WindowMarket"]

F64 = NDArray[np.float64]
Infos = dict[str, Any]
_TINY = float(np.finfo(np.float64).tiny)


def _log(gross: Any) -> F64:
    """The log of the gross growth, that of the smallest float where it is 0 (wiped out)."""
    floored: F64 = np.maximum(gross, _TINY)
    return np.log(floored, out=floored)


class Period(NamedTuple):
    """What the market says about the period a step holds the portfolio over.

    Attributes:
        returns: ``(n, n_assets)`` simple returns of the assets over the period.
        after: ``(n, n_assets)`` their returns from the fill to the period's end.
        before: ``(n, n_assets)`` their returns from the decision to a later
            fill, or None (`sekai.envs.finance._execution.Fill`).
        market: The cost model's market keywords other than ``equity``.
        dt: The period's length in years: a float, or ``(n,)``.
    """

    returns: F64
    after: F64
    before: F64 | None
    market: dict[str, Any]
    dt: Any


class PriceMarket:
    """The prices of ``n`` rows (a history or a model), read through the point-in-time guard.

    Every read goes through a [`PointInTimeBatch`][sekai.finance.data.PointInTimeBatch]
    at the rows' decision rows (the `PriceCursor`'s), which shows rows up to
    each decision row and the next row's price for the fill, never a later
    row. Every entry of an action can be traded.

    Args:
        config: The env's parameters (its source a history or a model).
        cursor: Where each row stands in its prices.
    """

    def __init__(self, config: PortfolioConfig, cursor: PriceCursor) -> None:
        self.cursor = cursor
        self._execution = config.execution
        self._dt = config.dt
        self._row_years = config.row_years
        self._volume = "volume" in config.costs.fields
        self._dated = config.dated
        self._lookback = config.lookback
        self._fields = config.costs.fields
        self._volatility = config.costs.volatility
        self._now = cursor.now()  # the market at every row's current row
        self._decided = self._now  # the batch the last `period` read
        self._executed: F64 | None = None  # its execution prices
        # The prices at the rows' decision rows when every row has just moved on from the
        # period read last: that period's execution prices, the same numbers read again.
        self._price: F64 | None = None

    def begin_rows(
        self,
        indices: NDArray[np.intp],
        rngs: Sequence[np.random.Generator],
        options: Sequence[Any],
        owner: str,
        samplers: Sequence[Any] | None,
    ) -> None:
        """Draw the episodes of the rows ``indices``: first rows (histories) or paths (models).

        Raises:
            TypeError, ValueError: A bad option, or a start that leaves no room
                for an episode.
        """
        self.cursor.begin_rows(indices, rngs, options, owner, samplers)
        self._now = self.cursor.now()
        self._price = None

    def tradable(self) -> F64 | None:
        """``(n, n_assets + 1)`` 1.0 where an entry can be traded now, 0.0 where it cannot.

        An asset without volume at the decision row (zero or missing, when the
        data has a ``volume`` field) cannot be traded. None when every entry
        can: the target weights need no table then.
        """
        if not self._volume:
            return None
        stuck = no_volume(self._now.field("volume").latest())
        if not stuck.any():
            return None
        table: F64 = np.ones((stuck.shape[0], stuck.shape[1] + 1))
        table[:, :-1] = ~stuck
        return table

    def period(self, frozen: NDArray[np.bool_] | None) -> Period:
        """The period after each row's decision row (a frozen row's last one)."""
        # A frozen row has taken its last step: the cursor reads its last decision row again.
        now = self._now if frozen is None else self.cursor.deciding()
        price = self._price
        if price is None or frozen is not None:
            price = now.prices.latest()
        executed = now.execution_price()
        self._decided, self._executed = now, executed
        returns: F64 = executed / price
        returns -= 1.0
        if self._execution == "close":
            after, before, filled = returns, None, price
        else:
            opens = now.execution_price("open") if self._execution == "next_open" else None
            before, after, filled = fill(self._execution, price, executed, opens)
        market: dict[str, Any] = {"prices": filled}
        for name in self._fields:
            market[name] = now.field(name).latest()
        if "volume" in market:
            market["volume"] = priced_volume(market["volume"], no_volume(market["volume"]))
        if self._volatility:
            market["volatility"] = window_volatility(now.log_returns(self._lookback))
        years = self._row_years
        dt = self._dt if years is None else years[now.index]
        return Period(returns, after, before, market, dt)

    def advance(self, active: NDArray[np.bool_] | None) -> None:
        """Move every row (or the ``active`` ones) past the period `period` read."""
        self.cursor.advance(active)
        # Every row one row on is a cheaper batch to build than one at arbitrary rows.
        if active is None:
            self._now = self._decided.advance()
            self._price = self._executed
        else:
            self._now = self.cursor.now()
            self._price = None

    def times(self, time: NDArray[np.intp]) -> Any:
        """``(n,)`` the timestamps of the rows' decision rows (dates as a list)."""
        times = self._now.time
        # Dated timestamps travel as a list of numpy datetimes, as the infos have always had them.
        return list(times) if self._dated else times

    def window(self) -> NDArray[np.float32]:
        """``(n, lookback, n_assets)`` float32: each row's last log returns."""
        returns = self._now.log_returns(self._lookback)
        return returns.astype(np.float32)


class WindowMarket:
    """The episodes of ``n`` rows drawn by a window sampler: log returns and halts, no prices.

    Each row's episode is drawn whole at its reset into tables that hold
    ``lookback + episode_length`` periods per row; a row at time ``t`` has
    seen periods up to ``t`` and holds its portfolio over period ``t + 1``.

    Args:
        config: The env's parameters (its source `Windows`).
        windows: The source.
        n: Number of rows.
    """

    def __init__(self, config: PortfolioConfig, windows: Windows, n: int) -> None:
        self._windows = windows
        p, m, lookback = config.n_periods, config.n_assets, config.lookback
        self._shape = (n, p)
        self._lookback = lookback
        self._volatility = config.costs.volatility
        self._delayed = config.execution == "next_close"
        self._dt = config.dt
        # Each table holds the rows' episodes end to end, (n * p, ...): row i's period t is
        # row i * p + t, so that every read is one gather of whole rows.
        self._log_returns: F64 = np.zeros((n * p, m))
        self._returns32 = np.zeros((n * p, m), dtype=np.float32)  # what observations show
        self._simple: F64 = np.zeros((n * p, m))
        self._tradable: F64 = np.ones((n * p, m + 1))  # 1.0 tradable, 0.0 halted; cash last
        self._halts = np.zeros(n * p, dtype=np.bool_)  # whether any asset is halted
        self._starts = np.arange(n, dtype=np.intp) * p
        self._last = self._starts + (p - 1)
        self._now = self._starts + (lookback - 1)  # each row's current period in the tables
        self._window_shape = (n, lookback, m)
        self._spans = self._windows_view()

    def _windows_view(self) -> NDArray[np.float32]:
        """A view of the float32 returns whose row k is periods k .. k + lookback - 1 end to end.

        An observation of every row is then one gather (a window never spans two
        episodes: a row's time is at least ``lookback - 1``).
        """
        table = self._returns32
        lookback = self._lookback
        view: NDArray[np.float32] = np.lib.stride_tricks.as_strided(
            table,
            (table.shape[0] - lookback + 1, lookback * table.shape[1]),
            (table.strides[0], table.itemsize),
            writeable=False,
        )
        return view

    def __getstate__(self) -> dict[str, Any]:
        # A pickled view would come back as a copy, blind to the episodes drawn later.
        state = dict(self.__dict__)
        del state["_spans"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._spans = self._windows_view()

    def begin_rows(
        self,
        indices: NDArray[np.intp],
        rngs: Sequence[np.random.Generator],
        options: Sequence[Any],
        owner: str,
        samplers: Sequence[WindowSampler] | None,
    ) -> None:
        """Draw the episodes of the rows ``indices`` (or take their ``options["episode"]``).

        Raises:
            TypeError, ValueError: A bad option, or an episode of the wrong shape.
        """
        for position, (index, option) in enumerate(zip(indices.tolist(), options, strict=True)):
            # "Portfolio", not the env's name: the message every window sampler env has given.
            checked = check_options(option, ("episode",), "Portfolio")
            sampler = None if samplers is None else samplers[position]
            episode = self._windows.episode(rngs[position], checked, self._shape[1], sampler)
            start = int(self._starts[index])
            rows = slice(start, start + self._shape[1])
            self._log_returns[rows] = episode.log_returns
            self._returns32[rows] = episode.log_returns
            self._simple[rows] = np.expm1(episode.log_returns)
            self._tradable[rows, :-1] = ~episode.halted
            self._halts[rows] = np.logical_or.reduce(episode.halted, axis=1)
            self._now[index] = start + self._lookback - 1

    def tradable(self) -> F64 | None:
        """``(n, n_assets + 1)`` 1.0 where an entry can be traded now, 0.0 where halted.

        None when no row has a halted asset now: the target weights need no table then.
        """
        now = self._now
        if not np.logical_or.reduce(self._halts[now]):
            return None
        tradable: F64 = self._tradable[now]
        return tradable

    def period(self, frozen: NDArray[np.bool_] | None) -> Period:
        """The period after each row's current one (a finished row's last one, seen already)."""
        following = self._now + 1
        if frozen is not None:
            np.minimum(following, self._last, out=following)
        returns: F64 = self._simple[following]
        market: dict[str, Any] = {}
        if self._volatility:
            window = self._log_returns[self._now[:, None] + np.arange(1 - self._lookback, 1)]
            market["volatility"] = window_volatility(window)
        if self._delayed:  # filled at the period's end: the old weights earn its returns
            return Period(returns, np.zeros_like(returns), returns, market, self._dt)
        return Period(returns, returns, None, market, self._dt)

    def advance(self, active: NDArray[np.bool_] | None) -> None:
        """Move every row (or the ``active`` ones) to its next period."""
        if active is None:
            self._now += 1
        else:
            self._now += active

    def times(self, time: NDArray[np.intp]) -> NDArray[np.intp]:
        """``(n,)`` the rows' times: an episode of returns is stamped with its periods."""
        return time

    def window(self) -> NDArray[np.float32]:
        """``(n, lookback, n_assets)`` float32: each row's last log returns."""
        first = self._now - (self._lookback - 1)
        window: NDArray[np.float32] = self._spans[first].reshape(self._window_shape)
        return window


class PortfolioKernel:
    """``n`` Portfolio-v0 portfolios: weights, values and steps, advanced together.

    Args:
        config: The env's parameters.
        n: Number of portfolios (rows).
        reward: The reward function (the env's own; it keeps one state per row).

    Attributes:
        config: The parameters.
        reward: The reward function.
        market: The data the rows play (`PriceMarket` or `WindowMarket`).
        weights: ``(n, n_assets + 1)`` drifted weights, cash last.
        value: Each row's portfolio value.
        time: Each row's last period seen, counted from its episode's first
            row: ``lookback - 1`` at a reset, one more at each step.
        windowed: Whether the rows play a window sampler's returns (no prices).
    """

    def __init__(self, config: PortfolioConfig, n: int, reward: RewardFunction) -> None:
        self.config = config
        self.n = n
        self.reward = reward
        source = config.source
        self.market: PriceMarket | WindowMarket = (
            WindowMarket(config, source, n)
            if isinstance(source, Windows)
            else PriceMarket(config, cursor_for(source, n, config.lookback, config.episode_length))
        )
        self.weights: F64 = np.zeros((n, config.n_assets + 1))
        self.weights[:, -1] = 1.0
        self.value: F64 = np.full(n, config.capital)
        self._offset = config.lookback - 1  # a row's time at its reset
        self._end = self._offset + config.episode_length  # and after its last step
        self.time: NDArray[np.intp] = np.full(n, self._offset, dtype=np.intp)
        self.windowed = isinstance(source, Windows)
        self._dt = np.full(n, config.dt)  # the vector env copies infos, the single env reads them
        self._none_liquidated = np.zeros(n, dtype=np.bool_)  # shared, never written
        self._none_liquidated.flags.writeable = False

    @property
    def steps(self) -> NDArray[np.intp]:
        """Decisions taken in each row's episode (a new array)."""
        steps: NDArray[np.intp] = self.time - self._offset
        return steps

    def reset(
        self,
        indices: NDArray[np.intp],
        rngs: Sequence[np.random.Generator],
        options: Sequence[Any],
        owner: str,
        samplers: Sequence[Any] | None = None,
    ) -> None:
        """Start new episodes, all in cash, in the rows ``indices``, each drawn from its generator.

        The arguments are those of `PriceCursor.begin_rows`, which draws the
        episodes; ``samplers`` may also be window samplers where the env has them.
        """
        self.market.begin_rows(indices, rngs, options, owner, samplers)
        self.weights[indices] = 0.0
        self.weights[indices, -1] = 1.0
        self.time[indices] = self._offset
        self.value[indices] = self.config.capital
        reset_reward(self.reward, indices, self.n)

    def reset_infos(self, indices: NDArray[np.intp]) -> Infos:
        """The reset info arrays of the rows ``indices`` (one entry per row)."""
        return {"portfolio_value": self.value[indices]}

    def observe(self) -> PortfolioObs:
        """Every row's observation: its last ``lookback`` log returns and its weights."""
        return {
            "returns": self.market.window(),
            "weights": self.weights.astype(np.float32),
        }

    def action_mask(self) -> NDArray[np.bool_]:
        """``(n, action width)``: which entries of an action can be traded now."""
        config = self.config
        tradable = self.market.tradable()
        mask: NDArray[np.bool_] = (
            np.ones((self.n, config.n_assets + 1), dtype=np.bool_)
            if tradable is None
            else tradable > 0.0
        )
        return mask[:, : config.n_assets] if config.allow_short else mask

    def targets(self, actions: F64) -> F64:
        """``(n, n_assets + 1)`` target weights of checked actions, untradable assets kept."""
        return self._targets(actions, self.market.tradable())

    def _targets(self, actions: F64, tradable: F64 | None) -> F64:
        config = self.config
        if config.allow_short:
            return short_targets(actions, self.weights, tradable, config.account)
        return target_weights(actions, self.weights, tradable, config.account.max_leverage)

    def step(
        self, actions: F64, frozen: NDArray[np.bool_] | None = None
    ) -> tuple[F64, NDArray[np.bool_], NDArray[np.bool_], Infos]:
        """Rebalance every row to its action's target weights and hold for one period.

        Args:
            actions: ``(n, action width)`` checked actions (scores, or target
                weights with shorts).
            frozen: Rows that must not change (a finished sub-env kept until
                its reset), or None.

        Returns:
            ``(rewards, terminated, truncated, infos)``, one entry per row.
        """
        config = self.config
        if frozen is not None and not frozen.any():
            frozen = None
        tradable = self.market.tradable()
        target = self._targets(actions, tradable)
        period = self.market.period(frozen)
        kept = None if tradable is None else tradable[:, :-1] == 0.0
        weights, step = rebalance(
            self.weights,
            target,
            period.after,
            before=period.before,
            kept=kept,
            dt=period.dt,
            config=config.account,
            cost_model=config.cost_model,
            market={"equity": self.value, **period.market},
            equity=self.value,
            bounded=config.bounded,
        )
        rewards = np.asarray(self.reward(step.outcome), dtype=np.float64)
        value = np.asarray(step.equity, dtype=np.float64)
        if frozen is not None:
            active = ~frozen
            self.weights[active] = weights[active]
            self.value[active] = value[active]
            self.time += active
            self.market.advance(active)
        else:
            self.weights = weights
            self.value = value
            self.time += 1
            self.market.advance(None)
        terminated = step.wiped_out
        truncated = np.greater(self.time >= self._end, terminated)  # out of time, and not wiped out
        # The vector env copies these arrays and the single env reads scalars from them;
        # only the weights, whose rows a single env hands out, need a copy of their own.
        infos = {
            "portfolio_value": self.value,
            "equity": self.value,
            "weights": self.weights.copy(),
            "turnover": step.turnover,
            "cost": step.cost,
            "log_return": _log(step.gross),
            "asset_returns": period.returns,
            "untradable": np.zeros((self.n, config.n_assets), dtype=np.bool_)
            if kept is None
            else kept,
            "liquidated": self._none_liquidated if step.liquidated is None else step.liquidated,
            "timestamp": self.market.times(self.time),
            "dt": self._dt if isinstance(period.dt, float) else period.dt,
        }
        return rewards, terminated, truncated, infos
