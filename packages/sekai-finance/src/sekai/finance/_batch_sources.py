"""What a `PointInTimeBatch` reads: one history, or one simulated path per sub-env (private).

A batch reads a `Source`: a `MarketData` (one history that every sub-env
reads) or `Paths` (one path per sub-env, from `PointInTimeBatch.of_paths`).
Both present their tables with rows along the first axis; `Paths` stacks its
paths into one table, sub-env ``i``'s row ``t`` at ``i * n_steps + t``, so
that the batch reads both with the same gathers (`gather_rows`,
`gather_windows`). `log_return_table` computes the log returns a batch
gathers from, once per source.

`Paths` owns its tables and can replace some of its paths in place
(`Paths.replaced`, for `PointInTimeBatch.with_paths`): the work is that of
the new paths only. The `Paths` that was replaced is retired: every read of
its tables raises, so a batch built before the replacement cannot show a
mixture of old and new paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.finance._shared_inputs import readonly, timestamps_array

__all__ = [
    "OF_PATHS",
    "WITH_PATHS",
    "Paths",
    "Source",
    "gather_rows",
    "gather_windows",
    "log_return_table",
]


def _log_returns(prices: NDArray[np.float64]) -> NDArray[np.float64]:
    """`log_return_table`, writable."""
    table = np.full(prices.shape, np.nan)
    returns = prices[..., 1:, :] / prices[..., :-1, :]  # NaN where a price is missing
    np.log(returns, out=returns)
    table[..., 1:, :] = returns
    return table


def log_return_table(prices: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log returns of every row along the time axis (-2), NaN in row 0: a C-ordered copy.

    Each value is bit for bit what `PointInTime.log_returns` gives: it also
    divides into a new array and takes the logarithm in place, so numpy runs
    the same loop over the same contiguous layout.
    """
    return readonly(_log_returns(prices))


def _check_out(out: Any, shape: tuple[int, ...], what: str) -> NDArray[Any]:
    if not isinstance(out, np.ndarray) or out.shape != shape:
        given = f"shape {out.shape}" if isinstance(out, np.ndarray) else repr(out)
        raise ValueError(f"{what}: out must be an array of shape {shape}, got {given}")
    return out


def gather_rows(
    table: NDArray[Any], flat: NDArray[np.intp], out: NDArray[Any] | None, what: str
) -> NDArray[Any]:
    """``table[flat]``: a new read-only array, or written into ``out`` and returned."""
    if out is None:
        return readonly(table[flat])
    out = _check_out(out, flat.shape + table.shape[1:], what)
    # np.take writes straight into out, but copies a table that is not C-ordered first.
    if (
        out.dtype == table.dtype
        and out.flags.c_contiguous
        and out.flags.writeable
        and table.flags.c_contiguous
    ):
        np.take(table, flat, axis=0, out=out, mode="clip")  # rows checked: no clipping
    else:
        np.copyto(out, table[flat])
    return out


def gather_windows(
    table: NDArray[Any],
    flat: NDArray[np.intp],
    length: int,
    out: NDArray[Any] | None,
    what: str,
) -> NDArray[Any]:
    """Rows ``flat[i] - length + 1 .. flat[i]`` of ``table`` for each ``i``: ``(n, length, ...)``.

    Each window must lie inside the table, and inside one path of a stacked table (the
    callers check each sub-env's row). A copy, read-only, or written into ``out`` and returned.
    """
    n, width = flat.shape[0], table.shape[1]
    starts = flat - (length - 1)
    if table.flags.c_contiguous and n:
        # Row k of this view is rows k .. k + length - 1 of the table, end to end in memory:
        # one gather of n rows copies every window as one block (the view never leaves here).
        spans: NDArray[Any] = np.ndarray(
            (table.shape[0] - length + 1, length * width),
            table.dtype,
            buffer=table,
            strides=(table.strides[0], table.itemsize),
        )
        windows = spans[starts].reshape(n, length, width)
    else:
        windows = table[starts[:, None] + np.arange(length)]
    if out is None:
        return readonly(windows)
    np.copyto(_check_out(out, windows.shape, what), windows)
    return out


class Source(Protocol):
    """What a batch reads: tables stacked along their first axis, and the times."""

    price_field: str

    @property
    def prices(self) -> NDArray[np.float64]: ...

    @property
    def mask(self) -> NDArray[np.bool_]: ...

    @property
    def timestamps(self) -> NDArray[Any]: ...

    @property
    def assets(self) -> tuple[Any, ...]: ...

    @property
    def n_steps(self) -> int: ...

    def field(self, name: str) -> NDArray[np.float64]: ...

    def exogenous_series(self, name: str) -> NDArray[np.float64]: ...

    def _log_return_table(self) -> NDArray[np.float64]: ...


OF_PATHS = "PointInTimeBatch.of_paths"
WITH_PATHS = "PointInTimeBatch.with_paths"


def _path_table(value: Any, what: str, shape: tuple[int, ...] | None) -> NDArray[np.float64]:
    """``value`` as a new float64 ``(n, n_steps, n_assets)`` array (``(n, n_steps)``: one asset)."""
    try:
        array = np.array(value, dtype=np.float64, copy=True, order="C")
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an array of numbers, got {value!r}") from None
    if array.ndim == 2:
        array = array[..., None]
    if shape is None and (array.ndim != 3 or 0 in array.shape):
        raise ValueError(
            f"{what} must have shape (n, n_steps, n_assets) or (n, n_steps), with no empty "
            f"axis, got shape {np.shape(value)}"
        )
    if shape is not None and array.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, got shape {np.shape(value)}")
    return array


def _hide_and_check(
    paths: NDArray[np.float64], mask: ArrayLike | None, labels: Sequence[int], what: str
) -> None:
    """NaN in ``paths`` where ``mask`` is False (in place); then every price finite and > 0.

    ``labels[j]`` is the number of path ``j`` in the messages.
    """
    if mask is not None:
        listed = np.asarray(mask)
        if listed.ndim == 2:  # one asset, as prices of shape (n, n_steps)
            listed = listed[..., None]
        if listed.dtype != np.bool_ or listed.shape != paths.shape:
            raise ValueError(
                f"{what}: mask must be a bool array shaped like prices {paths.shape}, "
                f"got a {listed.dtype} array of shape {np.shape(mask)}"
            )
        paths[~listed] = np.nan  # unavailable: missing, as MarketData reads it
    bad = ~np.isnan(paths) & ~(np.isfinite(paths) & (paths > 0))
    if bad.any():
        path, row, column = (int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{what}: prices must be finite and > 0, or NaN where the asset is "
            f"unavailable; got {float(paths[path, row, column])!r} in path {labels[path]} at "
            f"row {row}, asset column {column}"
        )


def _named(tables: Any, what: str, kind: str) -> Mapping[str, Any]:
    """``tables`` (a mapping of str names, or None) as a mapping."""
    if tables is None:
        return {}
    if not isinstance(tables, Mapping):
        raise TypeError(f"{what}: {kind} must be a mapping of name to array, got {tables!r}")
    for name in tables:
        if not isinstance(name, str):
            noun = "field" if kind == "fields" else kind
            raise TypeError(f"{what}: {noun} names must be str, got {name!r}")
    return tables


def _series_table(
    value: Any, what: str, n: int, n_steps: int, width: int | None
) -> NDArray[np.float64]:
    """An exogenous series of each path as a new float64 ``(n, n_steps, width)`` array.

    ``value`` is ``(n, n_steps)`` (width 1) or ``(n, n_steps, width)``; a first
    axis of 1 is the same series for every path.
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be an array of numbers, got {value!r}") from None
    if array.ndim == 2:
        array = array[..., None]
    if (
        array.ndim != 3
        or array.shape[0] not in (1, n)
        or array.shape[1] != n_steps
        or array.shape[2] == 0
        or (width is not None and array.shape[2] != width)
    ):
        columns = "k" if width is None else str(width)
        raise ValueError(
            f"{what} must have shape ({n}, {n_steps}) or ({n}, {n_steps}, {columns}) (a first "
            f"axis of 1: the same series for every path), got shape {np.shape(value)}"
        )
    return np.array(np.broadcast_to(array, (n, *array.shape[1:])), copy=True, order="C")


def _checked_indices(indices: ArrayLike, n_paths: int) -> NDArray[np.intp]:
    """``indices`` as distinct intp path numbers in ``[0, n_paths)``."""
    array = np.asarray(indices)
    if array.size == 0 and array.ndim == 1:  # [] reads as floats: no path to replace
        array = array.astype(np.intp)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{WITH_PATHS}: indices must be ints, got {indices!r}")
    if array.ndim != 1:
        raise ValueError(f"{WITH_PATHS}: indices must have shape (k,), got shape {array.shape}")
    outside = (array < 0) | (array >= n_paths)
    if outside.any():
        raise ValueError(
            f"{WITH_PATHS}: index {int(array[np.argmax(outside)])} is outside the batch's "
            f"{n_paths} paths (0 to {n_paths - 1})"
        )
    index = array.astype(np.intp)
    ordered = np.sort(index)
    repeated = ordered[1:] == ordered[:-1]
    if repeated.any():
        raise ValueError(
            f"{WITH_PATHS}: indices must be distinct, got path {int(ordered[1:][repeated][0])} "
            "more than once"
        )
    return index


def _same_names(given: Mapping[str, Any], expected: Sequence[str], what: str, kind: str) -> None:
    if sorted(given) != sorted(expected):
        raise ValueError(
            f"{what}: {kind} must hold the new paths of every one of the batch's {kind} "
            f"{sorted(expected)!r} and no other, got {sorted(given)!r}"
        )


class Paths:
    """One simulated path per sub-env, stacked (see the module docstring).

    The arguments are those of `PointInTimeBatch.of_paths`; every array is
    copied once, and the log returns computed once, here. The tables are
    views of arrays this object owns, which `replaced` writes.
    """

    price_field = "close"  # as MarketData(path) names its prices

    def __init__(
        self,
        prices: ArrayLike,
        timestamps: ArrayLike | None,
        fields: Mapping[str, ArrayLike] | None,
        mask: ArrayLike | None,
        exogenous: Mapping[str, ArrayLike] | None = None,
    ) -> None:
        paths = _path_table(prices, f"{OF_PATHS}: prices", None)
        n, n_steps, n_assets = paths.shape
        _hide_and_check(paths, mask, range(n), OF_PATHS)
        tables = {self.price_field: paths}
        for name, value in _named(fields, OF_PATHS, "fields").items():
            if name == self.price_field:
                raise ValueError(
                    f"{OF_PATHS}: the prices were given twice, as prices and as fields[{name!r}]"
                )
            tables[name] = _path_table(value, f"{OF_PATHS}: field {name!r}", paths.shape)
        series = {
            name: _series_table(value, f"{OF_PATHS}: exogenous {name!r}", n, n_steps, None)
            for name, value in _named(exogenous, OF_PATHS, "exogenous").items()
        }
        try:
            self.timestamps = timestamps_array(timestamps, n_steps)
        except (TypeError, ValueError) as exc:
            # The checks are MarketData's; the message names this caller instead.
            raise type(exc)(f"{OF_PATHS}: {str(exc).removeprefix('MarketData: ')}") from None
        # The arrays owned and written by `replaced`: one path per entry of the first axis.
        self._tables = tables
        self._series = series
        self._available = np.isfinite(paths)
        self._returns = _log_returns(paths)
        self._live = True
        self.assets = tuple(range(n_assets))
        self.n_steps = n_steps
        self.n_paths = n
        self.starts: NDArray[np.intp] = readonly(np.arange(n, dtype=np.intp) * n_steps)
        self._view()

    def _view(self) -> None:
        """Make the read-only stacked views the batches read, over the arrays owned."""
        n, n_steps, n_assets = self._tables[self.price_field].shape
        stacked = (n * n_steps, n_assets)
        self._fields = {
            name: readonly(table.reshape(stacked)) for name, table in self._tables.items()
        }
        self._exogenous = {
            name: readonly(table.reshape(n * n_steps, -1)) for name, table in self._series.items()
        }
        self._prices = self._fields[self.price_field]
        self._mask = readonly(self._available.reshape(stacked))
        self._log_returns = readonly(self._returns.reshape(stacked))

    # A pickle would turn the views into copies that `replaced` no longer writes through:
    # pickle the owned arrays only, and view them anew.
    _VIEWS = ("_fields", "_exogenous", "_prices", "_mask", "_log_returns")

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in vars(self).items() if key not in self._VIEWS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        self._view()

    def _check_live(self) -> None:
        if not self._live:
            raise RuntimeError(
                "PointInTimeBatch: this batch was built before with_paths replaced some of its "
                "paths; read the batch with_paths returned (or one derived from it) instead"
            )

    @property
    def prices(self) -> NDArray[np.float64]:
        self._check_live()
        return self._prices

    @property
    def mask(self) -> NDArray[np.bool_]:
        self._check_live()
        return self._mask

    def field(self, name: str) -> NDArray[np.float64]:
        self._check_live()
        try:
            return self._fields[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"PointInTimeBatch: no field {name!r}; fields: {sorted(self._fields)!r}"
            ) from None

    def exogenous_series(self, name: str) -> NDArray[np.float64]:
        """``(n * n_steps, width)``: the series ``name`` of every path, stacked."""
        self._check_live()
        try:
            return self._exogenous[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"PointInTimeBatch: no exogenous series {name!r}; series: "
                f"{sorted(self._exogenous)!r}"
            ) from None

    def _log_return_table(self) -> NDArray[np.float64]:
        self._check_live()
        return self._log_returns

    def replaced(
        self,
        indices: ArrayLike,
        prices: ArrayLike,
        fields: Mapping[str, ArrayLike] | None,
        mask: ArrayLike | None,
        exogenous: Mapping[str, ArrayLike] | None,
    ) -> Paths:
        """These paths with paths ``indices`` replaced, in place; this object is retired.

        Everything is checked and computed for the new paths first; only then
        is this object retired and are its arrays written, so an error leaves
        it as it was. An interrupt during the writes leaves it retired and the
        successor unreturned: no batch can read the half-written paths.

        Raises:
            RuntimeError: This object is retired already.
            TypeError, ValueError: As `PointInTimeBatch.with_paths`.
        """
        self._check_live()
        index = _checked_indices(indices, self.n_paths)
        k, n_steps, shape = index.shape[0], self.n_steps, self._tables[self.price_field].shape
        shape = (k, *shape[1:])
        paths = _path_table(prices, f"{WITH_PATHS}: prices", shape)
        _hide_and_check(paths, mask, index.tolist(), WITH_PATHS)
        given = _named(fields, WITH_PATHS, "fields")
        if self.price_field in given:
            raise ValueError(
                f"{WITH_PATHS}: the prices were given twice, as prices and as "
                f"fields[{self.price_field!r}]"
            )
        others = [name for name in self._tables if name != self.price_field]
        _same_names(given, others, WITH_PATHS, "fields")
        tables = {self.price_field: paths}
        for name, value in given.items():
            tables[name] = _path_table(value, f"{WITH_PATHS}: field {name!r}", shape)
        given = _named(exogenous, WITH_PATHS, "exogenous")
        _same_names(given, list(self._series), WITH_PATHS, "exogenous")
        series = {
            name: _series_table(
                value,
                f"{WITH_PATHS}: exogenous {name!r}",
                k,
                n_steps,
                self._series[name].shape[2],
            )
            for name, value in given.items()
        }
        available, returns = np.isfinite(paths), _log_returns(paths)
        successor = object.__new__(Paths)
        successor.__dict__.update(self.__dict__)
        self._live = False
        for name, table in tables.items():
            self._tables[name][index] = table
        for name, table in series.items():
            self._series[name][index] = table
        self._available[index] = available
        self._returns[index] = returns
        return successor
