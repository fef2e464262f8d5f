"""Performance statistics of a series of periodic returns (private; public in ``metrics``).

Every function takes a 1-D series of simple returns, one per period, and the
number of periods in a year where it annualises. Definitions follow
``empyrical`` (Quantopian's, maintained as ``empyrical-reloaded``) except for
signs and the expected shortfall, as noted on each function:

- drawdowns, value at risk and expected shortfall are reported as positive
  losses (``0.2`` is a 20% loss), where empyrical returns negative returns;
- `conditional_value_at_risk` is the tail mean of the empirical
  distribution (Acerbi and Tasche 2002), which equals empyrical's estimate
  whenever ``n * (1 - level)`` is a whole number and is continuous in
  ``level`` otherwise.

A statistic that is undefined for the data (a volatility from fewer than two
returns, a ratio whose denominator is 0) is NaN.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from sekai._internal.validation import check_real
from sekai.finance._money import F64, as_array
from sekai.finance._renamed import either

__all__ = [
    "annualized_return",
    "annualized_volatility",
    "calmar_ratio",
    "check_level",
    "check_periods_per_year",
    "conditional_value_at_risk",
    "drawdown_series",
    "equity_curve",
    "hit_rate",
    "max_drawdown",
    "returns_from_equity",
    "series",
    "sharpe_ratio",
    "sortino_ratio",
    "total_return",
    "value_at_risk",
]


def series(values: ArrayLike, what: str) -> F64:
    """``values`` as a 1-D float64 array of finite numbers.

    Raises:
        TypeError: ``values`` cannot be read as numbers.
        ValueError: ``values`` is not 1-D or holds NaN or infinity.
    """
    array = as_array(values, what)
    if array.ndim != 1:
        raise ValueError(f"{what} must be a 1-D series, got an array of shape {array.shape}")
    if not np.isfinite(array).all():
        index = int(np.flatnonzero(~np.isfinite(array))[0])
        raise ValueError(
            f"{what} must hold finite numbers, got {float(array[index])!r} at index {index}"
        )
    return array


def check_periods_per_year(value: object, what: str) -> float:
    """``periods_per_year`` as a float > 0."""
    return check_real(value, what, minimum=0.0, min_open=True)


def check_level(value: object, what: str) -> float:
    """``level`` as a float in ``(0, 1)``."""
    return check_real(value, what, minimum=0.0, maximum=1.0, min_open=True, max_open=True)


def returns_from_equity(equity: ArrayLike) -> F64:
    """The simple returns ``equity[t] / equity[t - 1] - 1`` of an equity curve (one shorter)."""
    values = series(equity, "returns_from_equity: equity")
    with np.errstate(divide="ignore", invalid="ignore"):
        result: F64 = values[1:] / values[:-1] - 1.0
    return result


def equity_curve(returns: ArrayLike, initial: float = 1.0) -> F64:
    """The account value after each period, starting from ``initial`` (``n + 1`` values).

    ``curve[0] == initial`` and ``curve[t] = initial * prod(1 + returns[:t])``.
    """
    values = series(returns, "equity_curve: returns")
    start = check_real(initial, "equity_curve: initial")
    curve = np.empty(values.size + 1)
    curve[0] = start
    np.cumprod(1.0 + values, out=curve[1:])
    curve[1:] *= start
    return curve


def drawdown_series(returns: ArrayLike) -> F64:
    """The drawdown after each period: ``1 - equity / running peak``, with the start as a peak.

    A positive fraction (``0.2`` is 20% below the highest value so far), 0 at
    new highs; empyrical's ``drawdown_series`` is its negative.
    """
    curve = equity_curve(series(returns, "drawdown_series: returns"))
    peak = np.maximum.accumulate(curve)
    result: F64 = 1.0 - curve[1:] / peak[1:]
    return result


def total_return(returns: ArrayLike) -> float:
    """The compounded return over the whole series, ``prod(1 + r) - 1``."""
    values = series(returns, "total_return: returns")
    return float(np.prod(1.0 + values)) - 1.0


def annualized_return(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """The compound annual growth rate: ``(1 + total) ** (periods_per_year / n) - 1``.

    -1 when the account lost everything; NaN for an empty series. Same as
    empyrical's ``annual_return``.
    """
    values = series(returns, "annualized_return: returns")
    per_year = check_periods_per_year(periods_per_year, "annualized_return: periods_per_year")
    if values.size == 0:
        return math.nan
    growth = float(np.prod(1.0 + values))
    if growth <= 0.0:
        return -1.0
    return float(growth ** (per_year / values.size)) - 1.0


def annualized_volatility(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """The sample standard deviation of returns (``ddof=1``) times ``sqrt(periods_per_year)``.

    NaN for fewer than two returns. Same as empyrical's ``annual_volatility``.
    """
    values = series(returns, "annualized_volatility: returns")
    per_year = check_periods_per_year(periods_per_year, "annualized_volatility: periods_per_year")
    if values.size < 2:
        return math.nan
    return float(np.std(values, ddof=1)) * math.sqrt(per_year)


def _ratio(numerator: float, denominator: float) -> float:
    if denominator == 0.0 or math.isnan(denominator):
        return math.nan
    return numerator / denominator


def sharpe_ratio(
    returns: ArrayLike, periods_per_year: float = 252, risk_free: float = 0.0
) -> float:
    """The annualised Sharpe ratio: ``mean(r - rf) / std(r - rf) * sqrt(periods_per_year)``.

    ``risk_free`` is the risk-free return per period (not per year); the
    standard deviation is the sample one (``ddof=1``). NaN for fewer than two
    returns or a constant excess return. Same as empyrical's ``sharpe_ratio``.
    """
    values = series(returns, "sharpe_ratio: returns")
    per_year = check_periods_per_year(periods_per_year, "sharpe_ratio: periods_per_year")
    rf = check_real(risk_free, "sharpe_ratio: risk_free")
    if values.size < 2:
        return math.nan
    excess = values - rf
    if excess.max() == excess.min():
        return math.nan
    return _ratio(float(excess.mean()), float(np.std(excess, ddof=1))) * math.sqrt(per_year)


def sortino_ratio(
    returns: ArrayLike,
    periods_per_year: float = 252,
    target: float | None = None,
    *,
    risk_free: float | None = None,
) -> float:
    """The annualised Sortino ratio: mean excess return over downside deviation.

    ``mean(r - target) * periods_per_year / (sqrt(mean(min(r - target, 0) **
    2)) * sqrt(periods_per_year))``, with ``target`` the required return per
    period (0 by default). NaN for fewer than two returns or no return below
    ``target``. Same as empyrical's ``sortino_ratio`` (with
    ``required_return=target``), which gives infinity instead of NaN when
    nothing is below. ``risk_free=`` is another name of ``target``, the one
    `sharpe_ratio` uses.

    Raises:
        TypeError: Both ``target`` and ``risk_free`` given.
    """
    values = series(returns, "sortino_ratio: returns")
    per_year = check_periods_per_year(periods_per_year, "sortino_ratio: periods_per_year")
    required = either("sortino_ratio", "target", target, "risk_free", risk_free)
    rf = 0.0 if required is None else check_real(required, "sortino_ratio: target")
    if values.size < 2:
        return math.nan
    excess = values - rf
    downside = math.sqrt(float(np.mean(np.minimum(excess, 0.0) ** 2))) * math.sqrt(per_year)
    return _ratio(float(excess.mean()) * per_year, downside)


def max_drawdown(returns: ArrayLike) -> float:
    """The largest drop from a running peak, as a positive fraction (0 without a loss).

    The start of the series counts as a peak. Empyrical's ``max_drawdown`` is
    its negative.
    """
    values = series(returns, "max_drawdown: returns")
    if values.size == 0:
        return 0.0
    return float(drawdown_series(values).max(initial=0.0))


def calmar_ratio(returns: ArrayLike, periods_per_year: float = 252) -> float:
    """The annualised return divided by the maximum drawdown; NaN without a drawdown.

    Same as empyrical's ``calmar_ratio``.
    """
    values = series(returns, "calmar_ratio: returns")
    per_year = check_periods_per_year(periods_per_year, "calmar_ratio: periods_per_year")
    drawdown = max_drawdown(values)
    if drawdown <= 0.0:
        return math.nan
    return annualized_return(values, per_year) / drawdown


def value_at_risk(returns: ArrayLike, level: float = 0.95) -> float:
    """Historical value at risk: the loss exceeded in a fraction ``1 - level`` of periods.

    ``-quantile(returns, 1 - level)`` with linear interpolation between order
    statistics (numpy's default), as a positive loss. Empyrical's
    ``value_at_risk(returns, cutoff=1 - level)`` is its negative. NaN for an
    empty series.
    """
    values = series(returns, "value_at_risk: returns")
    tail = 1.0 - check_level(level, "value_at_risk: level")
    if values.size == 0:
        return math.nan
    return -float(np.quantile(values, tail))


def conditional_value_at_risk(returns: ArrayLike, level: float = 0.95) -> float:
    """Historical expected shortfall: the mean loss in the worst ``1 - level`` of periods.

    The tail mean of the empirical distribution (Acerbi and Tasche 2002): with
    the returns sorted ascending, ``m = n * (1 - level)`` and ``k = floor(m)``,
    ``-(sum of the k worst + (m - k) * the (k + 1)-th worst) / m``, a positive
    loss. Empyrical averages the ``floor((n - 1) * (1 - level)) + 1`` worst
    returns instead; the two agree (up to sign) when ``m`` is a whole number.
    NaN for an empty series.
    """
    values = series(returns, "conditional_value_at_risk: returns")
    tail = 1.0 - check_level(level, "conditional_value_at_risk: level")
    if values.size == 0:
        return math.nan
    mass = values.size * tail
    whole = min(math.floor(mass), values.size - 1)
    ordered = np.partition(values, whole)
    total = float(ordered[:whole].sum()) + (mass - whole) * float(ordered[whole])
    return -total / mass


def hit_rate(returns: ArrayLike) -> float:
    """The fraction of periods with a positive return; NaN for an empty series."""
    values = series(returns, "hit_rate: returns")
    if values.size == 0:
        return math.nan
    return float(np.count_nonzero(values > 0.0)) / values.size
