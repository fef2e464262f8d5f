"""sekai.utils.seeding: np_random, make_seed_sequence and the SeededRNG contract."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.utils import SeededRNG, make_seed_sequence, np_random

seeds = st.integers(0, 2**128)


def _draw(generator: np.random.Generator) -> list[int]:
    return [int(x) for x in generator.integers(0, 2**62, size=4)]


@given(seeds)
def test_np_random_with_a_seed_returns_a_reproducible_generator_and_the_seed(seed: int) -> None:
    generator, used = np_random(seed)
    assert isinstance(generator, np.random.Generator)
    assert used == seed
    assert type(used) is int
    assert _draw(generator) == _draw(np_random(seed)[0])
    # The generator is built from numpy.random.SeedSequence(seed).
    assert _draw(np_random(seed)[0]) == _draw(np.random.default_rng(np.random.SeedSequence(seed)))


def test_np_random_without_a_seed_draws_entropy_and_reports_it() -> None:
    first, used = np_random(None)
    second, other = np_random()
    assert isinstance(used, int) and used >= 0
    assert used != other
    # The reported seed reproduces the stream, so a run can be replayed from a log.
    assert _draw(first) == _draw(np_random(used)[0])
    assert _draw(second) == _draw(np_random(other)[0])


def test_np_random_accepts_numpy_ints() -> None:
    generator, used = np_random(np.int64(5))
    assert used == 5 and type(used) is int
    assert _draw(generator) == _draw(np_random(5)[0])


@pytest.mark.parametrize(
    ("seed", "error"),
    [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("3", TypeError), ([1], TypeError)],
)
def test_np_random_rejects_bad_seeds(seed: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=re.escape(f"seed must be a non-negative int, got {seed!r}")):
        np_random(seed)


@given(seeds, st.integers(0, 16))
def test_make_seed_sequence_is_deterministic_and_spawned(base_seed: int, n: int) -> None:
    derived = make_seed_sequence(base_seed, n)
    assert derived == make_seed_sequence(base_seed, n)
    assert len(derived) == n
    assert all(type(s) is int and 0 <= s < 2**64 for s in derived)
    assert len(set(derived)) == n
    children = np.random.SeedSequence(base_seed).spawn(n)
    assert derived == [int(c.generate_state(1, np.uint64)[0]) for c in children]


def test_make_seed_sequence_is_not_base_plus_index() -> None:
    derived = make_seed_sequence(10, 3)
    assert derived != [10, 11, 12]
    # Neighbouring base seeds give unrelated seeds, not shifted copies.
    assert not set(derived) & set(make_seed_sequence(11, 3))


def test_make_seed_sequence_of_zero_is_empty() -> None:
    assert make_seed_sequence(0, 0) == []


@pytest.mark.parametrize(
    ("base_seed", "n", "error", "match"),
    [
        (-1, 2, ValueError, "base_seed must be a non-negative int, got -1"),
        (None, 2, TypeError, "base_seed must be a non-negative int, got None"),
        (1.0, 2, TypeError, "base_seed must be a non-negative int, got 1.0"),
        (1, -1, ValueError, "n must be a non-negative int, got -1"),
        (1, 2.0, TypeError, "n must be a non-negative int, got 2.0"),
        (1, True, TypeError, "n must be a non-negative int, got True"),
    ],
)
def test_make_seed_sequence_rejects_bad_arguments(
    base_seed: Any, n: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        make_seed_sequence(base_seed, n)


class Holder(SeededRNG):
    pass


def test_seeded_rng_draws_entropy_on_first_use_only() -> None:
    a, b = Holder(), Holder()
    assert a._rng is None
    generator = a.rng
    assert a.rng is generator
    assert _draw(a.rng) != _draw(b.rng)


def test_an_int_seed_reseeds() -> None:
    holder = Holder()
    holder._set_rng(3)
    first = _draw(holder.rng)
    holder._set_rng(np.int32(3))
    assert _draw(holder.rng) == first == _draw(np_random(3)[0])


def test_a_generator_is_adopted_and_none_continues() -> None:
    holder = Holder()
    generator = np.random.default_rng(0)
    holder._set_rng(generator)
    assert holder.rng is generator
    before = generator.bit_generator.state
    holder._set_rng(None)
    assert holder.rng is generator
    assert generator.bit_generator.state == before


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        (-3, ValueError),
        (1.0, TypeError),
        (False, TypeError),
        ("7", TypeError),
        (np.random.RandomState(0), TypeError),
        (np.random.SeedSequence(0), TypeError),
    ],
)
def test_bad_seeds_are_rejected_and_keep_the_stream(seed: Any, error: type[Exception]) -> None:
    holder = Holder()
    holder._set_rng(1)
    generator = holder.rng
    with pytest.raises(error, match="seed must be a"):
        holder._set_rng(seed)
    assert holder.rng is generator


def test_rng_setter_accepts_only_generators() -> None:
    holder = Holder()
    generator = np.random.default_rng(1)
    holder.rng = generator
    assert holder.rng is generator
    with pytest.raises(TypeError, match=r"rng must be a numpy\.random\.Generator, got 3"):
        holder.rng = 3  # type: ignore[assignment]
    assert holder.rng is generator
