"""A fixed number of slots, each empty or holding a Box element: `MaskedBox`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from sekai._internal.validation import check_int
from sekai.spaces._arrays import as_bool_mask
from sekai.spaces._jsonbounds import decode_array, encode_array
from sekai.spaces.box import BoundType, Box
from sekai.spaces.dict import Dict
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.space import Space, check_type_name
from sekai.utils.seeding import SeedType

__all__ = ["MaskedBox", "SeedType"]


class MaskedBox(Dict):
    """Up to ``max_size`` elements of a `Box`, padded to a fixed shape.

    A `Dict` with two keys:

    - ``"values"``: a Box of shape ``(max_size, *shape)`` with the element
      bounds broadcast over the slots;
    - ``"mask"``: a ``MultiBinary(max_size)`` (``int8``), 1 where the slot holds
      an element.

    `contains` checks both parts and the bounds of the occupied slots
    only: empty slots may hold anything of the right dtype. Producers put the
    elements in order in the first slots and ``fill_value`` elsewhere; that is
    what `pack` and `sample` do (the latter drawing the number of
    elements uniformly in ``[0, max_size]``), and `unpack` reads them
    back. The zero of the space, `empty`, has every slot empty.

    Having fixed shapes, a masked box flattens, batches and travels through
    shared memory like any Dict of boxes. Its two parts are fixed: assigning
    ``space[key] = ...`` raises.

    Args:
        low: Lower bounds of one element (scalar or array).
        high: Upper bounds of one element (scalar or array).
        shape: Shape of one element (inferred as for `Box` when ``None``).
        max_size: Number of slots (>= 1: a masked box without slots holds nothing).
        dtype: dtype of the values (``float32`` by default).
        fill_value: What empty slots hold (a scalar or an array of the element
            shape, any value of the dtype, e.g. NaN); ``None`` (the default)
            uses the element zero, ``0`` clipped into the bounds.
        seed: Optional seed (see `Dict.seed`).

    Raises:
        TypeError, ValueError: As for `Box`, a bad ``max_size``, or a
            ``fill_value`` that does not fit the element shape or dtype.

    Examples:
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
        fill_value: ArrayLike | None = None,
        seed: SeedType = None,
    ) -> None:
        element = Box(low, high, shape, dtype)
        self.max_size = check_int(max_size, "MaskedBox: max_size", minimum=1)
        self.element_space = element
        self.fill_value: NDArray[Any] | None = None
        fill = element.zero()
        if fill_value is not None:
            try:
                with np.errstate(invalid="ignore"):
                    given = np.asarray(fill_value)
                    fill = np.array(np.broadcast_to(given, element.shape), dtype=element.dtype)
            except (TypeError, ValueError) as error:
                raise ValueError(
                    f"MaskedBox: fill_value must be a scalar or an array of the element shape "
                    f"{element.shape} and dtype {element.dtype}, got {fill_value!r}"
                ) from error
            if given.dtype.kind not in "biuf" or (
                element.dtype.kind != "f" and not np.array_equal(given, fill)
            ):
                raise ValueError(
                    f"MaskedBox: fill_value {fill_value!r} is not a value of dtype {element.dtype}"
                )
            fill.flags.writeable = False
            self.fill_value = fill
        self._fill = fill
        full = (self.max_size, *element.shape)
        values = Box(
            np.broadcast_to(element.low, full), np.broadcast_to(element.high, full), full, dtype
        )
        self._empty_values = np.broadcast_to(fill, full)
        super().__init__({"values": values, "mask": MultiBinary(self.max_size)}, seed=seed)

    @property
    def element_shape(self) -> tuple[int, ...]:
        """Shape of one element."""
        return self.element_space.shape

    @property
    def value_dtype(self) -> np.dtype[Any]:
        """The dtype of the values (of every element)."""
        return self.element_space.dtype

    @property
    def low(self) -> NDArray[Any]:
        """Lower bounds of one element."""
        return self.element_space.low

    @property
    def high(self) -> NDArray[Any]:
        """Upper bounds of one element."""
        return self.element_space.high

    def sample(self, mask: Any = None) -> dict[str, NDArray[Any]]:
        """Draw a prefix of random elements followed by empty slots.

        Args:
            mask: Optional. An int8 (or bool) array of ``max_size`` flags
                (sekai 0.2's form): slots where it is 0 are left empty. Or a
                dict ``{"values": bool array, "mask": slot flags}`` (each entry
                may be missing or ``None``): components of ``"values"`` where it
                is ``False`` take the element zero, slots where ``"mask"`` is 0
                are left empty.
        """
        values_space = self.spaces["values"]
        if not isinstance(values_space, Box):  # only if .spaces was edited directly
            raise TypeError(
                f"MaskedBox.sample: spaces['values'] must be a Box, got {values_space!r} "
                "(it was replaced after the MaskedBox was built)"
            )
        values_mask: Any = None
        slot_mask: Any = None
        if isinstance(mask, Mapping):
            unknown = [key for key in mask if key not in ("values", "mask")]
            if unknown:
                raise ValueError(f"mask has keys {unknown!r}; expected 'values' and/or 'mask'")
            values_mask = mask.get("values")
            slot_mask = mask.get("mask")
        elif mask is not None:
            slot_mask = mask
        count = int(self.rng.integers(self.max_size, endpoint=True))
        occupied = np.arange(self.max_size) < count
        if slot_mask is not None:
            occupied &= as_bool_mask(slot_mask, (self.max_size,), self)
        values = values_space.sample(values_mask)
        values[~occupied] = self._fill
        return {"values": values, "mask": occupied.astype(np.int8)}

    def empty(self) -> dict[str, NDArray[Any]]:
        """Return a sample with every slot empty (holding ``fill_value``)."""
        return {
            "values": np.array(self._empty_values, dtype=self.value_dtype),
            "mask": np.zeros(self.max_size, np.int8),
        }

    def pack(self, values: ArrayLike, slots: ArrayLike | None = None) -> dict[str, NDArray[Any]]:
        """Build a sample holding the given elements.

        Args:
            values: ``k`` elements, an array of shape ``(k, *element_shape)``
                (or a list of elements), ``k <= max_size``.
            slots: The slot of each element (``k`` distinct indices); by
                default the first ``k`` slots, in order.

        Returns:
            ``{"values", "mask"}``: the elements in their slots, ``fill_value``
            in the others, and the int8 mask of the occupied slots.

        Raises:
            ValueError: The elements do not have the element shape, there are
                more than ``max_size``, or the slots are out of range,
                repeated, or not one per element.
        """
        shape = self.element_shape
        items = np.asarray(values, dtype=self.value_dtype)
        if items.size == 0 and items.shape[: items.ndim - len(shape)] in ((0,), ()):
            items = items.reshape((0, *shape))
        if items.ndim != len(shape) + 1 or items.shape[1:] != shape:
            raise ValueError(
                f"MaskedBox.pack: values must have shape (k, *{shape}), got {items.shape}"
            )
        count = items.shape[0]
        if count > self.max_size:
            raise ValueError(
                f"MaskedBox.pack: {count} elements do not fit in {self.max_size} slots"
            )
        if slots is None:
            where = np.arange(count)
        else:
            where = np.asarray(slots)
            if where.dtype.kind not in "iu" or where.shape != (count,):
                raise ValueError(
                    f"MaskedBox.pack: slots must be {count} integer indices, got {slots!r}"
                )
            if count and (where.min() < 0 or where.max() >= self.max_size):
                raise ValueError(
                    f"MaskedBox.pack: slots must lie in [0, {self.max_size}), got {slots!r}"
                )
            if np.unique(where).size != count:
                raise ValueError(f"MaskedBox.pack: slots must be distinct, got {slots!r}")
        sample = self.empty()
        sample["values"][where] = items
        sample["mask"][where] = 1
        return sample

    def unpack(self, x: dict[str, Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
        """Read back the elements of a sample and their slots.

        Returns:
            The elements of the occupied slots, an array of shape
            ``(k, *element_shape)`` in slot order, and their slot indices.
        """
        slots = np.flatnonzero(np.asarray(x["mask"])).astype(np.intp)
        values = np.asarray(x["values"])[slots]
        return values, slots

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
        """Return every slot empty (the same as `empty`)."""
        return self.empty()

    def __setitem__(self, key: str, space: Space[Any]) -> None:
        raise TypeError(
            f"the parts of a MaskedBox are fixed ('values' and 'mask'); cannot set {key!r}"
        )

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "MaskedBox", "element", "max_size"}``.

        A ``fill_value`` is written too when one was given (non-finite values
        as strings, like bounds).
        """
        data: dict[str, Any] = {
            "type": "MaskedBox",
            "element": self.element_space.to_json_dict(),
            "max_size": self.max_size,
        }
        if self.fill_value is not None:
            data["fill_value"] = encode_array(self.fill_value, allow_nan=True)
        return data

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> MaskedBox:
        """Build the space from the output of `to_json_dict`."""
        check_type_name(data, "MaskedBox", cls)
        element = Box.from_json_dict(data["element"])
        fill = data.get("fill_value")
        return cls(
            element.low,
            element.high,
            element.shape,
            max_size=int(data["max_size"]),
            dtype=element.dtype,
            fill_value=None if fill is None else decode_array(fill, element.dtype, allow_nan=True),
        )

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
            and _same_fill(self.fill_value, other.fill_value)
        )

    def __hash__(self) -> int:
        return hash((type(self), self.max_size, self.element_space))


def _same_fill(a: NDArray[Any] | None, b: NDArray[Any] | None) -> bool:
    if a is None or b is None:
        return a is b
    return bool(np.array_equal(a, b, equal_nan=True))
