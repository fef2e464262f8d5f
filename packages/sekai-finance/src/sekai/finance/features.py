"""Technical features, computed point-in-time and vectorised over assets.

Every function takes an array whose first axis is time (``(n_steps,)`` or
``(n_steps, n_assets)``, NaN where unavailable) and returns a float64 array
of the same shape whose row ``t`` depends on rows ``0..t`` only: features
can be computed once over a whole history and read at any row without
look-ahead. A window that is not full, or that holds a NaN, gives NaN.
`check_causal` tests that property for any function, yours included.

Environments take features by name (``MarketEnv(features=("momentum_20",
"volatility"))``): `compute_feature` resolves a name to a field of the
data, or to a registered feature, with an optional ``_<window>`` suffix
(``"momentum"`` uses the default window, ``"momentum_60"`` a window of 60);
`add_features` adds them to the data as fields. `register_feature`
adds your own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_callable, check_int, check_real
from sekai.error import LookAheadError

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
        raise ValueError(f"{what}: values must have a time axis with rows, got shape {array.shape}")
    return array


def _periods(periods: int, what: str) -> int:
    if isinstance(periods, int) and not isinstance(periods, bool) and periods < 0:
        raise LookAheadError(f"{what}: periods={periods} would read rows after each row")
    return check_int(periods, f"{what}: periods", minimum=1)


def _window(window: int, what: str) -> int:
    return check_int(window, f"{what}: window", minimum=1)


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


def lag(values: ArrayLike, periods: int = 1) -> Array:
    """``values[t - periods]`` at row ``t`` (the first ``periods`` rows are NaN).

    Raises:
        LookAheadError: ``periods`` < 0 (a lead, reading later rows).
    """
    if isinstance(periods, int) and not isinstance(periods, bool) and periods < 0:
        raise LookAheadError(f"lag: periods={periods} would read rows after each row")
    periods = check_int(periods, "lag: periods", minimum=0)
    x = _values(values, "lag")
    out = _nans(x.shape)
    if periods < x.shape[0]:
        out[periods:] = x[: x.shape[0] - periods]
    return out


def forward_fill(values: ArrayLike, *, limit: int | None = None) -> Array:
    """Each NaN replaced by the last value before it (at most ``limit`` rows back).

    Leading NaNs stay NaN. Filling carries the past forward, never the future
    back.
    """
    x = _values(values, "forward_fill")
    limit = None if limit is None else check_int(limit, "forward_fill: limit", minimum=0)
    rows = np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1))
    last = np.maximum.accumulate(np.where(np.isnan(x), -1, rows), axis=0)
    out = np.take_along_axis(x, np.maximum(last, 0), axis=0)
    stale = last < 0
    if limit is not None:
        stale |= rows - last > limit
    out[stale] = np.nan
    return out


# -- rolling windows --------------------------------------------------------------------------


def _rolling_sums(
    x: Array, window: int, powers: int
) -> tuple[list[Array], NDArray[np.bool_], Array]:
    """Sums of ``(x - x0) ** k`` (k = 1..powers) over each window ending at ``t``.

    Also returns whether each window is complete and finite, and ``x0``: each
    column's first finite value, known before any complete window, so the sums
    stay causal (and centred, for precision).
    """
    finite = np.isfinite(x)
    first = np.argmax(finite, axis=0)
    reference = np.take_along_axis(x, first[np.newaxis, ...], axis=0)[0]
    reference = np.where(np.isfinite(reference), reference, 0.0)
    centred = np.where(finite, x - reference, 0.0)
    zero = np.zeros((1, *x.shape[1:]))
    sums = []
    for power in range(1, powers + 1):
        total = np.concatenate([zero, np.cumsum(centred**power, axis=0)])
        sums.append(total[window:] - total[:-window])
    missing = np.concatenate([zero, np.cumsum(~finite, axis=0, dtype=np.float64)])
    complete = (missing[window:] - missing[:-window]) == 0
    return sums, complete, reference


def rolling_mean(values: ArrayLike, window: int) -> Array:
    """The mean of the last ``window`` rows (rows ``t - window + 1 .. t``)."""
    window = _window(window, "rolling_mean")
    x = _values(values, "rolling_mean")
    out = _nans(x.shape)
    if window <= x.shape[0]:
        (s1,), complete, reference = _rolling_sums(x, window, 1)
        out[window - 1 :] = np.where(complete, reference + s1 / window, np.nan)
    return out


def rolling_std(values: ArrayLike, window: int, *, ddof: int = 1) -> Array:
    """The standard deviation of the last ``window`` rows (``ddof`` as in numpy).

    Raises:
        ValueError: ``window <= ddof``.
    """
    window = _window(window, "rolling_std")
    ddof = check_int(ddof, "rolling_std: ddof", minimum=0, maximum=window - 1)
    x = _values(values, "rolling_std")
    out = _nans(x.shape)
    if window <= x.shape[0]:
        (s1, s2), complete, _ = _rolling_sums(x, window, 2)
        variance = np.maximum(s2 - s1 * s1 / window, 0.0) / (window - ddof)
        out[window - 1 :] = np.where(complete, np.sqrt(variance), np.nan)
    return out


def rolling_zscore(values: ArrayLike, window: int, *, ddof: int = 1) -> Array:
    """``(x[t] - mean) / std`` over the last ``window`` rows, row ``t`` included.

    NaN where the window's standard deviation is 0.
    """
    x = _values(values, "rolling_zscore")
    mean = rolling_mean(x, window)
    std = rolling_std(x, window, ddof=ddof)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(std > 0, (x - mean) / std, np.nan)


def realized_volatility(
    prices: ArrayLike, window: int = 20, *, periods_per_year: float | None = None
) -> Array:
    """The standard deviation of the last ``window`` log returns.

    Annualised by ``sqrt(periods_per_year)`` when that is given.
    """
    volatility = rolling_std(log_returns(prices), window)
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


def ewm_mean(
    values: ArrayLike,
    *,
    span: float | None = None,
    halflife: float | None = None,
    alpha: float | None = None,
    adjust: bool = True,
) -> Array:
    """The exponentially weighted mean of rows up to ``t`` (pandas' ``ewm().mean()``).

    Pass exactly one of ``span`` (``alpha = 2 / (span + 1)``), ``halflife``
    and ``alpha``. ``adjust`` as in pandas: True weighs row ``t - i`` by
    ``(1 - alpha) ** i`` over the rows seen, False uses the recursion
    ``m = (1 - alpha) m + alpha x``. A NaN row is NaN but ages the earlier
    rows (pandas' ``ignore_na=False``).
    """
    x = _values(values, "ewm_mean")
    return _ewm(x, _alpha(span, halflife, alpha, "ewm_mean"), adjust, False)[0]


def ewm_std(
    values: ArrayLike,
    *,
    span: float | None = None,
    halflife: float | None = None,
    alpha: float | None = None,
) -> Array:
    """The exponentially weighted standard deviation, bias-corrected.

    As pandas' ``ewm(...).std()`` (``adjust=True``); NaN until two rows are seen.
    """
    x = _values(values, "ewm_std")
    return np.sqrt(_ewm(x, _alpha(span, halflife, alpha, "ewm_std"), True, True)[1])


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


def _table(values: ArrayLike, what: str) -> Array:
    x = _values(values, what)
    if x.ndim != 2:
        raise ValueError(f"{what}: values must have shape (n_steps, n_assets), got {x.shape}")
    return x


def cross_sectional_rank(values: ArrayLike) -> Array:
    """Each row ranked across assets, scaled to [0, 1] (0 the lowest, ties averaged).

    NaN entries stay NaN and are not ranked; a row with one finite value gives
    it 0.5.
    """
    x = _table(values, "cross_sectional_rank")
    out = _nans(x.shape)
    for t in range(x.shape[0]):
        finite = np.isfinite(x[t])
        row = x[t, finite]
        if row.size == 1:
            out[t, finite] = 0.5
        elif row.size > 1:
            ordered = np.sort(row)
            low = np.searchsorted(ordered, row, side="left")
            high = np.searchsorted(ordered, row, side="right")
            out[t, finite] = (low + high - 1) / 2.0 / (row.size - 1)
    return out


def cross_sectional_zscore(values: ArrayLike) -> Array:
    """Each row standardised across assets: ``(x - mean) / std`` (``ddof=0``).

    NaN entries are left out; rows with fewer than two finite values, or no
    spread, give NaN.
    """
    x = _table(values, "cross_sectional_zscore")
    finite = np.isfinite(x)
    count = finite.sum(axis=1, keepdims=True)
    filled = np.where(finite, x, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1, keepdims=True) / count
        std = np.sqrt((np.where(finite, x - mean, 0.0) ** 2).sum(axis=1, keepdims=True) / count)
        out = (x - mean) / std
    return np.where(finite & (count >= 2) & (std > 0), out, np.nan)


def asof_join(times: ArrayLike, values: ArrayLike, at: ArrayLike) -> Array:
    """The values of a series as known at other times (a point-in-time join).

    For each ``at[j]``, the value stamped last at or before it (NaN before the
    first). Joining a slower series (monthly macro data, quarterly fundamentals) onto
    daily rows this way never uses a value before its time.

    Args:
        times: ``(m,)`` strictly increasing times of ``values`` (ints or datetime64).
        values: ``(m, ...)`` the series.
        at: ``(k,)`` times to read it at.

    Returns:
        ``(k, ...)`` float64.
    """
    stamps = np.asarray(times)
    series = _values(values, "asof_join")
    targets = np.asarray(at)
    if stamps.ndim != 1 or stamps.shape[0] != series.shape[0]:
        raise ValueError(
            f"asof_join: times must have shape ({series.shape[0]},), got {stamps.shape}"
        )
    if stamps.shape[0] > 1 and not bool(np.all(stamps[1:] > stamps[:-1])):
        raise ValueError("asof_join: times must be strictly increasing")
    rows = np.searchsorted(stamps, targets, side="right") - 1
    out = series[np.maximum(rows, 0)]
    out[rows < 0] = np.nan
    return out


# -- checking causality ------------------------------------------------------------------------


def check_causal(
    function: Callable[[Array], ArrayLike],
    values: ArrayLike,
    *,
    n_checks: int = 8,
    seed: int = 0,
) -> None:
    """Check that ``function`` computes row ``t`` from rows ``0..t`` only.

    For ``n_checks`` rows ``t``, the rows after ``t`` are multiplied by random
    positive factors (signs, zeros and NaNs are kept, so prices stay prices);
    the rows up to ``t`` of the output must not change at all.

    Args:
        function: Maps an array with time as its first axis to another.
        values: A sample input (e.g. real prices).
        n_checks: Rows to check.
        seed: Seed of the perturbations.

    Raises:
        LookAheadError: A past row of the output changed (the message says
            which).
    """
    check_callable(function, "check_causal: function")
    n_checks = check_int(n_checks, "check_causal: n_checks", minimum=1)
    x = _values(values, "check_causal")
    base = np.asarray(function(x.copy()), dtype=np.float64)
    if base.ndim < 1 or base.shape[0] != x.shape[0]:
        raise ValueError(
            f"check_causal: function must return one row per input row ({x.shape[0]}), got shape "
            f"{base.shape}"
        )
    rng = np.random.default_rng(seed)
    n_rows = x.shape[0]
    if n_rows < 2:
        return
    name = getattr(function, "__name__", repr(function))
    for t in sorted(rng.choice(n_rows - 1, size=min(n_checks, n_rows - 1), replace=False)):
        perturbed = x.copy()
        perturbed[t + 1 :] *= np.exp(rng.normal(0.0, 0.5, perturbed[t + 1 :].shape))
        output = np.asarray(function(perturbed), dtype=np.float64)
        past, expected = output[: t + 1], base[: t + 1]
        same = (past == expected) | (np.isnan(past) & np.isnan(expected))
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
    return realized_volatility(data.prices, window)


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
