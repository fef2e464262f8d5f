"""Seeding: one contract for every source of randomness in sekai.

A seed is an ``int`` (re-seed), a `numpy.random.Generator` (adopt it as
is) or ``None`` (keep the current stream; the first use draws OS entropy). Envs,
multi-agent envs and spaces all follow it through `SeededRNG`.
"""

from __future__ import annotations

import numpy as np

from sekai._internal.validation import check_int, check_seed

__all__ = ["SeedType", "SeededRNG", "child_seeds", "make_seed_sequence", "np_random"]

SeedType = int | np.random.Generator | None
"""What ``reset(seed=...)`` and ``Space.seed(...)`` accept."""


def np_random(seed: SeedType = None) -> tuple[np.random.Generator, int]:
    """Create a random generator from a seed, or take a given one.

    Args:
        seed: A non-negative int; ``None`` to draw the seed from OS entropy;
            or a `numpy.random.Generator`, which is returned as it is.

    Returns:
        The generator and the seed it was built from (the drawn entropy when
        ``seed`` is ``None``; for a given generator, the root entropy of its
        seed sequence, or -1 when it has none), so a run can be reproduced
        from a log.

    Raises:
        TypeError: ``seed`` is neither an int, a Generator nor ``None``.
        ValueError: ``seed`` is negative.
    """
    if isinstance(seed, np.random.Generator):
        return seed, root_seed(seed)
    if seed is not None:
        seed = check_seed(seed)
    sequence = np.random.SeedSequence(seed)
    entropy = sequence.entropy
    if not isinstance(entropy, int):  # internal: SeedSequence(None | int) has int entropy
        raise RuntimeError(f"np_random: expected an int entropy from numpy, got {entropy!r}")
    return np.random.Generator(np.random.PCG64(sequence)), entropy


def root_seed(generator: np.random.Generator) -> int:
    """The int a generator was seeded from: its seed sequence's entropy (-1 if unknown).

    ``np_random(s)`` and ``numpy.random.default_rng(s)`` both give a generator
    whose root seed is ``s``.
    """
    sequence = getattr(generator.bit_generator, "seed_seq", None)
    entropy = getattr(sequence, "entropy", None)
    return entropy if isinstance(entropy, int) else -1


def make_seed_sequence(base_seed: int, n: int) -> list[int]:
    """Derive ``n`` statistically independent seeds from one base seed.

    The seeds come from `numpy.random.SeedSequence.spawn`, so they are
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


def child_seeds(rng: np.random.Generator | None, seed_used: int | None, n: int) -> list[SeedType]:
    """Derive one seed per child (sub-space, sub-env) of a parent that was just seeded.

    The rule every composite object of sekai follows. When the parent was
    seeded with an int, ``seed_used``, the children get ``n`` independent
    seeds from ``make_seed_sequence(seed_used, n)``, whatever ``rng`` is.
    Otherwise they get ``n`` ints drawn from ``rng``, the parent's generator
    (it advances); with no generator either, ``None`` each, and every child
    continues its own stream.

    Args:
        rng: The parent's generator, or ``None``.
        seed_used: The int seed the parent was given, or ``None`` when it was
            given none or a Generator. Not what `np_random` returns as its
            seed: that is an int in every case (the entropy it drew, or a
            generator's root entropy), which would give a generator-seeded
            parent the same children however far its generator had gone.
        n: How many children (>= 0).

    Returns:
        ``n`` seeds.

    Raises:
        TypeError: ``rng`` is not a Generator or ``None``, or ``seed_used``
            not an int or ``None``.
        ValueError: ``seed_used`` or ``n`` is negative.

    Examples:
        >>> child_seeds(None, 7, 2) == make_seed_sequence(7, 2)
        True
        >>> child_seeds(None, None, 2)
        [None, None]
    """
    n = check_seed(n, "n")
    if seed_used is not None:
        return [*make_seed_sequence(check_seed(seed_used, "seed_used"), n)]
    if rng is None:
        return [None] * n
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator or None, got {rng!r}")
    return [int(value) for value in rng.integers(0, 2**63 - 1, size=n)]


class SeededRNG:
    """Mixin that owns a lazily created `numpy.random.Generator`.

    ``rng`` is created from OS entropy on first use unless a seed came first.
    Subclasses call `_set_rng` with the seed they were given (an ``int``
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
