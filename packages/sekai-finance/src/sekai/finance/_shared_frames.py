"""pandas DataFrames, CSV and Parquet files to the arrays of a MarketData (private).

Shared by the ``MarketData.from_*`` readers. pandas is imported only when one
of them runs; without it, ImportError names the extra to install.

A table that cannot be read raises `sekai.error.InvalidData` (a ValueError)
naming the column, the row with its time and asset, and the value;
`sekai.error.MissingColumns` (also a KeyError) names every missing column at
once. Where an earlier version raised a TypeError (times that are no ints or
dates, a cell holding an object numpy cannot read as a number) the error is
`sekai.error.InvalidDataType`, and an empty table raises
`sekai.error.EmptyTable` (also a KeyError, as an empty long table raised): a
handler written for the old builtin still catches it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_choice
from sekai.error import EmptyTable, InvalidData, InvalidDataType, MissingColumns
from sekai.finance._data_time import show

__all__ = [
    "OHLCV_FIELDS",
    "field_name",
    "long_arrays",
    "ohlcv_arrays",
    "ohlcv_columns",
    "read_table",
    "require_columns",
    "require_pandas",
    "table_times",
    "wide_arrays",
]

OHLCV_FIELDS = ("open", "high", "low", "close", "adj_close", "volume")
"""The fields of a bar file (Yahoo Finance's columns, as `field_name` spells them)."""

_EXTRA = "install the sekai-finance[data] distribution (or `pip install pandas pyarrow`)"


def require_pandas(what: str) -> Any:
    """The pandas module, or ImportError naming the ``[data]`` extra."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is in the dev environment
        raise ImportError(f"{what} needs pandas (and pyarrow for Parquet): {_EXTRA}") from exc
    return pandas


def _times(pd: Any, values: Any, what: str, column: str = "time") -> NDArray[Any]:
    """Timestamps as int64 or naive datetime64 (time zones converted to UTC).

    An empty cell, or text that is not a date, raises `InvalidData` naming its
    row (a position in ``values``), ``column`` and the value.
    """
    series = pd.Series(values)
    empty = series.isna().to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        # A column of numbers with a gap is floats: a TypeError before, as any float times.
        error = InvalidData if _text_or_dates(pd, series) else InvalidDataType
        raise error(
            f"{what}: row {row} has no time (column {column!r} is empty there); "
            f"{int(empty.sum())} row(s) in all"
        )
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    elif series.dtype.kind in "OSU" or str(series.dtype) in ("string", "str"):
        try:
            parsed = pd.to_datetime(series)
        except (ValueError, TypeError) as exc:
            # Find the cell: parsed one by one, the first that is not a date.
            for row, value in enumerate(series.tolist()):
                try:
                    pd.to_datetime(value)
                except (ValueError, TypeError):
                    raise InvalidData(
                        f"{what}: row {row} of column {column!r} holds {value!r}, which is not "
                        "a date"
                    ) from None
            raise InvalidData(
                f"{what}: cannot read column {column!r} as dates: {exc}"
            ) from None  # pragma: no cover - every cell parses alone but not together
        series = parsed
        if isinstance(series.dtype, pd.DatetimeTZDtype):
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    array: NDArray[Any] = np.asarray(series.to_numpy())
    if array.dtype.kind not in "iuM":
        raise InvalidDataType(
            f"{what}: times must be ints or dates, got values of dtype {array.dtype} in "
            f"column {column!r}"
        )
    return array


def _text_or_dates(pd: Any, series: Any) -> bool:
    """Whether ``series`` holds text or dates (read as dates), not numbers or durations."""
    return (
        series.dtype.kind in "OSUM"
        or str(series.dtype) in ("string", "str")
        or isinstance(series.dtype, pd.DatetimeTZDtype)
    )


def table_times(frame: Any, time: str, what: str) -> Any:
    """``frame`` with its column ``time`` read as timestamps, before any sorting.

    Reading the dates first sorts them as dates (``"1/10/2024"`` after
    ``"1/9/2024"``), and an error names the row of the file.
    """
    pd = require_pandas(what)
    return frame.assign(**{time: _times(pd, frame[time], what, time)})


def _float_frame(
    pd: Any, frame: Any, columns: Sequence[Any], what: str, where: Callable[[int, Any], str]
) -> Any:
    """``frame[columns]`` as float64, or `InvalidData` naming the first cell that is no number.

    Numbers written as text (``"1.5"``) are read as numbers and empty cells
    (None, NaN) as missing, as numpy's conversion does; any other value is
    refused. ``where(row, column)`` describes the cell for the message, with
    ``row`` a position in ``frame``.
    """
    table = frame[list(columns)]
    if all(kind in "iufb" for kind in (dtype.kind for dtype in table.dtypes)):
        return table.astype(np.float64)
    out = {}
    for position, column in enumerate(columns):
        values = table.iloc[:, position]
        if values.dtype.kind not in "iufb":
            numbers = pd.to_numeric(values, errors="coerce")
            bad = (numbers.isna() & values.notna()).to_numpy()
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                value = values.iloc[row]
                raise _not_a_number(value)(
                    f"{what}: {where(row, column)} holds {value!r}, which is not a "
                    f"number; {int(bad.sum())} such cell(s) in the column"
                )
            values = numbers
        out[position] = values.to_numpy(np.float64)
    return pd.DataFrame(
        {position: out[position] for position in range(len(columns))}, index=table.index
    ).set_axis(table.columns, axis=1)


def _not_a_number(value: Any) -> type[InvalidData]:
    """The error for a cell holding ``value``: the class numpy's conversion raised before.

    `InvalidDataType` (also a TypeError) for an object float() refuses by
    type (a date, a dict), `InvalidData` (a ValueError) for text and the rest.
    """
    try:
        np.array([value], dtype=np.float64)
    except TypeError:
        return InvalidDataType
    except (ValueError, OverflowError):
        pass
    return InvalidData


def field_name(column: Any) -> str:
    """A column's name as a field: lower case, spaces as underscores (``adj_close``)."""
    return re.sub(r"[\s_]+", "_", str(column).strip()).lower()


def ohlcv_columns(columns: Sequence[Any]) -> list[Any]:
    """The bar (OHLCV) fields among ``columns`` if they are one asset's bars, else ``[]``.

    Bars always have a close (``Close`` or ``Adj Close``) and at least two of
    open, high, low and volume. Fewer is no sign: tickers such as ``LOW``
    (Lowe's), ``OPEN`` (Opendoor) or ``HIGH`` are names a wide table of
    prices holds as assets, and no listed ticker reads ``Adj Close``.
    """
    named = {field_name(column): column for column in columns if field_name(column) in OHLCV_FIELDS}
    closes = {"close", "adj_close"} & named.keys()
    others = {"open", "high", "low", "volume"} & named.keys()
    if not closes or len(others) < 2:
        return []
    return [column for column in columns if field_name(column) in OHLCV_FIELDS]


def require_columns(frame: Any, wanted: Sequence[Any], what: str, advice: str = "") -> None:
    """`MissingColumns` naming every column of ``wanted`` that ``frame`` lacks, if any."""
    missing = [name for name in dict.fromkeys(wanted) if name not in frame.columns]
    if not missing:
        return
    available = [*frame.columns]
    by_name = {field_name(column): column for column in available}
    hints = [
        f"{by_name[field_name(name)]!r} for {name!r}"
        for name in missing
        if field_name(name) in by_name
    ]
    text = (
        f"{what}: the table has no column{'s' if len(missing) > 1 else ''} "
        f"{', '.join(map(repr, missing))}; its columns are {available!r}"
    )
    if frame.index.name is not None:
        text += f" (index {frame.index.name!r})"
    text += f". Did you mean {', '.join(hints)}?" if hints else "."
    if advice:
        text += f" {advice}."
    raise MissingColumns(text, columns=tuple(missing), available=tuple(available))


def _no_rows(frame: Any, what: str) -> None:
    if len(frame) == 0:
        raise EmptyTable(f"{what}: the table has no rows (its columns: {[*frame.columns]!r})")


def _sorted_unique(pd: Any, frame: Any, what: str) -> Any:
    frame = frame.sort_index(kind="stable")
    duplicated = frame.index.duplicated()
    if duplicated.any():
        raise ValueError(
            f"{what}: the time index must be unique, got {frame.index[duplicated][0]!r} twice"
        )
    return frame


def wide_arrays(
    prices: Any,
    fields: Mapping[str, Any] | None,
    exogenous: Any,
    price_field: str,
    what: str = "MarketData.from_pandas",
) -> dict[str, Any]:
    """MarketData keyword arguments from wide DataFrames (rows: times, columns: assets).

    ``fields`` are aligned exactly on the prices' times and assets (missing
    cells are NaN); ``exogenous`` series are aligned as of each time (the last
    value stamped at or before it), as a point-in-time join must.
    """
    pd = require_pandas(what)
    if isinstance(prices, pd.Series):
        prices = prices.to_frame(0 if prices.name is None else prices.name)
    if not isinstance(prices, pd.DataFrame):
        raise TypeError(f"{what}: prices must be a DataFrame or a Series, got {prices!r}")
    _no_rows(prices, what)
    frame = _sorted_unique(pd, prices, what)
    index, columns = frame.index, frame.columns
    frame = _float_frame(pd, frame, columns, what, _cell_of_asset(index, "price"))
    arrays: dict[str, Any] = {}
    for name, value in (fields or {}).items():
        if isinstance(value, pd.Series):
            if len(columns) != 1:
                raise ValueError(
                    f"{what}: field {name!r} is a Series but there are {len(columns)} assets; "
                    "pass a DataFrame with one column per asset"
                )
            value = value.to_frame(columns[0])
        if not isinstance(value, pd.DataFrame):
            raise TypeError(
                f"{what}: field {name!r} must be a DataFrame or a Series, got {value!r}"
            )
        value = _sorted_unique(pd, value, f"{what}: field {name!r}")
        value = value.reindex(index=index, columns=columns)
        arrays[name] = _float_frame(
            pd, value, columns, what, _cell_of_asset(index, f"field {name!r}")
        ).to_numpy(np.float64)
    return {
        "prices": frame.to_numpy(np.float64),
        "fields": arrays,
        "timestamps": _times(pd, index, what, "of times (the index)"),
        "assets": list(columns),
        "exogenous": _exogenous(pd, exogenous, index, what),
        "price_field": price_field,
    }


def _cell_of_asset(index: Any, kind: str) -> Callable[[int, Any], str]:
    """Names a cell of a wide table: its asset (the column) and its time (the index)."""

    def where(row: int, column: Any) -> str:
        when = index[row]
        if hasattr(when, "to_datetime64"):  # a pandas Timestamp
            when = when.to_datetime64()
        return f"the {kind} of asset {column!r} at {show(when)} (row {row})"

    return where


def _exogenous(pd: Any, exogenous: Any, index: Any, what: str) -> dict[str, NDArray[np.float64]]:
    if exogenous is None:
        return {}
    if isinstance(exogenous, pd.Series):
        items: dict[str, Any] = {str(exogenous.name): exogenous}
    elif isinstance(exogenous, pd.DataFrame):
        items = {str(column): exogenous[column] for column in exogenous.columns}
    elif isinstance(exogenous, Mapping):
        items = dict(exogenous)
    else:
        raise TypeError(
            f"{what}: exogenous must be a DataFrame, a Series or a mapping of them, got "
            f"{exogenous!r}"
        )
    out = {}
    for name, value in items.items():
        if not isinstance(value, (pd.Series, pd.DataFrame)):
            raise TypeError(f"{what}: exogenous {name!r} must be a Series or a DataFrame")
        value = _sorted_unique(pd, value, f"{what}: exogenous {name!r}")
        # As of each time: the last value stamped at or before it, never a later one.
        value = value.reindex(index, method="ffill")
        table = value.to_frame() if isinstance(value, pd.Series) else value
        numbers = _float_frame(
            pd, table, table.columns, what, _cell_of_asset(index, f"exogenous {name!r}")
        ).to_numpy(np.float64)
        out[name] = numbers[:, 0] if isinstance(value, pd.Series) else numbers
    return out


def long_arrays(
    frame: Any,
    time: str | None,
    asset: str | None,
    price: str,
    fields: Sequence[str],
    what: str = "MarketData.from_long",
) -> dict[str, Any]:
    """MarketData keyword arguments from a long table (one row per time and asset).

    ``time`` names a column or the index (None: the index); ``asset`` names the
    asset column, or None when the table holds one asset. A (time, asset) pair
    missing from the table is unavailable (NaN). ``what`` names the caller in
    errors.
    """
    pd = require_pandas(what)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what}: frame must be a DataFrame, got {type(frame).__name__}")
    if isinstance(fields, str):
        raise TypeError(f"{what}: fields must be a sequence of column names, got {fields!r}")
    if time is None or (time not in frame.columns and time == frame.index.name):
        frame = frame.reset_index(names="__time__" if time is None else time)
        time = "__time__" if time is None else time
    columns = [price, *fields]
    wanted = [time, *([] if asset is None else [asset]), *columns]
    advice = ""
    if asset is not None and ohlcv_columns([*frame.columns]):
        advice = (
            "The table looks like one asset's bars (open, high, low, close, volume): read it "
            "with layout='ohlcv' (from_csv, from_parquet) or asset=None"
        )
    require_columns(frame, wanted, what, advice)
    _no_rows(frame, what)
    if asset is not None:
        unnamed = frame[asset].isna() | (frame[asset].astype(str).str.strip() == "")
        if unnamed.any():  # pivoted, it would become an asset named nan
            row = int(np.flatnonzero(unnamed.to_numpy())[0])
            raise InvalidData(
                f"{what}: row {row} of the table has no asset (column {asset!r} is empty); "
                f"{int(unnamed.sum())} row(s) in all. Fill or drop them first"
            )
    times = frame[time]
    frame = frame.assign(**{time: _times(pd, times, what, time)})

    def where(row: int, column: Any) -> str:
        label = "" if asset is None else f", {asset} {frame[asset].iloc[row]!r}"
        return f"column {column!r} at row {row} ({time} {times.iloc[row]!s}{label})"

    numeric = list(dict.fromkeys(columns))
    numbers = _float_frame(pd, frame, numeric, what, where)
    frame = frame.copy(deep=False)
    for column in numeric:
        frame[column] = numbers[column].to_numpy()
    keys = [time] if asset is None else [time, asset]
    duplicated = frame.duplicated(keys)
    if duplicated.any():
        row = frame.loc[duplicated, keys].iloc[0].tolist()
        raise InvalidData(f"{what}: more than one row for {dict(zip(keys, row, strict=True))!r}")
    if asset is None:
        table = frame.set_index(time)[columns].sort_index()
        wide = {name: table[[name]].set_axis([0], axis=1) for name in columns}
    else:
        pivot = frame.pivot(index=time, columns=asset, values=columns).sort_index()
        wide = {name: pivot[name] for name in columns}
    prices = wide[price]
    return {
        "prices": prices.to_numpy(np.float64),
        "fields": {name: wide[name].to_numpy(np.float64) for name in fields},
        "timestamps": prices.index.to_numpy(),
        "assets": list(prices.columns),
        "price_field": price,
    }


def ohlcv_arrays(
    frame: Any,
    time: str,
    price: str,
    fields: Sequence[str],
    symbol: Hashable,
    what: str,
) -> dict[str, Any]:
    """MarketData keyword arguments from one asset's bars: a time column and one column per field.

    Column names are compared as `field_name` spells them (``"Adj Close"``,
    ``"adj close"`` and ``"adj_close"`` are one name) and the fields are stored
    under those names. Every column but the time becomes a field unless
    ``fields`` names the ones to keep (the price is always kept).
    """
    if isinstance(fields, str):
        raise TypeError(f"{what}: fields must be a sequence of column names, got {fields!r}")
    if time not in frame.columns and frame.index.name is not None:
        frame = frame.reset_index()  # a stored index (Parquet) is a column like the others
    names = [field_name(column) for column in frame.columns]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InvalidData(
            f"{what}: the columns {[*frame.columns]!r} name the field(s) {repeated!r} more "
            "than once (names are compared in lower case, spaces as underscores)"
        )
    column_of = dict(zip(names, frame.columns, strict=True))

    def column(name: str) -> Any:
        return column_of.get(field_name(name), name)  # a missing name stays as given

    time_column, price_column = column(time), column(price)
    if fields:
        kept = [column(name) for name in fields]
    else:
        kept = [name for name in frame.columns if name not in (time_column, price_column)]
    kept = [name for name in dict.fromkeys(kept) if name != price_column]
    arrays = long_arrays(frame, time_column, None, price_column, kept, what)
    arrays["fields"] = {field_name(name): table for name, table in arrays["fields"].items()}
    arrays["price_field"] = field_name(price_column)
    arrays["assets"] = [0 if symbol is None else symbol]
    return arrays


def read_table(path: str | Path, kind: str, options: Mapping[str, Any]) -> Any:
    """Read a CSV or Parquet file into a DataFrame."""
    check_choice(kind, "read_table: kind", ("csv", "parquet"))
    pd = require_pandas(f"MarketData.from_{kind}")
    if kind == "parquet":
        return pd.read_parquet(path, **options)
    frame = pd.read_csv(path, **options)
    if "names" not in options and options.get("header", "infer") in ("infer", 0):
        # pandas renames a repeated column ("A", "A.1"): two columns would pass for two assets.
        header = {key: value for key, value in options.items() if key not in ("nrows", "header")}
        raw = pd.read_csv(path, header=None, nrows=1, **header).iloc[0].tolist()
        repeated = {name for name in raw if raw.count(name) > 1}
        if repeated:
            raise InvalidData(
                f"MarketData.from_csv: the file's header names the column(s) "
                f"{sorted(map(str, repeated))} more than once: {path}"
            )
    return frame
