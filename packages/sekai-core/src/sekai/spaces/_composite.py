"""Seeding of composite spaces (private)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from sekai.spaces.space import Space
from sekai.utils.seeding import SeedType, make_seed_sequence

__all__: list[str] = []


def seed_with_children(
    parent: Space[Any], seed: SeedType, children: Iterable[Space[Any]]
) -> list[int]:
    """Seed ``parent`` and derive one independent seed per child from ``seed``.

    An int seeds the parent and is expanded with
    :func:`~sekai.utils.seeding.make_seed_sequence` into one seed per child; a
    Generator is adopted by the parent and seeds each child with an int drawn
    from it; ``None`` continues every stream.
    """
    kids = list(children)
    parent._set_rng(seed)
    if seed is None:
        for child in kids:
            child.seed(None)
        return []
    if isinstance(seed, np.random.Generator):
        child_seeds = [int(v) for v in seed.integers(0, 2**63 - 1, size=len(kids))]
        used: list[int] = []
    else:
        used = [int(seed)]
        child_seeds = make_seed_sequence(int(seed), len(kids))
    for child, child_seed in zip(kids, child_seeds, strict=True):
        used.extend(child.seed(child_seed))
    return used
