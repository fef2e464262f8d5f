"""Building a MarketData: its constructor's checks, readers' tables, new fields (private).

The functions return the parts `MarketData._set` takes (or new data built
with `MarketData._derive`); `MarketData`'s constructor, ``from_*`` readers
and ``with_*`` methods delegate to them. The conversions of single arrays
live in `sekai.finance._shared_inputs`, those of pandas objects in
`sekai.finance._shared_frames`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_choice, check_int
from sekai.error import InvalidData
from sekai.finance import _shared_frames as _frames
from sekai.finance._shared_inputs import (
    assets_tuple,
    check_prices,
    exogenous_array,
    float_table,
    readonly,
    timestamps_array,
)

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = ["LAYOUTS", "from_table", "parts", "with_exogenous", "with_fields"]


def parts(
    prices: ArrayLike | None,
    fields: Mapping[str, ArrayLike] | None,
    timestamps: ArrayLike | None,
    assets: Sequence[Any] | None,
    exogenous: Mapping[str, ArrayLike] | None,
    price_field: str,
    warmup: int,
) -> dict[str, Any]:
    """Check and copy `MarketData`'s constructor arguments into its parts.

    Returns:
        The keyword arguments of `MarketData._set` (without a shared block).

    Raises:
        TypeError, ValueError: As documented on `MarketData`.
    """
    if not isinstance(price_field, str) or not price_field:
        raise TypeError(f"MarketData: price_field must be a non-empty str, got {price_field!r}")
    if fields is not None and not isinstance(fields, Mapping):
        raise TypeError(f"MarketData: fields must be a mapping of name to array, got {fields!r}")
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
    return {
        "fields": tables,
        "price_field": price_field,
        "mask": readonly(np.isfinite(table)),
        "timestamps": timestamps_array(timestamps, n_steps),
        "assets": assets_tuple(assets, n_assets),
        "exogenous": series,
        "warmup": check_int(warmup, "MarketData: warmup", minimum=0, maximum=n_steps - 1),
        "block": None,
    }


LAYOUTS = ("long", "wide", "ohlcv")
"""The ``layout`` values of `MarketData.from_csv` and `MarketData.from_parquet`."""


def from_table(
    cls: type[MarketData],
    frame: Any,
    layout: str,
    time: str,
    asset: str | None,
    price: str,
    fields: Sequence[str],
    symbol: Hashable | None,
    what: str,
) -> MarketData:
    """Data from a DataFrame read from a file (see `MarketData.from_csv`).

    ``what`` names the reader and the file in errors.
    """
    check_choice(layout, f"{what}: layout", LAYOUTS)
    if symbol is not None and (layout == "wide" or (layout == "long" and asset is not None)):
        raise ValueError(
            f"{what}: symbol labels the one asset of a file without an asset column "
            f"(layout='ohlcv', or layout='long' with asset=None); with layout={layout!r}"
            + ("" if layout == "wide" else f" and asset={asset!r}")
            + f" the assets are named by the file, got symbol={symbol!r}"
        )
    if layout == "ohlcv":
        return cls(**_frames.ohlcv_arrays(frame, time, price, fields, symbol, what))
    if layout == "long":
        arrays = _frames.long_arrays(frame, time, asset, price, fields, what)
        if asset is None and symbol is not None:
            arrays["assets"] = [symbol]
        return cls(**arrays)
    if time in frame.columns:
        frame = _frames.table_times(frame, time, what).set_index(time)
    elif frame.index.name != time:
        _frames.require_columns(frame, [time], what)
    bars = _frames.ohlcv_columns([*frame.columns])
    if bars:
        raise InvalidData(
            f"{what}: layout='wide' reads one price column per asset, but the columns "
            f"{bars!r} are the fields of one asset's bars (open, high, low, close, volume), "
            f"not assets. Read the file with layout='ohlcv' (e.g. layout='ohlcv', "
            f"time={time!r}, symbol='XYZ'), which keeps them as fields of one asset"
        )
    return cls(**_frames.wide_arrays(frame, None, None, price, what))


def with_fields(data: MarketData, arrays: Mapping[str, ArrayLike]) -> MarketData:
    """``data`` with these fields added or replaced; see `MarketData.with_fields`."""
    tables: dict[str, NDArray[np.float64]] = dict(data.fields)
    mask = data.mask
    for name, value in arrays.items():
        table = float_table(value, f"MarketData.with_fields: {name!r}", data.n_steps, data.n_assets)
        if name == data.price_field:
            check_prices(table, f"MarketData.with_fields: {name!r}")
            mask = readonly(np.isfinite(table))
        tables[name] = table
    return data._derive(fields=tables, mask=mask)


def with_exogenous(data: MarketData, arrays: Mapping[str, ArrayLike]) -> MarketData:
    """``data`` with these exogenous series added or replaced."""
    series = dict(data.exogenous)
    for name, value in arrays.items():
        series[name] = exogenous_array(value, name, data.n_steps)
    return data._derive(exogenous=series)
