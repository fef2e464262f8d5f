"""Market-v0's kernel: ``n`` portfolios over changing universes, in arrays (private).

[`MarketEnv`][sekai.envs.MarketEnv] runs it with one row,
[`MarketVecEnv`][sekai.envs.MarketVecEnv] with one row per sub-env; the
arithmetic below is the only copy of Market-v0's step. Its parts: the prices
(a `PriceCursor`, read through the point-in-time guard; a simulated universe
also carries its features and latent state, `MarketPathCursor`), the slots
(`SlotTable`), the cost model's inputs (`CostInputs`), the account
(`rebalance`) and the reward function, all batched over the rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._cost_inputs import no_volume, priced_volume, window_volatility
from sekai.envs.finance._execution import fill
from sekai.envs.finance._kernel import reset_reward
from sekai.envs.finance._market_config import MarketConfig
from sekai.envs.finance._market_paths import MarketPathCursor
from sekai.envs.finance._market_slots import SlotTable
from sekai.envs.finance._portfolio_weights import rebalance, short_targets, target_weights
from sekai.envs.finance._price_sources import History, HistoryCursor, PriceCursor
from sekai.finance.account import AccountConfig
from sekai.finance.data import PointInTimeBatch
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler

__all__ = ["MarketKernel", "targets"]

F64 = NDArray[np.float64]
Infos = dict[str, Any]
_TINY = float(np.finfo(np.float64).tiny)
_LARGEST = float(np.finfo(np.float64).max)


def _nan_to_num(values: F64) -> None:
    """``np.nan_to_num(values, copy=False)`` in three ufunc calls (it runs every step)."""
    np.clip(values, -_LARGEST, _LARGEST, out=values)  # infinities to the largest floats
    np.copyto(values, 0.0, where=np.isnan(values))


def targets(scores: F64, weights: F64, tradable: F64, account: AccountConfig) -> F64:
    """``(n, max_assets + 1)`` target weights of checked actions: scores, or signed weights.

    Args:
        scores: ``(n, max_assets + 1)`` long-only scores, cash last, or ``(n,
            max_assets)`` signed target weights (with ``account.allow_short``).
        weights: ``(n, max_assets + 1)`` current weights.
        tradable: ``(n, max_assets + 1)``: 1.0 for slots holding an asset and cash.
        account: The account's rules.
    """
    if account.allow_short:
        return short_targets(scores, weights, tradable, account)
    return target_weights(scores, weights, tradable, account.max_leverage)


def _paid_out(assets: F64, delisted: NDArray[np.bool_]) -> F64:
    """Each row's sum of the weights of its delisted slots.

    A row with one delisting pays that weight; rows with the same number ``k``
    of them are summed together as a ``(rows, k)`` table of their delisted
    weights, in slot order, which adds the same numbers in the same order as
    summing one row's alone (numpy's pairwise summation depends on the
    length). A loop over the distinct counts, not over the rows.
    """
    count = np.count_nonzero(delisted, axis=1)
    paid: F64 = np.zeros(len(count))
    one = count == 1
    if one.any():
        paid[one] = assets[one, np.argmax(delisted[one], axis=1)]
    for k in np.unique(count[count > 1]).tolist():
        rows = count == k
        paid[rows] = assets[rows][delisted[rows]].reshape(-1, k).sum(axis=1)
    return paid


class MarketKernel:
    """``n`` Market-v0 accounts: slots, weights, equity and steps, advanced together.

    Args:
        config: The env's parameters.
        n: Number of accounts (rows).
        reward: The reward function (the env's own; it keeps one state per row).

    Attributes:
        config: The parameters.
        reward: The reward function.
        cursor: Where each row stands in its prices.
        slots: Which data column each row's slots hold.
        weights: ``(n, max_assets + 1)`` drifted weights, cash last.
        equity: Each row's account value.
        steps: Decisions taken in each row's episode.
    """

    def __init__(self, config: MarketConfig, n: int, reward: RewardFunction) -> None:
        self.config = config
        self.n = n
        self.reward = reward
        source, lookback, length = config.source, config.lookback, config.episode_length
        self.cursor: PriceCursor
        self._paths: MarketPathCursor | None = None
        if isinstance(source, History):
            self.cursor = HistoryCursor(source, n, lookback, length)
        else:
            paths = MarketPathCursor(source, n, lookback, length, config.features)
            self.cursor = self._paths = paths
        self.slots = SlotTable(n, config.max_assets, config.n_total)
        self.weights: F64 = np.zeros((n, config.max_assets + 1))
        self.weights[:, -1] = 1.0
        self.equity: F64 = np.full(n, config.capital)
        self.steps: NDArray[np.intp] = np.zeros(n, dtype=np.intp)
        self._labels = config.assets
        self._rows = np.arange(n)[:, None]  # with (n, k) columns: each row's own columns
        self._dt = np.full(n, config.dt)
        self._row_years = config.row_years  # calendar time per row (dated data), else None
        self._volume = "volume" in config.costs.fields
        self._current: PointInTimeBatch | None = None  # the market at the rows observed now
        # The price each slot's position is valued at: its last price (a halted asset's
        # price before the halt); NaN for an empty slot.
        self._marks: F64 = np.full((n, config.max_assets), np.nan)
        self._stuck: NDArray[np.bool_] | None = None  # `untradable()`, found when first asked
        # Shared, never written: what `untradable()` and the infos say when nothing is stuck.
        self._none_stuck = np.zeros((n, config.max_assets), dtype=np.bool_)
        self._none_liquidated = np.zeros(n, dtype=np.bool_)
        self._none_stuck.flags.writeable = self._none_liquidated.flags.writeable = False

    # -- episodes ---------------------------------------------------------------------------

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
        current = self._current = self.cursor.now()
        self.slots.clear(indices)
        self.weights[indices] = 0.0
        self.weights[indices, -1] = 1.0
        self.equity[indices] = self.config.capital
        self.steps[indices] = 0
        resetting = reset_reward(self.reward, indices, self.n)
        self.slots.place(current.mask.latest(), None if resetting is None else ~resetting)
        self._marks[indices] = np.nan
        self._took_prices(current)

    def _took_prices(self, current: PointInTimeBatch, latest: F64 | None = None) -> None:
        """Value every held slot at its price at the current row, where it has one.

        Args:
            current: The market at the current rows.
            latest: The held slots' prices there, NaN elsewhere, when the
                caller has them (the step's, when no slot changed).
        """
        held = self.slots.held
        if latest is None:
            latest = np.where(held, current.prices.latest()[self._rows, self.slots.picked], np.nan)
        if self.cursor.may_halt:  # a halted asset keeps its last price
            halted = held & np.isnan(latest)
            if halted.any():
                latest = np.where(halted, self._marks, latest)
        self._marks = latest
        self._stuck = None

    def _listed(self, current: PointInTimeBatch) -> NDArray[np.bool_]:
        """``(n, n_total)``: the columns that hold a slot at the current rows.

        The columns with a price, and the placed ones that are halted: without
        a price now but with one later (`PriceCursor.last_listed`).
        """
        listed = current.mask.latest()
        if self.cursor.may_halt:
            placed = self.slots.slot_of >= 0
            later = current.index[:, None] < self.cursor.last_listed
            listed = listed | (placed & later)
        return listed

    def untradable(self) -> NDArray[np.bool_]:
        """``(n, max_assets)``: the held slots that cannot be traded at the current rows.

        Halted (no price now) or, when the data has a ``volume`` field, without
        volume (zero or missing).
        """
        stuck = self._stuck
        if stuck is None and not (self.cursor.may_halt or self._volume):
            stuck = self._stuck = self._none_stuck
        elif stuck is None:
            held, rows, picked = self.slots.held, self._rows, self.slots.picked
            now = self.now()
            stuck = np.zeros(held.shape, dtype=np.bool_)
            if self.cursor.may_halt:
                stuck |= held & ~now.mask.latest()[rows, picked]
            if self._volume:
                stuck |= held & no_volume(now.field("volume").latest()[rows, picked])
            self._stuck = stuck
        return stuck

    def tradable(self) -> F64:
        """``(n, max_assets + 1)``: 1.0 for the slots that can be traded now and cash, else 0.0."""
        tradable = self.slots.tradable
        stuck = self.untradable()
        if stuck is not self._none_stuck and stuck.any():
            tradable = tradable.copy()
            tradable[:, :-1][stuck] = 0.0
        return tradable

    def now(self) -> PointInTimeBatch:
        """The market at every row's current row (the one its observation shows)."""
        current = self._current
        if current is None:
            current = self._current = self.cursor.now()
        return current

    def _times(self, times: NDArray[Any]) -> list[Any]:
        # numpy scalars, as a single env reports them (an int64 or a datetime64).
        return list(times)

    def reset_infos(self, indices: NDArray[np.intp]) -> Infos:
        """The reset info arrays of the rows ``indices`` (one entry per row)."""
        return {
            "equity": self.equity[indices],
            "n_assets": self.slots.count[indices],
            "timestamp": self._times(self.now().time[indices]),
        }

    # -- reading the state ---------------------------------------------------------------------

    def slot_assets(self, row: int) -> tuple[Any, ...]:
        """The asset label in each of row ``row``'s slots (None for an empty slot)."""
        labels = self._labels
        return tuple(None if column < 0 else labels[column] for column in self.slots.columns[row])

    def latent(self) -> dict[str, F64] | None:
        """Each row's latent state at its current row, by name (None for a history)."""
        if self._paths is None:
            return None
        return self._paths.latent()

    def targets(self, scores: F64) -> F64:
        """``(n, max_assets + 1)`` target weights of checked actions ``scores``."""
        return targets(scores, self.weights, self.tradable(), self.config.account)

    def observe(self) -> dict[str, Any]:
        """Every row's observation, batched (see [`MarketEnv`][sekai.envs.MarketEnv])."""
        config = self.config
        now = self.now()
        lookback = config.lookback
        held, rows, picked = self.slots.held, self._rows, self.slots.picked
        width = 2 + len(config.features)
        values = np.empty((self.n, config.max_assets, lookback, width), dtype=np.float32)
        # Each window's slot columns, slot axis first: (n, max_assets, lookback).
        returns = now.log_returns(lookback)[rows, :, picked]
        _nan_to_num(returns)
        values[..., 0] = returns
        values[..., 1] = now.mask.window(lookback)[rows, :, picked]
        for k, name in enumerate(config.features):
            feature = now.field(name).window(lookback)[rows, :, picked]
            _nan_to_num(feature)
            values[..., 2 + k] = feature
        values[~held] = 0.0
        weights = self.weights
        account = np.empty((self.n, 2), dtype=np.float32)
        account[:, 0] = np.log(np.maximum(self.equity / config.capital, _TINY))
        account[:, 1] = np.abs(weights[:, :-1]).sum(axis=1)
        observation: dict[str, Any] = {
            "assets": {"values": values, "mask": held.astype(np.int8)},
            "portfolio": weights.astype(np.float32),
            "account": account,
        }
        if config.exogenous:
            series = [now.exogenous(name).window(lookback) for name in config.exogenous]
            observation["market"] = np.nan_to_num(np.concatenate(series, axis=2)).astype(np.float32)
        if config.privileged_state:
            latent = self.latent() or {}
            parts = [latent[name].reshape(self.n, -1) for name in config.state_spec]
            observation["state"] = np.concatenate(parts, axis=1).astype(np.float32)
        return observation

    # -- the step -----------------------------------------------------------------------------

    def step(
        self, scores: F64, frozen: NDArray[np.bool_] | None = None
    ) -> tuple[F64, NDArray[np.bool_], NDArray[np.bool_], Infos]:
        """Rebalance every row to the target its action asks for and hold for one period.

        Args:
            scores: ``(n, max_assets + 1)`` long-only scores or ``(n,
                max_assets)`` signed target weights, checked.
            frozen: Rows that must not change (a finished sub-env kept until
                its reset), or None.

        Returns:
            ``(rewards, terminated, truncated, infos)``, one entry per row.
        """
        config = self.config
        target = self.targets(scores)
        if frozen is not None and not frozen.any():
            frozen = None
        # A frozen row reads inside its episode (and changes nothing).
        now = self.now() if frozen is None else self.cursor.deciding()
        held, rows, picked = self.slots.held, self._rows, self.slots.picked
        price = self._marks  # P_t, or a halted asset's last price; NaN for an empty slot
        executed = np.where(held, now.execution_price()[rows, picked], np.nan)
        gap = held & np.isnan(executed)
        delisted = gap
        if self.cursor.may_halt and gap.any():  # a gap with prices after it is a halt
            halted = gap & (now.index[:, None] + 1 < self.cursor.last_listed[picked])
            delisted = gap & ~halted
        opens = None
        if config.execution == "next_open":
            opens = np.where(held, now.execution_price("open")[rows, picked], np.nan)
        legs = fill(config.execution, price, executed, opens)
        kept = self.untradable()
        after, before = legs.after, legs.before  # new arrays: NaN (no price) becomes 0 in place
        np.copyto(after, 0.0, where=np.isnan(after))
        if before is not None:
            np.copyto(before, 0.0, where=np.isnan(before))
            # A fill without a price (a halt, a delisting) trades nothing: the position is carried.
            kept = kept | (held & np.isnan(legs.price))
        if before is None:
            after[delisted] = config.delisting_return
        else:
            before[delisted] = config.delisting_return
        market: dict[str, Any] = {"equity": self.equity, "prices": legs.price}
        for name in config.costs.fields:
            market[name] = np.where(held, now.field(name).latest()[rows, picked], np.nan)
        if "volume" in market:
            market["volume"] = priced_volume(market["volume"], kept)
        if config.costs.volatility:
            window = now.log_returns(config.lookback)[rows, :, picked]  # (n, m, lookback)
            volatility = window_volatility(window.transpose(0, 2, 1))
            market["volatility"] = np.where(held, volatility, np.nan)
        years = self._row_years
        weights, step = rebalance(
            self.weights,
            target,
            after,
            dt=self._dt if years is None else years[now.index],
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=self.equity,
            bounded=config.bounded,
            before=before,
            kept=kept if kept.any() else None,
        )
        if delisted.any():  # the delisted positions are paid out in cash
            paid = delisted.any(axis=1)
            weights[paid, -1] += _paid_out(weights[paid, :-1], delisted[paid])
            weights[:, :-1][delisted] = 0.0
        rewards = np.asarray(self.reward(step.outcome), dtype=np.float64).reshape(self.n)
        equity = np.asarray(step.equity, dtype=np.float64).reshape(self.n)
        if frozen is not None:
            active = ~frozen
            self.weights[active] = weights[active]
            self.equity[active] = equity[active]
            self.steps += active
            self.cursor.advance(active)
        else:
            self.weights = weights
            self.equity = equity
            self.steps += 1
            self.cursor.advance()
        # With every row one row on, as the cursor's rows, the batch moves along (no new checks).
        current = self._current = self.cursor.now() if frozen is not None else now.advance()
        changed = self.slots.place(self._listed(current), frozen)
        if changed is not None:  # a new asset in a slot starts with no position
            self.weights[:, :-1][changed] = 0.0
        # The step read the new rows' prices of the same slots already (NaN where not held).
        self._took_prices(current, executed if changed is None and frozen is None else None)
        terminated = np.asarray(step.wiped_out, dtype=np.bool_).reshape(self.n)
        truncated = ~terminated & (self.steps >= config.episode_length)
        infos = self._step_infos(step, current)
        infos["untradable"] = kept.copy() if kept is self._none_stuck else kept  # a new array
        infos["liquidated"] = self._none_liquidated if step.liquidated is None else step.liquidated
        if years is not None:
            infos["dt"] = years[now.index]
        return rewards, terminated, truncated, infos

    def _step_infos(self, step: Any, current: PointInTimeBatch) -> Infos:
        n, weights = self.n, self.weights
        infos: Infos = {
            "equity": self.equity.copy(),
            "turnover": np.asarray(step.turnover, dtype=np.float64).reshape(n),
            "cost": np.asarray(step.cost, dtype=np.float64).reshape(n),
            "financing": np.asarray(step.financing, dtype=np.float64).reshape(n),
            "gross_exposure": np.abs(weights[:, :-1]).sum(axis=1),
            "n_assets": self.slots.count,
            "weights": weights.copy(),
            "timestamp": self._times(current.time),
            "dt": self._dt,
        }
        latent = self.latent()
        if latent is not None:
            names = list(latent)
            infos["latent_state"] = [
                {name: latent[name][row, ...] for name in names} for row in range(n)
            ]
        return infos
