"""Variable-length sequences of elements of one space: `Sequence`."""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, is_int
from sekai.spaces.box import Box
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.space import Space, check_type_name, describe, seed_with_children
from sekai.utils.seeding import SeedType

__all__ = ["DEFAULT_MAX_LENGTH", "SeedType", "Sequence"]

DEFAULT_MAX_LENGTH = 16
"""``max_length`` of a `Sequence` created with ``max_length=None``."""

_STACKABLE = (Box, Discrete, MultiDiscrete, MultiBinary)


class Sequence(Space[Any]):
    """Sequences of 0 to ``max_length`` elements of ``feature_space``.

    Samples are tuples of elements, or, with ``stack=True``, one array of shape
    ``(length, *feature_space.shape)``. `sample` draws the length
    uniformly in ``[0, max_length]``, then each element from the feature space.
    The zero of the space is the empty sequence.

    A sequence space has no fixed shape: it is not flattenable and cannot be
    batched; [`MaskedBox`][sekai.spaces.MaskedBox] (e.g. through
    ``PadSequenceObservation``) turns sequences of boxes into a fixed-shape
    space.

    Args:
        feature_space: The space of each element.
        max_length: Longest allowed sequence (>= 0). ``None`` means
            `DEFAULT_MAX_LENGTH` (16); declare it explicitly whenever
            longer sequences can occur, since `contains` enforces it.
        stack: Represent samples as one stacked array instead of a tuple. Needs
            a feature space with a fixed shape and dtype (``Box``, ``Discrete``,
            ``MultiDiscrete`` or ``MultiBinary``).
        seed: Optional seed (see `seed`).

    Raises:
        TypeError: ``feature_space`` is not a space, ``stack`` is not a bool,
            or ``stack=True`` with a feature space that cannot be stacked.
        ValueError: ``max_length`` is negative.

    Examples:
        >>> from sekai.spaces import Box
        >>> space = Sequence(Box(0.0, 1.0, (2,)), max_length=4, stack=True, seed=0)
        >>> sample = space.sample()
        >>> sample.shape[1:], sample.shape[0] <= 4
        ((2,), True)
    """

    def __init__(
        self,
        feature_space: Space[Any],
        *,
        max_length: int | None = None,
        stack: bool = False,
        seed: SeedType = None,
    ) -> None:
        if not isinstance(feature_space, Space):
            raise TypeError(f"Sequence: feature_space must be a Space, got {feature_space!r}")
        if not isinstance(stack, (bool, np.bool_)):
            raise TypeError(f"Sequence: stack must be a bool, got {stack!r}")
        if stack and not isinstance(feature_space, _STACKABLE):
            raise TypeError(
                "Sequence: stack=True needs a Box, Discrete, MultiDiscrete or MultiBinary "
                f"feature space, got {feature_space!r}"
            )
        self.feature_space = feature_space
        self.max_length = (
            DEFAULT_MAX_LENGTH
            if max_length is None
            else check_int(max_length, "Sequence: max_length", minimum=0)
        )
        self.stack = bool(stack)
        super().__init__(None, None, None)
        if seed is not None:
            self.seed(seed)

    @property
    def is_flattenable(self) -> bool:
        """Always False: sequences have no fixed size."""
        return False

    def seed(self, seed: SeedType = None) -> int:
        """Seed the length generator and the feature space.

        An int seeds this space (which draws the lengths) and derives an
        independent seed for the feature space with ``SeedSequence``; a
        Generator is adopted and draws an int seed for the feature space;
        ``None`` continues both streams.

        Returns:
            The seed of this space's own generator (see `Space.seed`).
        """
        return seed_with_children(self, seed, [self.feature_space])

    def sample(self, mask: tuple[Any, Any] | None = None) -> tuple[Any, ...] | NDArray[Any]:
        """Draw a random sequence.

        Args:
            mask: Optional ``(length_mask, feature_mask)``. ``length_mask`` is
                ``None`` (uniform in ``[0, max_length]``), an int (that exact
                length) or an array of allowed lengths (one is chosen
                uniformly); ``feature_mask`` is passed to every element's
                ``sample``.

        Raises:
            TypeError: ``mask`` is not a pair, or ``length_mask`` is of the wrong type.
            ValueError: A length is negative or above ``max_length``.
        """
        feature_mask: Any = None
        length: int
        if mask is None:
            length = int(self.rng.integers(self.max_length, endpoint=True))
        else:
            if not isinstance(mask, tuple) or len(mask) != 2:
                raise TypeError(
                    f"mask for {self!r} must be a pair (length_mask, feature_mask), got {mask!r}"
                )
            length_mask, feature_mask = mask
            length = self._draw_length(length_mask)
        elements = [self.feature_space.sample(feature_mask) for _ in range(length)]
        if self.stack:
            return self._stack(elements)
        return tuple(elements)

    def _draw_length(self, length_mask: Any) -> int:
        if length_mask is None:
            return int(self.rng.integers(self.max_length, endpoint=True))
        if is_int(length_mask):
            lengths = np.asarray([int(length_mask)])
        elif isinstance(length_mask, np.ndarray) and length_mask.dtype.kind in "iu":
            lengths = length_mask.ravel()
        else:
            raise TypeError(
                f"length mask for {self!r} must be None, an int or an integer array of allowed "
                f"lengths, got {length_mask!r}"
            )
        if lengths.size == 0:
            raise ValueError(f"length mask for {self!r} allows no length, got {length_mask!r}")
        if bool(np.any(lengths < 0)) or bool(np.any(lengths > self.max_length)):
            raise ValueError(
                f"length mask for {self!r} must lie in [0, {self.max_length}], got {length_mask!r}"
            )
        return int(lengths[self.rng.integers(lengths.size)])

    def _stack(self, elements: list[Any]) -> NDArray[Any]:
        feature = self.feature_space
        shape, dtype = feature.shape, feature.dtype
        if shape is None or dtype is None:  # checked by __init__ unless feature_space was replaced
            raise TypeError(
                f"Sequence with stack=True needs a feature space with a fixed shape and dtype, "
                f"got {feature!r}"
            )
        out = np.empty((len(elements), *shape), dtype=dtype)
        if elements:
            np.stack(elements, axis=0, out=out)
        return out

    def pack(self, items: list[Any] | tuple[Any, ...]) -> Any:
        """Build a sample of this space from its elements, in order.

        Returns:
            A tuple of the elements, or with ``stack=True`` one array of shape
            ``(len(items), *feature_space.shape)``.

        Raises:
            TypeError: ``items`` is not a list or tuple.
            ValueError: There are more than ``max_length`` elements.
        """
        if not isinstance(items, (list, tuple)):
            raise TypeError(f"Sequence.pack expects a list or tuple of elements, got {items!r}")
        if len(items) > self.max_length:
            raise ValueError(
                f"Sequence.pack: {len(items)} elements exceed max_length={self.max_length} "
                f"of {self!r}"
            )
        if self.stack:
            feature = self.feature_space
            return self._stack([np.asarray(item, dtype=feature.dtype) for item in items])
        return tuple(items)

    def elements(self, x: Any) -> list[Any]:
        """The elements of the sample ``x``, in order, whichever form it has.

        A tuple or list gives its items; a stacked array gives its rows.
        """
        if isinstance(x, np.ndarray):
            return [x[i] for i in range(x.shape[0])] if x.ndim else [x]
        return list(x)

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a sequence of at most ``max_length`` valid elements.

        A tuple (or list) of elements is accepted in both modes; with
        ``stack=True`` a stacked array of shape ``(length, *feature.shape)`` is
        accepted too.
        """
        if isinstance(x, (tuple, list)):
            items: SequenceABC[Any] = x
        elif self.stack and isinstance(x, np.ndarray):
            if x.ndim < 1 or x.shape[1:] != self.feature_space.shape:
                return False
            items = list(x) if x.ndim > 1 else [x[i] for i in range(x.shape[0])]
        else:
            return False
        return len(items) <= self.max_length and all(
            self.feature_space.contains(item) for item in items
        )

    def zero(self) -> tuple[Any, ...] | NDArray[Any]:
        """Return the empty sequence (an empty tuple, or an empty array when stacked)."""
        return self._stack([]) if self.stack else ()

    def _samples_to_jsonable(self, samples: SequenceABC[Any]) -> list[Any]:
        """Convert each sequence to the feature space's JSON data for its elements."""
        return [self.feature_space.to_jsonable(list(sample)) for sample in samples]

    def _samples_from_jsonable(self, data: SequenceABC[Any]) -> list[Any]:
        """Convert the output of `to_jsonable` back to sequences."""
        result: list[Any] = []
        for item in data:
            elements = self.feature_space.from_jsonable(item)
            result.append(self._stack(elements) if self.stack else tuple(elements))
        return result

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "Sequence", "feature_space", "max_length", "stack"}``."""
        return {
            "type": "Sequence",
            "feature_space": describe(self.feature_space),
            "max_length": self.max_length,
            "stack": self.stack,
        }

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Sequence:
        """Build the space from the output of `to_json_dict`."""
        from sekai.spaces.jsonable import space_from_jsonable

        check_type_name(data, "Sequence", cls)
        return cls(
            space_from_jsonable(data["feature_space"]),
            max_length=data.get("max_length"),
            stack=bool(data.get("stack", False)),
        )

    def __repr__(self) -> str:
        stack = ", stack=True" if self.stack else ""
        return f"Sequence({self.feature_space!r}, max_length={self.max_length}{stack})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sequence)
            and type(other) is type(self)
            and self.feature_space == other.feature_space
            and self.max_length == other.max_length
            and self.stack == other.stack
        )

    def __hash__(self) -> int:
        return hash((type(self), self.feature_space, self.max_length, self.stack))
