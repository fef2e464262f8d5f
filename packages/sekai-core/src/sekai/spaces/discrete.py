"""A finite set of consecutive integers: `Discrete`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int
from sekai.spaces._arrays import as_choice_mask
from sekai.spaces.space import Space, check_type_name
from sekai.utils.seeding import SeedType

__all__ = ["Discrete", "SeedType"]

_INT64 = np.iinfo(np.int64)


class Discrete(Space[np.int64]):
    """The integers ``start, start + 1, ..., start + n - 1``.

    Samples are `numpy.int64` scalars. The zero of the space is ``start``.

    The positional order is sekai 0.2's, ``Discrete(n, seed, start)``:
    ``Discrete(5, 42)`` is seeded with 42; give ``start`` by keyword.

    Args:
        n: Number of elements (>= 1).
        seed: Optional seed (see `Space.seed`).
        start: The smallest element.

    Raises:
        TypeError: ``n`` or ``start`` is not an int.
        ValueError: ``n`` is smaller than 1, or the elements do not all fit
            in ``int64``.

    Examples:
        >>> space = Discrete(3, start=-1, seed=0)
        >>> space
        Discrete(3, start=-1)
        >>> int(space.sample(mask=np.array([0, 0, 1], dtype=np.int8)))
        1
    """

    def __init__(
        self, n: int | np.integer[Any], seed: SeedType = None, start: int | np.integer[Any] = 0
    ) -> None:
        self.n = check_int(n, "Discrete: n", minimum=1)
        self.start: int = check_int(start, "Discrete: start")
        self._end: int = self.start + self.n
        if self.start < _INT64.min or self._end - 1 > _INT64.max or self.n > _INT64.max + 1:
            raise ValueError(
                f"Discrete: the elements start={self.start} to start + n - 1={self._end - 1} "
                f"must fit in int64 ([{_INT64.min}, {_INT64.max}]), since samples are int64; "
                f"got n={n!r}, start={start!r}"
            )
        super().__init__((), np.dtype(np.int64), seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """Always ``()``: samples are scalars."""
        return ()

    @property
    def dtype(self) -> np.dtype[Any]:
        """Always ``int64``."""
        return np.dtype(np.int64)

    def sample(self, mask: NDArray[np.int8] | None = None) -> np.int64:
        """Draw a random element, uniformly among those the mask allows.

        Args:
            mask: Optional int8 array of shape ``(n,)``; entry ``i`` is ``1`` if
                ``start + i`` may be drawn, ``0`` if not.

        Raises:
            ValueError: The mask has the wrong shape, holds values other than
                0 and 1, or allows nothing (all zeros).
        """
        if mask is None:
            value: np.int64 = np.int64(self.start + int(self.rng.integers(self.n)))
            return value
        allowed = as_choice_mask(mask, self.n, self)
        value = np.int64(self.start + int(allowed[self.rng.integers(allowed.size)]))
        return value

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an integer (Python, numpy scalar or 0-d array) in range."""
        if isinstance(x, (np.integer, np.ndarray)):
            if x.dtype.kind not in "iu" or x.shape != ():
                return False
            value = int(x)
        elif isinstance(x, int) and not isinstance(x, bool):
            value = x
        else:
            return False
        return self.start <= value < self._end

    def zero(self) -> np.int64:
        """Return ``start``."""
        value: np.int64 = np.int64(self.start)
        return value

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert samples to Python ints."""
        return [int(sample) for sample in samples]

    def _samples_from_jsonable(self, data: Sequence[Any]) -> list[np.int64]:
        """Convert Python ints back to ``numpy.int64``."""
        return [np.int64(item) for item in data]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "Discrete", "n", "start"}``."""
        return {"type": "Discrete", "n": self.n, "start": self.start}

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Discrete:
        """Build the space from the output of `to_json_dict`."""
        check_type_name(data, "Discrete", cls)
        return cls(int(data["n"]), start=int(data.get("start", 0)))

    def __repr__(self) -> str:
        if self.start:
            return f"Discrete({self.n}, start={self.start})"
        return f"Discrete({self.n})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Discrete)
            and type(other) is type(self)
            and self.n == other.n
            and self.start == other.start
        )

    def __hash__(self) -> int:
        return hash((type(self), self.n, self.start))
