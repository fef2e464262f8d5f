"""The zero point of a space: `zero_sample`."""

from __future__ import annotations

from typing import TypeVar

from sekai.spaces.space import Space

__all__ = ["zero_sample"]

T = TypeVar("T")


def zero_sample(space: Space[T]) -> T:
    """Return the zero point of ``space`` (same as ``space.zero()``).

    It is the value masked components take in ``sample(mask=...)`` and the
    padding of wrappers that need a neutral observation or action: ``0``
    clipped into the bounds for a Box, ``start`` for a Discrete and a
    MultiDiscrete, zeros for a MultiBinary, all slots empty (zero values, mask
    0) for a MaskedBox, the empty sequence for a Sequence, and the zeros of the
    parts for a Dict or a Tuple.
    """
    return space.zero()
