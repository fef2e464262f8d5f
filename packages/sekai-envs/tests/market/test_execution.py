"""When decisions fill, what they cost and earn: every market env against an independent ledger.

The ledger below keeps an account the way a broker does, in cash and units
of each asset, and knows nothing of the envs' weights arithmetic. Each test
steps an env with random actions over a history that has opens, volumes
(some zero), a calendar with weekends and a long gap, halts and delistings,
and checks every step's equity and positions against the ledger, for every
execution convention.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sekai.envs import MarketEnv, PortfolioEnv, TradingEnv
from sekai.finance import CostModel, MarketData, SquareRootImpact
from sekai.registry import make, make_vec

F64 = NDArray[np.float64]
EXECUTIONS = ("close", "next_open", "next_close")
RATE = 0.001  # proportional transaction cost
CASH, MARGIN, BORROW = 0.04, 0.07, 0.02
YEAR_DAYS = 365.25


def _history(seed: int, rows: int, n_assets: int, *, gaps: bool) -> MarketData:
    """Closes, opens and volumes on a business-day calendar with one 30-day gap.

    With ``gaps``: asset 1 halts at rows 40-42 and reopens 50% lower, asset 2
    delists after row 150, and about 5% of the volumes are 0.
    """
    rng = np.random.default_rng(seed)
    steps = rng.normal(0.0003, 0.02, (rows, n_assets))
    close = 50.0 * np.exp(np.cumsum(steps, axis=0))
    opens = np.empty_like(close)
    opens[0] = close[0]
    opens[1:] = close[:-1] * np.exp(rng.normal(0.0, 0.01, (rows - 1, n_assets)))
    volume = rng.uniform(1e5, 1e6, (rows, n_assets))
    days = np.where(np.arange(rows) % 5 == 4, 3, 1)  # a weekend after every fifth row
    days[rows // 2] = 30
    timestamps = np.datetime64("2015-01-02") + np.concatenate([[0], np.cumsum(days[:-1])])
    if gaps:
        close[43:, 1] *= 0.5
        opens[43:, 1] *= 0.5
        close[40:43, 1] = np.nan
        opens[40:43, 1] = np.nan
        if n_assets > 2:
            close[151:, 2] = np.nan
            opens[151:, 2] = np.nan
        volume[rng.random((rows, n_assets)) < 0.05] = 0.0
    return MarketData(
        close,
        fields={"open": opens, "volume": volume},
        timestamps=timestamps.astype("datetime64[D]"),
    )


@dataclass
class Ledger:
    """An account in cash and units: what a broker's statement would show.

    Conventions (the documented ones, restated from the guide): a decision at
    row ``t`` fills at the close of ``t``, the open of ``t + 1`` or the close
    of ``t + 1``; the cost is ``RATE`` times the value traded at the fill
    price, paid pro rata from every position (the envs' account keeps weights,
    so an untradable asset keeps its weight); interest accrues on the
    balances held through the close of ``t`` over the calendar time to row
    ``t + 1``; a halted asset is valued at its last price; a delisted one is
    paid out in cash at its last price times ``1 + delisting_return``.
    """

    cash: float
    units: F64
    marks: F64 = field(init=False)
    delisting_return: float = 0.0
    rates: tuple[float, float, float] = (CASH, MARGIN, BORROW)
    sold_at_fill: float | None = None  # what a margin call at the fill closed out

    def __post_init__(self) -> None:
        self.marks = np.full(self.units.shape, np.nan)

    def equity(self, prices: F64) -> float:
        value = np.where(self.units != 0.0, self.units * prices, 0.0)
        return self.cash + float(value.sum())

    def _finance(self, prices: F64, years: float) -> None:
        cash, margin, borrow = self.rates
        shorts = float(np.maximum(-self.units * np.nan_to_num(prices), 0.0).sum())
        interest = max(self.cash, 0.0) * math.expm1(cash * years)
        interest -= max(-self.cash, 0.0) * math.expm1(margin * years)
        interest -= shorts * math.expm1(borrow * years)
        self.cash += interest

    def _trade(self, prices: F64, target: F64, kept: NDArray[np.bool_]) -> None:
        held = np.where(self.units != 0.0, self.units * prices, 0.0)
        equity = self.cash + float(held.sum())
        weights = held / equity
        target = np.where(kept, weights, target)
        after = equity * (1.0 - RATE * float(np.abs(target - weights).sum()))
        self.units = np.where(target != 0.0, target * after / prices, 0.0)
        self.cash = after - float(np.where(self.units != 0.0, self.units * prices, 0.0).sum())

    def step(
        self,
        execution: str,
        close: F64,
        following: F64,
        opens: F64,
        target: F64,
        kept: NDArray[np.bool_],
        years: float,
        delisted: NDArray[np.bool_],
    ) -> None:
        """One decision: carry to the fill, trade there, carry on; pay out delistings."""
        self.marks = np.where(np.isnan(close), self.marks, close)
        decision = self.marks
        paid = decision * (1.0 + self.delisting_return)  # a delisted asset's last value
        carried = np.where(np.isnan(following), decision, following)  # a halt is carried
        if execution == "close":
            self._trade(decision, target, kept)
            self._finance(decision, years)
        else:
            self._finance(decision, years)
            fill = opens if execution == "next_open" else following
            prices = np.where(delisted, paid, np.where(np.isnan(fill), decision, fill))
            self._trade(prices, target, kept | np.isnan(fill))
        payout = delisted & (self.units != 0.0)
        if payout.any():
            self.cash += float((self.units * paid)[payout].sum())
            self.units = np.where(payout, 0.0, self.units)
        self.marks = np.where(delisted, np.nan, carried)


def _years(data: MarketData, row: int) -> float:
    gap = data.timestamps[row + 1] - data.timestamps[row]
    return float(gap / np.timedelta64(1, "D")) / YEAR_DAYS


def _delisted(data: MarketData, row: int) -> NDArray[np.bool_]:
    listed_later = np.asarray(data.mask[row + 1 :].any(axis=0), dtype=np.bool_)
    return ~listed_later


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_trading_env_keeps_the_ledger(execution: str) -> None:
    data = _history(1, 400, 1, gaps=False)
    data = data.with_fields(volume=np.where(np.arange(400)[:, None] % 23 == 0, 0.0, 1e6))
    env = TradingEnv(
        data=data,
        lookback=5,
        episode_length=300,
        positions=(-1.0, 0.0, 0.5, 2.0),
        transaction_cost=RATE,
        execution=execution,
        cash_rate=CASH,
        margin_rate=MARGIN,
        borrow_rate=BORROW,
        capital=1000.0,
    )
    rng = np.random.default_rng(5)
    steps = 0
    for seed in range(4):
        env.reset(seed=seed)
        row = env.now.index
        ledger = Ledger(1000.0, np.zeros(1))
        over = False
        while not over:
            action = int(rng.integers(4))
            close = data.prices[row]
            volume = data.field("volume")[row]
            kept = ~(volume > 0.0)
            ledger.step(
                execution,
                close,
                data.prices[row + 1],
                data.field("open")[row + 1],
                np.array([env.positions[action]]),
                kept,
                _years(data, row),
                np.zeros(1, dtype=bool),
            )
            result = env.step(action)
            over = result.terminated or result.truncated
            row += 1
            steps += 1
            equity = ledger.equity(data.prices[row])
            assert result.info["equity"] == pytest.approx(equity, rel=1e-9)
            position = float(ledger.units[0] * data.prices[row, 0]) / equity
            assert result.info["position"] == pytest.approx(position, rel=1e-9, abs=1e-12)
            assert result.info["untradable"] == bool(kept[0])
            assert result.info["dt"] == pytest.approx(_years(data, row - 1))
            assert math.isfinite(result.reward)
    assert steps >= 1000


def _weights_action(rng: np.random.Generator, width: int) -> NDArray[np.float32]:
    return rng.uniform(-0.45, 0.45, width).astype(np.float32)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_market_env_keeps_the_ledger_through_halts_and_delistings(execution: str) -> None:
    data = _history(2, 260, 3, gaps=True)
    env = MarketEnv(
        data,
        lookback=5,
        episode_length=200,
        transaction_cost=RATE,
        allow_short=True,
        max_leverage=2.0,
        cash_rate=CASH,
        margin_rate=MARGIN,
        borrow_rate=BORROW,
        capital=1000.0,
        delisting_return=-0.3,
        execution=execution,
    )
    rng = np.random.default_rng(6)
    steps = 0
    for start in (20, 30, 40, 50, 55):
        env.reset(seed=start, options={"start": start})
        row = start
        ledger = Ledger(1000.0, np.zeros(3), delisting_return=-0.3)
        over = False
        while not over:
            columns = [
                -1 if label is None else data.assets.index(label) for label in env.slot_assets
            ]
            mask = env.action_mask()[:3].astype(bool)
            action = _weights_action(rng, 3)
            target = np.zeros(3)
            kept = np.zeros(3, dtype=bool)
            for slot, column in enumerate(columns):
                if column >= 0:
                    target[column] = action[slot]
                    kept[column] = not mask[slot]
            halted = np.isnan(data.prices[row])
            no_volume = ~(data.field("volume")[row] > 0.0)
            for column in columns:
                if column >= 0:
                    assert kept[column] == (halted[column] or no_volume[column])
            ledger.step(
                execution,
                data.prices[row],
                data.prices[row + 1],
                data.field("open")[row + 1],
                target,
                kept,
                _years(data, row),
                np.isnan(data.prices[row + 1]) & _delisted(data, row),
            )
            result = env.step(action)
            over = result.terminated or result.truncated
            row += 1
            steps += 1
            marks = np.where(np.isnan(ledger.marks), 0.0, ledger.marks)
            equity = ledger.equity(marks)
            assert result.info["equity"] == pytest.approx(equity, rel=1e-9)
            for slot, label in enumerate(env.slot_assets):
                if label is not None:  # each position's value, as the ledger has it
                    value = ledger.units[data.assets.index(label)] * marks[data.assets.index(label)]
                    weight = result.info["weights"][slot]
                    assert weight == pytest.approx(value / equity, rel=1e-9, abs=1e-12)
            assert math.isfinite(result.reward)
    assert steps >= 1000


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_portfolio_env_keeps_the_ledger(execution: str) -> None:
    data = _history(3, 400, 3, gaps=False)
    volume = data.field("volume").copy()
    volume[np.random.default_rng(0).random(volume.shape) < 0.05] = 0.0
    data = data.with_fields(volume=volume)
    env = PortfolioEnv(
        data=data,
        lookback=5,
        episode_length=300,
        transaction_cost=RATE,
        allow_short=True,
        max_leverage=2.0,
        risk_free_rate=CASH / data.periods_per_year,
        borrow_rate=BORROW,
        capital=1000.0,
        execution=execution,
    )
    rng = np.random.default_rng(7)
    steps = 0
    for seed in range(4):
        env.reset(seed=seed)
        row = data.index_of(env.timestamp)
        ledger = Ledger(1000.0, np.zeros(3), rates=(CASH, CASH, BORROW))
        over = False
        while not over:
            action = _weights_action(rng, 3)
            kept = ~(data.field("volume")[row] > 0.0)
            np.testing.assert_array_equal(env.action_mask(), ~kept)
            ledger.step(
                execution,
                data.prices[row],
                data.prices[row + 1],
                data.field("open")[row + 1],
                action.astype(np.float64),
                kept,
                _years(data, row),
                np.zeros(3, dtype=bool),
            )
            result = env.step(action)
            over = result.terminated or result.truncated
            row += 1
            steps += 1
            equity = ledger.equity(data.prices[row])
            assert result.info["equity"] == pytest.approx(equity, rel=1e-9)
            weights = ledger.units * data.prices[row] / equity
            np.testing.assert_allclose(result.info["weights"][:3], weights, rtol=1e-9, atol=1e-12)
            np.testing.assert_array_equal(result.info["untradable"], kept)
            assert math.isfinite(result.reward)
    assert steps >= 1000


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def _history_cases() -> dict[str, tuple[str, dict[str, Any]]]:
    gappy = _history(4, 160, 3, gaps=True)
    complete = _history(5, 160, 3, gaps=False)
    volume = complete.field("volume").copy()
    volume[np.random.default_rng(1).random(volume.shape) < 0.1] = 0.0
    complete = complete.with_fields(volume=volume)
    single = MarketData(
        complete.prices[:, :1],
        fields={"open": complete.field("open")[:, :1], "volume": volume[:, :1]},
        timestamps=complete.timestamps,
    )
    rates = {"cash_rate": CASH, "margin_rate": MARGIN, "borrow_rate": BORROW}
    return {
        "Trading-v0": (
            "Trading-v0",
            {
                "data": single,
                "positions": (-1.0, 0.0, 2.0),
                "lookback": 4,
                "hold_action": True,
                **rates,
            },
        ),
        "Portfolio-v0": (
            "Portfolio-v0",
            {"data": complete, "lookback": 4, "allow_short": True, "borrow_rate": BORROW},
        ),
        "Market-v0": (
            "Market-v0",
            {"data": gappy, "lookback": 4, "allow_short": True, "max_leverage": 2.0, **rates},
        ),
    }


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("case", ["Trading-v0", "Portfolio-v0", "Market-v0"])
def test_native_vector_envs_equal_single_envs(case: str, execution: str) -> None:
    env_id, kwargs = _history_cases()[case]
    kwargs = {**kwargs, "episode_length": 40, "execution": execution, "transaction_cost": RATE}
    native = make_vec(env_id, 3, **kwargs)
    sync = make_vec(env_id, 3, vectorization_mode="sync", **kwargs)
    assert type(native).__name__ != type(sync).__name__  # the native env, not a sync one
    rng = np.random.default_rng(8)
    a, b = native.reset(seed=11), sync.reset(seed=11)
    _same(a.observations, b.observations)
    for _ in range(100):  # two episodes and more per sub-env, through autoresets
        if case == "Trading-v0":
            actions: Any = rng.integers(0, 4, 3)  # the last holds
        else:
            actions = rng.uniform(-0.6, 0.6, (3, 3))  # 3 sub-envs, 3 signed weights
            actions = actions.astype(np.float32)
        x, y = native.step(actions), sync.step(actions)
        _same(x.observations, y.observations)
        np.testing.assert_array_equal(x.rewards, y.rewards)
        np.testing.assert_array_equal(x.terminated, y.terminated)
        np.testing.assert_array_equal(x.truncated, y.truncated)
        for p, q in zip(x.infos, y.infos, strict=True):
            _same(p, q)
    native.close()
    sync.close()


def _margin_ledger_step(
    ledger: Ledger,
    execution: str,
    close: F64,
    following: F64,
    opens: F64,
    target: F64,
    margin: float,
) -> tuple[float, bool]:
    """A step of a margin account, marked at the fill and at the close: liquidated at the
    first mark where its equity is below ``margin`` times its position's value."""
    if execution == "close":
        ledger._trade(close, target, np.zeros(1, dtype=bool))
    else:
        fill = opens if execution == "next_open" else following
        value = float(ledger.units[0] * fill[0])
        equity = ledger.cash + value
        if equity <= 0.0 or margin * abs(value) > equity:  # called at the fill: only sells
            ledger.sold_at_fill = abs(value)
            return equity - RATE * abs(value), True
        ledger._trade(fill, target, np.zeros(1, dtype=bool))
    value = float(ledger.units[0] * following[0])
    equity = ledger.cash + value
    if equity <= 0.0 or margin * abs(value) > equity:
        return equity - RATE * abs(value), True
    return equity, False


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_a_maintenance_margin_liquidates_and_keeps_the_loss(execution: str) -> None:
    rng = np.random.default_rng(9)
    rows = 3000
    close = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.25, rows)))
    opens = np.concatenate([[close[0]], close[:-1] * np.exp(rng.normal(0.0, 0.08, rows - 1))])
    data = MarketData(close, fields={"open": opens})
    margin = 0.3
    env = TradingEnv(
        data=data,
        lookback=2,
        episode_length=200,
        positions=(-2.0, 0.0, 2.0),
        transaction_cost=RATE,
        execution=execution,
        maintenance_margin=margin,
        capital=1000.0,
    )
    liquidations = negative = 0
    for seed in range(40):
        env.reset(seed=seed)
        row = int(env.now.index)
        ledger = Ledger(1000.0, np.zeros(1), rates=(0.0, 0.0, 0.0))
        over = False
        while not over:
            before = ledger.equity(data.prices[row])
            ledger.sold_at_fill = None
            action = int(rng.integers(3))
            expected, called = _margin_ledger_step(
                ledger,
                execution,
                data.prices[row],
                data.prices[row + 1],
                data.field("open")[row + 1],
                np.array([env.positions[action]]),
                margin,
            )
            result = env.step(action)
            row += 1
            over = result.terminated or result.truncated
            assert result.info["equity"] == pytest.approx(expected, rel=1e-9)
            assert result.info["liquidated"] == called == result.terminated
            if ledger.sold_at_fill is not None:  # the close-out is the step's only trade
                assert result.info["turnover"] == pytest.approx(ledger.sold_at_fill / before)
                assert result.info["cost"] == pytest.approx(RATE * ledger.sold_at_fill / before)
            liquidations += called
            negative += expected < 0.0
    assert liquidations >= 10 and negative >= 1  # calls happened, and some lost more than all


def test_without_a_margin_a_wipe_out_reports_zero() -> None:
    close = np.array([100.0, 100.0, 100.0, 350.0, 360.0, 370.0])
    env = TradingEnv(prices=close, lookback=1, episode_length=3, positions=(-1.0,))
    env.reset(options={"start": 2})
    result = env.step(0)  # short through a 250% rise
    assert result.terminated and result.info["equity"] == 0.0
    assert not result.info["liquidated"]
    with pytest.raises(ValueError, match="maintenance_margin"):
        TradingEnv(prices=close, lookback=1, episode_length=3, maintenance_margin=1.5)
    with pytest.raises(ValueError, match="1 / max_leverage"):
        TradingEnv(
            prices=close, lookback=1, episode_length=3, positions=(0.0, 3.0), maintenance_margin=0.5
        )


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_the_hold_action_lets_the_position_drift_without_trading(execution: str) -> None:
    data = _history(6, 300, 1, gaps=False)
    env = TradingEnv(
        data=data,
        lookback=3,
        episode_length=250,
        positions=(0.0, 0.5),
        hold_action=True,
        execution=execution,
    )
    assert env.action_space.n == 3
    env.reset(seed=1, options={"start": 10})
    first = env.step(1)  # to half the equity
    assert first.info["turnover"] > 0.0
    position, trades = first.info["position"], 0
    for _ in range(200):
        result = env.step(2)
        r = result.info["asset_return"]
        expected = position * (1.0 + r) / (1.0 + position * r)
        assert result.info["turnover"] == 0.0 and result.info["cost"] == 0.0
        assert result.info["position"] == pytest.approx(expected, rel=1e-12)
        position = result.info["position"]
        trades += result.info["turnover"] > 0.0
    assert trades == 0 and abs(position - 0.5) > 0.01  # it drifted away from 0.5


def _thin_market(n_assets: int) -> MarketData:
    """A history whose prices stand still for 40 rows and whose volume is 0 on some rows."""
    rng = np.random.default_rng(12)
    rows = 200
    close = 20.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (rows, n_assets)), axis=0))
    close[80:120] = close[80]  # a flat stretch: no volatility in the window
    volume = rng.uniform(1e4, 1e5, (rows, n_assets))
    volume[rng.random((rows, n_assets)) < 0.15] = 0.0
    volume[100:105] = 0.0
    return MarketData(close, fields={"volume": volume})


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "Market-v0"])
def test_square_root_impact_never_prices_a_trade_against_no_volume(env_id: str) -> None:
    n_assets = 1 if env_id == "Trading-v0" else 3
    data = _thin_market(n_assets)
    kwargs: dict[str, Any] = {"lookback": 10, "episode_length": 150, "capital": 1e6}
    kwargs["transaction_cost"] = SquareRootImpact(0.5)
    env: Any = (
        TradingEnv(data=data, positions=(-1.0, 1.0), **kwargs)
        if env_id == "Trading-v0"
        else PortfolioEnv(data=data, **kwargs)
        if env_id == "Portfolio-v0"
        else MarketEnv(data, **kwargs)
    )
    env.reset(seed=0, options={"start": 20})
    rng = np.random.default_rng(0)
    untradable = 0
    for step in range(150):
        if env_id == "Trading-v0":
            result = env.step(step % 2)  # turn the whole position around every step
        else:
            result = env.step(rng.random(n_assets + 1).astype(np.float32))
        assert math.isfinite(result.reward) and result.reward > -1.0
        assert math.isfinite(result.info["equity"]) and result.info["equity"] > 0.0
        assert not result.terminated
        untradable += int(np.sum(result.info["untradable"]))
    assert untradable > 0


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "Market-v0"])
def test_execution_is_checked(env_id: str) -> None:
    with pytest.raises(ValueError, match=r"execution must be one of .*got 'open'"):
        make_vec(env_id, 2, execution="open")
    with pytest.raises(TypeError, match="execution must be one of"):
        make_vec(env_id, 2, execution=None)
    with pytest.raises(ValueError, match="a simulated model has closes only"):
        make_vec(env_id, 2, execution="next_open")  # the default model
    closes = _history(7, 300, 1 if env_id == "Trading-v0" else 2, gaps=False)
    without_opens = MarketData(closes.prices, timestamps=closes.timestamps)
    with pytest.raises(ValueError, match=r"needs an 'open' field; the data's fields are"):
        make_vec(env_id, 2, data=without_opens, execution="next_open")
    vec = make_vec(env_id, 2, data=closes, execution="next_open", lookback=5, episode_length=20)
    assert vec.config.execution == "next_open"


def test_a_window_sampler_cannot_fill_at_an_open() -> None:
    from sekai.finance.sampling import RegimeSwitchingSampler

    with pytest.raises(ValueError, match="a window sampler draws returns, without prices"):
        PortfolioEnv(sampler=RegimeSwitchingSampler(3), execution="next_open")
    env = PortfolioEnv(sampler=RegimeSwitchingSampler(3), execution="next_close")
    env.reset(seed=0)
    weights = env.step(np.array([1.0, 0.0, 0.0, 0.0], np.float32)).info["weights"]
    np.testing.assert_array_equal(weights, [1.0, 0.0, 0.0, 0.0])  # filled at the period's end


def test_a_simulated_relisting_is_a_new_asset_not_a_halt() -> None:
    from sekai.finance import GBM, ListingProcess

    model = ListingProcess(
        GBM(n_assets=4, sigma=0.3), initial_listed=0.5, listing_rate=60.0, delisting_rate=60.0
    )
    env = MarketEnv(model=model, lookback=3, episode_length=120, delisting_return=-0.5)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    delistings = 0
    for _ in range(120):
        held = env.slot_assets
        weights = env.step(rng.random(5).astype(np.float32)).info["weights"]
        listed = env.now.available
        # No slot holds an unlisted column, as a halted asset would: it left its slot.
        assert all(listed[asset] for asset in env.slot_assets if asset is not None)
        # a column that left its slot was paid out, whether or not it lists again later
        for slot, (before, after) in enumerate(zip(held, env.slot_assets, strict=True)):
            if before is not None and after != before:
                delistings += 1
                assert weights[slot] == 0.0
    assert delistings > 5


def test_next_open_books_a_halt_after_the_open_once_and_fills_at_the_close_without_an_open() -> (
    None
):
    nan = math.nan
    close = np.array([100, 100, 100, 100, nan, nan, 120, 120, 120, 120], dtype=float)
    opens = np.array([100, 100, 100, 100, 110, nan, nan, 120, 120, 120], dtype=float)
    # Row 4 opens at 110 and halts before the close; row 6 reopens without an open.
    other = np.full(10, 50.0)
    data = MarketData(
        np.stack([close, other], axis=1),
        fields={"open": np.stack([opens, other], axis=1)},
    )
    env = MarketEnv(data, lookback=2, episode_length=6, transaction_cost=0.0, execution="next_open")
    env.reset(options={"start": 2})
    everything_in_the_first = np.array([1.0, 0.0, 0.0], np.float32)
    for _ in range(6):
        result = env.step(everything_in_the_first)
        assert math.isfinite(result.info["equity"])
    assert result.info["equity"] == pytest.approx(1_000_000.0 * 120 / 100, rel=1e-12)


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0"])
def test_next_open_without_an_open_fills_at_the_close_and_bad_opens_are_refused(
    env_id: str,
) -> None:
    data = _history(8, 200, 1 if env_id == "Trading-v0" else 2, gaps=False)
    opens = data.field("open").copy()
    opens[::7] = np.nan  # no open on every seventh row
    gappy = data.with_fields(open=opens)
    kwargs: dict[str, Any] = {"lookback": 3, "episode_length": 150, "execution": "next_open"}
    env = make(env_id, data=gappy, **kwargs)
    env.reset(seed=0)
    for step in range(150):
        action: Any = step % 3 if env_id == "Trading-v0" else np.array([0.5, 0.2, 0.3], np.float32)
        result = env.step(action)
        assert math.isfinite(result.reward) and math.isfinite(result.info["equity"])
        if env_id == "Trading-v0" and np.isnan(opens[data.index_of(result.info["timestamp"])]):
            assert result.info["fill_price"] == result.info["price"]  # filled at that close
    for bad in (0.0, -1.0, math.inf):
        broken = data.field("open").copy()
        broken[40, 0] = bad
        with pytest.raises(ValueError, match=r"row 40, column 0"):
            make(env_id, data=data.with_fields(open=broken), **kwargs)


@pytest.mark.parametrize("execution", ["next_open", "next_close"])
def test_long_only_weights_add_up_when_an_asset_cannot_trade_at_a_later_fill(
    execution: str,
) -> None:
    data = _history(9, 300, 3, gaps=False)
    volume = data.field("volume").copy()
    volume[np.random.default_rng(2).random(volume.shape) < 0.3] = 0.0
    data = data.with_fields(volume=volume)
    env = PortfolioEnv(data=data, lookback=3, episode_length=250, execution=execution)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    kept_steps = 0
    for _ in range(250):
        scores = rng.random(4).astype(np.float32)
        result = env.step(scores)
        assets = result.info["weights"][:3]
        assert assets.sum() <= 1.0 + 1e-12 and (assets >= -1e-15).all()
        kept_steps += bool(result.info["untradable"].any())
    assert kept_steps > 50


class _Spy(CostModel):
    """A proportional cost that records the prices and the equity it is told."""

    requires = ("prices", "equity")

    def __init__(self) -> None:
        self.told: list[tuple[F64, float]] = []

    def __call__(self, trades: Any, **market: Any) -> Any:
        self.told.append((np.array(market["prices"], dtype=float), float(market["equity"])))
        return RATE * np.abs(np.asarray(trades)).sum(axis=-1)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_the_cost_model_is_told_the_fill_price_and_the_equity_at_the_fill(
    execution: str,
) -> None:
    data = _history(10, 120, 1, gaps=False)
    spy = _Spy()
    env = TradingEnv(
        data=data,
        lookback=3,
        episode_length=60,
        positions=(-1.0, 1.0),
        transaction_cost=spy,
        execution=execution,
    )
    env.reset(options={"start": 10})
    equity, position = env.equity, 0.0
    for step in range(60):
        row = 10 + step
        result = env.step(step % 2)
        prices, told_equity = spy.told[-1]
        if execution == "close":
            fill, carried = data.prices[row], 1.0
        else:
            fill = data.field("open")[row + 1] if execution == "next_open" else data.prices[row + 1]
            carried = 1.0 + position * (fill[0] / data.prices[row, 0] - 1.0)
        np.testing.assert_array_equal(prices, fill)
        assert result.info["fill_price"] == fill[0]
        assert told_equity == pytest.approx(equity * carried, rel=1e-12)
        equity, position = result.info["equity"], result.info["position"]


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_frozen_sub_envs_match_single_envs_that_stopped(execution: str) -> None:
    rng = np.random.default_rng(13)
    close = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.15, 300)))
    opens = np.concatenate([[close[0]], close[:-1] * np.exp(rng.normal(0.0, 0.05, 299))])
    data = MarketData(close, fields={"open": opens})
    kwargs: dict[str, Any] = {
        "data": data,
        "lookback": 2,
        "episode_length": 30,
        "positions": (-2.0, 2.0),
        "maintenance_margin": 0.3,
        "execution": execution,
    }
    starts = [{"start": 10}, {"start": 100}, {"start": 200}]
    vec = make_vec("Trading-v0", 3, autoreset=False, **kwargs)
    singles = [TradingEnv(**kwargs) for _ in starts]
    vec.reset(options=starts)
    for env, option in zip(singles, starts, strict=True):
        env.reset(options=option)
    done = [False] * 3
    for _ in range(35):
        actions = rng.integers(0, 2, 3)
        batch = vec.step(actions)
        for i, env in enumerate(singles):
            if done[i]:  # frozen: nothing changes
                assert batch.rewards[i] == 0.0 and vec.equity[i] == env.equity
                continue
            result = env.step(int(actions[i]))
            assert batch.rewards[i] == result.reward
            assert batch.infos[i]["equity"] == result.info["equity"]
            done[i] = result.terminated or result.truncated
    assert all(done)
