"""Market-v0's slots: which data column each sub-env's fixed slots hold (private).

The rule is [`SlotMap`][sekai.finance.SlotMap]'s: an asset keeps its slot while
it stays listed, a listing asset takes the lowest free slot (assets listing
together in the order of their columns), and one that finds no free slot is
left out until a slot frees up. `SlotTable` applies it to ``n`` sub-envs at
once, on data column indices rather than labels, so a step updates every
sub-env's slots with a few array operations and no loop over sub-envs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["SlotTable"]


class SlotTable:
    """The slots of ``n`` sub-envs over a universe of ``n_assets`` data columns.

    Args:
        n: Number of sub-envs (rows).
        max_assets: Slots per sub-env.
        n_assets: Columns of the data (assets of the universe).

    Attributes:
        columns: ``(n, max_assets)``: the data column each slot holds, -1 when free.
        slot_of: ``(n, n_assets)``: the slot each column is in, -1 when in none.
        held: ``(n, max_assets)``: which slots hold an asset.
        picked: ``(n, max_assets)``: `columns` with 0 for the free slots (an index
            that reads any column, to be masked by `held`).
        count: ``(n,)``: slots holding an asset.
        tradable: ``(n, max_assets + 1)``: 1.0 for the slots holding an asset
            and for cash (last), else 0.0.

    The last four follow `columns` (recomputed when it changes) and must not
    be written to.
    """

    def __init__(self, n: int, max_assets: int, n_assets: int) -> None:
        self.columns: NDArray[np.intp] = np.full((n, max_assets), -1, dtype=np.intp)
        self.slot_of: NDArray[np.intp] = np.full((n, n_assets), -1, dtype=np.intp)
        self.tradable: NDArray[np.float64] = np.ones((n, max_assets + 1))
        self._derive()

    def _derive(self) -> None:
        held = self.held = self.columns >= 0
        self.picked: NDArray[np.intp] = np.where(held, self.columns, 0)
        self.count: NDArray[np.intp] = np.add.reduce(held, axis=1, dtype=np.intp)
        self.tradable[:, :-1] = held

    def clear(self, indices: NDArray[np.intp]) -> None:
        """Free every slot of the sub-envs ``indices`` (a new episode)."""
        self.columns[indices] = -1
        self.slot_of[indices] = -1
        self._derive()

    def place(
        self, listed: NDArray[np.bool_], keep: NDArray[np.bool_] | None = None
    ) -> NDArray[np.bool_] | None:
        """Map the columns ``listed`` now (``(n, n_assets)``) to slots, sub-env by sub-env.

        Args:
            listed: Which columns have a price at each sub-env's row.
            keep: Sub-envs whose slots must not change (frozen, or not being
                reset), or None.

        Returns:
            ``(n, max_assets)`` bools, the slots whose asset changed (freed or
            taken), or None when none did.
        """
        columns, slot_of = self.columns, self.slot_of
        placed = slot_of >= 0
        if keep is not None:
            listed = np.where(keep[:, None], placed, listed)
        changed: NDArray[np.bool_] | None = None
        gone = placed & ~listed
        if gone.any():
            changed = np.zeros(columns.shape, dtype=np.bool_)
            rows, lost = gone.nonzero()
            slots = slot_of[rows, lost]
            columns[rows, slots] = -1
            slot_of[rows, lost] = -1
            changed[rows, slots] = True
        new = listed & (slot_of < 0)
        free = columns < 0
        # Only rows with a column to place and a free slot for it can change.
        rows = np.flatnonzero(new.any(axis=1) & free.any(axis=1))
        if rows.size:
            new, free = new[rows], free[rows]
            # Each row's free slots, lowest first, then the held ones (a stable sort of flags).
            lowest = np.argsort(~free, axis=1, kind="stable")
            rank = np.cumsum(new, axis=1) - 1  # a row's k-th new column takes its k-th free slot
            taken = new & (rank < np.count_nonzero(free, axis=1)[:, None])
            if changed is None:
                changed = np.zeros(columns.shape, dtype=np.bool_)
            which, fresh = taken.nonzero()
            slots = lowest[which, rank[which, fresh]]
            rows = rows[which]
            columns[rows, slots] = fresh
            slot_of[rows, fresh] = slots
            changed[rows, slots] = True
        return self._changed(changed)

    def _changed(self, changed: NDArray[np.bool_] | None) -> NDArray[np.bool_] | None:
        if changed is not None:
            self._derive()
        return changed
