"""Times of market data: `Time`, `TimeLike`, reading time arguments (private).

`sekai.finance.data` re-exports `Time` and `TimeLike`; the functions here
turn the time-like arguments of `MarketData` and `Past` into values that
compare with the data's timestamps, and infer how many rows make a year.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import is_int

__all__ = ["Time", "TimeLike", "periods_per_year", "show", "time_value"]


@dataclass(frozen=True)
class Time:
    """A time, where a plain int would be read as a row index.

    ``data[Time(a):Time(b)]`` selects the rows stamped in ``[a, b)`` while
    ``data[a:b]`` selects rows ``a`` to ``b - 1``; ``data.at(Time(x))`` is the
    data as of time ``x`` while ``data.at(x)`` is the data at row ``x``.

    Attributes:
        value: The time: an int for data stamped with ints; a datetime, numpy
            datetime64, ISO string or pandas Timestamp for data stamped with
            dates.
    """

    value: Any


TimeLike: TypeAlias = Time | np.datetime64 | _dt.datetime | _dt.date | str | int
"""What a time argument may be (see the module docstring); pandas Timestamps are datetimes."""

_DAY = 86400.0


def show(when: Any) -> str:
    """A timestamp as text: a date alone when it falls at midnight."""
    if isinstance(when, np.datetime64) and when == when.astype("datetime64[D]"):
        return str(when.astype("datetime64[D]"))
    return str(when)


def time_value(timestamps: NDArray[Any], when: Any, what: str) -> Any:
    """``when`` as a value comparable with ``timestamps`` (int64 or datetime64).

    Args:
        timestamps: The data's timestamps (their dtype says ints or dates).
        when: A time-like value, maybe wrapped in `Time`.
        what: The caller, for error messages.

    Raises:
        TypeError: A time of the wrong kind for these timestamps.
        ValueError: An unreadable date string, or NaT.
    """
    value = when.value if isinstance(when, Time) else when
    if timestamps.dtype.kind != "M":
        if is_int(value):
            return np.int64(value)
        raise TypeError(
            f"{what}: this data is stamped with ints, so a time must be an int or Time(int), "
            f"got {when!r}"
        )
    result: Any = None
    if isinstance(value, np.datetime64):
        result = value
    elif hasattr(value, "to_datetime64"):  # a pandas Timestamp
        if getattr(value, "tzinfo", None) is not None:
            value = value.tz_convert("UTC").tz_localize(None)
        result = value.to_datetime64()
    elif isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        result = np.datetime64(value)
    elif isinstance(value, _dt.date):
        result = np.datetime64(value)
    elif isinstance(value, str):
        try:
            result = np.datetime64(value)
        except ValueError:
            raise ValueError(f"{what}: {value!r} is not an ISO date or time") from None
    if result is None:
        raise TypeError(
            f"{what}: this data is stamped with dates, so a time must be a datetime, a numpy "
            f"datetime64, an ISO string or a pandas Timestamp (or Time of one), got {when!r}"
        )
    if np.isnat(result):
        raise ValueError(f"{what}: the time must not be NaT, got {when!r}")
    return result


def periods_per_year(timestamps: NDArray[Any]) -> float:
    """Rows per year inferred from ``timestamps``; see `MarketData.periods_per_year`."""
    n_steps = int(timestamps.shape[0])
    if timestamps.dtype.kind != "M" or n_steps < 2:
        return 252.0
    seconds = np.diff(timestamps).astype("timedelta64[ms]").astype(np.float64) / 1e3
    median = float(np.median(seconds))
    if abs(median - _DAY) < 1.0:
        weekday = (timestamps.astype("datetime64[D]").astype(np.int64) + 3) % 7  # Monday = 0
        return 365.0 if bool(np.any(weekday >= 5)) else 252.0
    for low, high, periods in ((6, 8, 52.0), (28, 31, 12.0), (89, 92, 4.0), (365, 366, 1.0)):
        if low * _DAY <= median <= high * _DAY:
            return periods
    span = float(seconds.sum()) / (365.25 * _DAY)
    if span >= 30 / 365.25:
        return (n_steps - 1) / span
    return 365.25 * _DAY / median
