"""A product of [`Discrete`][sekai.spaces.Discrete] spaces in one array: `MultiDiscrete`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai.spaces._arrays import as_choice_mask, check_dtype_numeric, readonly
from sekai.spaces._jsonbounds import decode_array, encode_array
from sekai.spaces.space import Space, check_type_name, skipped_init
from sekai.utils.seeding import SeedType

__all__ = ["MultiDiscrete", "SeedType"]


class MultiDiscrete(Space[NDArray[Any]]):
    """Integer arrays whose entry ``i`` lies in ``[start[i], start[i] + nvec[i])``.

    ``nvec`` may have any shape (e.g. ``(2, 3)`` for a grid of choices); samples
    have that shape. The zero of the space is ``start``.

    The positional order is sekai 0.2's, ``MultiDiscrete(nvec, dtype, seed,
    start)``; give ``start`` by keyword.

    Args:
        nvec: Number of values of each entry (each >= 1).
        dtype: An integer dtype for the samples (``int64`` by default).
        seed: Optional seed (see `Space.seed`).
        start: Smallest value of each entry (same shape as ``nvec``, or a
            scalar); zeros by default.

    Raises:
        TypeError: ``dtype`` is not an integer dtype, or ``nvec``/``start`` are
            not integers.
        ValueError: ``nvec`` is empty or holds a value < 1, ``start`` does not
            broadcast to ``nvec``'s shape, or the values do not fit in ``dtype``.

    Examples:
        >>> space = MultiDiscrete([2, 3], seed=0)
        >>> space
        MultiDiscrete([2, 3])
        >>> space.sample().shape
        (2,)
    """

    def __init__(
        self,
        nvec: NDArray[np.integer[Any]] | Sequence[Any] | int,
        dtype: DTypeLike = np.int64,
        seed: SeedType = None,
        start: NDArray[np.integer[Any]] | Sequence[Any] | int | None = None,
    ) -> None:
        resolved = check_dtype_numeric(dtype, "MultiDiscrete", kinds="iu")
        nvec_arr = np.array(nvec, copy=True)
        if nvec_arr.size == 0 or nvec_arr.ndim == 0:
            raise ValueError(f"MultiDiscrete: nvec must be a non-empty array, got {nvec!r}")
        if nvec_arr.dtype.kind not in "iu":
            raise TypeError(f"MultiDiscrete: nvec must hold integers, got {nvec!r}")
        if bool(np.any(nvec_arr < 1)):
            raise ValueError(f"MultiDiscrete: every entry of nvec must be >= 1, got {nvec!r}")
        start_arr = np.zeros_like(nvec_arr) if start is None else np.asarray(start)
        if start_arr.dtype.kind not in "iu":
            raise TypeError(f"MultiDiscrete: start must hold integers, got {start!r}")
        try:
            start_arr = np.broadcast_to(start_arr, nvec_arr.shape)
        except ValueError as error:
            raise ValueError(
                f"MultiDiscrete: start with shape {start_arr.shape} does not broadcast to nvec's "
                f"shape {nvec_arr.shape}"
            ) from error
        info = np.iinfo(resolved)
        last = start_arr.astype(object) + nvec_arr.astype(object) - 1
        if start_arr.min() < info.min or last.max() > info.max:
            raise ValueError(
                f"MultiDiscrete: values from start={start!r} and nvec={nvec!r} do not fit in "
                f"dtype {resolved}"
            )
        self.nvec: NDArray[Any] = readonly(nvec_arr.astype(resolved))
        self.start: NDArray[Any] = readonly(np.array(start_arr, dtype=resolved, copy=True))
        self._last: NDArray[Any] = readonly(last.astype(resolved))
        self._flat_nvec = [int(v) for v in self.nvec.ravel()]
        super().__init__(self.nvec.shape, resolved, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of every sample (``nvec.shape``)."""
        shape = self._shape
        if shape is None:
            raise skipped_init(self, "shape", "MultiDiscrete")
        return shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of every sample."""
        dtype = self._dtype
        if dtype is None:
            raise skipped_init(self, "dtype", "MultiDiscrete")
        return dtype

    def sample(self, mask: Any | None = None) -> NDArray[Any]:
        """Draw a random array, each entry uniformly among the values its mask allows.

        Args:
            mask: Optional per-entry masks: a sequence with one int8 array of
                length ``nvec[i]`` per entry (nested sequences for a
                multi-dimensional ``nvec``); ``None`` in place of an array
                leaves that entry unconstrained.

        Raises:
            ValueError: A mask has the wrong length or structure, or allows
                nothing.
        """
        if mask is None:
            return self.rng.integers(self.start, self._last, endpoint=True, dtype=self.dtype)
        flat_masks = self._flatten_mask(mask, self.nvec.shape, "mask")
        flat = np.empty(self.nvec.size, dtype=self.dtype)
        starts = self.start.ravel()
        for i, (n, entry_mask) in enumerate(zip(self._flat_nvec, flat_masks, strict=True)):
            if entry_mask is None:
                offset = int(self.rng.integers(n))
            else:
                allowed = as_choice_mask(entry_mask, n, self)
                offset = int(allowed[self.rng.integers(allowed.size)])
            flat[i] = starts[i] + offset
        return flat.reshape(self.shape)

    def _flatten_mask(self, mask: Any, shape: tuple[int, ...], where: str) -> list[Any]:
        if len(shape) == 0:
            return [mask]
        if isinstance(mask, np.ndarray) and mask.dtype != object and len(shape) == 1:
            # A single 2-D array can only describe an nvec with equal entries.
            mask = list(mask)
        if not isinstance(mask, (Sequence, np.ndarray)) or isinstance(mask, (str, Mapping)):
            raise TypeError(
                f"{where} for {self!r} must be a sequence of {shape[0]} per-entry masks, "
                f"got {mask!r}"
            )
        if len(mask) != shape[0]:
            raise ValueError(f"{where} for {self!r} must have {shape[0]} entries, got {len(mask)}")
        flat: list[Any] = []
        for i, item in enumerate(mask):
            flat.extend(self._flatten_mask(item, shape[1:], f"{where}[{i}]"))
        return flat

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an integer array of ``nvec``'s shape within the ranges."""
        if not isinstance(x, np.ndarray):
            if isinstance(x, (str, bytes, Mapping)):
                return False
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):
                return False
        return bool(
            x.shape == self._shape
            and x.dtype.kind in "iu"
            and np.all(x >= self.start)
            and np.all(x <= self._last)
        )

    def zero(self) -> NDArray[Any]:
        """Return ``start`` (a fresh array)."""
        zero: NDArray[Any] = self.start.copy()
        return zero

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert samples to nested lists of ints."""
        return [np.asarray(sample).tolist() for sample in samples]

    def _samples_from_jsonable(self, data: Sequence[Any]) -> list[NDArray[Any]]:
        """Convert nested lists back to arrays of the space's dtype."""
        return [np.asarray(item, dtype=self.dtype).reshape(self.shape) for item in data]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "MultiDiscrete", "nvec", "start", "dtype"}``."""
        return {
            "type": "MultiDiscrete",
            "nvec": self.nvec.tolist(),
            "start": encode_array(self.start),
            "dtype": self.dtype.name,
        }

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> MultiDiscrete:
        """Build the space from the output of `to_json_dict`."""
        check_type_name(data, "MultiDiscrete", cls)
        dtype = np.dtype(data.get("dtype", "int64"))
        start = data.get("start")
        return cls(
            np.asarray(data["nvec"], dtype=dtype),
            start=None if start is None else decode_array(start, dtype),
            dtype=dtype,
        )

    def __repr__(self) -> str:
        parts = [repr(self.nvec.tolist())]
        if bool(np.any(self.start != 0)):
            parts.append(f"start={self.start.tolist()!r}")
        if self.dtype != np.int64:
            parts.append(f"dtype={self.dtype}")
        return f"MultiDiscrete({', '.join(parts)})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MultiDiscrete)
            and type(other) is type(self)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and bool(np.array_equal(self.nvec, other.nvec))
            and bool(np.array_equal(self.start, other.start))
        )

    def __hash__(self) -> int:
        nvec, start = self.nvec.tobytes(), self.start.tobytes()
        return hash((type(self), self.dtype.str, self.shape, nvec, start))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("nvec", "start", "_last"):
            self.__dict__[name].flags.writeable = False
