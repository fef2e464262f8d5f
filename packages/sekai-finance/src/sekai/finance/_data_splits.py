"""Cutting a MarketData: rows, times, assets, splits and walk-forward folds (private).

`MarketData.__getitem__`, `between`, `select`, `split` and `walk_forward`
delegate here. Row selections are views of the data's arrays; the pieces of a
split carry history rows before their decision rows as *warmup*, so an episode
can look back without ever starting in rows that another piece plays.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sekai._internal.validation import check_int, is_int
from sekai.finance._data_time import TimeLike, show
from sekai.finance._shared_inputs import readonly

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = ["between", "rows", "select", "slice_of", "split", "walk_forward"]


def rows(data: MarketData, start: int, stop: int, warmup: int) -> MarketData:
    """Rows ``[start, stop)`` of ``data`` as views, with ``warmup`` history rows."""
    part = slice(start, stop)
    return data._derive(
        fields={name: table[part] for name, table in data.fields.items()},
        mask=data.mask[part],
        timestamps=data.timestamps[part],
        exogenous={name: series[part] for name, series in data.exogenous.items()},
        warmup=warmup,
    )


def _cut(data: MarketData, start: int, stop: int, what: str) -> MarketData:
    """Rows ``[start, stop)``, keeping what remains of the warmup."""
    if stop <= start:
        raise ValueError(f"{what} selects no rows (rows {start} to {stop - 1})")
    warmup = min(max(data.warmup - start, 0), stop - start - 1)
    return rows(data, start, stop, warmup)


def slice_of(data: MarketData, key: Any) -> MarketData:
    """``data[key]``: rows by position or by time; see `MarketData.__getitem__`."""
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
            bounds.append(data.index_of(bound, side="left"))
    start, stop, _ = slice(*bounds).indices(data.n_steps)
    return _cut(data, start, stop, f"MarketData[{key.start!r}:{key.stop!r}]")


def between(data: MarketData, start: TimeLike | None, end: TimeLike | None) -> MarketData:
    """The rows stamped from ``start`` to ``end``, both included (None: unbounded)."""
    first = 0 if start is None else data.index_of(start, side="left")
    stop = data.n_steps if end is None else data.index_of(end, side="right")
    return _cut(data, first, stop, f"MarketData.between({start!r}, {end!r})")


def select(data: MarketData, assets: Sequence[Any]) -> MarketData:
    """The columns of ``assets``, in that order (the tables are copied)."""
    if isinstance(assets, (str, bytes)) or not isinstance(assets, Sequence):
        raise TypeError(f"MarketData.select: assets must be a sequence of labels, got {assets!r}")
    known = data._asset_index
    columns = []
    for label in assets:
        try:
            columns.append(known[label])
        except (KeyError, TypeError):
            raise KeyError(
                f"MarketData.select: no asset {label!r}; assets: {data.assets!r}"
            ) from None
    if not columns or len(set(columns)) != len(columns):
        raise ValueError(
            f"MarketData.select: assets must name at least one asset, each once, got {assets!r}"
        )
    index = np.asarray(columns, dtype=np.intp)
    return data._derive(
        fields={name: readonly(table[:, index]) for name, table in data.fields.items()},
        mask=readonly(data.mask[:, index]),
        assets=tuple(data.assets[i] for i in columns),
    )


def _piece(data: MarketData, start: int, stop: int, history: int, what: str) -> MarketData:
    """Decision rows ``[start, stop)`` preceded by up to ``history`` rows of warmup."""
    if stop <= start:
        raise ValueError(f"{what}: a piece has no decision row (rows {start} to {stop - 1})")
    lead = min(start, history)
    return rows(data, start - lead, stop, lead)


def split(
    data: MarketData, boundaries: Sequence[TimeLike], embargo: int, history: int
) -> list[MarketData]:
    """Pieces of ``data`` cut at ``boundaries``; see `MarketData.split`."""
    embargo = check_int(embargo, "MarketData.split: embargo", minimum=0)
    history = max(check_int(history, "MarketData.split: history", minimum=0), data.warmup)
    if not boundaries:
        raise ValueError("MarketData.split needs at least one boundary time")
    cuts = [data.index_of(boundary, side="left") for boundary in boundaries]
    edges = [0, *cuts, data.n_steps]
    if any(b <= a for a, b in itertools.pairwise(edges)):
        times = data.timestamps
        raise ValueError(
            f"MarketData.split: boundaries must be increasing times strictly inside the data "
            f"({show(times[0])} excluded to {show(times[-1])}); got {list(boundaries)!r}, which "
            f"cut at rows {cuts}"
        )
    what = "MarketData.split"
    pieces = [_piece(data, data.warmup, cuts[0], data.warmup, what)]
    for start, stop in itertools.pairwise(edges[1:]):
        pieces.append(_piece(data, start + embargo, stop, history, what))
    return pieces


def walk_forward(
    data: MarketData,
    train_size: int,
    test_size: int,
    step: int | None,
    embargo: int,
    history: int,
    expanding: bool,
) -> Iterator[tuple[MarketData, MarketData]]:
    """(train, test) folds of ``data``; see `MarketData.walk_forward`.

    The arguments are checked here, before the first fold is asked for.
    """
    what = "MarketData.walk_forward"
    train_size = check_int(train_size, f"{what}: train_size", minimum=1)
    test_size = check_int(test_size, f"{what}: test_size", minimum=1)
    step = test_size if step is None else check_int(step, f"{what}: step", minimum=1)
    embargo = check_int(embargo, f"{what}: embargo", minimum=0)
    history = max(check_int(history, f"{what}: history", minimum=0), data.warmup)
    first, n_steps = data.warmup, data.n_steps
    need = first + train_size + embargo + test_size
    if need > n_steps:
        raise ValueError(
            f"{what}: one fold needs {need} rows (warmup {first} + train {train_size} + "
            f"embargo {embargo} + test {test_size}), the data has {n_steps}"
        )

    def folds() -> Iterator[tuple[MarketData, MarketData]]:
        k = 0
        while True:
            train_stop = first + train_size + k * step
            test_start = train_stop + embargo
            if test_start + test_size > n_steps:
                return
            train_start = first if expanding else first + k * step
            yield (
                _piece(data, train_start, train_stop, history, what),
                _piece(data, test_start, test_start + test_size, history, what),
            )
            k += 1

    return folds()
