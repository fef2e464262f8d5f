"""A fixed number of slots, each empty or holding a Box element: :class:`MaskedBox`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai._validation import check_int
from sekai.spaces._arrays import as_bool_mask
from sekai.spaces.box import BoundType, Box
from sekai.spaces.dict import Dict
from sekai.spaces.multi_binary import MultiBinary
from sekai.utils.seeding import SeedType

__all__ = ["MaskedBox"]


class MaskedBox(Dict):
    """Up to ``max_size`` elements of a :class:`Box`, padded to a fixed shape.

    A :class:`Dict` with two keys:

    - ``"values"``: a Box of shape ``(max_size, *shape)`` with the element
      bounds broadcast over the slots;
    - ``"mask"``: a ``MultiBinary(max_size)`` (``int8``), 1 where the slot holds
      an element.

    :meth:`contains` checks both parts and the bounds of the occupied slots
    only: empty slots may hold anything of the right dtype. Producers put the
    elements in order in the first slots and the element zero (``0`` clipped
    into the bounds, so plain zeros whenever the bounds include 0) elsewhere;
    that is what :meth:`sample` does, drawing the number of elements uniformly
    in ``[0, max_size]``. The zero of the space is all slots empty with zero
    values.

    Having fixed shapes, a masked box flattens, batches and travels through
    shared memory like any Dict of boxes.

    Args:
        low: Lower bounds of one element (scalar or array).
        high: Upper bounds of one element (scalar or array).
        shape: Shape of one element (inferred as for :class:`Box` when ``None``).
        max_size: Number of slots (>= 0).
        dtype: dtype of the values (``float32`` by default).
        seed: Optional seed (see :meth:`Dict.seed`).

    Raises:
        TypeError, ValueError: As for :class:`Box`, or a bad ``max_size``.

    Example:
        >>> space = MaskedBox(-1.0, 1.0, (2,), max_size=3, seed=0)
        >>> space["values"].shape, space["mask"].shape
        ((3, 2), (3,))
        >>> space.zero()["mask"].tolist()
        [0, 0, 0]
    """

    def __init__(
        self,
        low: BoundType,
        high: BoundType,
        shape: Sequence[int] | int | None = None,
        *,
        max_size: int,
        dtype: DTypeLike = np.float32,
        seed: SeedType = None,
    ) -> None:
        element = Box(low, high, shape, dtype)
        self.max_size = check_int(max_size, "MaskedBox: max_size", minimum=0)
        self.element_space = element
        full = (self.max_size, *element.shape)
        values = Box(
            np.broadcast_to(element.low, full), np.broadcast_to(element.high, full), full, dtype
        )
        super().__init__({"values": values, "mask": MultiBinary(self.max_size)}, seed=seed)

    @property
    def element_shape(self) -> tuple[int, ...]:
        """Shape of one element."""
        return self.element_space.shape

    @property
    def low(self) -> NDArray[Any]:
        """Lower bounds of one element."""
        return self.element_space.low

    @property
    def high(self) -> NDArray[Any]:
        """Upper bounds of one element."""
        return self.element_space.high

    def sample(self, mask: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Draw a prefix of random elements followed by empty slots.

        Args:
            mask: Optional ``{"values": bool array, "mask": bool array}`` (each
                may be missing or ``None``): components of ``"values"`` where it
                is ``False`` take the element zero, slots where ``"mask"`` is
                ``False`` are left empty.
        """
        values_space = self.spaces["values"]
        assert isinstance(values_space, Box)
        values_mask: Any = None
        slot_mask: Any = None
        if mask is not None:
            if not isinstance(mask, Mapping):
                raise TypeError(f"mask for {self!r} must be a dict of masks, got {mask!r}")
            unknown = [key for key in mask if key not in ("values", "mask")]
            if unknown:
                raise ValueError(f"mask has keys {unknown!r}; expected 'values' and/or 'mask'")
            values_mask = mask.get("values")
            slot_mask = mask.get("mask")
        count = int(self.rng.integers(self.max_size, endpoint=True))
        occupied = np.arange(self.max_size) < count
        if slot_mask is not None:
            occupied &= as_bool_mask(slot_mask, (self.max_size,), self)
        values = values_space.sample(values_mask)
        values[~occupied] = values_space.zero()[~occupied]
        return {"values": values, "mask": occupied.astype(np.int8)}

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` has both keys, a valid mask, and in-bounds occupied slots."""
        if not isinstance(x, Mapping) or len(x) != 2:
            return False
        values = x.get("values")
        slots = x.get("mask")
        if not self.spaces["mask"].contains(slots):
            return False
        if not isinstance(values, np.ndarray):
            try:
                values = np.asarray(values)
            except (ValueError, TypeError):
                return False
        element = self.element_space
        if values.shape != (self.max_size, *element.shape):
            return False
        if values.dtype.kind not in ("biuf" if element.dtype.kind == "f" else "biu"):
            return False
        held = values[np.asarray(slots).astype(np.bool_)]
        return bool(np.all(held >= element.low) and np.all(held <= element.high))

    def zero(self) -> dict[str, Any]:
        """Return every slot empty, with zero values (clipped into the element bounds)."""
        return super().zero()

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "MaskedBox", "element", "max_size"}``."""
        return {
            "type": "MaskedBox",
            "element": self.element_space.to_json_dict(),
            "max_size": self.max_size,
        }

    def __repr__(self) -> str:
        box = repr(self.element_space)[len("Box(") : -1]
        head, _, dtype = box.rpartition(", ")
        return f"MaskedBox({head}, max_size={self.max_size}, dtype={dtype})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MaskedBox)
            and type(other) is type(self)
            and self.max_size == other.max_size
            and self.element_space == other.element_space
        )

    __hash__ = None
