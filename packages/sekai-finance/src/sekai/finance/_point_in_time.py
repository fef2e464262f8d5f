"""The data as known at one decision row: `PointInTime` and `Past` (private).

`sekai.finance.data` re-exports both; `MarketData.at` builds a
`PointInTime`. Every array they return is a read-only copy of the rows asked
for (`_copy`), never a view that could reach the rows after the
decision row. `PointInTime.agent_view` gives the same view without its
execution side, for agents and wrappers; a `Past`, and an agent's view,
pickle the rows up to the decision row only (`_known_rows`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, is_int
from sekai.error import LookAheadError
from sekai.finance._data_time import Time, TimeLike, show, time_value
from sekai.finance._shared_inputs import readonly

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = ["Past", "PointInTime", "point_in_time"]


def _copy(array: NDArray[Any]) -> NDArray[Any]:
    """A read-only copy: an array that is no view of anything else."""
    copy: NDArray[Any] = np.array(array, copy=True)
    copy.flags.writeable = False
    return copy


def _frozen(value: Any) -> Any:
    """`_copy` for an array; a numpy scalar is returned as is."""
    return _copy(value) if isinstance(value, np.ndarray) else value


def _known_rows(data: MarketData, stop: int) -> MarketData:
    """Rows ``0..stop - 1`` of ``data``, to pickle by value: nothing after them travels.

    A slice's arrays are views, and a numpy view pickles its own elements
    only. The shared block is dropped, so that the pickle holds no handle
    through which the whole data could be mapped again.
    """
    return data[:stop]._derive(block=None)


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
    A `Past` pickles (and copies, with `copy`) the rows ``0..t`` of its
    array and of the timestamps only: the copy reads the same rows and has no
    later row to reach, even privately.

    Attributes:
        name: What the rows are (``"prices"``, ``"field 'volume'"``, ...).
    """

    __slots__ = ("_array", "_now", "_times", "name")

    def __init__(self, array: NDArray[Any], now: int, data: MarketData, name: str) -> None:
        self._array = array
        self._now = now
        self._times = data.timestamps
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
            f"(time {show(self._times[self._now])}); only rows 0..{self._now} are known"
        )

    def _time_row(self, when: Any, what: str) -> int:
        """The last row stamped at or before ``when``, which must not be after row ``t``."""
        times = self._times
        key = time_value(times, when, f"{self.name}.{what}")
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
            self._times[:stop], time_value(self._times, start, f"{self.name}.between")
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
            if key.start is not None and key.start > now:
                raise self._look_ahead(f"[{where}]")
            if key.stop is not None and key.stop > (length if forward else now):
                if not forward:
                    raise self._look_ahead(f"[{where}]")
                # A stop past t reaches ahead only if the step lands on a row after t.
                start = key.start or 0
                first = start if start >= 0 else max(start + length, 0)
                rows = range(first, key.stop, key.step or 1)
                if len(rows) and rows[-1] > now:
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

    def __reduce__(self) -> tuple[Any, ...]:
        stop = self._now + 1
        state = {
            "_array": self._array[:stop],  # a view pickles its own rows only
            "_now": self._now,
            "_times": self._times[:stop],
            "name": self.name,
        }
        return object.__new__, (type(self),), (None, state)

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
    (`prices`, `field`, `mask`, `exogenous`, `timestamps`) and helpers
    (`log_returns`, `available`). Any of them that would read a row after
    ``t`` raises [`LookAheadError`][sekai.error.LookAheadError]; arrays
    returned are read-only copies.

    The execution side belongs to whoever runs the market, an env or a
    decision loop: `execution_price` and `execution_time` read row ``t + 1``,
    where a decision taken at ``t`` trades, `has_next` says whether that row
    exists, and `advance` moves on to a later row. Use them to fill and score
    orders, never to build observations.

    An env gives agents and wrappers its `agent_view` (``env.now``): the
    same observation side, while every read of the execution side raises
    `LookAheadError`, so nothing reachable from it shows a row after ``t``.
    An agent's view pickles (and copies, with `copy`) the rows ``0..t``
    only, as every `Past` does; the env's own view pickles its whole data.

    The full data stays reachable through private attributes (Python has no
    sandbox): the guard stops accidental look-ahead, not code that sets out
    to cheat.

    Examples:
        >>> from sekai.finance.data import MarketData
        >>> data = MarketData([[10.0], [11.0], [12.0]])
        >>> now = data.at(1)
        >>> now.prices.latest.tolist(), now.execution_price().tolist()
        ([11.0], [12.0])
        >>> now.prices[2]  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sekai.error.LookAheadError: prices[2] reads after the decision row 1 ...
        >>> agent = now.agent_view()
        >>> agent.prices.latest.tolist()
        [11.0]
        >>> agent.execution_price()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sekai.error.LookAheadError: PointInTime.execution_price() reads row 2, after ...
    """

    __slots__ = ("_data", "_now", "_sealed")

    def __init__(self, data: MarketData, row: int) -> None:
        self._data = data
        self._now = row
        self._sealed = False  # True for an agent's view: no execution side

    def agent_view(self) -> PointInTime:
        """This view as agents and wrappers may hold it: rows ``0..t``, no execution side.

        It reads the observation side exactly as this view does. Its
        `execution_price`, `execution_time`, `has_next` and `advance` (by one
        row or more) raise `LookAheadError`; ``advance(0)`` returns it. It
        pickles the rows ``0..t`` of the data only, by value (never as a
        handle to shared memory).

        Returns:
            A new view over the same data (``self`` for an agent's view).
        """
        if self._sealed:
            return self
        view = PointInTime(self._data, self._now)
        view._sealed = True
        return view

    @property
    def is_agent_view(self) -> bool:
        """Whether this is an agent's view (`agent_view`), which has no execution side."""
        return self._sealed

    def _refused(self, what: str, row: int) -> LookAheadError:
        """The error of an agent's view asked for row ``row`` by ``what``."""
        return LookAheadError(
            f"PointInTime.{what} reads row {row}, after the decision row {self._now}: this is an "
            f"agent's view (env.now), which shows rows 0..{self._now} only; the execution side "
            "is read by the env, on its own view (MarketData.at)"
        )

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
        """Whether a row after ``t`` exists, i.e. whether a decision at ``t`` can execute.

        Raises:
            LookAheadError: This is an agent's view.
        """
        if self._sealed:
            raise self._refused("has_next", self._now + 1)
        return self._now + 1 < self._data.n_steps

    def _next_row(self, what: str) -> int:
        row = self._now + 1
        if self._sealed:
            raise self._refused(what, row)
        if row >= self._data.n_steps:
            raise IndexError(
                f"PointInTime.{what}: row {self._now} is the last; a decision there cannot execute"
            )
        return row

    def execution_price(self, field: str | None = None) -> NDArray[np.float64]:
        """The ``(n_assets,)`` prices at which a decision taken at ``t`` executes: row ``t + 1``.

        Args:
            field: The field to execute at (e.g. ``"open"`` for the next open);
                default the price field. NaN where the asset is unavailable.

        Raises:
            LookAheadError: This is an agent's view.
            IndexError: Row ``t`` is the last row.
        """
        row = self._next_row("execution_price()")
        table = self._data.prices if field is None else self._data.field(field)
        return _copy(table[row])

    @property
    def execution_time(self) -> Any:
        """The timestamp of row ``t + 1``, when a decision taken at ``t`` executes.

        Raises:
            LookAheadError: This is an agent's view.
            IndexError: Row ``t`` is the last row.
        """
        return self._data.timestamps[self._next_row("execution_time")]

    def advance(self, steps: int = 1) -> PointInTime:
        """The data as known ``steps`` rows later.

        Raises:
            LookAheadError: This is an agent's view and ``steps`` is not 0.
            IndexError: That row does not exist.
        """
        if type(steps) is not int or steps < 0:
            steps = check_int(steps, "PointInTime.advance: steps", minimum=0)
        row = self._now + steps
        if self._sealed:
            if steps:
                raise self._refused(f"advance({steps})", row)
            return self
        if row >= self._data.n_steps:
            raise IndexError(
                f"PointInTime.advance({steps}) from row {self._now} leaves the data's "
                f"{self._data.n_steps} rows"
            )
        return PointInTime(self._data, row)

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        if not self._sealed:
            return super().__reduce_ex__(protocol)  # the env's own view: the whole data
        state = {
            "_data": _known_rows(self._data, self._now + 1),
            "_now": self._now,
            "_sealed": True,
        }
        return object.__new__, (type(self),), (None, state)

    def __repr__(self) -> str:
        agent = ", agent view" if self._sealed else ""
        return f"PointInTime(row={self._now}, time={show(self.time)}{agent})"


def point_in_time(data: MarketData, when: int | TimeLike) -> PointInTime:
    """``data.at(when)``: see `MarketData.at`."""
    if type(when) is int or is_int(when):
        row, n_steps = int(when), len(data.timestamps)
        if not -n_steps <= row < n_steps:
            raise IndexError(f"MarketData.at: row {row} is outside the data's {n_steps} rows")
        return PointInTime(data, row if row >= 0 else row + n_steps)
    row = data.index_of(when, side="right") - 1
    if row < 0:
        raise KeyError(
            f"MarketData.at: no row is stamped at or before {when!r} (the first is "
            f"{show(data.timestamps[0])})"
        )
    return PointInTime(data, row)
