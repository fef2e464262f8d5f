"""Technical features: values (against pandas, on real prices), causality, the registry."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from sekai.error import LookAheadError
from sekai.finance import features as F
from sekai.finance.data import MarketData

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def prices(sp500: Any) -> np.ndarray:
    """Two real price columns, one with a halt (NaN) in it."""
    table = sp500[["Adj Close", "Close"]].to_numpy(copy=True)
    table[100:105, 1] = np.nan
    return table


def close(a: np.ndarray, b: Any, rtol: float = 1e-9) -> None:
    b = np.asarray(b, dtype=float)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a, b, rtol=rtol, equal_nan=True)


def test_returns_and_lags(prices: np.ndarray) -> None:
    frame = pd.DataFrame(prices)
    close(F.log_returns(prices), np.log(frame / frame.shift(1)))
    close(F.log_returns(prices, 5), np.log(frame / frame.shift(5)))
    close(F.simple_returns(prices, 2), frame.pct_change(2, fill_method=None))
    close(F.lag(prices, 3), frame.shift(3))
    np.testing.assert_array_equal(F.lag(prices, 0), prices)
    close(F.momentum(prices, 20), np.log(frame / frame.shift(20)))
    close(F.momentum(prices, 252, skip=21), np.log(frame.shift(21) / frame.shift(252)))
    for call in (lambda: F.lag(prices, -1), lambda: F.log_returns(prices, -2)):
        with pytest.raises(LookAheadError, match="would read rows after"):
            call()
    with pytest.raises(ValueError, match="skip"):
        F.momentum(prices, 5, skip=5)


def test_rolling_windows_match_pandas(prices: np.ndarray) -> None:
    frame = pd.DataFrame(prices)
    returns = F.log_returns(prices)
    close(F.rolling_mean(prices, 20), frame.rolling(20).mean(), rtol=1e-11)
    close(F.rolling_std(prices, 20), frame.rolling(20).std(), rtol=1e-7)
    close(F.rolling_std(returns, 60, ddof=0), pd.DataFrame(returns).rolling(60).std(ddof=0))
    zscore = (frame - frame.rolling(30).mean()) / frame.rolling(30).std()
    close(F.rolling_zscore(prices, 30), zscore, rtol=1e-6)
    volatility = pd.DataFrame(returns).rolling(20).std() * np.sqrt(252)
    close(F.realized_volatility(returns, 20, periods_per_year=252), volatility)
    close(F.realized_volatility(prices=prices, window=20, periods_per_year=252), volatility)
    assert np.isnan(F.rolling_mean(prices[:5], 10)).all()  # windows never fill
    with pytest.raises(ValueError, match="ddof"):
        F.rolling_std(prices, 3, ddof=3)


@settings(max_examples=60, deadline=None)
@given(
    values=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 30), st.integers(1, 3)),
        elements=st.one_of(st.floats(-50.0, 50.0), st.just(np.nan)),
    ),
    window=st.integers(1, 8),
    data=st.data(),
)
def test_min_periods_match_pandas(values: np.ndarray, window: int, data: Any) -> None:
    min_periods = data.draw(st.integers(0, window))
    ddof = data.draw(st.integers(0, window - 1))
    halflife = data.draw(st.floats(0.5, 10.0))
    frame = pd.DataFrame(values)
    rolling = frame.rolling(window, min_periods=min_periods)
    ewm = frame.ewm(halflife=halflife, min_periods=min_periods).mean().to_numpy(copy=True)
    ewm[np.isnan(values)] = np.nan  # NaN where the input is NaN (pandas repeats the last)
    # Running sums leave rounding of the order of 1e-14 of the values (up to 50, so 1e-12),
    # and a window without spread has the square root of that as its deviation (about 1e-6).
    pairs = [
        (F.rolling_mean(values, window, min_periods=min_periods), rolling.mean(), 1e-9),
        (
            F.rolling_std(values, window, min_periods=min_periods, ddof=ddof),
            rolling.std(ddof=ddof),
            1e-5,
        ),
        (F.ewm_mean(values, halflife, min_periods=min_periods), ewm, 1e-9),
    ]
    for got, expected, atol in pairs:
        expected = np.asarray(expected, dtype=float)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=atol)


def test_min_periods_default_to_a_full_window(prices: np.ndarray) -> None:
    for function in (F.rolling_mean, F.rolling_std, F.rolling_zscore):
        np.testing.assert_array_equal(
            function(prices, 10), function(prices, 10, min_periods=10), err_msg=str(function)
        )
    partial = F.rolling_mean([1.0, 2.0, np.nan, 4.0], 3, min_periods=2)
    np.testing.assert_array_equal(partial, [np.nan, 1.5, 1.5, 3.0])
    with pytest.raises(ValueError, match="min_periods"):
        F.rolling_mean(prices, 3, min_periods=4)
    seen_two = F.ewm_std([1.0, 3.0, 2.0, 5.0], alpha=0.5, min_periods=3)
    assert np.isnan(seen_two[:2]).all() and not np.isnan(seen_two[2:]).any()


def test_sekai_0_2_calls(prices: np.ndarray) -> None:
    x = prices[:300]
    np.testing.assert_array_equal(F.ewm_mean(x, 5.0), F.ewm_mean(x, halflife=5.0))
    np.testing.assert_array_equal(F.ewm_std(x, 5.0), F.ewm_std(x=x, halflife=5.0))
    np.testing.assert_array_equal(F.rolling_mean(x=x, window=5), F.rolling_mean(x, 5))
    np.testing.assert_array_equal(F.lag(x=x, periods=2), F.lag(x, 2))
    np.testing.assert_array_equal(F.forward_fill(x=x, limit=1), F.forward_fill(x, limit=1))
    table = F.log_returns(x)
    np.testing.assert_array_equal(F.cross_sectional_rank(x=table), F.cross_sectional_rank(table))
    np.testing.assert_array_equal(
        F.cross_sectional_zscore(x=table), F.cross_sectional_zscore(table)
    )
    returns = F.log_returns(x)
    np.testing.assert_array_equal(
        F.realized_volatility(returns=returns, window=10, periods_per_year=252),
        F.realized_volatility(prices=x, window=10, periods_per_year=252),
    )
    with pytest.raises(TypeError, match="one of the two"):
        F.realized_volatility(returns, prices=x)
    with pytest.raises(TypeError, match="one of the two"):
        F.realized_volatility()
    with pytest.raises(ValueError, match="exactly one of span, halflife and alpha"):
        F.ewm_mean(x, 5.0, span=3)


def test_exponential_weights_match_pandas(prices: np.ndarray) -> None:
    frame = pd.DataFrame(prices)
    halted = np.isnan(prices)

    def at_observations(values: Any) -> np.ndarray:
        out = np.asarray(values, dtype=float).copy()
        out[halted] = np.nan  # we give NaN where the input is NaN; pandas repeats the last
        return out

    close(F.ewm_mean(prices, span=10), at_observations(frame.ewm(span=10).mean()))
    close(F.ewm_mean(prices, halflife=5), at_observations(frame.ewm(halflife=5).mean()))
    close(
        F.ewm_mean(prices, alpha=0.1, adjust=False),
        at_observations(frame.ewm(alpha=0.1, adjust=False).mean()),
    )
    returns = F.log_returns(prices)
    expected = pd.DataFrame(returns).ewm(span=20).std().to_numpy(copy=True)
    expected[np.isnan(returns)] = np.nan
    close(F.ewm_std(returns, span=20), expected, rtol=1e-8)
    with pytest.raises(ValueError, match="exactly one of span, halflife and alpha"):
        F.ewm_mean(prices, span=3, alpha=0.5)
    with pytest.raises(ValueError, match="alpha"):
        F.ewm_mean(prices, alpha=1.5)


def test_rsi_is_wilders(prices: np.ndarray) -> None:
    change = pd.DataFrame(prices).diff()
    gains = change.clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
    losses = (-change).clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean()
    expected = (100 - 100 / (1 + gains / losses)).to_numpy(copy=True)
    expected[:14] = np.nan
    expected[np.isnan(change.to_numpy())] = np.nan
    close(F.rsi(prices, 14), expected, rtol=1e-9)
    up = F.rsi(np.arange(1.0, 40.0), 14)
    assert np.all(up[14:] == 100.0) and np.all(F.rsi(np.ones(40), 5)[5:] == 50.0)
    values = F.rsi(prices)
    assert np.nanmin(values) >= 0 and np.nanmax(values) <= 100


def test_fill_and_cross_sections() -> None:
    x = np.array([[np.nan, 1.0], [2.0, np.nan], [np.nan, np.nan], [np.nan, 4.0]])
    close(F.forward_fill(x), pd.DataFrame(x).ffill())
    close(F.forward_fill(x, limit=1), pd.DataFrame(x).ffill(limit=1))
    rng = np.random.default_rng(0)
    table = rng.normal(size=(40, 6))
    table[3, 2] = np.nan
    table[5] = 1.0  # all tied: no spread
    table[6, 1] = table[6, 2]  # one tie
    table[7, 1:] = np.nan  # one finite value
    frame = pd.DataFrame(table)
    ranks = frame.rank(axis=1).sub(1).div(frame.count(axis=1).sub(1), axis=0).to_numpy(copy=True)
    ranks[7, 0] = 0.5
    close(F.cross_sectional_rank(table), ranks)
    zscores = frame.sub(frame.mean(axis=1), axis=0).div(frame.std(axis=1, ddof=0), axis=0)
    close(F.cross_sectional_zscore(table), zscores.to_numpy())
    with pytest.raises(ValueError, match=r"shape \(n_steps, n_assets\)"):
        F.cross_sectional_rank(np.ones(5))


def test_asof_join() -> None:
    monthly = np.array(["2024-01-31", "2024-02-29"], dtype="M8[D]")
    daily = np.arange("2024-01-30", "2024-03-02", dtype="M8[D]")
    joined = F.asof_join(daily, monthly, [1.0, 2.0])  # sekai 0.2's order: targets first
    assert np.isnan(joined[0]) and joined[1] == 1.0 and joined[30] == 2.0 and joined[29] == 1.0
    by_name = F.asof_join(target_times=daily, event_times=monthly, values=[1.0, 2.0], lag=0)
    np.testing.assert_array_equal(by_name, joined)
    with pytest.raises(ValueError, match="strictly increasing"):
        F.asof_join([3], [2, 1], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"event_times must have shape \(2,\)"):
        F.asof_join([3], [1, 2, 3], [1.0, 2.0])


def test_asof_join_lag_delays_each_value_until_it_is_known() -> None:
    monthly = np.array(["2024-01-31", "2024-02-29"], dtype="M8[D]")
    daily = np.arange("2024-01-30", "2024-03-10", dtype="M8[D]")
    # Published three days after its date: January's value is known on February 3rd.
    for lag in (3, np.timedelta64(3, "D"), dt.timedelta(days=3)):
        joined = F.asof_join(daily, monthly, [1.0, 2.0], lag=lag)
        known = daily >= np.datetime64("2024-02-03")
        np.testing.assert_array_equal(np.isnan(joined), ~known)
        assert joined[daily == np.datetime64("2024-03-02")][0] == 1.0
        assert joined[daily == np.datetime64("2024-03-03")][0] == 2.0
    with pytest.raises(LookAheadError, match="lag"):
        F.asof_join(daily, monthly, [1.0, 2.0], lag=-1)
    with pytest.raises(LookAheadError, match="lag"):
        F.asof_join(daily, monthly, [1.0, 2.0], lag=np.timedelta64(-1, "h"))
    with pytest.raises(TypeError, match="lag must be a timedelta"):
        F.asof_join(daily, monthly, [1.0, 2.0], lag=1.5)
    with pytest.raises(TypeError, match="lag must be a finite real number"):
        F.asof_join([1, 2], [0, 1], [1.0, 2.0], lag=np.timedelta64(1, "D"))


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(st.integers(0, 50), min_size=1, max_size=12, unique=True).map(sorted),
    targets=st.lists(st.integers(-5, 70), min_size=1, max_size=12),
    lag=st.integers(0, 10),
)
def test_asof_join_reads_the_last_value_known_by_each_target(
    events: list[int], targets: list[int], lag: int
) -> None:
    values = np.arange(1.0, len(events) + 1.0)
    joined = F.asof_join(targets, events, values, lag=lag)
    for target, got in zip(targets, joined, strict=True):
        known = [v for e, v in zip(events, values, strict=True) if e + lag <= target]
        assert got == known[-1] if known else np.isnan(got)


CAUSAL: list[Callable[[np.ndarray], Any]] = [
    F.log_returns,
    F.simple_returns,
    F.lag,
    F.forward_fill,
    lambda x: F.momentum(x, 5, skip=1),
    lambda x: F.rolling_mean(x, 4),
    lambda x: F.rolling_std(x, 4),
    lambda x: F.rolling_zscore(x, 5),
    lambda x: F.realized_volatility(x, 3),
    lambda x: F.realized_volatility(prices=x, window=3),
    lambda x: F.rolling_mean(x, 4, min_periods=2),
    lambda x: F.rolling_std(x, 5, min_periods=3),
    lambda x: F.rolling_zscore(x, 5, min_periods=3),
    lambda x: F.ewm_mean(x, 3.0, min_periods=3),
    lambda x: F.ewm_mean(x, span=4),
    lambda x: F.ewm_mean(x, alpha=0.3, adjust=False),
    lambda x: F.ewm_std(x, halflife=2),
    lambda x: F.rsi(x, 3),
    F.cross_sectional_rank,
    F.cross_sectional_zscore,
]


@pytest.mark.parametrize("function", CAUSAL)
def test_every_feature_is_causal_on_real_prices(function: Any, prices: np.ndarray) -> None:
    F.check_causal(function, prices[:400], n_checks=12)


@settings(max_examples=40, deadline=None)
@given(
    values=hnp.arrays(
        np.float64,
        st.tuples(st.integers(2, 40), st.integers(1, 4)),
        elements=st.one_of(st.floats(0.5, 200.0), st.just(np.nan)),
    ),
    t=st.integers(0, 38),
    seed=st.integers(0, 1000),
    which=st.integers(0, len(CAUSAL) - 1),
)
def test_future_rows_never_change_past_values(
    values: np.ndarray, t: int, seed: int, which: int
) -> None:
    t = min(t, values.shape[0] - 2)
    function = CAUSAL[which]
    changed = values.copy()
    rng = np.random.default_rng(seed)
    changed[t + 1 :] = rng.uniform(0.5, 200.0, changed[t + 1 :].shape)
    changed[t + 1 :][rng.random(changed[t + 1 :].shape) < 0.2] = np.nan
    np.testing.assert_array_equal(
        np.asarray(function(values))[: t + 1], np.asarray(function(changed))[: t + 1]
    )


@pytest.mark.parametrize("function", CAUSAL)
def test_shorter_than_the_window(function: Any) -> None:
    for n_steps in (1, 2, 3):
        out = np.asarray(function(np.full((n_steps, 3), 5.0)))
        assert out.shape == (n_steps, 3)
    assert np.isnan(F.lag(np.ones(3), 5)).all() and np.isnan(F.log_returns(np.ones(3), 3)).all()


def test_check_causal_catches_look_ahead() -> None:
    def centred(x: np.ndarray) -> np.ndarray:
        return np.asarray(pd.DataFrame(x).rolling(5, center=True).mean())

    with pytest.raises(LookAheadError, match=r"centred: row .* changed when only rows after"):
        F.check_causal(centred, np.arange(1.0, 50.0))
    with pytest.raises(LookAheadError):
        F.check_causal(lambda x: x - np.nanmean(x, axis=0), np.arange(1.0, 50.0))
    with pytest.raises(ValueError, match="one row per input row"):
        F.check_causal(lambda x: x[1:], np.arange(1.0, 5.0))


def test_check_causal_takes_0_2_arguments() -> None:
    closes = np.arange(1.0, 60.0)

    def noisy_mean(x: np.ndarray) -> np.ndarray:
        # Causal up to a rounding-sized error: row t also reads later rows, at 1e-12 scale.
        return np.cumsum(x) / np.arange(1, len(x) + 1) + 1e-12 * x.mean()

    with pytest.raises(LookAheadError):
        F.check_causal(noisy_mean, closes)
    F.check_causal(fn=noisy_mean, x=closes, rtol=1e-9)
    F.check_causal(noisy_mean, closes, atol=1e-9, rng=np.random.default_rng(3))
    with pytest.raises(LookAheadError):  # a tolerance does not hide a real look-ahead
        F.check_causal(lambda x: x - np.nanmean(x, axis=0), closes, rtol=1e-6, rng=5)
    with pytest.raises(ValueError, match="rtol"):
        F.check_causal(noisy_mean, closes, rtol=-1.0)
    # The default generator is seeded: the same rows are checked every time, as with rng=0.
    rows: list[list[int]] = []
    for rng in (None, 0):
        seen: list[int] = []

        def spy(x: np.ndarray, seen: list[int] = seen) -> np.ndarray:
            seen.append(int(np.argmax(x != closes)) if (x != closes).any() else -1)
            return x

        F.check_causal(spy, closes, rng=rng)
        rows.append(seen)
    assert rows[0] == rows[1]


# -- by name -----------------------------------------------------------------------------------


def test_features_by_name(sp500: Any) -> None:
    data = MarketData.from_pandas(sp500[["Adj Close"]], fields={"volume": sp500[["Volume"]]})
    assert {"log_return", "momentum", "volatility", "sma", "ma_gap", "ema", "zscore", "rsi"} <= set(
        F.feature_names()
    )
    np.testing.assert_array_equal(F.compute_feature(data, "volume"), data.field("volume"))
    close(F.compute_feature(data, "momentum"), F.momentum(data.prices, 20))
    close(F.compute_feature(data, "momentum_60"), F.momentum(data.prices, 60))
    close(F.compute_feature(data, "volatility_5"), F.realized_volatility(data.log_returns(), 5))
    close(F.compute_feature(data, "log_return"), data.log_returns())
    close(F.compute_feature(data, "ma_gap_10"), data.prices / F.rolling_mean(data.prices, 10) - 1)
    assert not F.compute_feature(data, "rsi").flags.writeable
    with pytest.raises(KeyError, match=r"no feature 'alpha'.*fields are"):
        F.compute_feature(data, "alpha")
    with pytest.raises(KeyError, match="no feature 'momentum_05'"):
        F.compute_feature(data, "momentum_05")
    more = F.add_features(data, ["volume", "momentum_5", "rsi"])
    assert set(more.fields) == {"close", "volume", "momentum_5", "rsi"}
    assert F.add_features(more, ["rsi"]) is more
    computed = F.compute_features(data, ["sma_3", "ema_3"])
    assert list(computed) == ["sma_3", "ema_3"]
    with pytest.raises(TypeError, match="sequence of names"):
        F.compute_features(data, "sma")
    # a feature read at decision time t through the point-in-time accessor
    now = more.at(100)
    np.testing.assert_array_equal(now.field("momentum_5").latest, more.field("momentum_5")[100])


def test_registering_a_feature() -> None:
    def spread(data: MarketData, window: int) -> np.ndarray:
        return F.rolling_mean(data.field("high") - data.field("low"), window)

    try:
        feature = F.register_feature("hl_spread", spread, default_window=3, description="range")
        assert feature.name == "hl_spread" and "hl_spread" in F.feature_names()
        data = MarketData(
            fields={"close": np.ones(6), "high": np.arange(6.0) + 2, "low": np.arange(6.0)}
        )
        close(F.compute_feature(data, "hl_spread_2")[:, 0], [np.nan, 2, 2, 2, 2, 2])
        with pytest.raises(ValueError, match="registered already"):
            F.register_feature("hl_spread", spread, default_window=3)
        F.register_feature("hl_spread", spread, default_window=4, override=True)
    finally:
        F._REGISTRY.pop("hl_spread", None)
    for name in ("bad name", "window_20", 3):
        with pytest.raises(ValueError, match="identifier not ending in _<digits>"):
            F.register_feature(name, spread, default_window=1)  # type: ignore[arg-type]
    F._REGISTRY["wrong"] = F.Feature("wrong", lambda d, w: np.ones(3), 1)
    try:
        with pytest.raises(ValueError, match=r"must give shape \(4, 1\)"):
            F.compute_feature(MarketData(np.ones(4)), "wrong")
    finally:
        F._REGISTRY.pop("wrong")
