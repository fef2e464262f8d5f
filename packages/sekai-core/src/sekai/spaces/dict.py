"""An ordered mapping of named sub-spaces: `Dict`."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any

from sekai.spaces.space import Space, check_type_name, describe, seed_with_children
from sekai.utils.seeding import SeedType, root_seed

__all__ = ["Dict", "SeedType"]


class Dict(Space[dict[str, Any]]):
    """Dictionaries with a fixed set of string keys, each value from its own space.

    Keys keep the order in which they are given (unlike Gymnasium, which sorts
    them); that order is the order of [`flatten`][sekai.spaces.flatten]. Samples are
    plain ``dict`` objects. The zero of the space maps each key to its
    sub-space's zero.

    Args:
        spaces: A mapping from keys to spaces, another ``Dict``, or a sequence
            of ``(key, space)`` pairs. Keyword arguments add more entries.
        seed: Optional seed: an int or Generator (see `seed`), or a mapping
            from keys to per-key seeds.
        **spaces_kwargs: Further ``key=space`` entries.

    Raises:
        TypeError: A key is not a string or a value is not a `Space`.
        ValueError: A key is given twice.

    Examples:
        >>> from sekai.spaces import Box, Discrete
        >>> space = Dict({"position": Box(-1.0, 1.0, (2,)), "gear": Discrete(3)})
        >>> list(space.keys())
        ['position', 'gear']
        >>> space["gear"]
        Discrete(3)
    """

    def __init__(
        self,
        spaces: Mapping[str, Space[Any]] | Dict | Sequence[tuple[str, Space[Any]]] | None = None,
        seed: SeedType | Mapping[str, SeedType] = None,
        **spaces_kwargs: Space[Any],
    ) -> None:
        items: list[tuple[Any, Any]] = []
        if spaces is not None:
            if isinstance(spaces, (Mapping, Dict)):
                items.extend(spaces.items())
            elif isinstance(spaces, (list, tuple)):
                items.extend(spaces)
            else:
                raise TypeError(f"Dict: spaces must be a mapping of str to Space, got {spaces!r}")
        items.extend(spaces_kwargs.items())
        built: dict[str, Space[Any]] = {}
        for key, space in items:
            _check_entry(key, space)
            if key in built:
                raise ValueError(f"Dict: key {key!r} is given twice")
            built[key] = space
        self.spaces: dict[str, Space[Any]] = built
        super().__init__(None, None, None)
        if seed is not None:
            self.seed(seed)

    @property
    def is_flattenable(self) -> bool:
        """True when every sub-space is flattenable."""
        return all(space.is_flattenable for space in self.spaces.values())

    def seed(self, seed: SeedType | Mapping[str, SeedType] = None) -> int:
        """Seed the space and its sub-spaces.

        Args:
            seed: An int seeds this space and derives an independent seed for
                each sub-space (in key order) with ``SeedSequence``; a Generator
                is adopted and draws one int seed per sub-space; ``None``
                continues every stream; a mapping seeds the named sub-spaces
                with its values (the keys must be keys of the space).

        Returns:
            The seed of this space's own generator (see `Space.seed`).
        """
        if isinstance(seed, Mapping):
            unknown = [key for key in seed if key not in self.spaces]
            if unknown:
                raise ValueError(
                    f"seed mapping has keys {unknown!r} that are not in {list(self.spaces)!r}"
                )
            for key, child_seed in seed.items():
                self.spaces[key].seed(child_seed)
            return root_seed(self.rng)
        return seed_with_children(self, seed, self.spaces.values())

    def sample(self, mask: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Draw one sample per key.

        Args:
            mask: Optional mapping from keys to the masks of the sub-spaces;
                a missing key or ``None`` leaves that sub-space unconstrained.

        Raises:
            TypeError: ``mask`` is not a mapping.
            ValueError: ``mask`` has keys the space does not have.
        """
        if mask is None:
            return {key: space.sample() for key, space in self.spaces.items()}
        if not isinstance(mask, Mapping):
            raise TypeError(f"mask for {self!r} must be a dict of sub-space masks, got {mask!r}")
        unknown = [key for key in mask if key not in self.spaces]
        if unknown:
            raise ValueError(f"mask has keys {unknown!r} that are not in {list(self.spaces)!r}")
        return {key: space.sample(mask.get(key)) for key, space in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is a mapping with exactly the space's keys, each value valid."""
        if not isinstance(x, Mapping) or len(x) != len(self.spaces):
            return False
        try:
            return all(space.contains(x[key]) for key, space in self.spaces.items())
        except KeyError:
            return False

    def zero(self) -> dict[str, Any]:
        """Return a dict of the sub-spaces' zeros."""
        return {key: space.zero() for key, space in self.spaces.items()}

    def __getitem__(self, key: str) -> Space[Any]:
        return self.spaces[key]

    def __setitem__(self, key: str, space: Space[Any]) -> None:
        """Add the sub-space ``space`` under ``key``, or replace the one there.

        Raises:
            TypeError: ``key`` is not a str or ``space`` is not a Space.
        """
        _check_entry(key, space)
        self.spaces[key] = space

    def __iter__(self) -> Iterator[str]:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def keys(self) -> KeysView[str]:
        """The keys, in order."""
        return self.spaces.keys()

    def values(self) -> ValuesView[Space[Any]]:
        """The sub-spaces, in key order."""
        return self.spaces.values()

    def items(self) -> ItemsView[str, Space[Any]]:
        """``(key, sub-space)`` pairs, in order."""
        return self.spaces.items()

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> dict[str, Any]:
        """Convert samples to a dict mapping each key to its sub-space's JSON data."""
        return {
            key: space.to_jsonable([sample[key] for sample in samples])
            for key, space in self.spaces.items()
        }

    def _samples_from_jsonable(self, data: Any) -> list[dict[str, Any]]:
        """Convert the output of `to_jsonable` back to a list of dicts."""
        columns = {key: space.from_jsonable(data[key]) for key, space in self.spaces.items()}
        count = len(next(iter(columns.values()))) if columns else 0
        return [{key: column[i] for key, column in columns.items()} for i in range(count)]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space: ``{"type": "Dict", "spaces": {key: description}}``."""
        return {
            "type": "Dict",
            "spaces": {key: describe(space) for key, space in self.spaces.items()},
        }

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Dict:
        """Build the space from the output of `to_json_dict`."""
        from sekai.spaces.jsonable import space_from_jsonable

        check_type_name(data, "Dict", cls)
        return cls({key: space_from_jsonable(child) for key, child in data["spaces"].items()})

    def __repr__(self) -> str:
        inner = ", ".join(f"{key!r}: {space!r}" for key, space in self.spaces.items())
        return f"Dict({{{inner}}})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Dict)
            and type(other) is type(self)
            and list(self.spaces) == list(other.spaces)
            and all(space == other.spaces[key] for key, space in self.spaces.items())
        )

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.spaces.items())))


def _check_entry(key: object, space: object) -> None:
    if not isinstance(key, str):
        raise TypeError(f"Dict: keys must be str, got {key!r}")
    if not isinstance(space, Space):
        raise TypeError(f"Dict: the value for key {key!r} must be a Space, got {space!r}")
