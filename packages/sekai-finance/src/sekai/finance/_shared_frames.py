"""pandas DataFrames, CSV and Parquet files to the arrays of a MarketData (private).

Shared by the ``MarketData.from_*`` readers. pandas is imported only when one
of them runs; without it, ImportError names the extra to install.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_choice

__all__ = ["long_arrays", "read_table", "require_pandas", "wide_arrays"]

_EXTRA = "install the sekai-finance[data] distribution (or `pip install pandas pyarrow`)"


def require_pandas(what: str) -> Any:
    """The pandas module, or ImportError naming the ``[data]`` extra."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - pandas is in the dev environment
        raise ImportError(f"{what} needs pandas (and pyarrow for Parquet): {_EXTRA}") from exc
    return pandas


def _times(pd: Any, values: Any, what: str) -> NDArray[Any]:
    """Timestamps as int64 or naive datetime64 (time zones converted to UTC)."""
    series = pd.Series(values)
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    elif series.dtype.kind in "OSU" or str(series.dtype) in ("string", "str"):
        try:
            series = pd.to_datetime(series)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{what}: cannot read the times as dates: {exc}") from None
        if isinstance(series.dtype, pd.DatetimeTZDtype):
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    array: NDArray[Any] = np.asarray(series.to_numpy())
    if array.dtype.kind not in "iuM":
        raise TypeError(f"{what}: times must be ints or dates, got values of dtype {array.dtype}")
    return array


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
) -> dict[str, Any]:
    """MarketData keyword arguments from wide DataFrames (rows: times, columns: assets).

    ``fields`` are aligned exactly on the prices' times and assets (missing
    cells are NaN); ``exogenous`` series are aligned as of each time (the last
    value stamped at or before it), as a point-in-time join must.
    """
    pd = require_pandas("MarketData.from_pandas")
    what = "MarketData.from_pandas"
    if isinstance(prices, pd.Series):
        prices = prices.to_frame(0 if prices.name is None else prices.name)
    if not isinstance(prices, pd.DataFrame):
        raise TypeError(f"{what}: prices must be a DataFrame or a Series, got {prices!r}")
    frame = _sorted_unique(pd, prices, what)
    index, columns = frame.index, frame.columns
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
        arrays[name] = value.reindex(index=index, columns=columns).to_numpy(np.float64)
    return {
        "prices": frame.to_numpy(np.float64),
        "fields": arrays,
        "timestamps": _times(pd, index, what),
        "assets": list(columns),
        "exogenous": _exogenous(pd, exogenous, index, what),
        "price_field": price_field,
    }


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
        out[name] = value.reindex(index, method="ffill").to_numpy(np.float64)
    return out


def long_arrays(
    frame: Any,
    time: str | None,
    asset: str | None,
    price: str,
    fields: Sequence[str],
) -> dict[str, Any]:
    """MarketData keyword arguments from a long table (one row per time and asset).

    ``time`` names a column or the index (None: the index); ``asset`` names the
    asset column, or None when the table holds one asset. A (time, asset) pair
    missing from the table is unavailable (NaN).
    """
    pd = require_pandas("MarketData.from_long")
    what = "MarketData.from_long"
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what}: frame must be a DataFrame, got {type(frame).__name__}")
    if isinstance(fields, str):
        raise TypeError(f"{what}: fields must be a sequence of column names, got {fields!r}")
    if time is None or (time not in frame.columns and time == frame.index.name):
        frame = frame.reset_index(names="__time__" if time is None else time)
        time = "__time__" if time is None else time
    columns = [price, *fields]
    wanted = [time, *([] if asset is None else [asset]), *columns]
    missing = [name for name in wanted if name not in frame.columns]
    if missing:
        raise KeyError(
            f"{what}: no column {missing[0]!r}; the table has {[*frame.columns]!r}"
            f" (index {frame.index.name!r})"
        )
    if asset is not None:
        unnamed = frame[asset].isna() | (frame[asset].astype(str).str.strip() == "")
        if unnamed.any():  # pivoted, it would become an asset named nan
            row = int(np.flatnonzero(unnamed.to_numpy())[0])
            raise ValueError(
                f"{what}: row {row} of the table has no asset (column {asset!r} is empty); "
                f"{int(unnamed.sum())} row(s) in all. Fill or drop them first"
            )
    frame = frame.assign(**{time: _times(pd, frame[time], what)})
    keys = [time] if asset is None else [time, asset]
    duplicated = frame.duplicated(keys)
    if duplicated.any():
        row = frame.loc[duplicated, keys].iloc[0].tolist()
        raise ValueError(f"{what}: more than one row for {dict(zip(keys, row, strict=True))!r}")
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
            raise ValueError(
                f"MarketData.from_csv: the file's header names the column(s) "
                f"{sorted(map(str, repeated))} more than once: {path}"
            )
    return frame
