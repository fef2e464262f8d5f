"""Market data that is point-in-time by construction.

`MarketData` holds a table of prices (rows: times, columns: assets)
and any other per-asset fields (open, high, low, volume, spreads, ...), the
timestamps of its rows, the asset labels, exogenous series (rates, indices,
calendar flags) and which assets are available at each time (a NaN price
means unlisted, delisted or halted). Everything is immutable: every array is
read-only and every method returns new data (sharing memory where it can).

Row ``t`` holds what is known at time ``timestamps[t]``, e.g. that period's
close. An environment deciding at row ``t`` reads the data through
``data.at(t)``, a `PointInTime`: it shows rows ``0..t`` only and the
price at which the decision executes, from row ``t + 1``. Anything that
reaches past ``t`` raises [`LookAheadError`][sekai.error.LookAheadError], and no array
it returns shares memory with the future rows. What an env gives its agent
(``env.now``) is `PointInTime.agent_view`: the same rows, without the
execution side, and a pickle of it (like one of any `Past`) holds rows
``0..t`` only.

Time arguments (``between``, ``split``, ``index_of``, slices of times, ...)
are *time-like*: a datetime, a numpy datetime64, an ISO string or a pandas
Timestamp for data stamped with dates, an int for data stamped with ints, or
any of them wrapped in `Time`. Where an int could mean a row or a
time (``data[5:10]``, ``data.at(5)``), a plain int is a row and ``Time(5)``
is the time 5.

Native vector envs, whose sub-envs decide at different rows, read through
`PointInTimeBatch` (``data.at_rows(rows)``, or `PointInTimeBatch.of_paths`
for one simulated path per sub-env): the same guard over one decision row
per sub-env, each read one gather; `PointInTimeBatch.agent_view` is what
they give agents.

Sharing between processes: `MarketData.share` copies the arrays once
into shared memory; the shared data then pickles as a small handle, so every
worker of a [`ProcVecEnv`][sekai.vector.ProcVecEnv] maps the same pages instead of
receiving a copy (see `MarketData.share`).
"""

from __future__ import annotations

from typing import Any

from sekai.finance import _data_sharing
from sekai.finance._data_time import Time, TimeLike
from sekai.finance._market_data import MarketData
from sekai.finance._point_in_time import Past, PointInTime
from sekai.finance._point_in_time_batch import PastBatch, PointInTimeBatch
from sekai.finance._shared import SharedBlock

__all__ = [
    "MarketData",
    "Past",
    "PastBatch",
    "PointInTime",
    "PointInTimeBatch",
    "Time",
    "TimeLike",
]

# The classes live in private modules, one per concern; they present
# themselves (reprs, pickles, docs) under the module users import them from.
for _cls in (Time, MarketData, Past, PointInTime, PastBatch, PointInTimeBatch):
    _cls.__module__ = __name__
del _cls


def _restore(
    fields: list[str],
    price_field: str,
    assets: tuple[Any, ...],
    exogenous: list[str],
    warmup: int,
    packed: list[Any],
    block: SharedBlock | None,
) -> MarketData:
    """Unpickle a MarketData: every pickle of one names this function (see `MarketData.share`)."""
    return _data_sharing.restore(
        MarketData, fields, price_field, assets, exogenous, warmup, packed, block
    )
