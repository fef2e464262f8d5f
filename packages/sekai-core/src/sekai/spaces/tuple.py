"""A fixed-length sequence of sub-spaces: `Tuple`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sekai.spaces.space import Space, check_type_name, describe, seed_with_children
from sekai.utils.seeding import SeedType, root_seed

__all__ = ["SeedType", "Tuple"]


class Tuple(Space[tuple[Any, ...]]):
    """Tuples whose element ``i`` belongs to the ``i``-th sub-space.

    Samples are Python tuples; `contains` also accepts lists. The zero of
    the space is the tuple of the sub-spaces' zeros.

    Args:
        spaces: The sub-spaces, in order.
        seed: Optional seed: an int or Generator (see `seed`), or a
            sequence of per-element seeds.

    Raises:
        TypeError: An element of ``spaces`` is not a `Space`.

    Examples:
        >>> from sekai.spaces import Box, Discrete
        >>> Tuple([Discrete(2), Box(0.0, 1.0, (2,))])
        Tuple(Discrete(2), Box(0.0, 1.0, (2,), float32))
    """

    def __init__(
        self, spaces: Iterable[Space[Any]], seed: SeedType | Sequence[SeedType] = None
    ) -> None:
        built = tuple(spaces)
        for i, space in enumerate(built):
            if not isinstance(space, Space):
                raise TypeError(f"Tuple: element {i} must be a Space, got {space!r}")
        self.spaces: tuple[Space[Any], ...] = built
        super().__init__(None, None, None)
        if seed is not None:
            self.seed(seed)

    @property
    def is_flattenable(self) -> bool:
        """True when every sub-space is flattenable."""
        return all(space.is_flattenable for space in self.spaces)

    def seed(self, seed: SeedType | Sequence[SeedType] = None) -> int:
        """Seed the space and its sub-spaces.

        Args:
            seed: An int seeds this space and derives an independent seed per
                sub-space with ``SeedSequence``; a Generator is adopted and draws
                one int seed per sub-space; ``None`` continues every stream; a
                sequence gives one seed per sub-space.

        Returns:
            The seed of this space's own generator (see `Space.seed`).
        """
        if isinstance(seed, (list, tuple)):
            if len(seed) != len(self.spaces):
                raise ValueError(
                    f"seed sequence must have {len(self.spaces)} entries, got {len(seed)}"
                )
            for space, child_seed in zip(self.spaces, seed, strict=True):
                space.seed(child_seed)
            return root_seed(self.rng)
        return seed_with_children(self, seed, self.spaces)  # type: ignore[arg-type]

    def sample(self, mask: Sequence[Any] | None = None) -> tuple[Any, ...]:
        """Draw one sample per sub-space.

        Args:
            mask: Optional sequence of sub-space masks (``None`` entries leave
                that sub-space unconstrained).

        Raises:
            TypeError: ``mask`` is not a tuple or list.
            ValueError: ``mask`` has the wrong length.
        """
        if mask is None:
            return tuple(space.sample() for space in self.spaces)
        if not isinstance(mask, (tuple, list)):
            raise TypeError(f"mask for {self!r} must be a tuple of sub-space masks, got {mask!r}")
        if len(mask) != len(self.spaces):
            raise ValueError(
                f"mask for {self!r} must have {len(self.spaces)} entries, got {len(mask)}"
            )
        return tuple(space.sample(m) for space, m in zip(self.spaces, mask, strict=True))

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a tuple (or list) of the right length, each element valid."""
        return (
            isinstance(x, (tuple, list))
            and len(x) == len(self.spaces)
            and all(space.contains(item) for space, item in zip(self.spaces, x, strict=True))
        )

    def zero(self) -> tuple[Any, ...]:
        """Return the tuple of the sub-spaces' zeros."""
        return tuple(space.zero() for space in self.spaces)

    def __getitem__(self, index: int) -> Space[Any]:
        return self.spaces[index]

    def __iter__(self) -> Iterator[Space[Any]]:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert samples to one list per sub-space (column-wise)."""
        return [
            space.to_jsonable([sample[i] for sample in samples])
            for i, space in enumerate(self.spaces)
        ]

    def _samples_from_jsonable(self, data: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Convert the output of `to_jsonable` back to a list of tuples."""
        columns = [space.from_jsonable(data[i]) for i, space in enumerate(self.spaces)]
        return [tuple(row) for row in zip(*columns, strict=True)]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "Tuple", "spaces": [description, ...]}``."""
        return {"type": "Tuple", "spaces": [describe(space) for space in self.spaces]}

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Tuple:
        """Build the space from the output of `to_json_dict`."""
        from sekai.spaces.jsonable import space_from_jsonable

        check_type_name(data, "Tuple", cls)
        return cls([space_from_jsonable(child) for child in data["spaces"]])

    def __repr__(self) -> str:
        return f"Tuple({', '.join(repr(space) for space in self.spaces)})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Tuple) and type(other) is type(self) and self.spaces == other.spaces
        )

    def __hash__(self) -> int:
        return hash((type(self), self.spaces))
