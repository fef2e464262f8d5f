"""What a `PointInTimeBatch` reads: one history, or one simulated path per sub-env (private).

A batch reads a `Source`: a `MarketData` (one history that every sub-env
reads) or `Paths` (one path per sub-env, from `PointInTimeBatch.of_paths`).
Both present their tables with rows along the first axis; `Paths` stacks its
paths into one table, sub-env ``i``'s row ``t`` at ``i * n_steps + t``, so
that the batch reads both with the same gathers. `log_return_table` computes
the log returns a batch gathers from, once per source.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.finance._shared_inputs import readonly, timestamps_array

__all__ = ["OF_PATHS", "Paths", "Source", "log_return_table"]


def log_return_table(prices: NDArray[np.float64]) -> NDArray[np.float64]:
    """Log returns of every row along the time axis (-2), NaN in row 0: a C-ordered copy.

    Each value is bit for bit what `PointInTime.log_returns` gives: it also
    divides into a new array and takes the logarithm in place, so numpy runs
    the same loop over the same contiguous layout.
    """
    table = np.full(prices.shape, np.nan)
    returns = prices[..., 1:, :] / prices[..., :-1, :]  # NaN where a price is missing
    np.log(returns, out=returns)
    table[..., 1:, :] = returns
    return readonly(table)


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

    def _log_return_table(self) -> NDArray[np.float64]: ...


OF_PATHS = "PointInTimeBatch.of_paths"


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


class Paths:
    """One simulated path per sub-env, stacked (see the module docstring).

    The arguments are those of `PointInTimeBatch.of_paths`; every array is
    copied once, and the log returns computed once, here.
    """

    price_field = "close"  # as MarketData(path) names its prices

    def __init__(
        self,
        prices: ArrayLike,
        timestamps: ArrayLike | None,
        fields: Mapping[str, ArrayLike] | None,
        mask: ArrayLike | None,
    ) -> None:
        paths = _path_table(prices, f"{OF_PATHS}: prices", None)
        n, n_steps, n_assets = paths.shape
        if mask is not None:
            listed = np.asarray(mask)
            if listed.ndim == 2:  # one asset, as prices of shape (n, n_steps)
                listed = listed[..., None]
            if listed.dtype != np.bool_ or listed.shape != paths.shape:
                raise ValueError(
                    f"{OF_PATHS}: mask must be a bool array shaped like prices {paths.shape}, "
                    f"got a {listed.dtype} array of shape {np.shape(mask)}"
                )
            paths[~listed] = np.nan  # unavailable: missing, as MarketData reads it
        bad = ~np.isnan(paths) & ~(np.isfinite(paths) & (paths > 0))
        if bad.any():
            path, row, column = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"{OF_PATHS}: prices must be finite and > 0, or NaN where the asset is "
                f"unavailable; got {float(paths[path, row, column])!r} in path {path} at row "
                f"{row}, asset column {column}"
            )
        if fields is not None and not isinstance(fields, Mapping):
            raise TypeError(
                f"{OF_PATHS}: fields must be a mapping of name to array, got {fields!r}"
            )
        tables = {self.price_field: paths}
        for name, value in (fields or {}).items():
            if not isinstance(name, str):
                raise TypeError(f"{OF_PATHS}: field names must be str, got {name!r}")
            if name == self.price_field:
                raise ValueError(
                    f"{OF_PATHS}: the prices were given twice, as prices and as fields[{name!r}]"
                )
            tables[name] = _path_table(value, f"{OF_PATHS}: field {name!r}", paths.shape)
        try:
            self.timestamps = timestamps_array(timestamps, n_steps)
        except (TypeError, ValueError) as exc:
            # The checks are MarketData's; the message names this caller instead.
            raise type(exc)(f"{OF_PATHS}: {str(exc).removeprefix('MarketData: ')}") from None
        stacked = (n * n_steps, n_assets)
        self._fields = {name: readonly(table.reshape(stacked)) for name, table in tables.items()}
        self.prices = self._fields[self.price_field]
        self.mask: NDArray[np.bool_] = readonly(np.isfinite(self.prices))
        self.assets = tuple(range(n_assets))
        self.n_steps = n_steps
        self.n_paths = n
        self.starts: NDArray[np.intp] = readonly(np.arange(n, dtype=np.intp) * n_steps)
        self._log_returns = log_return_table(paths).reshape(stacked)

    def field(self, name: str) -> NDArray[np.float64]:
        try:
            return self._fields[name]
        except (KeyError, TypeError):
            raise KeyError(
                f"PointInTimeBatch: no field {name!r}; fields: {sorted(self._fields)!r}"
            ) from None

    def _log_return_table(self) -> NDArray[np.float64]:
        return self._log_returns
