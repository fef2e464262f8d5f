"""Trading-v0's kernel: the state of ``n`` one-asset accounts and their step, in arrays (private).

[`TradingEnv`][sekai.envs.TradingEnv] runs it with one row,
[`TradingVecEnv`][sekai.envs.TradingVecEnv] with one row per sub-env; the
arithmetic below is the only copy of Trading-v0's step. Its parts: the prices
(a `PriceCursor`, reads through the point-in-time guard), the cost model's
inputs (`CostInputs`), the account (`account_step`) and the reward function,
all batched over the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._account_step import (
    StepAccount,
    account_step,
    account_step_one,
    accruals,
    scalar_cost,
)
from sekai.envs.finance._cost_inputs import no_volume, priced_volume, window_volatility
from sekai.envs.finance._execution import fill, fill_one
from sekai.envs.finance._kernel import reset_reward
from sekai.envs.finance._price_sources import PriceCursor, cursor_for
from sekai.envs.finance._trading_config import TradingConfig
from sekai.finance.data import PointInTime, PointInTimeBatch
from sekai.finance.rewards import _LOG_FLOOR, _TINY, LogReturn, RewardFunction, StepOutcome
from sekai.finance.sampling import EpisodeSampler

__all__ = ["Quotes", "TradingKernel", "observation", "step_info"]

F64 = NDArray[np.float64]
Infos = dict[str, Any]


def observation(log_returns: F64, position: Any) -> NDArray[np.float32]:
    """The observation of Trading-v0, one or a batch: window log returns, then position.

    Args:
        log_returns: ``(..., lookback, 1)``: one window, or one per row.
        position: The position(s), ``(...)``.
    """
    lookback = log_returns.shape[-2]
    observations = np.empty((*log_returns.shape[:-2], lookback + 1), dtype=np.float32)
    observations[..., :lookback] = log_returns[..., 0]
    observations[..., lookback] = position
    return observations


def step_info(
    equity: Any,
    position: Any,
    price: Any,
    asset_return: Any,
    cost: Any,
    turnover: Any,
    fill_price: Any,
    untradable: Any,
    liquidated: Any,
    timestamp: Any,
    dt: Any,
) -> Infos:
    """A step's info: arrays with one entry per row (`TradingKernel.step`) or one row's numbers.

    Args:
        equity: The equity after the step.
        position: The position after drift.
        price: The price the period ended at (the new current price).
        asset_return: The asset's simple return over the period.
        cost: The transaction cost, a fraction of the equity at the fill.
        turnover: ``|target - position|``, the position at the fill.
        fill_price: The price the decision filled at.
        untradable: Whether the asset could not be traded (no volume).
        liquidated: Whether a margin call closed the account out.
        timestamp: The time of the new current row.
        dt: The step's length in years.
    """
    return {
        "equity": equity,
        "position": position,
        "price": price,
        "asset_return": asset_return,
        "cost": cost,
        "turnover": turnover,
        "fill_price": fill_price,
        "untradable": untradable,
        "liquidated": liquidated,
        "timestamp": timestamp,
        "dt": dt,
    }


class Quotes(NamedTuple):
    """What a Trading-v0 step reads of the market, one row per account.

    Attributes:
        price: ``(n, 1)`` prices at the decision rows.
        executed: ``(n, 1)`` prices at the next rows, where the periods end.
        opens: ``(n, 1)`` opens of the next rows (``execution="next_open"``), else None.
        fields: The cost model's data fields at the decision rows, ``(n, 1)`` each.
        window: ``(n, lookback, 1)`` log returns up to the decision rows, when
            the cost model reads the volatility; else None.
        kept: ``(n, 1)`` True where the asset cannot be traded (zero or missing
            volume at the decision row); None when the data has no volume.
        time: The next rows' timestamps, ``(n,)`` (a list of datetimes for dated
            data); None from `TradingKernel.read_one`.
        dt: The periods' lengths in years, ``(n,)`` (a float from `read_one`).
    """

    price: F64
    executed: F64
    opens: F64 | None
    fields: dict[str, F64]
    window: F64 | None
    kept: NDArray[np.bool_] | None
    time: Any
    dt: Any


class TradingKernel:
    """``n`` Trading-v0 accounts: positions, equity and steps, advanced together.

    Args:
        config: The env's parameters.
        n: Number of accounts (rows).
        reward: The reward function (the env's own; it keeps one state per row).

    Attributes:
        config: The parameters.
        reward: The reward function.
        cursor: Where each row stands in its prices.
        position: Each row's position after drift, a fraction of equity.
        equity: Each row's account value.
        steps: Decisions taken in each row's episode.
    """

    def __init__(self, config: TradingConfig, n: int, reward: RewardFunction) -> None:
        self.config = config
        self.n = n
        self.reward = reward
        self.cursor: PriceCursor = cursor_for(
            config.source, n, config.lookback, config.episode_length
        )
        self._targets = config.position_array()[:, None]  # one row per action
        self._dated = config.dated
        self.position: F64 = np.zeros(n)
        self.equity: F64 = np.full(n, config.capital)
        self.steps: NDArray[np.intp] = np.zeros(n, dtype=np.intp)
        self._dt = np.full(n, config.dt)
        self._row_years = config.row_years  # calendar time per row (dated data), else None
        self._opens = config.execution == "next_open"
        self._volume = "volume" in config.costs.fields
        self._none = np.zeros(n, dtype=np.bool_)  # shared, never written: no row kept or called
        self._none.flags.writeable = False
        # The one-row path on Python floats (`step_one`): the cost model as a function of the
        # trade, when it reads nothing else, and the account's accruals over a fixed dt.
        self._cost_of = scalar_cost(config.cost_model)
        self._scalar = self._cost_of is not None and config.account.maintenance_margin is None
        self._targets_one: list[float] = config.position_array().tolist()
        self.n_actions: int = config.n_actions
        self._accrued = accruals(config.account, config.dt)
        # Row 0's episode data as Python floats: read at its first step (a native env never
        # steps one row alone, so it never pays for it), kept while the data stays the same.
        self._one: _OneRow | None = None  # None from each reset to the first step
        self._read: _OneRow | None = None  # the last read

    def reset(
        self,
        indices: NDArray[np.intp],
        rngs: Sequence[np.random.Generator],
        options: Sequence[Any],
        owner: str,
        samplers: Sequence[EpisodeSampler] | None = None,
    ) -> None:
        """Start new episodes in the rows ``indices``, each drawn from its own generator.

        The arguments are those of `PriceCursor.begin_rows`, which draws the episodes.
        """
        self.cursor.begin_rows(indices, rngs, options, owner, samplers)
        self.steps[indices] = 0
        self.position[indices] = 0.0
        self.equity[indices] = self.config.capital
        reset_reward(self.reward, indices, self.n)
        self._one = None

    def _times(self, times: NDArray[Any]) -> Any:
        # Dated timestamps travel as a list of numpy datetimes, as the infos have always had them.
        return list(times) if self._dated else times

    def reset_infos(self, indices: NDArray[np.intp]) -> Infos:
        """The reset info arrays of the rows ``indices`` (one entry per row)."""
        now = self.cursor.now()
        return {
            "equity": self.equity[indices],
            "position": self.position[indices],
            "price": now.prices.latest()[indices, 0],
            "timestamp": self._times(now.time[indices]),
            "dt": self._dt[indices],
        }

    def observe(self, now: PointInTimeBatch | None = None) -> NDArray[np.float32]:
        """Every row's observation: its last ``lookback`` log returns, then its position."""
        if now is None:
            now = self.cursor.now()
        return observation(now.log_returns(self.config.lookback), self.position)

    def read(self, now: PointInTimeBatch) -> Quotes:
        """What a step needs of the market, read at every row's decision row."""
        costs = self.config.costs
        years = self._row_years
        return Quotes(
            price=now.prices.latest(),
            executed=now.execution_price(),
            opens=now.execution_price("open") if self._opens else None,
            fields={name: now.field(name).latest() for name in costs.fields},
            window=now.log_returns(self.config.lookback) if costs.volatility else None,
            kept=no_volume(now.field("volume").latest()) if self._volume else None,
            time=self._times(now.execution_time),
            dt=self._dt if years is None else years[now.index],
        )

    def read_one(self, now: PointInTime) -> Quotes:
        """`read` for one account, through a `PointInTime` (cheaper for one row).

        Its arrays have no row axis (``(1,)`` prices, a ``(lookback, 1)``
        window) and its ``time`` is None: `step_one` reads the fill's time
        from ``now``.
        """
        costs = self.config.costs
        years = self._row_years
        return Quotes(
            now.prices.latest,
            now.execution_price(),
            now.execution_price("open") if self._opens else None,
            {name: now.field(name).latest for name in costs.fields} if costs.fields else {},
            now.log_returns(self.config.lookback) if costs.volatility else None,
            no_volume(now.field("volume").latest) if self._volume else None,
            None,
            self.config.dt if years is None else float(years[now.index]),
        )

    def _trade(
        self, current: F64, target: F64, equity: Any, quotes: Quotes
    ) -> tuple[StepAccount, F64, F64, Any]:
        """The arithmetic of a step: trade, pay, hold, score.

        For every row (``(n, 1)`` positions, ``(n,)`` equity, as `step` gives
        them) or for one account (``(1,)`` positions, a float equity: the
        outcome the reward sees is then a scalar one, as a single env's always was).

        Returns:
            The account's step, the asset returns over the periods, the fill
            prices and the rewards.
        """
        config = self.config
        legs = fill(config.execution, quotes.price, quotes.executed, quotes.opens)
        market: dict[str, Any] = {"equity": equity, "prices": legs.price, **quotes.fields}
        if quotes.kept is not None:  # the data has volume, and the cost model is told it
            market["volume"] = priced_volume(market["volume"], quotes.kept)
        if quotes.window is not None:
            market["volatility"] = window_volatility(quotes.window)
        kept = quotes.kept
        if config.hold_action:  # the hold action's target is NaN: keep what is held
            holding = np.isnan(target)
            kept = holding if kept is None else kept | holding
        step = account_step(
            current,
            target,
            legs.after,
            dt=quotes.dt,
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=equity,
            before=legs.before,
            kept=kept,
        )
        # The asset's return over the period: the second leg's, when the fill is at the decision.
        returns = legs.after if legs.before is None else quotes.executed / quotes.price - 1.0
        return step, returns, legs.price, self.reward(step.outcome)

    def step(
        self, choices: NDArray[np.intp], frozen: NDArray[np.bool_] | None = None
    ) -> tuple[F64, NDArray[np.bool_], NDArray[np.bool_], Infos]:
        """Trade every row to its chosen target position and hold it for one period.

        Args:
            choices: One index into ``positions`` per row (checked).
            frozen: Rows that must not change (a finished sub-env kept until
                its reset), or None.

        Returns:
            ``(rewards, terminated, truncated, infos)``, one entry per row.
        """
        config = self.config
        quotes = self.read(self.cursor.deciding())
        current = self.position[:, None]
        step, returns, filled, reward = self._trade(
            current, self._targets[choices], self.equity, quotes
        )
        executed = quotes.executed
        rewards = np.asarray(reward, dtype=np.float64)
        position = step.drifted[:, 0]
        equity = np.asarray(step.equity, dtype=np.float64)
        if frozen is not None and frozen.any():
            active = ~frozen
            self.position[active] = position[active]
            self.equity[active] = equity[active]
            self.steps += active
            self.cursor.advance(active)
        else:
            self.position = position
            self.equity = equity
            self.steps += 1
            self.cursor.advance()
        terminated = np.asarray(step.wiped_out, dtype=np.bool_).reshape(self.n)
        truncated = self.steps >= config.episode_length
        if terminated.any():
            truncated &= ~terminated
        # Not copied: NativeVecEnv copies the infos, a single env reads one value of each.
        infos = step_info(
            self.equity,
            self.position,
            executed[:, 0],
            returns[:, 0],
            np.asarray(step.cost, dtype=np.float64).reshape(self.n),
            np.asarray(step.turnover, dtype=np.float64).reshape(self.n),
            filled[:, 0],
            self._none if quotes.kept is None else quotes.kept[:, 0],
            self._none if step.liquidated is None else np.asarray(step.liquidated).reshape(self.n),
            quotes.time,
            quotes.dt,
        )
        return rewards, terminated, truncated, infos

    def step_one(self, choice: int) -> tuple[float, bool, bool, Infos]:
        """`step` for a kernel of one row, on Python floats.

        The single env's path. With a cost model that reads nothing but the
        trade (`scalar_cost`: none or a proportional rate) and no maintenance
        margin, the account's arithmetic runs on Python floats
        (`account_step_one`, `fill_one`), which gives `step`'s numbers bit for
        bit without numpy's per-call cost on one-element arrays; otherwise
        `_trade` runs on the row as `step` does, with the bookkeeping on
        Python numbers.

        Args:
            choice: The index into ``positions`` (checked).

        Returns:
            ``(reward, terminated, truncated, info)``, the info with Python floats.
        """
        one, cost_of = self._one, self._cost_of
        if one is None or cost_of is None:
            if cost_of is None or not self._scalar:  # a cost model with inputs, or a margin
                return self._step_general(choice, self.cursor.at(0))
            data = self.cursor.data_of(0)
            one = self._read
            if one is None or one.data is not data:  # a new path (a history is read once)
                one = self._read = _OneRow(data, self.config, self._row_years)
            self._one = one
        config = self.config
        rows = self.cursor.rows
        row = rows.item(0)
        closes = one.closes
        decision, following = closes[row], closes[row + 1]
        opens = one.opens
        before, after, price = fill_one(
            config.execution, decision, following, None if opens is None else opens[row + 1]
        )
        volumes = one.volumes
        untradable = volumes is not None and not volumes[row] > 0.0  # False for NaN
        target = self._targets_one[choice]
        years = one.years
        if years is None:
            dt, accrued = config.dt, self._accrued
        else:
            dt = years[row]
            accrued = accruals(config.account, dt)
        equity = self.equity.item(0)
        step = account_step_one(
            self.position.item(0),
            target,
            after,
            accrued=accrued,
            cost_of=cost_of,
            equity=equity,
            before=before,
            kept=untradable or target != target,  # NaN: the hold action
        )
        growth, position, new_equity = step.growth, step.drifted, step.equity
        self.position[0], self.equity[0] = position, new_equity
        steps = self.steps.item(0) + 1
        self.steps[0] = steps
        rows[0] = row + 1
        # The reward: `StepOutcome.from_growth`'s log return, computed with numpy's log as
        # there (it may differ from math.log in the last bit).
        log_return = max(float(np.log(max(growth, _TINY))), _LOG_FLOOR)
        reward = self.reward
        if type(reward) is not LogReturn:
            outcome = StepOutcome(
                np.float64(log_return),
                np.float64(growth - 1.0),
                np.float64(new_equity),
                np.float64(step.turnover),
                np.float64(step.cost),
                np.float64(new_equity - equity),
            )
            log_return = float(reward(outcome))
        terminated = step.wiped_out
        info = step_info(
            new_equity,
            position,
            following,
            after if before is None else following / decision - 1.0,
            step.cost,
            step.turnover,
            price,
            untradable,
            False,
            one.times[row + 1],
            dt,
        )
        truncated = not terminated and steps >= config.episode_length
        return log_return, terminated, truncated, info

    def observe_one(self) -> NDArray[np.float32] | None:
        """Row 0's observation, as `observe` gives it, from the log returns of its episode.

        For a kernel of one row on the Python-float path (`step_one`); None
        otherwise, and the caller reads the observation through the data's
        point-in-time view.
        """
        one = self._one
        if one is None:
            return None
        lookback = self.config.lookback
        row = self.cursor.rows.item(0)
        observation = np.empty(lookback + 1, dtype=np.float32)
        observation[:lookback] = one.observed[row - lookback : row]
        observation[lookback] = self.position.item(0)
        return observation

    def _step_general(self, choice: int, now: PointInTime) -> tuple[float, bool, bool, Infos]:
        """`step_one` through `_trade`: any cost model, a maintenance margin."""
        quotes = self.read_one(now)
        current = self.position[:1]  # one account holding one asset
        step, returns, filled, reward = self._trade(
            current, self._targets[choice], self.equity.item(0), quotes
        )
        position, equity = step.drifted.item(0), float(step.equity)
        self.position[0], self.equity[0] = position, equity
        self.steps[0] += 1
        self.cursor.rows[0] += 1
        terminated = bool(step.wiped_out)
        info = step_info(
            equity,
            position,
            quotes.executed.item(0),
            returns.item(0),
            float(step.cost),
            float(step.turnover),
            filled.item(0),
            False if quotes.kept is None else bool(quotes.kept.item(0)),
            False if step.liquidated is None else bool(step.liquidated),
            now.execution_time,
            quotes.dt,
        )
        truncated = not terminated and self.steps.item(0) >= self.config.episode_length
        return float(reward), terminated, truncated, info


class _OneRow:
    """What the one-row path reads of an episode's data, as Python floats.

    Read once per data (a history) or per simulated path, not every step;
    the prices, opens, volumes and row lengths as lists, the timestamps as
    they are, and the log returns of the closes in one pass, as
    ``PointInTime.log_returns`` computes them (``log(P_t / P_{t-1})``, each
    element alone: the same bits over the whole column as over a window).

    Attributes:
        data: The data (to tell a new path from the one read).
        closes: The prices, one per row.
        opens: The ``open`` field (``execution="next_open"``), else None.
        volumes: The ``volume`` field, when the cost inputs include it; else None.
        years: Each row's length in years (dated data without ``dt``), else None.
        times: The timestamps.
        observed: The log returns as float32, as observations hold them:
            ``observed[t - 1] = log(P_t / P_{t - 1})``.
    """

    def __init__(
        self, data: Any, config: TradingConfig, row_years: NDArray[np.float64] | None
    ) -> None:
        self.data = data
        prices = np.ascontiguousarray(data.prices[:, 0])
        self.closes: list[float] = prices.tolist()
        self.opens: list[float] | None = (
            data.field("open")[:, 0].tolist() if config.execution == "next_open" else None
        )
        self.volumes: list[float] | None = (
            data.field("volume")[:, 0].tolist() if "volume" in config.costs.fields else None
        )
        self.years: list[float] | None = None if row_years is None else row_years.tolist()
        self.times = data.timestamps
        returns = prices[1:] / prices[:-1]
        np.log(returns, out=returns)
        self.observed = returns.astype(np.float32)
