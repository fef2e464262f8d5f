"""Arrays of 0/1 flags: `MultiBinary`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_shape
from sekai.spaces._arrays import as_bool_mask, readonly
from sekai.spaces.space import Space, check_type_name, skipped_init
from sekai.utils.seeding import SeedType

__all__ = ["MultiBinary", "SeedType"]


class MultiBinary(Space[NDArray[np.int8]]):
    """Arrays of a fixed shape whose entries are 0 or 1, stored as ``int8``.

    The zero of the space is the all-zero array.

    Args:
        n: Number of flags (an int), or the shape of the flag array.
        seed: Optional seed (see `Space.seed`).

    Raises:
        TypeError: ``n`` is neither an int nor a sequence of ints.
        ValueError: ``n`` holds a negative size.

    Examples:
        >>> space = MultiBinary(4, seed=0)
        >>> space
        MultiBinary(4)
        >>> space.sample(mask=np.zeros(4, dtype=bool)).tolist()
        [0, 0, 0, 0]
    """

    def __init__(
        self, n: int | Sequence[int] | NDArray[np.integer[Any]], seed: SeedType = None
    ) -> None:
        shape = check_shape(n.tolist() if isinstance(n, np.ndarray) else n, "MultiBinary: n")
        self.n: int | tuple[int, ...] = shape[0] if len(shape) == 1 else shape
        self._zero = readonly(np.zeros(shape, np.int8))
        super().__init__(shape, np.dtype(np.int8), seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of every sample."""
        shape = self._shape
        if shape is None:
            raise skipped_init(self, "shape", "MultiBinary")
        return shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """Always ``int8``."""
        return np.dtype(np.int8)

    def sample(self, mask: NDArray[np.bool_] | None = None) -> NDArray[np.int8]:
        """Draw independent fair coin flips.

        Args:
            mask: Optional boolean array of the space's shape; entries where it
                is ``False`` are 0.
        """
        result = self.rng.integers(0, 2, size=self.shape, dtype=np.int8)
        if mask is not None:
            result[~as_bool_mask(mask, self.shape, self)] = 0
        return result

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an integer or boolean array of the shape holding only 0/1."""
        if not isinstance(x, np.ndarray):
            if isinstance(x, (str, bytes, Mapping)):
                return False
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):
                return False
        return bool(
            x.shape == self._shape and x.dtype.kind in "biu" and np.all((x == 0) | (x == 1))
        )

    def zero(self) -> NDArray[np.int8]:
        """Return an all-zero ``int8`` array."""
        zero: NDArray[np.int8] = self._zero.copy()
        return zero

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert samples to nested lists of ints."""
        return [np.asarray(sample).tolist() for sample in samples]

    def _samples_from_jsonable(self, data: Sequence[Any]) -> list[NDArray[np.int8]]:
        """Convert nested lists back to ``int8`` arrays."""
        return [np.asarray(item, dtype=np.int8).reshape(self.shape) for item in data]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "MultiBinary", "n"}``."""
        return {"type": "MultiBinary", "n": list(self.shape)}

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> MultiBinary:
        """Build the space from the output of `to_json_dict`."""
        check_type_name(data, "MultiBinary", cls)
        return cls(data["n"])

    def __repr__(self) -> str:
        return f"MultiBinary({self.n})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MultiBinary)
            and type(other) is type(self)
            and (self.shape == other.shape)
        )

    def __hash__(self) -> int:
        return hash((type(self), self.shape))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._zero.flags.writeable = False
