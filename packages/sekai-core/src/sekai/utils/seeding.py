"""Seeding: one contract for every source of randomness in sekai.

A seed is an ``int`` (re-seed), a :class:`numpy.random.Generator` (adopt it as
is) or ``None`` (keep the current stream; the first use draws OS entropy). Envs,
multi-agent envs and spaces all follow it through :class:`SeededRNG`.
"""

from __future__ import annotations

import numpy as np

from sekai._validation import check_int, check_seed

__all__ = ["SeedType", "SeededRNG", "make_seed_sequence", "np_random"]

SeedType = int | np.random.Generator | None
"""What ``reset(seed=...)`` and ``Space.seed(...)`` accept."""


def np_random(seed: int | None = None) -> tuple[np.random.Generator, int]:
    """Create a fresh random generator.

    Args:
        seed: A non-negative int, or ``None`` to draw the seed from OS entropy.

    Returns:
        The generator and the seed it was built from (the drawn entropy when
        ``seed`` is ``None``), so a run can be reproduced from a log.

    Raises:
        TypeError: ``seed`` is neither an int nor ``None``.
        ValueError: ``seed`` is negative.
    """
    if seed is not None:
        seed = check_seed(seed)
    sequence = np.random.SeedSequence(seed)
    entropy = sequence.entropy
    assert isinstance(entropy, int)  # SeedSequence(None | int) always has int entropy
    return np.random.Generator(np.random.PCG64(sequence)), entropy


def make_seed_sequence(base_seed: int, n: int) -> list[int]:
    """Derive ``n`` statistically independent seeds from one base seed.

    The seeds come from :meth:`numpy.random.SeedSequence.spawn`, so they are
    independent streams, not ``base_seed + i``. Vector environments use this to
    seed their sub-environments, identically on every backend.

    Args:
        base_seed: A non-negative int.
        n: How many seeds to derive (>= 0).

    Returns:
        ``n`` non-negative ints, the same list for the same arguments.
    """
    base_seed = check_seed(base_seed, "base_seed")
    n = check_seed(n, "n")
    children = np.random.SeedSequence(base_seed).spawn(n)
    return [int(child.generate_state(1, np.uint64)[0]) for child in children]


class SeededRNG:
    """Mixin that owns a lazily created :class:`numpy.random.Generator`.

    ``rng`` is created from OS entropy on first use unless a seed came first.
    Subclasses call :meth:`_set_rng` with the seed they were given (an ``int``
    re-seeds, a ``Generator`` is adopted, ``None`` continues the current stream).
    No ``__init__`` call is needed.
    """

    # A class-level default keeps subclasses free of super().__init__() calls.
    _rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The random generator; created from OS entropy on first use."""
        if self._rng is None:
            self._rng, _ = np_random(None)
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        if not isinstance(value, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {value!r}")
        self._rng = value

    def _set_rng(self, seed: SeedType) -> None:
        """Apply ``seed`` following the seeding contract (see the class docstring)."""
        if seed is None:
            return
        if isinstance(seed, np.random.Generator):
            self._rng = seed
            return
        value = check_int(seed, "seed", expected="an int, a numpy.random.Generator or None")
        self._rng, _ = np_random(value)
