"""`MarketData`, the immutable table of prices, fields and times (private).

`sekai.finance.data` re-exports it (its module docstring explains the
point-in-time design). The class holds the arrays and documents the API; the
work of each concern lives in a module of its own: building and reading
(`_data_io`), times (`_data_time`), cutting rows and assets
(`_data_splits`), pickling and shared memory (`_data_sharing`), the views at
one decision row (`_point_in_time`) and at one row per sub-env
(`_point_in_time_batch`, reading `_batch_sources`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_choice
from sekai.finance import (
    _data_io as _io,
    _data_sharing as _sharing,
    _data_splits as _splits,
    _shared_frames as _frames,
)
from sekai.finance._batch_sources import log_return_table
from sekai.finance._data_time import TimeLike, periods_per_year, show, time_value
from sekai.finance._point_in_time import PointInTime, point_in_time
from sekai.finance._point_in_time_batch import PointInTimeBatch
from sekai.finance._shared import SharedBlock
from sekai.finance._shared_inputs import readonly

__all__ = ["MarketData"]


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
        "_log_return_cache",
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
    _log_return_cache: NDArray[np.float64] | None  # see _log_return_table

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
        parts = _io.parts(prices, fields, timestamps, assets, exogenous, price_field, warmup)
        self._set(**parts)

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
        setter(self, "_log_return_cache", None)

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
            sekai.error.MissingColumns: Columns are missing (a ``KeyError``; the
                message names all of them and the columns there are).
            sekai.error.InvalidData: The table has no rows, a cell that
                should hold a number or a time does not, two rows for the same
                time and asset, or a row without an asset label (a
                ``ValueError``; the message names the column, the row and the
                value). Two subclasses keep the builtin raised before:
                `sekai.error.InvalidDataType` (also a ``TypeError``) for times
                that are not ints or dates (floats, bools, durations) and
                cells holding an object that is no number and no text;
                `sekai.error.EmptyTable` (also a ``KeyError``) for no rows.
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
        symbol: Hashable | None = None,
        **read_options: Any,
    ) -> MarketData:
        """Data from a CSV file, in long, wide or OHLCV layout.

        Args:
            path: The file.
            layout: ``"long"``: columns ``time``, ``asset`` (None: one asset),
                ``price`` and ``fields``, as in `from_long`. ``"wide"``: a
                ``time`` column and one price column per asset, as in
                `from_pandas` (then ``price`` names the price field).
                ``"ohlcv"``: one asset's bars, a ``time`` column and one column
                per field, as a Yahoo Finance download (``Date, Open, High,
                Low, Close, Adj Close, Volume``): every column becomes a field
                (or those in ``fields``), named in lower case with spaces as
                underscores (``open``, ..., ``adj_close``, ``volume``), and
                ``time``, ``price`` and ``fields`` are compared with the
                columns the same way (the defaults find ``Date`` and
                ``Close``; ``price="Adj Close"`` prices by the adjusted close).
            time: The column of times.
            asset: The column of asset labels (long layout).
            price: The column of prices (long and OHLCV layouts) and the price
                field's name.
            fields: Other columns to keep (long layout; OHLCV: the fields to
                keep, default all).
            symbol: The label of the single asset (OHLCV layout, or long with
                ``asset=None``); default 0.
            **read_options: Passed to `pandas.read_csv`.

        Raises:
            ImportError: pandas is not installed.
            sekai.error.MissingColumns: Columns named by the arguments are not in
                the file (one error names all of them; also a ``KeyError``).
            sekai.error.InvalidData: The file cannot be read as asked (a
                ``ValueError``): no rows; a price, field or time that is not a
                number or a date (the message names the column, the row with
                its time and asset, and the value); the header names a column
                twice (pandas would rename the second, ``"A.1"``, and make it
                another asset); a row of a long table has no asset label (it
                would become an asset named nan); or ``layout="wide"`` on a
                file of bars, whose Open, High, ..., Volume columns would load
                as assets (the message says to use ``layout="ohlcv"``). A
                file of bars has a ``Close`` or ``Adj Close`` column and two
                or more of Open, High, Low and Volume; tickers such as
                ``LOW`` or ``OPEN`` alone load as assets. The subclasses
                `sekai.error.InvalidDataType` and `sekai.error.EmptyTable`
                are as in `from_long`.
            ValueError: An unknown ``layout``, or ``symbol`` with a layout
                whose assets the file names.

        Examples:
            >>> import pathlib, tempfile
            >>> from sekai.finance.data import MarketData
            >>> path = pathlib.Path(tempfile.mkdtemp()) / "XYZ.csv"
            >>> _ = path.write_text(
            ...     "Date,Open,High,Low,Close,Adj Close,Volume" + chr(10)
            ...     + "2024-01-02,10.0,10.5,9.5,10.2,10.1,1000" + chr(10)
            ...     + "2024-01-03,10.2,10.9,10.0,10.8,10.7,1200" + chr(10)
            ... )
            >>> data = MarketData.from_csv(path, layout="ohlcv", symbol="XYZ")
            >>> data.assets, sorted(data.fields), data.prices[:, 0].tolist()
            (('XYZ',), ['adj_close', 'close', 'high', 'low', 'open', 'volume'], [10.2, 10.8])
        """
        frame = _frames.read_table(path, "csv", read_options)
        what = f"MarketData.from_csv({str(path)!r})"
        return _io.from_table(cls, frame, layout, time, asset, price, fields, symbol, what)

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
        symbol: Hashable | None = None,
        **read_options: Any,
    ) -> MarketData:
        """Data from a Parquet file; the arguments and errors are those of `from_csv`.

        ``time`` may also name the stored index (as ``DataFrame.to_parquet``
        writes it).

        Raises:
            ImportError: pandas or pyarrow is not installed.
        """
        frame = _frames.read_table(path, "parquet", read_options)
        what = f"MarketData.from_parquet({str(path)!r})"
        return _io.from_table(cls, frame, layout, time, asset, price, fields, symbol, what)

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
        return periods_per_year(self._timestamps)

    # -- times and rows ------------------------------------------------------------------------

    def index_of(self, when: TimeLike, *, side: str = "left") -> int:
        """The row where ``when`` falls, as `numpy.searchsorted` finds it.

        Args:
            when: A time.
            side: ``"left"``: the first row stamped at or after ``when``;
                ``"right"``: the first row stamped after it. Either may be
                ``n_steps`` (``when`` is after every row).
        """
        check_choice(side, "MarketData.index_of: side", ("left", "right"))
        key = time_value(self._timestamps, when, "MarketData.index_of")
        return int(np.searchsorted(self._timestamps, key, side=side))  # type: ignore[call-overload]

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
        return _splits.slice_of(self, key)

    def between(self, start: TimeLike | None = None, end: TimeLike | None = None) -> MarketData:
        """The rows stamped from ``start`` to ``end``, both included (None: unbounded).

        Raises:
            ValueError: No row in the range.
        """
        return _splits.between(self, start, end)

    def select(self, assets: Sequence[Any]) -> MarketData:
        """The columns of ``assets``, in that order (the tables are copied).

        Raises:
            KeyError: An unknown asset.
            ValueError: No asset, or one named twice.
        """
        return _splits.select(self, assets)

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
        return _splits.split(self, boundaries, embargo, history)

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
        return _splits.walk_forward(self, train_size, test_size, step, embargo, history, expanding)

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
        return _io.with_fields(self, arrays)

    def with_exogenous(self, **arrays: ArrayLike) -> MarketData:
        """New data with these exogenous series added or replaced."""
        return _io.with_exogenous(self, arrays)

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
        return point_in_time(self, when)

    def at_rows(self, rows: ArrayLike) -> PointInTimeBatch:
        """What is known at one decision row per sub-env: a `PointInTimeBatch`.

        The batched form of `at` for native vector envs, whose sub-envs all
        read this one history at their own rows. Building a batch costs a few
        attributes and one check of the rows; the data is not copied.

        Args:
            rows: ``(n,)`` ints, each a row of the data (``0 <= row < n_steps``;
                no negative rows).

        Raises:
            TypeError: ``rows`` are not ints.
            ValueError: ``rows`` is not 1-D, or a row is outside the data (the
                message names the first).

        Examples:
            >>> from sekai.finance.data import MarketData
            >>> data = MarketData([[10.0], [11.0], [12.0], [13.0]])
            >>> batch = data.at_rows([1, 2])
            >>> batch.prices.latest()[:, 0].tolist(), batch.execution_price()[:, 0].tolist()
            ([11.0, 12.0], [12.0, 13.0])
        """
        return PointInTimeBatch(self, rows)

    def _log_return_table(self) -> NDArray[np.float64]:
        """The log returns of every row, computed on first use and kept (see `PointInTimeBatch`).

        Only this process's instance holds it: it is not pickled, not shared and
        not carried over to data derived from this one.
        """
        table = self._log_return_cache
        if table is None:
            table = log_return_table(self.prices)
            object.__setattr__(self, "_log_return_cache", table)
        return table

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
        return _sharing.share(self)

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

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        from sekai.finance.data import _restore  # the name pickles have always used

        return _restore, _sharing.reduce_args(self)

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
            f"{show(first)} .. {show(last)}, {', '.join(extras)})"
        )
