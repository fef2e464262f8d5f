"""Metrics: agreement with empyrical on real S&P 500 returns, closed forms, properties.

Definitional differences with empyrical (documented in sekai.finance.metrics):

- losses are positive here: ``max_drawdown``, ``value_at_risk`` and
  ``conditional_value_at_risk`` are empyrical's with the sign flipped;
- ``conditional_value_at_risk`` is the Acerbi-Tasche tail mean of the empirical
  distribution; empyrical averages the ``floor((n - 1) * (1 - level)) + 1`` worst
  returns. They coincide when ``n * (1 - level)`` is a whole number (checked on
  real returns of such lengths); otherwise the tail mean is checked against its
  closed form;
- a ratio with a zero denominator is NaN here (empyrical may give infinity).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import empyrical
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sekai.finance.metrics import (
    PerformanceSummary,
    PnLSummary,
    annualized_return,
    annualized_volatility,
    calmar_ratio,
    conditional_value_at_risk,
    drawdown_series,
    equity_curve,
    hit_rate,
    max_drawdown,
    performance_summary,
    pnl_summary,
    returns_from_equity,
    sharpe_ratio,
    sortino_ratio,
    total_return,
    value_at_risk,
)

FEW = settings(max_examples=40, deadline=None)
REL = 1e-9

# Returns on a grid of 1e-8 (real returns carry no more precision): values like
# 1e-300 would only test floating-point underflow, where no estimator is right.
return_series = hnp.arrays(
    np.float64,
    st.integers(2, 80),
    elements=st.integers(-20_000_000, 20_000_000).map(lambda units: units * 1e-8),
)


def close(value: float, reference: float) -> bool:
    return math.isclose(value, reference, rel_tol=REL, abs_tol=0.0)


# -- empyrical on real returns -------------------------------------------------------


@pytest.fixture(
    scope="module",
    params=[slice(None), slice(0, 252), slice(2000, 3000), slice(2200, 2700)],
    ids=["1999-2018", "1999", "2006-2010", "2007-2009"],
)
def window(request: Any, sp500_returns: NDArray[np.float64]) -> NDArray[np.float64]:
    returns: NDArray[np.float64] = sp500_returns[request.param]
    return returns


@pytest.mark.parametrize("periods_per_year", [252, 52])
def test_ratios_and_returns_agree_with_empyrical(
    window: NDArray[np.float64], periods_per_year: int
) -> None:
    annualization = {"annualization": periods_per_year}
    assert close(
        annualized_return(window, periods_per_year),
        empyrical.annual_return(window, **annualization),
    )
    assert close(
        annualized_volatility(window, periods_per_year),
        empyrical.annual_volatility(window, **annualization),
    )
    assert close(
        sharpe_ratio(window, periods_per_year), empyrical.sharpe_ratio(window, **annualization)
    )
    assert close(
        sortino_ratio(window, periods_per_year), empyrical.sortino_ratio(window, **annualization)
    )
    assert close(
        calmar_ratio(window, periods_per_year), empyrical.calmar_ratio(window, **annualization)
    )
    assert close(total_return(window), empyrical.cum_returns_final(window))


@pytest.mark.parametrize("risk_free", [0.0001, -0.00005])
def test_risk_free_rate_agrees_with_empyrical(
    window: NDArray[np.float64], risk_free: float
) -> None:
    assert close(
        sharpe_ratio(window, risk_free=risk_free), empyrical.sharpe_ratio(window, risk_free)
    )
    assert close(
        sortino_ratio(window, risk_free=risk_free),
        empyrical.sortino_ratio(window, required_return=risk_free),
    )
    # sekai 0.2's calls: both rates positional, the Sortino one named target.
    assert sharpe_ratio(window, 252, risk_free) == sharpe_ratio(window, risk_free=risk_free)
    by_target = sortino_ratio(window, target=risk_free)
    assert sortino_ratio(window, 252, risk_free) == by_target
    assert sortino_ratio(window, risk_free=risk_free) == by_target
    assert close(by_target, empyrical.sortino_ratio(window, required_return=risk_free))
    with pytest.raises(TypeError, match=r"target=.* and risk_free=.*pass one"):
        sortino_ratio(window, target=risk_free, risk_free=risk_free)


def test_drawdowns_agree_with_empyrical_up_to_sign(window: NDArray[np.float64]) -> None:
    assert close(max_drawdown(window), -empyrical.max_drawdown(window))
    np.testing.assert_allclose(
        drawdown_series(window), -empyrical.stats.drawdown_series(window), rtol=REL, atol=1e-15
    )


@pytest.mark.parametrize("level", [0.95, 0.99, 0.9])
def test_value_at_risk_agrees_with_empyrical_up_to_sign(
    window: NDArray[np.float64], level: float
) -> None:
    assert close(value_at_risk(window, level), -empyrical.value_at_risk(window, cutoff=1.0 - level))


@pytest.mark.parametrize(
    ("length", "level"), [(2000, 0.95), (2000, 0.99), (500, 0.9), (5000, 0.99)]
)
def test_expected_shortfall_agrees_with_empyrical_when_the_tail_is_whole(
    sp500_returns: NDArray[np.float64], length: int, level: float
) -> None:
    # n * (1 - level) is a whole number here, where both estimators average the same returns
    for start in (0, sp500_returns.size - length):
        window = sp500_returns[start : start + length]
        expected = -empyrical.conditional_value_at_risk(window, cutoff=1.0 - level)
        assert close(conditional_value_at_risk(window, level), expected)


def test_expected_shortfall_is_the_tail_mean_otherwise(sp500_returns: NDArray[np.float64]) -> None:
    # n = 5030 at 95%: the tail holds 251.5 returns, the 252nd worst counts half
    ordered = np.sort(sp500_returns)
    expected = -(ordered[:251].sum() + 0.5 * ordered[251]) / 251.5
    assert close(conditional_value_at_risk(sp500_returns, 0.95), expected)
    empyrical_value = -empyrical.conditional_value_at_risk(sp500_returns, cutoff=0.05)
    assert empyrical_value == pytest.approx(-ordered[:252].mean(), rel=1e-12)  # its definition
    assert not close(conditional_value_at_risk(sp500_returns, 0.95), empyrical_value)


def test_summary_on_real_returns(sp500_returns: NDArray[np.float64]) -> None:
    summary = performance_summary(sp500_returns)
    assert summary.n_periods == 5030
    assert close(summary.sharpe_ratio, empyrical.sharpe_ratio(sp500_returns))
    assert close(summary.max_drawdown, -empyrical.max_drawdown(sp500_returns))
    assert close(summary.value_at_risk, -empyrical.value_at_risk(sp500_returns, 0.05))
    # the index lost 56.8% from October 2007 to March 2009
    assert summary.max_drawdown == pytest.approx(0.5678, abs=1e-4)
    assert summary.conditional_value_at_risk > summary.value_at_risk > 0.0
    assert summary.mean_turnover is None
    assert summary.total_cost is None


# -- closed forms --------------------------------------------------------------------------


def test_returns_and_drawdowns_hand_computed() -> None:
    returns = [0.1, -0.5, 0.2]
    assert total_return([0.1, -0.1]) == pytest.approx(-0.01, rel=1e-12)
    np.testing.assert_allclose(equity_curve(returns, 100.0), [100.0, 110.0, 55.0, 66.0], rtol=1e-15)
    np.testing.assert_allclose(drawdown_series(returns), [0.0, 0.5, 0.4], rtol=1e-15)
    assert max_drawdown(returns) == pytest.approx(0.5, rel=1e-15)
    assert max_drawdown([0.01, 0.02]) == 0.0
    assert max_drawdown([-0.1]) == pytest.approx(0.1, rel=1e-15)  # the start is a peak
    # two years of 252 periods doubling the money: sqrt(2) - 1 a year
    doubling = np.full(504, 2.0 ** (1 / 504) - 1.0)
    assert annualized_return(doubling) == pytest.approx(math.sqrt(2.0) - 1.0, rel=1e-12)
    assert annualized_return([-1.0, 0.5]) == -1.0
    assert calmar_ratio([0.1, -0.5, 0.2], 3) == pytest.approx(-0.34 / 0.5, rel=1e-12)
    assert math.isnan(calmar_ratio([0.01, 0.02]))


def test_volatility_and_ratios_hand_computed() -> None:
    returns = [0.01, -0.02, 0.03, 0.0]
    mean, std = 0.005, math.sqrt((0.005**2 + 0.025**2 + 0.025**2 + 0.005**2) / 3)
    assert annualized_volatility(returns, 4) == pytest.approx(std * 2.0, rel=1e-12)
    assert sharpe_ratio(returns, 4) == pytest.approx(mean / std * 2.0, rel=1e-12)
    downside = math.sqrt(0.02**2 / 4) * 2.0
    assert sortino_ratio(returns, 4) == pytest.approx(mean * 4 / downside, rel=1e-12)
    assert hit_rate(returns) == 0.5
    for undefined in (
        sharpe_ratio([0.01]),
        sharpe_ratio([0.01, 0.01]),
        sortino_ratio([0.01, 0.02]),
    ):
        assert math.isnan(undefined)
    assert math.isnan(annualized_volatility([0.01]))


def test_value_at_risk_and_expected_shortfall_hand_computed() -> None:
    returns = np.linspace(-0.10, 0.09, 20)  # -0.10, -0.09, ..., 0.09, shuffled below
    returns = np.random.default_rng(0).permutation(returns)
    # 90%: the two worst, -0.10 and -0.09
    assert conditional_value_at_risk(returns, 0.9) == pytest.approx(0.095, rel=1e-12)
    # 92.5%: 1.5 returns in the tail, -0.10 and half of -0.09
    assert conditional_value_at_risk(returns, 0.925) == pytest.approx(0.145 / 1.5, rel=1e-12)
    # fewer than one return in the tail: the worst one
    assert conditional_value_at_risk(returns, 0.99) == pytest.approx(0.10, rel=1e-12)
    # linear interpolation at position 0.075 * 19 = 1.425
    assert value_at_risk(returns, 0.925) == pytest.approx(0.09 - 0.425 * 0.01, rel=1e-12)
    assert value_at_risk(returns, 0.5) == pytest.approx(0.005, rel=1e-9)


@FEW
@given(
    returns=return_series,
    low=st.floats(0.5, 0.98, allow_subnormal=False),
    high=st.floats(0.5, 0.98, allow_subnormal=False),
)
def test_expected_shortfall_grows_with_the_level_and_exceeds_the_lower_quantile(
    returns: NDArray[np.float64], low: float, high: float
) -> None:
    low, high = min(low, high), max(low, high)
    assert (
        conditional_value_at_risk(returns, high) >= conditional_value_at_risk(returns, low) - 1e-12
    )
    tail = returns.size * (1.0 - high)
    lower_quantile = np.sort(returns)[max(math.ceil(tail) - 1, 0)]
    assert conditional_value_at_risk(returns, high) >= -lower_quantile - 1e-12


@FEW
@given(returns=return_series, start=st.floats(0.5, 1e6, allow_subnormal=False))
def test_equity_curve_round_trips(returns: NDArray[np.float64], start: float) -> None:
    curve = equity_curve(returns, start)
    np.testing.assert_allclose(returns_from_equity(curve), returns, rtol=1e-9, atol=1e-12)
    assert total_return(returns) == pytest.approx(curve[-1] / start - 1.0, rel=1e-9, abs=1e-12)
    assert 0.0 <= max_drawdown(returns) <= 1.0


@FEW
@given(returns=return_series)
def test_functions_agree_with_empyrical_on_random_series(returns: NDArray[np.float64]) -> None:
    if returns.max() == returns.min():
        return
    assert sharpe_ratio(returns) == pytest.approx(empyrical.sharpe_ratio(returns), rel=1e-9)
    assert annualized_volatility(returns) == pytest.approx(
        empyrical.annual_volatility(returns), rel=1e-9
    )
    assert max_drawdown(returns) == pytest.approx(
        -empyrical.max_drawdown(returns), rel=1e-9, abs=1e-15
    )
    assert value_at_risk(returns) == pytest.approx(
        -empyrical.value_at_risk(returns), rel=1e-9, abs=1e-15
    )


# -- summaries -------------------------------------------------------------------------------


def test_performance_summary_fields_turnover_and_costs() -> None:
    summary = performance_summary(
        [0.01, -0.02, 0.03, 0.0], 4, turnover=[0.5, 0.1, 0.0, 0.2], costs=[0.001, 0.0, 0.0, 0.0004]
    )
    assert summary.mean_turnover == pytest.approx(0.2, rel=1e-12)
    assert summary.total_cost == pytest.approx(0.0014, rel=1e-12)
    assert summary.sharpe_ratio == sharpe_ratio([0.01, -0.02, 0.03, 0.0], 4)
    values = summary.as_dict()
    assert list(values) == [field.name for field in dataclasses.fields(PerformanceSummary)]
    assert values["n_periods"] == 4
    assert values["total_cost"] == summary.total_cost
    with pytest.raises(dataclasses.FrozenInstanceError):
        summary.total_cost = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: performance_summary([]), ValueError, r"at least one return"),
        (
            lambda: performance_summary([0.1, math.nan]),
            ValueError,
            r"must hold finite numbers, got nan",
        ),
        (
            lambda: performance_summary([[0.1]]),
            ValueError,
            r"1-D series, got an array of shape \(1, 1\)",
        ),
        (
            lambda: performance_summary([0.1], 0),
            ValueError,
            r"periods_per_year must be a finite real number > 0",
        ),
        (lambda: performance_summary([0.1], level=1.0), ValueError, r"level must be"),
        (
            lambda: performance_summary([0.1], turnover=[math.inf]),
            ValueError,
            r"turnover must hold finite",
        ),
        (
            lambda: performance_summary(["a"]),
            TypeError,
            r"returns must be an array of real numbers",
        ),
        (lambda: pnl_summary([]), ValueError, r"at least one PnL"),
        (
            lambda: pnl_summary([1.0], scale=-1.0),
            ValueError,
            r"scale must be a finite real number >= 0",
        ),
    ],
)
def test_summary_errors(call: Any, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        call()


def test_pnl_summary_hand_computed() -> None:
    pnl = [10.0, -20.0, 5.0, 15.0]
    summary = pnl_summary(pnl, 252)
    std = math.sqrt(725.0 / 3.0)
    assert summary == PnLSummary(
        n_periods=4,
        total_pnl=10.0,
        mean_pnl=2.5,
        pnl_volatility=pytest.approx(std, rel=1e-12),  # type: ignore[arg-type]
        sharpe_ratio=pytest.approx(2.5 / std * math.sqrt(252), rel=1e-12),  # type: ignore[arg-type]
        max_drawdown=20.0,  # cumulative 0, 10, -10, -5, 10
        hit_rate=0.75,
    )
    # with capital: wealth 100, 110, 90, 95, 110
    assert pnl_summary(pnl, scale=100.0).max_drawdown == pytest.approx(20.0 / 110.0, rel=1e-12)
    assert pnl_summary([-5.0]).max_drawdown == 5.0
    assert math.isnan(pnl_summary([1.0]).sharpe_ratio)
    assert list(summary.as_dict()) == [field.name for field in dataclasses.fields(PnLSummary)]


def test_pnl_summary_of_a_real_position(sp500_prices: NDArray[np.float64]) -> None:
    # holding 10 units of the index: the PnL is 10 * price changes
    pnl = 10.0 * np.diff(sp500_prices)
    summary = pnl_summary(pnl)
    assert summary.total_pnl == pytest.approx(10.0 * (sp500_prices[-1] - sp500_prices[0]), rel=1e-9)
    peak = np.maximum.accumulate(sp500_prices)
    assert summary.max_drawdown == pytest.approx(
        10.0 * float((peak - sp500_prices).max()), rel=1e-9
    )
    assert summary.sharpe_ratio == pytest.approx(empyrical.sharpe_ratio(pnl), rel=1e-9)
