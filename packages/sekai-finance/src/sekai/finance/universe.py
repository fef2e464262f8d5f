"""A changing universe of assets on a fixed number of slots.

Observation and action spaces have fixed shapes, while assets list and
delist over time. `SlotMap` gives each asset present a slot of its
own for as long as it stays present, so slot ``i`` of the observation and of
the action always means the same asset between two changes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int

__all__ = ["SlotMap"]


class SlotMap:
    """Assets mapped to ``max_slots`` fixed slots as they list and delist.

    Each `update` says which assets are present now. An asset already in
    a slot keeps it; an asset no longer present frees its slot; a new asset
    takes the lowest free slot, in the order given. When more assets are
    present than slots, those that find no free slot get ``-1`` (they are left
    out until a slot frees up), never a slot another asset holds.

    Args:
        max_slots: Number of slots (>= 1).

    Attributes:
        max_slots: The ``max_slots`` argument.
        changed: ``(max_slots,)`` bools: the slots whose asset changed in the
            last `update` (freed, or taken by a new asset); per-slot state
            (positions, histories) of those slots should be reset.

    Examples:
        >>> slots = SlotMap(3)
        >>> slots.update(["a", "b"]).tolist()
        [0, 1]
        >>> slots.update(["b", "c", "d"]).tolist()  # "a" left: "c" takes its slot
        [1, 0, 2]
        >>> slots.assets, slots.changed.tolist()
        (('c', 'b', 'd'), [True, False, True])
    """

    def __init__(self, max_slots: int) -> None:
        self.max_slots = check_int(max_slots, "SlotMap: max_slots", minimum=1)
        self._slots: list[Any] = [None] * self.max_slots
        self._where: dict[Hashable, int] = {}
        self.changed: NDArray[np.bool_] = np.zeros(self.max_slots, dtype=np.bool_)

    def update(self, present: Iterable[Hashable]) -> NDArray[np.intp]:
        """Map the assets present now; return the slot of each, in order (-1: no slot).

        Raises:
            TypeError: An asset label is not hashable.
            ValueError: An asset appears twice, or is None.
        """
        assets = list(present)
        seen: set[Hashable] = set()
        for asset in assets:
            try:
                repeated = asset in seen
            except TypeError:
                raise TypeError(
                    f"SlotMap.update: asset labels must be hashable, got {asset!r}"
                ) from None
            if repeated:
                raise ValueError(f"SlotMap.update: asset {asset!r} is present twice")
            if asset is None:
                raise ValueError("SlotMap.update: None cannot label an asset (it marks free slots)")
            seen.add(asset)
        changed = np.zeros(self.max_slots, dtype=np.bool_)
        for asset in [asset for asset in self._where if asset not in seen]:
            gone = self._where.pop(asset)
            self._slots[gone] = None
            changed[gone] = True
        free = [slot for slot, asset in enumerate(self._slots) if asset is None]
        free.reverse()  # pop() then gives the lowest
        result = np.empty(len(assets), dtype=np.intp)
        for i, asset in enumerate(assets):
            held = self._where.get(asset)
            if held is None:
                if not free:
                    result[i] = -1
                    continue
                held = free.pop()
                self._where[asset] = held
                self._slots[held] = asset
                changed[held] = True
            result[i] = held
        self.changed = changed
        return result

    def slot_of(self, asset: Hashable) -> int | None:
        """The slot holding ``asset``, or None."""
        return self._where.get(asset)

    @property
    def assets(self) -> tuple[Any, ...]:
        """The asset in each slot (None for a free slot)."""
        return tuple(self._slots)

    @property
    def mask(self) -> NDArray[np.bool_]:
        """``(max_slots,)`` bools: which slots hold an asset."""
        mask = np.zeros(self.max_slots, dtype=np.bool_)
        mask[list(self._where.values())] = True
        return mask

    def reset(self) -> None:
        """Free every slot (``changed`` marks the slots that were held)."""
        self.changed = self.mask
        self._slots = [None] * self.max_slots
        self._where.clear()

    def __len__(self) -> int:
        """Number of slots holding an asset."""
        return len(self._where)

    def __repr__(self) -> str:
        return f"SlotMap(max_slots={self.max_slots}, assets={self.assets!r})"
