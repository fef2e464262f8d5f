"""Checking and converting the arrays a MarketData is made of (private).

Every array is copied, converted (float64 tables, int64 or datetime64
timestamps) and made read-only, so a MarketData never shares memory with
arrays its caller can still write to.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "assets_tuple",
    "check_prices",
    "exogenous_array",
    "float_table",
    "readonly",
    "timestamps_array",
]


def readonly(array: NDArray[Any]) -> NDArray[Any]:
    array.flags.writeable = False
    return array


def float_table(value: Any, what: str, n_steps: int | None, n_assets: int | None) -> NDArray[Any]:
    try:
        array = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an array of numbers, got {value!r}") from None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    expected = f"({'n_steps' if n_steps is None else n_steps}, " + (
        "n_assets)" if n_assets is None else f"{n_assets})"
    )
    if (
        array.ndim != 2
        or array.shape[0] < 1
        or array.shape[1] < 1
        or (n_steps is not None and array.shape[0] != n_steps)
        or (n_assets is not None and array.shape[1] != n_assets)
    ):
        raise ValueError(f"{what} must have shape {expected}, got shape {array.shape}")
    return readonly(array)


def check_prices(prices: NDArray[np.float64], what: str) -> None:
    bad = ~np.isnan(prices) & ~(np.isfinite(prices) & (prices > 0))
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{what} must be finite and > 0, or NaN where the asset is unavailable; got "
            f"{float(prices[row, column])!r} at row {row}, asset column {column}"
        )


def timestamps_array(value: Any, n_steps: int) -> NDArray[Any]:
    what = "MarketData: timestamps"
    if value is None:
        return readonly(np.arange(n_steps, dtype=np.int64))
    if getattr(value, "tz", None) is not None:  # a zone-aware pandas index: UTC, naive
        value = value.tz_convert("UTC").tz_localize(None)
    if hasattr(value, "to_numpy"):
        value = value.to_numpy()
    array = np.array(value, copy=True)
    if array.dtype.kind in "OUS":
        try:
            array = np.array(value, dtype="datetime64")
        except (TypeError, ValueError):
            raise TypeError(
                f"{what} must be ints or dates (datetime64, datetimes, ISO strings), got {value!r}"
            ) from None
    if array.dtype.kind in "iu":
        array = array.astype(np.int64)
    elif array.dtype.kind != "M":
        raise TypeError(f"{what} must be ints or dates, got an array of dtype {array.dtype}")
    if array.shape != (n_steps,):
        raise ValueError(f"{what} must have shape ({n_steps},), got shape {array.shape}")
    if array.dtype.kind == "M" and np.isnat(array).any():
        raise ValueError(
            f"{what} must not hold NaT, got one at row {int(np.isnat(array).argmax())}"
        )
    if n_steps > 1 and not bool(np.all(array[1:] > array[:-1])):
        row = int(np.argmin(array[1:] > array[:-1])) + 1
        raise ValueError(
            f"{what} must be strictly increasing, got {array[row - 1]!s} then {array[row]!s} "
            f"at row {row}"
        )
    return readonly(array)


def assets_tuple(value: Any, n_assets: int) -> tuple[Any, ...]:
    if value is None:
        return tuple(range(n_assets))
    if isinstance(value, (str, bytes)):
        raise TypeError(f"MarketData: assets must be a sequence of labels, got {value!r}")
    labels = tuple(value.tolist() if isinstance(value, np.ndarray) else value)
    if len(labels) != n_assets:
        raise ValueError(
            f"MarketData: assets must hold {n_assets} labels (one per price column), got "
            f"{len(labels)}"
        )
    try:
        unique = len(set(labels)) == len(labels)
    except TypeError:
        raise TypeError(f"MarketData: asset labels must be hashable, got {labels!r}") from None
    if not unique:
        raise ValueError(f"MarketData: asset labels must be unique, got {labels!r}")
    return labels


def exogenous_array(value: Any, name: Any, n_steps: int) -> NDArray[Any]:
    if not isinstance(name, str):
        raise TypeError(f"MarketData: exogenous names must be str, got {name!r}")
    what = f"MarketData: exogenous {name!r}"
    try:
        array = np.array(value, dtype=np.float64, copy=True)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an array of numbers, got {value!r}") from None
    if array.ndim not in (1, 2) or array.shape[0] != n_steps or array.size == 0:
        raise ValueError(
            f"{what} must have shape ({n_steps},) or ({n_steps}, k), got shape {array.shape}"
        )
    return readonly(array)
