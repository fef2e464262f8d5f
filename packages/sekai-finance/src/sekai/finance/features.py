"""Technical features, computed point-in-time and vectorised over assets.

Every function takes an array whose first axis is time (``(n_steps,)`` or
``(n_steps, n_assets)``, NaN where unavailable) and returns a float64 array
of the same shape whose row ``t`` depends on rows ``0..t`` only: features
can be computed once over a whole history and read at any row without
look-ahead. A window that is not full, or that holds a NaN, gives NaN
(unless ``min_periods`` asks for fewer rows). `check_causal` tests that
property for any function, yours included. Parameter names and orders are
sekai 0.2's (``ewm_mean(x, halflife)``, ``asof_join(target_times,
event_times, values, *, lag)``, ...).

Environments take features by name (``MarketEnv(features=("momentum_20",
"volatility"))``): `compute_feature` resolves a name to a field of the
data, or to a registered feature, with an optional ``_<window>`` suffix
(``"momentum"`` uses the default window, ``"momentum_60"`` a window of 60);
`add_features` adds them to the data as fields. `register_feature`
adds your own.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_callable, check_int, check_real, is_int, is_real
from sekai.error import LookAheadError
from sekai.utils.seeding import np_random

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = [
    "Feature",
    "add_features",
    "asof_join",
    "check_causal",
    "compute_feature",
    "compute_features",
    "cross_sectional_rank",
    "cross_sectional_zscore",
    "ewm_mean",
    "ewm_std",
    "feature_names",
    "forward_fill",
    "lag",
    "log_returns",
    "momentum",
    "realized_volatility",
    "register_feature",
    "rolling_mean",
    "rolling_std",
    "rolling_zscore",
    "rsi",
    "simple_returns",
]

Array = NDArray[np.float64]


def _values(values: ArrayLike, what: str) -> Array:
    array = np.array(values, dtype=np.float64, copy=True)
    if array.ndim < 1 or array.shape[0] < 1:
        raise ValueError(
            f"{what}: expected an array whose first axis is time, with rows; got shape "
            f"{array.shape}"
        )
    return array


def _periods(periods: int, what: str) -> int:
    if isinstance(periods, int) and not isinstance(periods, bool) and periods < 0:
        raise LookAheadError(f"{what}: periods={periods} would read rows after each row")
    return check_int(periods, f"{what}: periods", minimum=1)


def _window(window: int, what: str) -> int:
    return check_int(window, f"{what}: window", minimum=1)


def _min_periods(min_periods: int | None, window: int, what: str) -> int:
    """The fewest values a window needs (None: the whole window)."""
    if min_periods is None:
        return window
    return check_int(min_periods, f"{what}: min_periods", minimum=0, maximum=window)


def _nans(shape: tuple[int, ...]) -> Array:
    return np.full(shape, np.nan)


# -- returns -----------------------------------------------------------------------------------


def log_returns(prices: ArrayLike, periods: int = 1) -> Array:
    """``log(p[t] / p[t - periods])``; the first ``periods`` rows are NaN.

    Raises:
        LookAheadError: ``periods`` < 0 (a return over later rows).
    """
    periods = _periods(periods, "log_returns")
    p = _values(prices, "log_returns")
    out = _nans(p.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.log(p[periods:] / p[:-periods], out=out[periods:])
    return out


def simple_returns(prices: ArrayLike, periods: int = 1) -> Array:
    """``p[t] / p[t - periods] - 1``; the first ``periods`` rows are NaN.

    Raises:
        LookAheadError: ``periods`` < 0.
    """
    periods = _periods(periods, "simple_returns")
    p = _values(prices, "simple_returns")
    out = _nans(p.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[periods:] = p[periods:] / p[:-periods] - 1.0
    return out


def momentum(prices: ArrayLike, window: int = 20, *, skip: int = 0) -> Array:
    """``log(p[t - skip] / p[t - window])``: the trend over a window.

    ``skip`` leaves out the most recent rows (the 12-1 momentum of equities is
    ``window=252, skip=21``).

    Raises:
        ValueError: ``skip`` >= ``window``.
    """
    window = _window(window, "momentum")
    skip = check_int(skip, "momentum: skip", minimum=0, maximum=window - 1)
    p = _values(prices, "momentum")
    out = _nans(p.shape)
    if window >= p.shape[0]:
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        np.log(p[window - skip : p.shape[0] - skip] / p[: p.shape[0] - window], out=out[window:])
    return out


def lag(x: ArrayLike, periods: int = 1) -> Array:
    """``x[t - periods]`` at row ``t`` (the first ``periods`` rows are NaN).

    Raises:
        LookAheadError: ``periods`` < 0 (a lead, reading later rows).
    """
    if isinstance(periods, int) and not isinstance(periods, bool) and periods < 0:
        raise LookAheadError(f"lag: periods={periods} would read rows after each row")
    periods = check_int(periods, "lag: periods", minimum=0)
    values = _values(x, "lag")
    out = _nans(values.shape)
    if periods < values.shape[0]:
        out[periods:] = values[: values.shape[0] - periods]
    return out


def forward_fill(x: ArrayLike, *, limit: int | None = None) -> Array:
    """Each NaN replaced by the last value before it (at most ``limit`` rows back).

    Leading NaNs stay NaN. Filling carries the past forward, never the future
    back.
    """
    values = _values(x, "forward_fill")
    limit = None if limit is None else check_int(limit, "forward_fill: limit", minimum=0)
    rows = np.arange(values.shape[0]).reshape((-1,) + (1,) * (values.ndim - 1))
    last = np.maximum.accumulate(np.where(np.isnan(values), -1, rows), axis=0)
    out = np.take_along_axis(values, np.maximum(last, 0), axis=0)
    stale = last < 0
    if limit is not None:
        stale |= rows - last > limit
    out[stale] = np.nan
    return out


# -- rolling windows --------------------------------------------------------------------------


def _rolling_sums(x: Array, window: int, powers: int) -> tuple[list[Array], Array, Array]:
    """Sums of ``(x - x0) ** k`` (k = 1..powers) over the finite values of each window.

    The window of row ``t`` is rows ``t - window + 1 .. t`` (from row 0 for the
    first rows). Also returns the number of finite values in each window, and
    ``x0``: each column's first finite value, known before any window that
    holds a value, so the sums stay causal (and centred, for precision).
    """
    finite = np.isfinite(x)
    first = np.argmax(finite, axis=0)
    reference = np.take_along_axis(x, first[np.newaxis, ...], axis=0)[0]
    reference = np.where(np.isfinite(reference), reference, 0.0)
    centred = np.where(finite, x - reference, 0.0)
    zero = np.zeros((1, *x.shape[1:]))
    ends = np.arange(1, x.shape[0] + 1)
    starts = np.maximum(ends - window, 0)

    def moving(values: Array) -> Array:
        total = np.concatenate([zero, np.cumsum(values, axis=0)])
        result: Array = total[ends] - total[starts]
        return result

    sums = [moving(centred**power) for power in range(1, powers + 1)]
    return sums, moving(finite.astype(np.float64)), reference


def rolling_mean(x: ArrayLike, window: int, *, min_periods: int | None = None) -> Array:
    """The mean of the last ``window`` rows (rows ``t - window + 1 .. t``).

    ``min_periods`` as in pandas: the fewest finite values a window needs
    (missing ones left out); None, the default, needs a full window of
    finite values.
    """
    window = _window(window, "rolling_mean")
    needed = _min_periods(min_periods, window, "rolling_mean")
    values = _values(x, "rolling_mean")
    (s1,), count, reference = _rolling_sums(values, window, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count >= needed, reference + s1 / count, np.nan)


def rolling_std(
    x: ArrayLike, window: int, *, min_periods: int | None = None, ddof: int = 1
) -> Array:
    """The standard deviation of the last ``window`` rows (``ddof`` as in numpy).

    ``min_periods`` as in `rolling_mean`; a window needs more than ``ddof``
    values as well.

    Raises:
        ValueError: ``window <= ddof``.
    """
    window = _window(window, "rolling_std")
    ddof = check_int(ddof, "rolling_std: ddof", minimum=0, maximum=window - 1)
    needed = _min_periods(min_periods, window, "rolling_std")
    values = _values(x, "rolling_std")
    (s1, s2), count, _ = _rolling_sums(values, window, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.maximum(s2 - s1 * s1 / count, 0.0) / (count - ddof)
        return np.where((count >= needed) & (count > ddof), np.sqrt(variance), np.nan)


def rolling_zscore(
    x: ArrayLike, window: int, *, min_periods: int | None = None, ddof: int = 1
) -> Array:
    """``(x[t] - mean) / std`` over the last ``window`` rows, row ``t`` included.

    ``min_periods`` as in `rolling_mean`. NaN where the window's standard
    deviation is 0.
    """
    values = _values(x, "rolling_zscore")
    mean = rolling_mean(values, window, min_periods=min_periods)
    std = rolling_std(values, window, min_periods=min_periods, ddof=ddof)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(std > 0, (values - mean) / std, np.nan)


def realized_volatility(
    returns: ArrayLike | None = None,
    window: int = 20,
    *,
    periods_per_year: float | None = None,
    prices: ArrayLike | None = None,
) -> Array:
    """The standard deviation of the last ``window`` returns (``ddof=1``).

    Annualised by ``sqrt(periods_per_year)`` when that is given. Pass the
    returns (sekai 0.2's argument), or ``prices=`` for the volatility of their
    log returns: ``realized_volatility(prices=p)`` is
    ``realized_volatility(log_returns(p))``.

    Raises:
        TypeError: Both or neither of ``returns`` and ``prices`` given.
    """
    series: ArrayLike
    if prices is not None and returns is None:
        series = log_returns(prices)
    elif returns is not None and prices is None:
        series = returns
    else:
        raise TypeError(
            "realized_volatility: pass the returns, or prices= for the volatility of their log "
            f"returns (one of the two); got returns={returns!r} and prices={prices!r}"
        )
    volatility = rolling_std(series, window)
    if periods_per_year is not None:
        scale = check_real(
            periods_per_year, "realized_volatility: periods_per_year", minimum=0, min_open=True
        )
        volatility *= math.sqrt(scale)
    return volatility


# -- exponentially weighted ---------------------------------------------------------------------


def _alpha(span: float | None, halflife: float | None, alpha: float | None, what: str) -> float:
    given = [
        name
        for name, value in (("span", span), ("halflife", halflife), ("alpha", alpha))
        if value is not None
    ]
    if len(given) != 1:
        raise ValueError(
            f"{what}: pass exactly one of span, halflife and alpha, got {given or 'none'}"
        )
    if span is not None:
        return 2.0 / (check_real(span, f"{what}: span", minimum=1.0) + 1.0)
    if halflife is not None:
        h = check_real(halflife, f"{what}: halflife", minimum=0.0, min_open=True)
        return 1.0 - math.exp(-math.log(2.0) / h)
    return check_real(alpha, f"{what}: alpha", minimum=0.0, maximum=1.0, min_open=True)


def _ewm(x: Array, alpha: float, adjust: bool, with_var: bool) -> tuple[Array, Array]:
    """Exponentially weighted mean and bias-corrected variance, as pandas computes them.

    pandas' online algorithm (``ignore_na=False``), row by row, vectorised over
    the other axes.
    """
    decay = 1.0 - alpha
    new_weight = 1.0 if adjust else alpha
    shape = x.shape[1:]
    mean = np.full(shape, np.nan)
    cov = np.zeros(shape)
    old_weight = np.ones(shape)
    sum_w = np.ones(shape)
    sum_w2 = np.ones(shape)
    means = _nans(x.shape)
    variances = _nans(x.shape) if with_var else means
    for t in range(x.shape[0]):
        row = x[t]
        seen = ~np.isnan(row)
        started = ~np.isnan(mean)
        going = started  # decay applies to observations and gaps alike
        old_weight = np.where(going, old_weight * decay, old_weight)
        if with_var:
            sum_w = np.where(going, sum_w * decay, sum_w)
            sum_w2 = np.where(going, sum_w2 * decay * decay, sum_w2)
        update = started & seen
        previous = mean
        total = old_weight + new_weight
        mean = np.where(update, (old_weight * previous + new_weight * row) / total, previous)
        if with_var:
            cov = np.where(
                update,
                (old_weight * (cov + (previous - mean) ** 2) + new_weight * (row - mean) ** 2)
                / total,
                cov,
            )
            sum_w = np.where(update, sum_w + new_weight, sum_w)
            sum_w2 = np.where(update, sum_w2 + new_weight * new_weight, sum_w2)
        old_weight = np.where(update, old_weight + new_weight, old_weight)
        if not adjust:
            if with_var:
                sum_w = np.where(update, sum_w / old_weight, sum_w)
                sum_w2 = np.where(update, sum_w2 / (old_weight * old_weight), sum_w2)
            old_weight = np.where(update, 1.0, old_weight)
        fresh = ~started & seen  # the first observation of a series
        mean = np.where(fresh, row, mean)
        if with_var:
            cov = np.where(fresh, 0.0, cov)
            sum_w = np.where(fresh, 1.0, sum_w)
            sum_w2 = np.where(fresh, 1.0, sum_w2)
            numerator = sum_w * sum_w
            denominator = numerator - sum_w2
            with np.errstate(invalid="ignore", divide="ignore"):
                corrected = np.where(denominator > 0, numerator / denominator * cov, np.nan)
            variances[t] = np.where(seen, corrected, np.nan)
        old_weight = np.where(fresh, 1.0, old_weight)
        means[t] = np.where(seen, mean, np.nan)
    return means, variances


def _seen_enough(values: Array, out: Array, min_periods: int, what: str) -> Array:
    """``out`` with NaN wherever fewer than ``min_periods`` values were seen up to the row."""
    needed = check_int(min_periods, f"{what}: min_periods", minimum=0)
    if needed > 1:
        seen = np.cumsum(~np.isnan(values), axis=0)
        out[seen < needed] = np.nan
    return out


def ewm_mean(
    x: ArrayLike,
    halflife: float | None = None,
    *,
    span: float | None = None,
    alpha: float | None = None,
    adjust: bool = True,
    min_periods: int = 0,
) -> Array:
    """The exponentially weighted mean of rows up to ``t`` (pandas' ``ewm().mean()``).

    Pass exactly one of ``halflife`` (sekai 0.2's second argument), ``span``
    (``alpha = 2 / (span + 1)``) and ``alpha``. ``adjust`` as in pandas: True
    weighs row ``t - i`` by ``(1 - alpha) ** i`` over the rows seen, False
    uses the recursion ``m = (1 - alpha) m + alpha x``. A NaN row is NaN but
    ages the earlier rows (pandas' ``ignore_na=False``). ``min_periods`` as in
    pandas: NaN until that many values have been seen.
    """
    values = _values(x, "ewm_mean")
    mean = _ewm(values, _alpha(span, halflife, alpha, "ewm_mean"), adjust, False)[0]
    return _seen_enough(values, mean, min_periods, "ewm_mean")


def ewm_std(
    x: ArrayLike,
    halflife: float | None = None,
    *,
    span: float | None = None,
    alpha: float | None = None,
    min_periods: int = 0,
) -> Array:
    """The exponentially weighted standard deviation, bias-corrected.

    As pandas' ``ewm(...).std()`` (``adjust=True``); NaN until two rows are
    seen, or ``min_periods`` if more. ``halflife``, ``span`` and ``alpha`` as
    in `ewm_mean`.
    """
    values = _values(x, "ewm_std")
    variance = _ewm(values, _alpha(span, halflife, alpha, "ewm_std"), True, True)[1]
    return _seen_enough(values, np.sqrt(variance), min_periods, "ewm_std")


def rsi(prices: ArrayLike, window: int = 14) -> Array:
    """Wilder's relative strength index, in [0, 100].

    Average gains and losses of the price changes are smoothed with
    ``alpha = 1 / window`` (Wilder's recursion); the first ``window`` rows are
    NaN. 100 when there were only gains, 50 when the price did not move.
    """
    window = _window(window, "rsi")
    p = _values(prices, "rsi")
    change = np.diff(p, axis=0, prepend=np.nan)
    gains = _ewm(
        np.where(np.isnan(change), np.nan, np.maximum(change, 0.0)), 1 / window, False, False
    )[0]
    losses = _ewm(
        np.where(np.isnan(change), np.nan, np.maximum(-change, 0.0)), 1 / window, False, False
    )[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 100.0 - 100.0 / (1.0 + gains / losses)
    out = np.where(losses == 0, np.where(gains > 0, 100.0, 50.0), out)
    out = np.where(np.isnan(gains) | np.isnan(losses), np.nan, out)
    out[:window] = np.nan
    return out


# -- across assets -------------------------------------------------------------------------------


def _table(x: ArrayLike, what: str) -> Array:
    values = _values(x, what)
    if values.ndim != 2:
        raise ValueError(f"{what}: x must have shape (n_steps, n_assets), got {values.shape}")
    return values


def cross_sectional_rank(x: ArrayLike) -> Array:
    """Each row ranked across assets, scaled to [0, 1] (0 the lowest, ties averaged).

    NaN entries stay NaN and are not ranked; a row with one finite value gives
    it 0.5.
    """
    values = _table(x, "cross_sectional_rank")
    out = _nans(values.shape)
    for t in range(values.shape[0]):
        finite = np.isfinite(values[t])
        row = values[t, finite]
        if row.size == 1:
            out[t, finite] = 0.5
        elif row.size > 1:
            ordered = np.sort(row)
            low = np.searchsorted(ordered, row, side="left")
            high = np.searchsorted(ordered, row, side="right")
            out[t, finite] = (low + high - 1) / 2.0 / (row.size - 1)
    return out


def cross_sectional_zscore(x: ArrayLike) -> Array:
    """Each row standardised across assets: ``(x - mean) / std`` (``ddof=0``).

    NaN entries are left out; rows with fewer than two finite values, or no
    spread, give NaN.
    """
    values = _table(x, "cross_sectional_zscore")
    finite = np.isfinite(values)
    count = finite.sum(axis=1, keepdims=True)
    filled = np.where(finite, values, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1, keepdims=True) / count
        deviations = np.where(finite, values - mean, 0.0)
        std = np.sqrt((deviations**2).sum(axis=1, keepdims=True) / count)
        out = (values - mean) / std
    return np.where(finite & (count >= 2) & (std > 0), out, np.nan)


def _known_from(stamps: NDArray[Any], lag: Any) -> NDArray[Any]:
    """The time each value becomes known: its stamp plus ``lag`` (checked to be >= 0)."""
    if isinstance(lag, datetime.timedelta):
        lag = np.timedelta64(lag)
    dated = stamps.dtype.kind == "M"
    if isinstance(lag, np.timedelta64):  # a numpy integer too: tested first
        valid = dated
    else:  # an int counts the unit of datetime64 times
        valid = is_int(lag) or (not dated and is_real(lag) and math.isfinite(lag))
    if not valid:
        expected = "a timedelta, or an int in the times' unit" if dated else "a finite real number"
        raise TypeError(f"asof_join: lag must be {expected}, got {lag!r}")
    if lag < (np.timedelta64(0) if isinstance(lag, np.timedelta64) else 0):
        raise LookAheadError(f"asof_join: lag={lag!r} would use values before their time")
    known: NDArray[Any] = stamps + lag
    return known


def asof_join(
    target_times: ArrayLike, event_times: ArrayLike, values: ArrayLike, *, lag: Any = 0
) -> Array:
    """The values of a series as known at other times (a point-in-time join).

    For each ``target_times[j]``, the last value known by then: the one with
    the latest ``event_times[i] + lag`` at or before it (NaN before the
    first). Joining a slower series (monthly macro data, quarterly
    fundamentals) onto daily rows this way never uses a value before its
    time; ``lag`` adds a publication delay.

    Args:
        target_times: ``(k,)`` times to read the series at.
        event_times: ``(m,)`` strictly increasing times of ``values`` (numbers
            or datetime64).
        values: ``(m, ...)`` the series.
        lag: The delay between a value's time and the time it is known (>= 0):
            a number in the times' unit, or for datetime64 times a
            ``timedelta`` / ``numpy.timedelta64`` (an int counts the times'
            unit). 0 by default.

    Returns:
        ``(k, ...)`` float64.

    Raises:
        LookAheadError: ``lag`` < 0.
        ValueError: ``event_times`` has the wrong shape or is not strictly
            increasing.
    """
    stamps = np.asarray(event_times)
    series = _values(values, "asof_join")
    targets = np.asarray(target_times)
    if stamps.ndim != 1 or stamps.shape[0] != series.shape[0]:
        raise ValueError(
            f"asof_join: event_times must have shape ({series.shape[0]},) (one per row of "
            f"values), got {stamps.shape}"
        )
    if stamps.shape[0] > 1 and not bool(np.all(stamps[1:] > stamps[:-1])):
        raise ValueError("asof_join: event_times must be strictly increasing")
    rows = np.searchsorted(_known_from(stamps, lag), targets, side="right") - 1
    out = series[np.maximum(rows, 0)]
    out[rows < 0] = np.nan
    return out


# -- checking causality ------------------------------------------------------------------------


def check_causal(
    fn: Callable[[Array], ArrayLike],
    x: ArrayLike,
    *,
    n_checks: int = 8,
    rng: np.random.Generator | int | None = None,
    rtol: float = 0.0,
    atol: float = 0.0,
) -> None:
    """Check that ``fn`` computes row ``t`` from rows ``0..t`` only.

    For ``n_checks`` rows ``t``, the rows after ``t`` are multiplied by random
    positive factors (signs, zeros and NaNs are kept, so prices stay prices);
    the rows up to ``t`` of the output must not change: not at all by
    default, or by no more than ``atol + rtol * |value|`` (NaN must stay NaN).

    Args:
        fn: Maps an array with time as its first axis to another.
        x: A sample input (e.g. real prices).
        n_checks: Rows to check.
        rng: The generator of the perturbations, or its seed; None for a fixed
            seed (0), so that a check gives the same answer every time.
        rtol: Relative tolerance (>= 0).
        atol: Absolute tolerance (>= 0).

    Raises:
        LookAheadError: A past row of the output changed (the message says
            which).
    """
    check_callable(fn, "check_causal: fn")
    n_checks = check_int(n_checks, "check_causal: n_checks", minimum=1)
    rtol = check_real(rtol, "check_causal: rtol", minimum=0.0)
    atol = check_real(atol, "check_causal: atol", minimum=0.0)
    generator = np_random(0 if rng is None else rng)[0]
    values = _values(x, "check_causal")
    base = np.asarray(fn(values.copy()), dtype=np.float64)
    if base.ndim < 1 or base.shape[0] != values.shape[0]:
        raise ValueError(
            f"check_causal: fn must return one row per input row ({values.shape[0]}), got shape "
            f"{base.shape}"
        )
    n_rows = values.shape[0]
    if n_rows < 2:
        return
    name = getattr(fn, "__name__", repr(fn))
    for t in sorted(generator.choice(n_rows - 1, size=min(n_checks, n_rows - 1), replace=False)):
        perturbed = values.copy()
        perturbed[t + 1 :] *= np.exp(generator.normal(0.0, 0.5, perturbed[t + 1 :].shape))
        output = np.asarray(fn(perturbed), dtype=np.float64)
        past, expected = output[: t + 1], base[: t + 1]
        if rtol == 0.0 and atol == 0.0:
            same = (past == expected) | (np.isnan(past) & np.isnan(expected))
        else:
            same = np.isclose(past, expected, rtol=rtol, atol=atol, equal_nan=True)
        if not bool(np.all(same)):
            row = int(np.argwhere(~same)[0][0])
            raise LookAheadError(
                f"{name}: row {row} of the output changed when only rows after {t} of the input "
                "changed"
            )


# -- features by name ------------------------------------------------------------------------


@dataclass(frozen=True)
class Feature:
    """A named feature of market data.

    Attributes:
        name: The name environments use (``"momentum"``; ``"momentum_60"`` sets
            the window).
        function: ``function(data, window)`` returns ``(n_steps, n_assets)``
            float64 values, row ``t`` from rows ``0..t`` only.
        default_window: The window when the name has no ``_<window>`` suffix.
        description: One line for listings.
    """

    name: str
    function: Callable[[MarketData, int], ArrayLike]
    default_window: int
    description: str = ""


_REGISTRY: dict[str, Feature] = {}


def register_feature(
    name: str,
    function: Callable[[MarketData, int], ArrayLike],
    *,
    default_window: int,
    description: str = "",
    override: bool = False,
) -> Feature:
    """Make ``name`` (and ``name_<window>``) available to `compute_feature`.

    Raises:
        ValueError: ``name`` is registered already (and ``override`` is False),
            or is not an identifier, or ends in ``_<digits>``.
    """
    if not isinstance(name, str) or not name.isidentifier() or _split_window(name)[1] is not None:
        raise ValueError(
            f"register_feature: name must be an identifier not ending in _<digits>, got {name!r}"
        )
    check_callable(function, "register_feature: function")
    default_window = check_int(default_window, "register_feature: default_window", minimum=1)
    if name in _REGISTRY and not override:
        raise ValueError(f"register_feature: {name!r} is registered already (pass override=True)")
    feature = Feature(name, function, default_window, description)
    _REGISTRY[name] = feature
    return feature


def feature_names() -> list[str]:
    """The registered feature names, sorted."""
    return sorted(_REGISTRY)


def _split_window(name: str) -> tuple[str, int | None]:
    base, _, suffix = name.rpartition("_")
    if base and suffix.isdigit() and not suffix.startswith("0"):
        return base, int(suffix)
    return name, None


def compute_feature(data: MarketData, name: str) -> Array:
    """The ``(n_steps, n_assets)`` values of feature ``name`` over ``data``.

    A field of the data is returned as is; otherwise ``name`` is a registered
    feature, optionally suffixed with ``_<window>``.

    Raises:
        KeyError: Neither a field nor a feature (the message lists both).
    """
    if name in data.fields:
        return data.field(name)
    feature = _REGISTRY.get(name)
    window: int | None = None
    if feature is None:
        base, window = _split_window(name)
        feature = _REGISTRY.get(base) if window is not None else None
    if feature is None:
        raise KeyError(
            f"no feature {name!r}: the data's fields are {sorted(data.fields)!r} and the features "
            f"{feature_names()!r} (with an optional _<window> suffix)"
        )
    values = np.array(
        feature.function(data, feature.default_window if window is None else window),
        dtype=np.float64,
    )
    if values.shape != data.prices.shape:
        raise ValueError(
            f"feature {name!r} must give shape {data.prices.shape}, got {values.shape}"
        )
    values.flags.writeable = False
    return values


def compute_features(data: MarketData, names: Sequence[str]) -> dict[str, Array]:
    """`compute_feature` for each name, in order."""
    if isinstance(names, str):
        raise TypeError(f"compute_features: names must be a sequence of names, got {names!r}")
    return {name: compute_feature(data, name) for name in names}


def add_features(data: MarketData, names: Sequence[str]) -> MarketData:
    """``data`` with each named feature that is not a field already added as one."""
    missing = [name for name in names if name not in data.fields]
    return data.with_fields(**compute_features(data, missing)) if missing else data


def _builtin(name: str, window: int, description: str) -> Callable[[Any], Any]:
    def decorate(function: Callable[[MarketData, int], ArrayLike]) -> Any:
        register_feature(name, function, default_window=window, description=description)
        return function

    return decorate


@_builtin("log_return", 1, "log return over the window")
def _log_return(data: MarketData, window: int) -> Array:
    return log_returns(data.prices, window)


@_builtin("simple_return", 1, "simple return over the window")
def _simple_return(data: MarketData, window: int) -> Array:
    return simple_returns(data.prices, window)


@_builtin("momentum", 20, "log return over the window")
def _momentum(data: MarketData, window: int) -> Array:
    return momentum(data.prices, window)


@_builtin("volatility", 20, "standard deviation of the window's log returns")
def _volatility(data: MarketData, window: int) -> Array:
    return realized_volatility(prices=data.prices, window=window)


@_builtin("sma", 20, "simple moving average of the price")
def _sma(data: MarketData, window: int) -> Array:
    return rolling_mean(data.prices, window)


@_builtin("ma_gap", 20, "price over its moving average, minus 1")
def _ma_gap(data: MarketData, window: int) -> Array:
    return data.prices / rolling_mean(data.prices, window) - 1.0


@_builtin("ema", 20, "exponential moving average of the price (span = window)")
def _ema(data: MarketData, window: int) -> Array:
    return ewm_mean(data.prices, span=window)


@_builtin("zscore", 20, "rolling z-score of the price")
def _zscore(data: MarketData, window: int) -> Array:
    return rolling_zscore(data.prices, window)


@_builtin("rsi", 14, "Wilder's relative strength index")
def _rsi(data: MarketData, window: int) -> Array:
    return rsi(data.prices, window)
