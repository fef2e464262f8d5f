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
it returns shares memory with the future rows.

Time arguments (``between``, ``split``, ``index_of``, slices of times, ...)
are *time-like*: a datetime, a numpy datetime64, an ISO string or a pandas
Timestamp for data stamped with dates, an int for data stamped with ints, or
any of them wrapped in `Time`. Where an int could mean a row or a
time (``data[5:10]``, ``data.at(5)``), a plain int is a row and ``Time(5)``
is the time 5.

Sharing between processes: `MarketData.share` copies the arrays once
into shared memory; the shared data then pickles as a small handle, so every
worker of a [`ProcVecEnv`][sekai.vector.ProcVecEnv] maps the same pages instead of
receiving a copy (see `MarketData.share`).
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_choice, check_int, is_int
from sekai.error import LookAheadError
from sekai.finance import _shared_frames as _frames
from sekai.finance._shared import BlockArray, SharedBlock
from sekai.finance._shared_inputs import (
    assets_tuple,
    check_prices,
    exogenous_array,
    float_table,
    readonly,
    timestamps_array,
)

__all__ = ["MarketData", "Past", "PointInTime", "Time", "TimeLike"]


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


def _show(when: Any) -> str:
    """A timestamp as text: a date alone when it falls at midnight."""
    if isinstance(when, np.datetime64) and when == when.astype("datetime64[D]"):
        return str(when.astype("datetime64[D]"))
    return str(when)


def _copy(array: NDArray[Any]) -> NDArray[Any]:
    """A read-only copy: an array that is no view of anything else."""
    copy: NDArray[Any] = np.array(array, copy=True)
    copy.flags.writeable = False
    return copy


def _frozen(value: Any) -> Any:
    """`_copy` for an array; a numpy scalar is returned as is."""
    return _copy(value) if isinstance(value, np.ndarray) else value


class MarketData:
    """Prices and other market data of assets over time, immutable and point-in-time.

    Args:
        prices: ``(n_steps, n_assets)`` prices (a 1-D array is one asset), > 0,
            NaN where an asset is unavailable. May be None when ``fields``
            holds the price field.
        fields: Other per-asset tables of the same shape, by name (``"open"``,
            ``"volume"``, ...). The prices are the field ``price_field``.
        timestamps: ``(n_steps,)`` strictly increasing ints or dates (numpy
            datetime64, datetimes, ISO strings, a pandas DatetimeIndex);
            default ``0, 1, ...``.
        assets: One hashable label per column (default ``0, 1, ...``).
        exogenous: Series that are not per asset, by name: ``(n_steps,)`` or
            ``(n_steps, k)`` arrays.
        price_field: The name of the prices among the fields.
        warmup: Leading rows that only serve as history: no episode starts in
            them.

    Every array is copied (the tables converted to float64); the copies are read-only.

    Raises:
        TypeError, ValueError: An argument of the wrong type, shape or value
            (a price <= 0 or infinite, timestamps not increasing, ...).

    Attributes:
        price_field: The name of the field holding the prices.
    """

    __slots__ = (
        "__weakref__",
        "_asset_index",
        "_assets",
        "_block",
        "_exogenous",
        "_fields",
        "_mask",
        "_timestamps",
        "_warmup",
        "price_field",
    )
    price_field: str
    _fields: dict[str, NDArray[np.float64]]
    _mask: NDArray[np.bool_]
    _timestamps: NDArray[Any]
    _assets: tuple[Any, ...]
    _asset_index: dict[Any, int]
    _exogenous: dict[str, NDArray[np.float64]]
    _warmup: int
    _block: SharedBlock | None

    def __init__(
        self,
        prices: ArrayLike | None = None,
        *,
        fields: Mapping[str, ArrayLike] | None = None,
        timestamps: ArrayLike | None = None,
        assets: Sequence[Any] | None = None,
        exogenous: Mapping[str, ArrayLike] | None = None,
        price_field: str = "close",
        warmup: int = 0,
    ) -> None:
        if not isinstance(price_field, str) or not price_field:
            raise TypeError(f"MarketData: price_field must be a non-empty str, got {price_field!r}")
        if fields is not None and not isinstance(fields, Mapping):
            raise TypeError(
                f"MarketData: fields must be a mapping of name to array, got {fields!r}"
            )
        if exogenous is not None and not isinstance(exogenous, Mapping):
            raise TypeError(
                f"MarketData: exogenous must be a mapping of name to array, got {exogenous!r}"
            )
        others = dict(fields or {})
        if prices is None:
            if price_field not in others:
                raise ValueError(
                    f"MarketData: pass prices, or fields holding the price field "
                    f"{price_field!r}; got neither (fields: {sorted(others)!r})"
                )
            prices = others.pop(price_field)
        elif price_field in others:
            raise ValueError(
                f"MarketData: the prices were given twice, as prices and as fields[{price_field!r}]"
            )
        table = float_table(prices, "MarketData: prices", None, None)
        check_prices(table, "MarketData: prices")
        n_steps, n_assets = table.shape
        tables = {price_field: table}
        for name, value in others.items():
            if not isinstance(name, str):
                raise TypeError(f"MarketData: field names must be str, got {name!r}")
            tables[name] = float_table(value, f"MarketData: field {name!r}", n_steps, n_assets)
        series = {
            name: exogenous_array(value, name, n_steps) for name, value in (exogenous or {}).items()
        }
        self._set(
            tables,
            price_field,
            readonly(np.isfinite(table)),
            timestamps_array(timestamps, n_steps),
            assets_tuple(assets, n_assets),
            series,
            check_int(warmup, "MarketData: warmup", minimum=0, maximum=n_steps - 1),
            None,
        )

    def _set(
        self,
        fields: dict[str, NDArray[np.float64]],
        price_field: str,
        mask: NDArray[np.bool_],
        timestamps: NDArray[Any],
        assets: tuple[Any, ...],
        exogenous: dict[str, NDArray[np.float64]],
        warmup: int,
        block: SharedBlock | None,
    ) -> None:
        setter = object.__setattr__
        setter(self, "_fields", fields)
        setter(self, "price_field", price_field)
        setter(self, "_mask", mask)
        setter(self, "_timestamps", timestamps)
        setter(self, "_assets", assets)
        setter(self, "_asset_index", {label: i for i, label in enumerate(assets)})
        setter(self, "_exogenous", exogenous)
        setter(self, "_warmup", warmup)
        setter(self, "_block", block)

    def _derive(self, **changes: Any) -> MarketData:
        """New data from this one's parts (no validation, no copies)."""
        parts: dict[str, Any] = {
            "fields": self._fields,
            "price_field": self.price_field,
            "mask": self._mask,
            "timestamps": self._timestamps,
            "assets": self._assets,
            "exogenous": self._exogenous,
            "warmup": self._warmup,
            "block": self._block,
        }
        parts.update(changes)
        data = object.__new__(MarketData)
        data._set(**parts)
        return data

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"MarketData is immutable (cannot set {name!r}); with_fields(), with_exogenous(), "
            "select() and slicing return new data"
        )

    # -- readers ---------------------------------------------------------------------------

    @classmethod
    def from_pandas(
        cls,
        prices: Any,
        *,
        fields: Mapping[str, Any] | None = None,
        exogenous: Any = None,
        price_field: str = "close",
    ) -> MarketData:
        """Data from wide pandas objects: rows are times, columns are assets.

        Args:
            prices: A DataFrame (index: times, columns: assets) or a Series (one
                asset, labelled by the Series' name, else 0).
            fields: Other tables by name, DataFrames (or Series for one asset),
                aligned exactly on the prices' times and assets; missing cells
                become NaN.
            exogenous: A DataFrame (one series per column), a Series, or a
                mapping of name to Series / DataFrame. Each is aligned *as of*
                each time: the last value stamped at or before it, never a later
                one (a monthly series is carried forward until its next value).
            price_field: The name of the prices among the fields.

        Rows are sorted by time; a repeated time raises ValueError. A DatetimeIndex
        with a time zone is converted to UTC.

        Raises:
            ImportError: pandas is not installed (it comes with the
                ``sekai-finance[data]`` distribution).
        """
        return cls(**_frames.wide_arrays(prices, fields, exogenous, price_field))

    @classmethod
    def from_long(
        cls,
        frame: Any,
        *,
        time: str | None = "date",
        asset: str | None = "symbol",
        price: str = "close",
        fields: Sequence[str] = (),
    ) -> MarketData:
        """Data from a long table: one row per time and asset.

        A (time, asset) pair absent from the table is an unavailable asset
        (NaN): listings and delistings need no special marking.

        Args:
            frame: A DataFrame.
            time: The column of times (or the name of the index; None: the index).
            asset: The column of asset labels; None when the table holds one
                asset (labelled 0), e.g. an OHLCV history.
            price: The column of prices; it is also the ``price_field``.
            fields: Other columns to keep as fields (under their column names).

        Raises:
            ImportError: pandas is not installed.
            KeyError: A column is missing.
            ValueError: Two rows for the same time and asset.
        """
        return cls(**_frames.long_arrays(frame, time, asset, price, fields))

    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        *,
        layout: str = "long",
        time: str = "date",
        asset: str | None = "symbol",
        price: str = "close",
        fields: Sequence[str] = (),
        **read_options: Any,
    ) -> MarketData:
        """Data from a CSV file, in long or wide layout.

        Args:
            path: The file.
            layout: ``"long"``: columns ``time``, ``asset`` (None: one asset),
                ``price`` and ``fields``, as in `from_long`. ``"wide"``: a
                ``time`` column and one price column per asset, as in
                `from_pandas` (then ``price`` names the price field).
            time: The column of times.
            asset: The column of asset labels (long layout).
            price: The column of prices (long layout) and the price field's name.
            fields: Other columns to keep (long layout).
            **read_options: Passed to `pandas.read_csv`.

        Raises:
            ImportError: pandas is not installed.
        """
        frame = _frames.read_table(path, "csv", read_options)
        return cls._from_table(frame, layout, time, asset, price, fields)

    @classmethod
    def from_parquet(
        cls,
        path: str | Path,
        *,
        layout: str = "long",
        time: str = "date",
        asset: str | None = "symbol",
        price: str = "close",
        fields: Sequence[str] = (),
        **read_options: Any,
    ) -> MarketData:
        """Data from a Parquet file; the arguments are those of `from_csv`.

        ``time`` may also name the stored index (as ``DataFrame.to_parquet``
        writes it).

        Raises:
            ImportError: pandas or pyarrow is not installed.
        """
        frame = _frames.read_table(path, "parquet", read_options)
        return cls._from_table(frame, layout, time, asset, price, fields)

    @classmethod
    def _from_table(
        cls,
        frame: Any,
        layout: str,
        time: str,
        asset: str | None,
        price: str,
        fields: Sequence[str],
    ) -> MarketData:
        check_choice(layout, "MarketData: layout", ("long", "wide"))
        if layout == "long":
            return cls(**_frames.long_arrays(frame, time, asset, price, fields))
        if time in frame.columns:
            frame = frame.set_index(time)
        elif frame.index.name != time:
            raise KeyError(f"MarketData: no column {time!r}; the table has {[*frame.columns]!r}")
        return cls.from_pandas(frame, price_field=price)

    # -- contents ----------------------------------------------------------------------------

    @property
    def prices(self) -> NDArray[np.float64]:
        """``(n_steps, n_assets)`` prices, NaN where unavailable (read-only)."""
        return self._fields[self.price_field]

    @property
    def fields(self) -> Mapping[str, NDArray[np.float64]]:
        """Every per-asset table by name, the prices included (read-only)."""
        return MappingProxyType(self._fields)

    def field(self, name: str) -> NDArray[np.float64]:
        """The ``(n_steps, n_assets)`` table ``name``.

        Raises:
            KeyError: No such field (the message lists those there are).
        """
        try:
            return self._fields[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"MarketData: no field {name!r}; fields: {sorted(self._fields)!r}"
            ) from None

    @property
    def mask(self) -> NDArray[np.bool_]:
        """``(n_steps, n_assets)`` availability: True where the price is known (read-only)."""
        return self._mask

    @property
    def timestamps(self) -> NDArray[Any]:
        """``(n_steps,)`` int64 or datetime64 times of the rows (read-only)."""
        return self._timestamps

    @property
    def assets(self) -> tuple[Any, ...]:
        """The asset labels, one per column."""
        return self._assets

    @property
    def exogenous(self) -> Mapping[str, NDArray[np.float64]]:
        """The exogenous series by name: ``(n_steps,)`` or ``(n_steps, k)`` (read-only)."""
        return MappingProxyType(self._exogenous)

    def exogenous_series(self, name: str) -> NDArray[np.float64]:
        """The exogenous series ``name``.

        Raises:
            KeyError: No such series.
        """
        try:
            return self._exogenous[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"MarketData: no exogenous series {name!r}; series: {sorted(self._exogenous)!r}"
            ) from None

    def exogenous_width(self, name: str) -> int:
        """Columns of the exogenous series ``name``: 1 for a ``(n_steps,)`` series, else ``k``."""
        series = self.exogenous_series(name)
        return 1 if series.ndim == 1 else int(series.shape[1])

    @property
    def n_steps(self) -> int:
        """Number of rows (times)."""
        return int(self._timestamps.shape[0])

    @property
    def n_assets(self) -> int:
        """Number of assets (columns)."""
        return len(self._assets)

    def __len__(self) -> int:
        return self.n_steps

    @property
    def warmup(self) -> int:
        """Leading rows used only as history: episodes start at this row or later."""
        return self._warmup

    @property
    def is_datetime(self) -> bool:
        """Whether the rows are stamped with dates (datetime64) rather than ints."""
        return self._timestamps.dtype.kind == "M"

    @property
    def periods_per_year(self) -> float:
        """Rows per year, inferred from the timestamps (for annualising).

        Daily rows give 252 when no row falls on a weekend (trading days), else
        365; weekly 52, monthly 12, quarterly 4, yearly 1. Other spacings
        (intraday bars) give the number of rows per year over the data's span,
        or over the median spacing when the data spans less than a month. Data
        stamped with ints, or with a single row, gives 252.
        """
        if not self.is_datetime or self.n_steps < 2:
            return 252.0
        times = self._timestamps
        seconds = np.diff(times).astype("timedelta64[ms]").astype(np.float64) / 1e3
        median = float(np.median(seconds))
        if abs(median - _DAY) < 1.0:
            weekday = (times.astype("datetime64[D]").astype(np.int64) + 3) % 7  # Monday = 0
            return 365.0 if bool(np.any(weekday >= 5)) else 252.0
        for low, high, periods in ((6, 8, 52.0), (28, 31, 12.0), (89, 92, 4.0), (365, 366, 1.0)):
            if low * _DAY <= median <= high * _DAY:
                return periods
        span = float(seconds.sum()) / (365.25 * _DAY)
        if span >= 30 / 365.25:
            return (self.n_steps - 1) / span
        return 365.25 * _DAY / median

    # -- times and rows ------------------------------------------------------------------------

    def _time_value(self, when: Any, what: str) -> Any:
        value = when.value if isinstance(when, Time) else when
        if not self.is_datetime:
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

    def index_of(self, when: TimeLike, *, side: str = "left") -> int:
        """The row where ``when`` falls, as `numpy.searchsorted` finds it.

        Args:
            when: A time.
            side: ``"left"``: the first row stamped at or after ``when``;
                ``"right"``: the first row stamped after it. Either may be
                ``n_steps`` (``when`` is after every row).
        """
        check_choice(side, "MarketData.index_of: side", ("left", "right"))
        key = self._time_value(when, "MarketData.index_of")
        return int(np.searchsorted(self._timestamps, key, side=side))  # type: ignore[call-overload]

    def _rows(self, start: int, stop: int, warmup: int) -> MarketData:
        """Rows ``[start, stop)`` as views, with ``warmup`` history rows."""
        rows = slice(start, stop)
        return self._derive(
            fields={name: table[rows] for name, table in self._fields.items()},
            mask=self._mask[rows],
            timestamps=self._timestamps[rows],
            exogenous={name: series[rows] for name, series in self._exogenous.items()},
            warmup=warmup,
        )

    def _slice(self, start: int, stop: int, what: str) -> MarketData:
        if stop <= start:
            raise ValueError(f"{what} selects no rows (rows {start} to {stop - 1})")
        warmup = min(max(self._warmup - start, 0), stop - start - 1)
        return self._rows(start, stop, warmup)

    def __getitem__(self, key: slice) -> MarketData:
        """Rows by position (``data[10:20]``) or by time (``data[Time(a):Time(b)]``).

        Int bounds are rows (negative ones count from the end); other bounds are
        times, and the rows kept are those stamped in ``[start, stop)``. Rows of
        the warmup that remain stay warmup. Arrays are views, not copies.

        Raises:
            TypeError: The key is not a slice (use `select` for assets,
                `field` for fields, `at` for one time).
            ValueError: A step other than 1, or no row selected.
        """
        if not isinstance(key, slice):
            raise TypeError(
                f"MarketData[...] takes a slice of rows or times (data[10:20], "
                f"data[Time(a):Time(b)]), got {key!r}; use select() for assets, field() for "
                "fields and at() for one time"
            )
        if key.step is not None and key.step != 1:
            raise ValueError(f"MarketData[...]: the step must be 1, got {key.step!r}")
        bounds: list[Any] = []
        for bound in (key.start, key.stop):
            if bound is None or is_int(bound):
                bounds.append(bound)
            else:
                bounds.append(self.index_of(bound, side="left"))
        start, stop, _ = slice(*bounds).indices(self.n_steps)
        return self._slice(start, stop, f"MarketData[{key.start!r}:{key.stop!r}]")

    def between(self, start: TimeLike | None = None, end: TimeLike | None = None) -> MarketData:
        """The rows stamped from ``start`` to ``end``, both included (None: unbounded).

        Raises:
            ValueError: No row in the range.
        """
        first = 0 if start is None else self.index_of(start, side="left")
        stop = self.n_steps if end is None else self.index_of(end, side="right")
        return self._slice(first, stop, f"MarketData.between({start!r}, {end!r})")

    def select(self, assets: Sequence[Any]) -> MarketData:
        """The columns of ``assets``, in that order (the tables are copied).

        Raises:
            KeyError: An unknown asset.
            ValueError: No asset, or one named twice.
        """
        if isinstance(assets, (str, bytes)) or not isinstance(assets, Sequence):
            raise TypeError(
                f"MarketData.select: assets must be a sequence of labels, got {assets!r}"
            )
        columns = []
        for label in assets:
            try:
                columns.append(self._asset_index[label])
            except (KeyError, TypeError):
                raise KeyError(
                    f"MarketData.select: no asset {label!r}; assets: {self._assets!r}"
                ) from None
        if not columns or len(set(columns)) != len(columns):
            raise ValueError(
                f"MarketData.select: assets must name at least one asset, each once, got {assets!r}"
            )
        index = np.asarray(columns, dtype=np.intp)
        return self._derive(
            fields={name: readonly(table[:, index]) for name, table in self._fields.items()},
            mask=readonly(self._mask[:, index]),
            assets=tuple(self._assets[i] for i in columns),
        )

    def _piece(self, start: int, stop: int, history: int, what: str) -> MarketData:
        """Decision rows ``[start, stop)`` preceded by up to ``history`` rows of warmup."""
        if stop <= start:
            raise ValueError(f"{what}: a piece has no decision row (rows {start} to {stop - 1})")
        lead = min(start, history)
        return self._rows(start - lead, stop, lead)

    def split(self, *boundaries: TimeLike, embargo: int = 0, history: int = 0) -> list[MarketData]:
        """Cut the data in time at ``boundaries``: pieces whose decision rows never overlap.

        ``k`` boundaries give ``k + 1`` pieces; a row stamped exactly at a boundary
        starts the next piece. The first piece keeps this data's warmup. Each
        later piece drops its first ``embargo`` rows (a gap after the previous
        piece) and is preceded by ``max(history, self.warmup)`` rows of
        *warmup*: history an episode observes but never starts in. Those rows
        overlap the end of the previous piece, which is what a model would
        legitimately know at that time; the rows episodes are played on do not.

        Args:
            *boundaries: Increasing times.
            embargo: Rows dropped at the start of each later piece.
            history: Rows of lookback each later piece carries as warmup.

        Raises:
            ValueError: No boundary, boundaries not increasing, or a piece
                without decision rows.
        """
        embargo = check_int(embargo, "MarketData.split: embargo", minimum=0)
        history = max(check_int(history, "MarketData.split: history", minimum=0), self._warmup)
        if not boundaries:
            raise ValueError("MarketData.split needs at least one boundary time")
        cuts = [self.index_of(boundary, side="left") for boundary in boundaries]
        edges = [0, *cuts, self.n_steps]
        if any(b <= a for a, b in itertools.pairwise(edges)):
            raise ValueError(
                f"MarketData.split: boundaries must be increasing times strictly inside the data "
                f"({_show(self._timestamps[0])} excluded to {_show(self._timestamps[-1])}); got "
                f"{list(boundaries)!r}, which cut at rows {cuts}"
            )
        what = "MarketData.split"
        pieces = [self._piece(self._warmup, cuts[0], self._warmup, what)]
        for start, stop in itertools.pairwise(edges[1:]):
            pieces.append(self._piece(start + embargo, stop, history, what))
        return pieces

    def walk_forward(
        self,
        train_size: int,
        test_size: int,
        *,
        step: int | None = None,
        embargo: int = 0,
        history: int = 0,
        expanding: bool = False,
    ) -> Iterator[tuple[MarketData, MarketData]]:
        """Successive (train, test) pairs rolling forward in time.

        Decision rows start after this data's warmup. Fold ``k`` trains on
        ``train_size`` rows starting ``k * step`` rows later than fold 0 (from
        the first decision row on, growing, with ``expanding``), skips
        ``embargo`` rows and tests on the next ``test_size`` rows. Every piece
        is preceded by ``max(history, self.warmup)`` rows of warmup where the
        data has them. Folds continue while the test piece fits.

        Args:
            train_size: Decision rows of the first training piece.
            test_size: Decision rows of each test piece.
            step: Rows between folds (default ``test_size``: test pieces tile).
            embargo: Rows skipped between a training piece and its test piece.
            history: Rows of lookback carried as warmup.
            expanding: Training pieces all start at the first decision row.

        Raises:
            ValueError: A bad size, or not even one fold fits (raised here, not
                when iterating).
        """
        what = "MarketData.walk_forward"
        train_size = check_int(train_size, f"{what}: train_size", minimum=1)
        test_size = check_int(test_size, f"{what}: test_size", minimum=1)
        step = test_size if step is None else check_int(step, f"{what}: step", minimum=1)
        embargo = check_int(embargo, f"{what}: embargo", minimum=0)
        history = max(check_int(history, f"{what}: history", minimum=0), self._warmup)
        first = self._warmup
        need = first + train_size + embargo + test_size
        if need > self.n_steps:
            raise ValueError(
                f"{what}: one fold needs {need} rows (warmup {first} + train {train_size} + "
                f"embargo {embargo} + test {test_size}), the data has {self.n_steps}"
            )

        def folds() -> Iterator[tuple[MarketData, MarketData]]:
            k = 0
            while True:
                train_stop = first + train_size + k * step
                test_start = train_stop + embargo
                if test_start + test_size > self.n_steps:
                    return
                train_start = first if expanding else first + k * step
                yield (
                    self._piece(train_start, train_stop, history, what),
                    self._piece(test_start, test_start + test_size, history, what),
                )
                k += 1

        return folds()

    # -- derived data --------------------------------------------------------------------------

    def log_returns(self) -> NDArray[np.float64]:
        """``(n_steps, n_assets)`` log returns, row ``t`` from row ``t - 1`` to row ``t``.

        Row 0 is NaN, and so is every return touching an unavailable price: the
        return stamped at ``t`` is known at ``t``, like the rest of row ``t``.
        """
        prices = self.prices
        out = np.full(prices.shape, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            np.log(prices[1:] / prices[:-1], out=out[1:])
        return readonly(out)

    def with_fields(self, **arrays: ArrayLike) -> MarketData:
        """New data with these fields added or replaced (the price field too).

        Raises:
            TypeError, ValueError: An array of the wrong shape, or bad prices.
        """
        fields = dict(self._fields)
        mask = self._mask
        for name, value in arrays.items():
            table = float_table(
                value, f"MarketData.with_fields: {name!r}", self.n_steps, self.n_assets
            )
            if name == self.price_field:
                check_prices(table, f"MarketData.with_fields: {name!r}")
                mask = readonly(np.isfinite(table))
            fields[name] = table
        return self._derive(fields=fields, mask=mask)

    def with_exogenous(self, **arrays: ArrayLike) -> MarketData:
        """New data with these exogenous series added or replaced."""
        series = dict(self._exogenous)
        for name, value in arrays.items():
            series[name] = exogenous_array(value, name, self.n_steps)
        return self._derive(exogenous=series)

    # -- point in time ----------------------------------------------------------------------

    def at(self, when: int | TimeLike) -> PointInTime:
        """What is known at a decision time: rows up to it, and the price after it.

        Args:
            when: A row (an int; negative counts from the end), or a time-like
                value other than a plain int (``Time(x)``, a date): then the last
                row stamped at or before it.

        Raises:
            IndexError: A row outside the data.
            KeyError: A time before the first row.
        """
        if type(when) is int or is_int(when):
            row, n_steps = int(when), len(self._timestamps)
            if not -n_steps <= row < n_steps:
                raise IndexError(f"MarketData.at: row {row} is outside the data's {n_steps} rows")
            return PointInTime(self, row if row >= 0 else row + n_steps)
        row = self.index_of(when, side="right") - 1
        if row < 0:
            raise KeyError(
                f"MarketData.at: no row is stamped at or before {when!r} (the first is "
                f"{_show(self._timestamps[0])})"
            )
        return PointInTime(self, row)

    # -- sharing between processes ----------------------------------------------------------

    def share(self) -> MarketData:
        """A copy of this data in shared memory, that pickles as a handle to it.

        Use it to give one dataset to many worker processes (e.g. to the envs of
        a [`ProcVecEnv`][sekai.vector.ProcVecEnv]): each process that unpickles the
        shared data maps the same read-only pages (once per process, however
        many envs hold it) instead of receiving a copy. The shared data, and
        everything derived from it (slices, `split` pieces,
        `with_fields` results), pickle as a handle for the arrays that
        live in the block and by value for the others (``select()`` copies).

        Ownership: the calling process owns the block. It is removed by
        `close` (also on leaving a ``with`` block), or when the last data
        over it in this process is garbage collected, or at interpreter exit,
        and even if this process is killed (by the resource tracker of
        `multiprocessing`). Once removed, no process can attach to it any
        more (unpickling raises FileNotFoundError and pickling raises
        ValueError), while arrays already mapped stay readable until they are
        dropped. Keep the shared data alive while workers may still unpickle it.
        Pickle shared data to send it to live processes, not to store it.

        Returns:
            The shared data (``self`` if every array is in a block already).

        Raises:
            OSError: Not enough shared memory.
        """
        arrays = self._arrays()
        if self._block is not None and all(self._block.locate(a) is not None for a in arrays):
            return self
        block, views = SharedBlock.create(arrays)
        return self._rebuild_from(views)._derive(block=block)

    @property
    def is_shared(self) -> bool:
        """Whether this data lives (at least in part) in a shared block; see `share`."""
        return self._block is not None

    def close(self) -> None:
        """Remove the shared block this data lives in, if this process created it.

        Every data over the block in this process (the pieces of a split, ...)
        then pickles no more; arrays in hand stay readable. A no-op for data
        that is not shared, and for data attached in another process.
        """
        if self._block is not None:
            self._block.close()

    def __enter__(self) -> MarketData:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _arrays(self) -> list[NDArray[Any]]:
        """Every array, in the order `_rebuild_from` takes them."""
        return [
            *self._fields.values(),
            self._mask,
            self._timestamps,
            *self._exogenous.values(),
        ]

    def _rebuild_from(self, arrays: Sequence[NDArray[Any]]) -> MarketData:
        n = len(self._fields)
        return self._derive(
            fields=dict(zip(self._fields, arrays[:n], strict=True)),
            mask=arrays[n],
            timestamps=arrays[n + 1],
            exogenous=dict(zip(self._exogenous, arrays[n + 2 :], strict=True)),
        )

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Arrays in a shared block travel as (block handle, place in it), the
        # others by value; pickling the block raises once its owner closed it.
        block = self._block
        packed: list[Any] = []
        for array in self._arrays():
            located = None if block is None else block.locate(array)
            packed.append(array if located is None else located)
        in_block = any(isinstance(item, BlockArray) for item in packed)
        return _restore, (
            list(self._fields),
            self.price_field,
            self._assets,
            list(self._exogenous),
            self._warmup,
            packed,
            block if in_block else None,
        )

    def __copy__(self) -> MarketData:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> MarketData:
        return self  # immutable: copies would only cost memory

    def __repr__(self) -> str:
        first, last = self._timestamps[0], self._timestamps[-1]
        extras = [f"fields={sorted(self._fields)!r}"]
        if self._exogenous:
            extras.append(f"exogenous={sorted(self._exogenous)!r}")
        if self._warmup:
            extras.append(f"warmup={self._warmup}")
        if self._block is not None:
            extras.append("shared")
        return (
            f"MarketData(n_steps={self.n_steps}, n_assets={self.n_assets}, "
            f"{_show(first)} .. {_show(last)}, {', '.join(extras)})"
        )


def _restore(
    fields: list[str],
    price_field: str,
    assets: tuple[Any, ...],
    exogenous: list[str],
    warmup: int,
    packed: list[Any],
    block: SharedBlock | None,
) -> MarketData:
    arrays = []
    for item in packed:
        array = item.load() if isinstance(item, BlockArray) else item
        array.flags.writeable = False
        arrays.append(array)
    data = object.__new__(MarketData)
    n = len(fields)
    data._set(
        dict(zip(fields, arrays[:n], strict=True)),
        price_field,
        arrays[n],
        arrays[n + 1],
        tuple(assets),
        dict(zip(exogenous, arrays[n + 2 :], strict=True)),
        warmup,
        block,
    )
    return data


class Past:
    """The rows of one array up to a decision row ``t``: what is known at ``t``.

    Indexing works like indexing the array, with rows numbered as in the whole
    data (``past[t]`` is row ``t``; ``past[-1]`` is also row ``t``, and negative
    indices count back from it), over the rows ``0..t`` only. Anything that
    would read a row after ``t`` raises [`LookAheadError`][sekai.error.LookAheadError]
    instead of being clipped: an int index, a slice bound, an index array or
    a boolean mask reaching past ``t``, `asof` or `between` with a
    later time. Every array returned is a read-only copy of the rows asked
    for, so it cannot be used to reach later rows (no ``.base`` over the full
    array, no stride tricks into the memory after it).

    Obtained from a `PointInTime` (``data.at(t).prices``,
    ``.field(name)``, ``.mask``, ``.exogenous(name)``, ``.timestamps``).

    Attributes:
        name: What the rows are (``"prices"``, ``"field 'volume'"``, ...).
    """

    __slots__ = ("_array", "_data", "_now", "name")

    def __init__(self, array: NDArray[Any], now: int, data: MarketData, name: str) -> None:
        self._array = array
        self._now = now
        self._data = data
        self.name = name

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the rows visible: ``(t + 1, ...)``."""
        return (self._now + 1, *self._array.shape[1:])

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of the rows."""
        return self._array.dtype

    @property
    def ndim(self) -> int:
        """Number of dimensions (the first is time)."""
        return int(self._array.ndim)

    def __len__(self) -> int:
        return self._now + 1

    def __iter__(self) -> Iterator[Any]:
        for row in range(self._now + 1):
            yield _frozen(self._array[row])

    @property
    def latest(self) -> Any:
        """Row ``t``, the most recent one."""
        return _frozen(self._array[self._now])

    def window(self, length: int, *, out: NDArray[Any] | None = None) -> NDArray[Any]:
        """The last ``length`` rows, ``t - length + 1`` to ``t``, oldest first.

        Args:
            length: Number of rows (>= 1).
            out: An array of shape ``(length, ...)`` to copy the rows into
                (returned as is, writable), instead of a new read-only array.

        Raises:
            ValueError: Fewer than ``length`` rows exist up to ``t``.
        """
        if type(length) is not int or length < 1:  # checked in full only when unusual
            length = check_int(length, f"{self.name}.window: length", minimum=1)
        if length > self._now + 1:
            raise ValueError(
                f"{self.name}.window({length}) needs {length} rows up to row {self._now}; only "
                f"{self._now + 1} exist"
            )
        rows = self._array[self._now + 1 - length : self._now + 1]
        if out is not None:
            np.copyto(out, rows)
            return out
        return _copy(rows)

    def _look_ahead(self, what: str) -> LookAheadError:
        return LookAheadError(
            f"{self.name}{what} reads after the decision row {self._now} "
            f"(time {_show(self._data.timestamps[self._now])}); only rows 0..{self._now} are known"
        )

    def _time_row(self, when: Any, what: str) -> int:
        """The last row stamped at or before ``when``, which must not be after row ``t``."""
        key = self._data._time_value(when, f"{self.name}.{what}")
        times = self._data.timestamps
        if key > times[self._now]:
            raise self._look_ahead(f".{what}({when!r})")
        row = int(np.searchsorted(times[: self._now + 1], key, side="right")) - 1
        if row < 0:
            raise KeyError(f"{self.name}.{what}: no row is stamped at or before {when!r}")
        return row

    def asof(self, when: TimeLike) -> Any:
        """The last row stamped at or before ``when`` (a time-like value).

        Raises:
            LookAheadError: ``when`` is after row ``t``'s time.
            KeyError: ``when`` is before the first row.
        """
        return _frozen(self._array[self._time_row(when, "asof")])

    def between(self, start: TimeLike, end: TimeLike) -> NDArray[Any]:
        """The rows stamped from ``start`` to ``end``, both included.

        Raises:
            LookAheadError: ``end`` is after row ``t``'s time.
        """
        stop = self._time_row(end, "between") + 1
        first = np.searchsorted(
            self._data.timestamps[:stop], self._data._time_value(start, f"{self.name}.between")
        )
        return _copy(self._array[int(first) : stop])

    def _axis0(self, key: Any, where: str) -> Any:
        """Check an index of the time axis; return it in a form numpy takes."""
        now, length = self._now, self._now + 1
        if isinstance(key, Time):
            return self._time_row(key, "__getitem__")
        if is_int(key):
            if int(key) > now:
                raise self._look_ahead(f"[{where}]")
            return int(key)
        if isinstance(key, slice):
            for bound in (key.start, key.stop, key.step):
                if bound is not None and not is_int(bound):
                    raise TypeError(
                        f"{self.name}[{where}]: slice bounds must be rows (ints); use between() "
                        f"for times, got {bound!r}"
                    )
            forward = key.step is None or key.step > 0
            if (key.start is not None and key.start > now) or (
                key.stop is not None and key.stop > (length if forward else now)
            ):
                raise self._look_ahead(f"[{where}]")
            return key
        array = np.asarray(key)
        if array.dtype == np.bool_ and array.ndim >= 1:
            if array.shape[0] > length:
                if array[length:].any():
                    raise self._look_ahead("[<boolean mask>]")
                array = array[:length]
            return array
        if array.dtype.kind in "iu":
            if array.size and int(array.max()) > now:
                raise self._look_ahead(f"[{where}]")
            return array
        raise TypeError(
            f"{self.name}[...]: index rows with ints, slices, int arrays, boolean masks or "
            f"Time(...), got {key!r}"
        )

    def __getitem__(self, key: Any) -> Any:
        visible = self._array[: self._now + 1]  # never leaves this method
        parts = list(key) if isinstance(key, tuple) else [key]
        position = _axis0_position(parts, self._array.ndim)
        if position is not None:
            parts[position] = self._axis0(parts[position], repr(key))
        result = visible[tuple(parts)] if isinstance(key, tuple) else visible[parts[0]]
        return _frozen(result)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        rows = np.array(self._array[: self._now + 1], dtype=dtype, copy=True)
        rows.flags.writeable = False
        return rows

    def __repr__(self) -> str:
        return f"Past({self.name}, rows 0..{self._now}, shape={self.shape})"


def _axis0_position(parts: list[Any], ndim: int) -> int | None:
    """Which element of an index tuple indexes the time axis (None: it is taken whole)."""
    indexing = sum(
        np.ndim(part) if isinstance(part, np.ndarray) and part.dtype == np.bool_ else 1
        for part in parts
        if part is not None and part is not Ellipsis
    )
    for position, part in enumerate(parts):
        if part is None:
            continue
        if part is Ellipsis:
            if ndim - indexing >= 1:
                return None  # the ellipsis covers the time axis
            continue
        return position
    return None


class PointInTime:
    """The data as known at decision row ``t``, from `MarketData.at`.

    The observation side sees rows ``0..t`` through `Past` accessors
    (`prices`, `field`, `mask`, `exogenous`,
    `timestamps`) and helpers (`log_returns`, `available`).
    The execution side reads `execution_price`: the price of row
    ``t + 1``, at which a decision taken at ``t`` trades. That is the only
    access to a later row; use it to fill orders and score them, never to
    build observations. Reads past ``t`` raise
    [`LookAheadError`][sekai.error.LookAheadError]; arrays returned are read-only copies.

    The full data stays reachable through private attributes (Python has no
    sandbox): the accessor guards against accidental look-ahead, not against
    code that sets out to cheat.

    Examples:
        >>> data = MarketData([[10.0], [11.0], [12.0]])
        >>> now = data.at(1)
        >>> now.prices.latest.tolist(), now.execution_price().tolist()
        ([11.0], [12.0])
        >>> now.prices[2]  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sekai.error.LookAheadError: prices[2] reads after the decision row 1 ...
    """

    __slots__ = ("_data", "_now")

    def __init__(self, data: MarketData, row: int) -> None:
        self._data = data
        self._now = row

    @property
    def index(self) -> int:
        """The decision row ``t``."""
        return self._now

    @property
    def time(self) -> Any:
        """The timestamp of row ``t``."""
        return self._data.timestamps[self._now]

    @property
    def assets(self) -> tuple[Any, ...]:
        """The asset labels."""
        return self._data.assets

    @property
    def n_assets(self) -> int:
        """Number of assets."""
        return self._data.n_assets

    def _past(self, array: NDArray[Any], name: str) -> Past:
        return Past(array, self._now, self._data, name)

    @property
    def prices(self) -> Past:
        """The prices up to row ``t``."""
        return self._past(self._data.prices, "prices")

    def field(self, name: str) -> Past:
        """The field ``name`` up to row ``t``."""
        return self._past(self._data.field(name), f"field({name!r})")

    @property
    def mask(self) -> Past:
        """Availability up to row ``t``."""
        return self._past(self._data.mask, "mask")

    @property
    def timestamps(self) -> Past:
        """The timestamps up to row ``t``."""
        return self._past(self._data.timestamps, "timestamps")

    def exogenous(self, name: str) -> Past:
        """The exogenous series ``name`` up to row ``t``."""
        return self._past(self._data.exogenous_series(name), f"exogenous({name!r})")

    @property
    def available(self) -> NDArray[np.bool_]:
        """Which assets have a price at row ``t``."""
        return _copy(self._data.mask[self._now])

    def log_returns(self, length: int) -> NDArray[np.float64]:
        """``(length, n_assets)`` log returns of rows ``t - length + 1`` to ``t``.

        NaN where a price is unavailable.

        Raises:
            ValueError: Row ``t - length`` does not exist.
        """
        if type(length) is not int or length < 1:
            length = check_int(length, "PointInTime.log_returns: length", minimum=1)
        if length > self._now:
            raise ValueError(
                f"PointInTime.log_returns({length}) needs rows {self._now - length} to "
                f"{self._now}; the data starts at row 0"
            )
        prices = self._data.prices[self._now - length : self._now + 1]
        returns = prices[1:] / prices[:-1]  # a new array: NaN where a price is missing
        np.log(returns, out=returns)
        return readonly(returns)

    @property
    def has_next(self) -> bool:
        """Whether a row after ``t`` exists, i.e. whether a decision at ``t`` can execute."""
        return self._now + 1 < self._data.n_steps

    def _next_row(self, what: str) -> int:
        if not self.has_next:
            raise IndexError(
                f"PointInTime.{what}: row {self._now} is the last; a decision there cannot execute"
            )
        return self._now + 1

    def execution_price(self, field: str | None = None) -> NDArray[np.float64]:
        """The ``(n_assets,)`` prices at which a decision taken at ``t`` executes: row ``t + 1``.

        Args:
            field: The field to execute at (e.g. ``"open"`` for the next open);
                default the price field. NaN where the asset is unavailable.

        Raises:
            IndexError: Row ``t`` is the last row.
        """
        row = self._next_row("execution_price()")
        table = self._data.prices if field is None else self._data.field(field)
        return _copy(table[row])

    @property
    def execution_time(self) -> Any:
        """The timestamp of row ``t + 1``, when a decision taken at ``t`` executes."""
        return self._data.timestamps[self._next_row("execution_time")]

    def advance(self, steps: int = 1) -> PointInTime:
        """The data as known ``steps`` rows later.

        Raises:
            IndexError: That row does not exist.
        """
        if type(steps) is not int or steps < 0:
            steps = check_int(steps, "PointInTime.advance: steps", minimum=0)
        row = self._now + steps
        if row >= self._data.n_steps:
            raise IndexError(
                f"PointInTime.advance({steps}) from row {self._now} leaves the data's "
                f"{self._data.n_steps} rows"
            )
        return PointInTime(self._data, row)

    def __repr__(self) -> str:
        return f"PointInTime(row={self._now}, time={_show(self.time)})"
