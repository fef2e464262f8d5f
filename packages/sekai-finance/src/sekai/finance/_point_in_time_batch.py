"""The data as known at one decision row per sub-env: `PointInTimeBatch` (private).

`sekai.finance.data` re-exports `PointInTimeBatch` and `PastBatch`. A native
vector env keeps one batch per step (`PointInTimeBatch.advance`,
`PointInTimeBatch.with_rows`) and reads every sub-env's observation with one
gather per array, through the same guard as `PointInTime`: rows after each
sub-env's decision row are out of reach, except the execution price. A
native env over simulated paths replaces the paths of the sub-envs it resets
with `PointInTimeBatch.with_paths`, at the cost of those paths only. What it
gives agents is `PointInTimeBatch.agent_view`, which has none of these.

What a batch reads (one history, or one path per sub-env) is in
`sekai.finance._batch_sources`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_int
from sekai.error import LookAheadError
from sekai.finance._batch_sources import (
    OF_PATHS,
    WITH_PATHS,
    Paths,
    Source,
    gather_rows,
    gather_windows,
)
from sekai.finance._shared_inputs import readonly

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = ["PastBatch", "PointInTimeBatch"]


def _checked_rows(rows: ArrayLike, n_steps: int, what: str) -> tuple[NDArray[np.intp], int]:
    """A read-only intp copy of ``rows``, each in ``[0, n_steps)``, and the highest row (-1: none).

    Raises:
        TypeError: ``rows`` are not ints.
        ValueError: ``rows`` is not 1-D, or a row is outside ``[0, n_steps)``.
    """
    array = np.asarray(rows)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{what}: rows must be ints, got {rows!r}")
    if array.ndim != 1:
        raise ValueError(f"{what}: rows must have shape (n,), got shape {array.shape}")
    index = array.astype(np.intp)  # a copy: the caller may write to theirs later
    if not index.size:
        return readonly(index), -1
    # Negative rows wrap to huge unsigned values, so one maximum checks both bounds.
    high = int(index.view(np.uintp).max())
    if high >= n_steps:
        first = int(np.argmax((array < 0) | (array >= n_steps)))
        raise ValueError(
            f"{what}: row {int(array[first])} of sub-env {first} is outside the data's "
            f"{n_steps} rows (0 to {n_steps - 1})"
        )
    return readonly(index), high


class PastBatch:
    """One array up to each sub-env's decision row: the batched `Past`.

    Obtained from a `PointInTimeBatch` (``batch.prices``, ``.field(name)``,
    ``.mask``, ``.exogenous(name)``). Sub-env ``i`` sees rows ``0..t_i`` of
    its history; every array returned is a copy of the rows asked for, or the
    caller's ``out``. Each row holds ``width`` values: ``n_assets`` for the
    prices, a field or the mask, the series' columns for an exogenous series
    (1 for a series of shape ``(n_steps,)``).

    Attributes:
        name: What the rows are (``"prices"``, ``"field('volume')"``, ...).

    Examples:
        >>> from sekai.finance.data import MarketData
        >>> data = MarketData([[1.0], [2.0], [3.0], [4.0]])
        >>> prices = data.at_rows([1, 3]).prices
        >>> prices.window(2)[:, :, 0].tolist()  # rows t_i - 1 and t_i
        [[1.0, 2.0], [3.0, 4.0]]
    """

    __slots__ = ("_batch", "_table", "name")

    def __init__(self, table: NDArray[Any], batch: PointInTimeBatch, name: str) -> None:
        self._table = table
        self._batch = batch
        self.name = name

    def latest(self, *, out: NDArray[Any] | None = None) -> NDArray[Any]:
        """``(n, width)``: row ``t_i`` for sub-env ``i``.

        Args:
            out: An array of that shape to write the rows into (returned as is,
                writable), instead of a new read-only array.
        """
        return gather_rows(self._table, self._batch._flat, out, f"{self.name}.latest")

    def window(self, length: int, *, out: NDArray[Any] | None = None) -> NDArray[Any]:
        """``(n, length, width)``: rows ``t_i - length + 1`` to ``t_i``, oldest first.

        Args:
            length: Number of rows (>= 1).
            out: An array of that shape to write the rows into (returned as is,
                writable), instead of a new read-only array.

        Raises:
            ValueError: A sub-env's window would start before row 0 (the message
                names the first such sub-env and its row).
        """
        if type(length) is not int or length < 1:
            length = check_int(length, f"{self.name}.window: length", minimum=1)
        batch = self._batch
        if batch._lowest() < length - 1:
            short = int(np.argmax(batch._rows < length - 1))
            row = int(batch._rows[short])
            raise ValueError(
                f"{self.name}.window({length}): sub-env {short} is at row {row}, so its window "
                f"would start at row {row - length + 1}; the data starts at row 0"
            )
        return gather_windows(self._table, batch._flat, length, out, f"{self.name}.window")

    def __len__(self) -> int:
        return len(self._batch)

    def __repr__(self) -> str:
        return f"PastBatch({self.name}, {len(self)} sub-envs)"


class PointInTimeBatch:
    """The data as known at one decision row ``t_i`` per sub-env: the batched `PointInTime`.

    Built by [`MarketData.at_rows`][sekai.finance.data.MarketData.at_rows]
    (every sub-env reads one history; ``PointInTimeBatch(data, rows)`` is the
    same) or `of_paths` (each sub-env its own simulated path). Sub-env ``i``
    observes rows ``0..t_i`` through `PastBatch` accessors (`prices`,
    `field`, `mask`, `exogenous`) and `log_returns`, and executes at row ``t_i + 1``
    (`execution_price`, `execution_time`), as ``data.at(t_i)`` would show
    it. Every array returned is a copy (read-only) or the caller's ``out``,
    never a view of the data's arrays.

    Building a batch costs a few attributes and one vectorised check of the
    rows, so a native env builds one per step (`advance`, `with_rows`), and
    replaces the paths of the sub-envs it resets with `with_paths`.

    Those, and the execution side, are the env's. What it gives agents and
    wrappers (``env.now``) is its `agent_view`: the same observation side,
    while `execution_price`, `execution_time`, `advance` (by one row or
    more), `with_rows` and `with_paths` raise
    [`LookAheadError`][sekai.error.LookAheadError]. An agent's view does not
    pickle (its sub-envs stand at different rows, so one pickle would carry
    rows after some of them); the env's own batch pickles whole.

    Args:
        data: The history every sub-env reads.
        rows: ``(n,)`` ints, sub-env ``i``'s decision row ``t_i``.

    Raises:
        TypeError: ``rows`` are not ints.
        ValueError: ``rows`` is not 1-D, or a row is outside the data.

    Examples:
        >>> import numpy as np
        >>> from sekai.finance.data import PointInTimeBatch
        >>> paths = np.array([[1.0, 2.0, 4.0], [1.0, 0.5, 0.25]])  # 2 paths, 1 asset
        >>> batch = PointInTimeBatch.of_paths(paths, [1, 1])
        >>> batch.log_returns(1)[:, 0, 0].round(3).tolist()
        [0.693, -0.693]
        >>> batch.execution_price()[:, 0].tolist()
        [4.0, 0.25]
        >>> batch.advance().execution_price()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        IndexError: PointInTimeBatch.execution_price(): sub-env 0 is at row 2, the last; ...
        >>> batch.agent_view().execution_price()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sekai.error.LookAheadError: PointInTimeBatch.execution_price() reads rows t_i + 1, ...
    """

    __slots__ = ("_flat", "_high", "_low", "_rows", "_sealed", "_source", "_starts")

    _source: Source
    _starts: NDArray[np.intp] | None  # where each path starts in the stacked tables
    _rows: NDArray[np.intp]  # the decision rows t_i, read-only
    _flat: NDArray[np.intp]  # the same rows in the stacked tables
    _high: int  # max(t_i), known from the check of the rows
    _low: int | None  # min(t_i), found when a window first needs it
    _sealed: bool  # an agent's view: no execution side, no other rows or paths

    def __init__(self, data: MarketData, rows: ArrayLike) -> None:
        checked = _checked_rows(rows, data.n_steps, "MarketData.at_rows")
        self._set(data, None, *checked)

    def _set(
        self,
        source: Source,
        starts: NDArray[np.intp] | None,
        rows: NDArray[np.intp],
        high: int,
        low: int | None = None,
        sealed: bool = False,
    ) -> None:
        self._source = source
        self._starts = starts
        self._rows = rows
        self._flat = rows if starts is None else rows + starts
        self._high = high
        self._low = low
        self._sealed = sealed

    def _over(self, rows: NDArray[np.intp], high: int, low: int | None = None) -> PointInTimeBatch:
        """A batch over the same data at other rows, already checked."""
        batch = object.__new__(PointInTimeBatch)
        batch._set(self._source, self._starts, rows, high, low, self._sealed)
        return batch

    def agent_view(self) -> PointInTimeBatch:
        """This batch as agents and wrappers may hold it: each sub-env's rows up to ``t_i``.

        It reads the observation side exactly as this batch does (and is
        retired with it by `with_paths`). Its `execution_price`,
        `execution_time`, `advance` (by one row or more), `with_rows` and
        `with_paths` raise `LookAheadError`; ``advance(0)`` returns it.
        Pickling or copying it raises TypeError.

        Returns:
            A new batch over the same data (``self`` for an agent's view).
        """
        if self._sealed:
            return self
        batch = object.__new__(PointInTimeBatch)
        batch._set(self._source, self._starts, self._rows, self._high, self._low, sealed=True)
        return batch

    @property
    def is_agent_view(self) -> bool:
        """Whether this is an agent's view (`agent_view`), which has no execution side."""
        return self._sealed

    def _refused(self, what: str, reads: str) -> LookAheadError:
        """The error of an agent's view asked for ``what``, which ``reads``."""
        return LookAheadError(
            f"PointInTimeBatch.{what} {reads}: this is an agent's view (env.now), which shows "
            "each sub-env's rows up to its decision row t_i only; the env reads the rest on its "
            "own batch"
        )

    def _lowest(self) -> int:
        """min(t_i), computed once (a huge number when there are no sub-envs)."""
        low = self._low
        if low is None:
            low = int(self._rows.min()) if self._rows.size else np.iinfo(np.intp).max
            self._low = low
        return low

    @classmethod
    def of_paths(
        cls,
        prices: ArrayLike,
        rows: ArrayLike,
        *,
        timestamps: ArrayLike | None = None,
        fields: Mapping[str, ArrayLike] | None = None,
        mask: ArrayLike | None = None,
        exogenous: Mapping[str, ArrayLike] | None = None,
    ) -> PointInTimeBatch:
        """A batch where sub-env ``i`` reads its own path ``prices[i]`` at row ``rows[i]``.

        What sub-env ``i`` sees equals ``MarketData(prices[i]).at(rows[i])`` (with
        its fields and exogenous series, and NaN where ``mask`` is False). The
        arrays are copied once and the log returns computed once, here; later
        batches over the same paths (`advance`, `with_rows`, `with_paths`)
        reuse them.

        Args:
            prices: ``(n, n_steps, n_assets)`` prices, one path per sub-env
                (``(n, n_steps)``: one asset), > 0, NaN where unavailable, as a
                batch of [`Simulation.prices`][sekai.finance.simulators.Simulation].
            rows: ``(n,)`` ints, sub-env ``i``'s decision row.
            timestamps: ``(n_steps,)`` times shared by the paths (ints or dates, as
                `MarketData` takes them); default the row numbers.
            fields: Other tables by name, each shaped like ``prices``; the prices
                are the field ``"close"``.
            mask: Bools shaped like ``prices``, True where the asset is available
                (as ``Simulation.mask``); prices where it is False read as NaN.
            exogenous: Series that are not per asset, by name, one per path:
                ``(n, n_steps)`` (a series of width 1) or ``(n, n_steps, width)``.
                A first axis of 1 gives every path the same series (copied
                into each path's rows, so that `with_paths` can replace it).

        Raises:
            TypeError, ValueError: An array of the wrong type, shape or value, or
                ``rows`` not holding one row per path.
        """
        source = Paths(prices, timestamps, fields, mask, exogenous)
        checked = _checked_rows(rows, source.n_steps, OF_PATHS)
        if checked[0].shape != source.starts.shape:
            raise ValueError(
                f"{OF_PATHS}: rows must hold one row per path ({source.n_paths}), got "
                f"{checked[0].shape[0]}"
            )
        batch = object.__new__(cls)
        batch._set(source, source.starts, *checked)
        return batch

    def with_paths(
        self,
        indices: ArrayLike,
        prices: ArrayLike,
        *,
        fields: Mapping[str, ArrayLike] | None = None,
        mask: ArrayLike | None = None,
        exogenous: Mapping[str, ArrayLike] | None = None,
    ) -> PointInTimeBatch:
        """This batch with the paths of sub-envs ``indices`` replaced (an `of_paths` batch).

        Sub-env ``indices[j]`` then reads ``prices[j]`` (with ``fields``, ``mask``
        and ``exogenous`` as `of_paths` takes them, row ``j`` for path
        ``indices[j]``), at the same decision row as before; every other path
        is unchanged. The result reads bit for bit what `of_paths` over the
        updated paths would, at the cost of the ``k`` new paths only: their
        rows of the tables and of the log returns are written in place.

        So the paths are not copied, and this batch, and every batch built
        before this call over the same paths (`advance`, `with_rows`, earlier
        `with_paths`), is retired: reading its paths, fields, mask, exogenous
        series, log returns or execution prices raises RuntimeError (its rows
        and times stay readable). Read the batch returned, or batches built
        from it. If the call raises, nothing is replaced or retired.

        Args:
            indices: ``(k,)`` distinct ints, the sub-envs whose paths change.
            prices: ``(k, n_steps, n_assets)`` prices (``(k, n_steps)``: one
                asset), checked as in `of_paths`.
            fields: The new paths of every field the batch has, and no other,
                each shaped like ``prices``.
            mask: Bools shaped like ``prices``, as in `of_paths`.
            exogenous: The new paths of every exogenous series the batch has,
                and no other: ``(k, n_steps)`` or ``(k, n_steps, width)``, a first
                axis of 1 for the same series on every new path.

        Raises:
            LookAheadError: This is an agent's view.
            TypeError: This batch reads one `MarketData` (`MarketData.at_rows`),
                or an argument of the wrong type.
            ValueError: An index outside the batch or given twice, an array of
                the wrong shape, a price <= 0 or infinite, or a field or series
                missing or unknown.
            RuntimeError: This batch is retired already.

        Examples:
            >>> import numpy as np
            >>> from sekai.finance.data import PointInTimeBatch
            >>> batch = PointInTimeBatch.of_paths(np.ones((3, 4)), [1, 2, 3])
            >>> fresh = batch.with_paths([1], [[1.0, 2.0, 4.0, 8.0]])
            >>> fresh.prices.latest()[:, 0].tolist()
            [1.0, 4.0, 1.0]
            >>> batch.prices.latest()  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            RuntimeError: PointInTimeBatch: this batch was built before with_paths replaced ...
        """
        if self._sealed:
            raise self._refused(
                "with_paths()", "would replace the paths the env reads, later rows included"
            )
        source = self._source
        if not isinstance(source, Paths):
            raise TypeError(
                f"{WITH_PATHS}: this batch reads one MarketData, which every sub-env shares; "
                "only a batch from PointInTimeBatch.of_paths has paths to replace"
            )
        replaced = source.replaced(indices, prices, fields, mask, exogenous)
        batch = object.__new__(PointInTimeBatch)
        batch._set(replaced, self._starts, self._rows, self._high, self._low)
        return batch

    def with_rows(self, rows: ArrayLike) -> PointInTimeBatch:
        """The same data at other decision rows (one per path for `of_paths` data).

        Raises:
            LookAheadError: This is an agent's view.
            TypeError, ValueError: As `MarketData.at_rows`.
        """
        if self._sealed:
            raise self._refused("with_rows()", "would move the decision rows, to later rows too")
        checked = _checked_rows(rows, self._source.n_steps, "PointInTimeBatch.with_rows")
        if self._starts is not None and checked[0].shape != self._starts.shape:
            raise ValueError(
                f"PointInTimeBatch.with_rows: rows must hold one row per path "
                f"({self._starts.shape[0]}), got {checked[0].shape[0]}"
            )
        return self._over(*checked)

    def advance(self, steps: int = 1) -> PointInTimeBatch:
        """Every sub-env ``steps`` rows later.

        Raises:
            LookAheadError: This is an agent's view and ``steps`` is not 0.
            IndexError: A sub-env would leave the data (the message names the first).
        """
        if type(steps) is not int or steps < 0:
            steps = check_int(steps, "PointInTimeBatch.advance: steps", minimum=0)
        if self._sealed:
            if steps:
                raise self._refused(
                    f"advance({steps})", f"reads rows t_i + {steps}, after the decision rows"
                )
            return self
        rows, n_steps = self._rows, self._source.n_steps
        if self._high + steps >= n_steps:
            first = int(np.argmax(rows + steps >= n_steps))
            raise IndexError(
                f"PointInTimeBatch.advance({steps}): sub-env {first} at row {int(rows[first])} "
                f"would leave the data's {n_steps} rows"
            )
        low = None if self._low is None else self._low + steps
        return self._over(readonly(rows + steps), self._high + steps, low)

    @property
    def index(self) -> NDArray[np.intp]:
        """``(n,)`` the decision rows ``t_i`` (a read-only copy)."""
        return readonly(self._rows.copy())

    @property
    def time(self) -> NDArray[Any]:
        """``(n,)`` the timestamps of the decision rows."""
        return readonly(self._source.timestamps[self._rows])

    @property
    def assets(self) -> tuple[Any, ...]:
        """The asset labels."""
        return self._source.assets

    @property
    def n_assets(self) -> int:
        """Number of assets."""
        return len(self._source.assets)

    def __len__(self) -> int:
        return int(self._rows.shape[0])

    @property
    def prices(self) -> PastBatch:
        """The prices up to each decision row."""
        return PastBatch(self._source.prices, self, "prices")

    def field(self, name: str) -> PastBatch:
        """The field ``name`` up to each decision row.

        Raises:
            KeyError: No such field.
        """
        return PastBatch(self._source.field(name), self, f"field({name!r})")

    @property
    def mask(self) -> PastBatch:
        """Availability up to each decision row."""
        return PastBatch(self._source.mask, self, "mask")

    def exogenous(self, name: str) -> PastBatch:
        """The exogenous series ``name`` up to each decision row, ``width`` values a row.

        ``width`` is the series' columns (`MarketData.exogenous_width`): 1 for a
        series of shape ``(n_steps,)``, whose single env reads scalars. So
        ``latest()`` is ``(n, width)`` and ``window(length)`` is ``(n, length,
        width)``: row ``i`` of the window, reshaped to ``(length, -1)``, equals
        ``data.at(t_i).exogenous(name).window(length).reshape(length, -1)``.

        Raises:
            KeyError: No such series.

        Examples:
            >>> from sekai.finance.data import MarketData
            >>> data = MarketData([1.0, 2.0, 3.0], exogenous={"rate": [0.1, 0.2, 0.3]})
            >>> data.at_rows([1, 2]).exogenous("rate").window(2).tolist()
            [[[0.1], [0.2]], [[0.2], [0.3]]]
        """
        series = self._source.exogenous_series(name)
        table = series.reshape(series.shape[0], -1)  # a view: (rows, width)
        return PastBatch(table, self, f"exogenous({name!r})")

    def log_returns(self, length: int, *, out: NDArray[Any] | None = None) -> NDArray[Any]:
        """``(n, length, n_assets)`` log returns of rows ``t_i - length + 1`` to ``t_i``.

        Bit for bit what ``data.at(t_i).log_returns(length)`` gives, NaN where a
        price is missing. They are gathered from a table of every row's log
        returns, which a `MarketData` computes on the first call and keeps (one
        more array the size of its prices, in each process that reads it).

        Args:
            length: Number of returns (>= 1).
            out: An array of that shape to write them into (returned as is,
                writable), instead of a new read-only array.

        Raises:
            ValueError: Row ``t_i - length`` does not exist for some sub-env (the
                message names the first).
        """
        if type(length) is not int or length < 1:
            length = check_int(length, "PointInTimeBatch.log_returns: length", minimum=1)
        if self._lowest() < length:
            short = int(np.argmax(self._rows < length))
            row = int(self._rows[short])
            raise ValueError(
                f"PointInTimeBatch.log_returns({length}): sub-env {short} is at row {row} and "
                f"needs rows {row - length} to {row}; the data starts at row 0"
            )
        table = self._source._log_return_table()
        return gather_windows(table, self._flat, length, out, "PointInTimeBatch.log_returns")

    def _next_rows(self, what: str) -> NDArray[np.intp]:
        """Rows ``t_i + 1`` of the stacked tables; IndexError if a sub-env is at the last row."""
        if self._sealed:
            raise self._refused(what, "reads rows t_i + 1, after the decision rows")
        last = self._source.n_steps - 1
        if self._high >= last:
            first = int(np.argmax(self._rows >= last))
            raise IndexError(
                f"PointInTimeBatch.{what}: sub-env {first} is at row {last}, the last; a "
                "decision there cannot execute"
            )
        return self._flat + 1

    def execution_price(
        self, field: str | None = None, *, out: NDArray[Any] | None = None
    ) -> NDArray[Any]:
        """``(n, n_assets)`` prices at which the decisions execute: rows ``t_i + 1``.

        The only read after the decision rows: use it to fill orders and score
        them, never to build observations.

        Args:
            field: The field to execute at (e.g. ``"open"``); default the prices.
            out: An array of that shape to write them into (returned as is,
                writable), instead of a new read-only array.

        Raises:
            LookAheadError: This is an agent's view.
            IndexError: A sub-env is at the last row (the message names the first).
            KeyError: No such field.
        """
        if self._sealed:
            raise self._refused("execution_price()", "reads rows t_i + 1, after the decision rows")
        source = self._source
        table = source.prices if field is None else source.field(field)
        rows = self._next_rows("execution_price()")
        return gather_rows(table, rows, out, "PointInTimeBatch.execution_price")

    @property
    def execution_time(self) -> NDArray[Any]:
        """``(n,)`` the timestamps of rows ``t_i + 1``, when the decisions execute.

        Raises:
            LookAheadError: This is an agent's view.
            IndexError: A sub-env is at the last row.
        """
        self._next_rows("execution_time")
        return readonly(self._source.timestamps[self._rows + 1])

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        if self._sealed:
            raise TypeError(
                "PointInTimeBatch: an agent's view (env.now) does not pickle or copy: its "
                "sub-envs stand at different rows, and one pickle of the batch would carry rows "
                "after some of them; pickle the arrays read from it instead (prices.window(n), "
                "log_returns(n), ...)"
            )
        return super().__reduce_ex__(protocol)  # the env's own batch: its whole data

    def __repr__(self) -> str:
        span = f"rows {self._lowest()}..{self._high}" if len(self) else "no rows"
        agent = ", agent view" if self._sealed else ""
        return f"PointInTimeBatch({len(self)} sub-envs, {span}{agent})"
