"""Property tests that every space must satisfy."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle
import numpy as np
from hypothesis import given, settings, strategies as st

from sekai.spaces import (
    Space,
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    space_from_jsonable,
    unflatten,
    zero_sample,
)

seeds = st.integers(0, 2**32 - 1)
FEW = settings(max_examples=15, deadline=None)


def _exact(space: Space[Any]) -> bool:
    """Whether flattening to float32 is lossless for this space's samples."""
    leaves = [space]
    while leaves:
        leaf = leaves.pop()
        children = getattr(leaf, "spaces", None)
        if isinstance(children, dict):
            leaves.extend(children.values())
        elif isinstance(children, tuple):
            leaves.extend(children)
        elif leaf.dtype is not None and leaf.dtype.kind == "f" and leaf.dtype.itemsize > 4:
            return False
    return True


@FEW
@given(seed=seeds)
def test_sample_is_in_space(space: Space[Any], seed: int) -> None:
    space.seed(seed)
    for _ in range(3):
        assert space.sample() in space


@FEW
@given(seed=seeds)
def test_same_seed_same_samples(
    space: Space[Any], seed: int, assert_samples_equal: Callable[..., None]
) -> None:
    space.seed(seed)
    first = [space.sample() for _ in range(3)]
    space.seed(seed)
    second = [space.sample() for _ in range(3)]
    for a, b in zip(first, second, strict=True):
        assert_samples_equal(a, b)


def test_zero_is_in_space(space: Space[Any], assert_samples_equal: Callable[..., None]) -> None:
    zero = zero_sample(space)
    assert zero in space
    assert_samples_equal(zero, space.zero())


@FEW
@given(seed=seeds)
def test_flatten_round_trip(
    flat_space: Space[Any], seed: int, assert_samples_equal: Callable[..., None]
) -> None:
    flat_space.seed(seed)
    sample = flat_space.sample()
    flat = flatten(flat_space, sample)
    assert flat.dtype == np.float32
    assert flat.shape == (flatdim(flat_space),)
    assert flat in flatten_space(flat_space)
    assert_samples_equal(unflatten(flat_space, flat), sample, exact=_exact(flat_space))


@FEW
@given(seed=seeds, n=st.integers(1, 4))
def test_batch_iterate_concatenate_round_trip(
    flat_space: Space[Any], seed: int, n: int, assert_samples_equal: Callable[..., None]
) -> None:
    flat_space.seed(seed)
    batched = batch_space(flat_space, n)
    items = [flat_space.sample() for _ in range(n)]
    batch = concatenate(flat_space, items)
    assert batch in batched
    rows = list(iterate(batched, batch))
    assert len(rows) == n
    for row, item in zip(rows, items, strict=True):
        assert row in flat_space
        assert_samples_equal(row, item)
    # Writing into a preallocated batch gives the same result and returns ``out``.
    out = batched.zero()
    assert concatenate(flat_space, items, out) is out
    assert_samples_equal(out, batch)
    # A random batch walks back into single samples.
    batched.seed(seed)
    for row in iterate(batched, batched.sample()):
        assert row in flat_space


@FEW
@given(seed=seeds, n=st.integers(0, 3))
def test_samples_json_round_trip(
    space: Space[Any], seed: int, n: int, assert_samples_equal: Callable[..., None]
) -> None:
    space.seed(seed)
    samples = [space.sample() for _ in range(n)]
    data = json.loads(json.dumps(space.to_jsonable(samples), allow_nan=False))
    restored = space.from_jsonable(data)
    assert len(restored) == n
    for a, b in zip(restored, samples, strict=True):
        assert_samples_equal(a, b)


def test_space_json_round_trip(space: Space[Any]) -> None:
    text = json.dumps(space.to_json_dict(), allow_nan=False)
    restored = space_from_jsonable(json.loads(text))
    assert restored == space
    assert type(restored) is type(space)
    assert repr(restored) == repr(space)


def test_pickle_round_trips(space: Space[Any], assert_samples_equal: Callable[..., None]) -> None:
    space.seed(7)
    for dumps, loads in ((pickle.dumps, pickle.loads), (cloudpickle.dumps, pickle.loads)):
        copy = loads(dumps(space))
        assert copy == space
        assert repr(copy) == repr(space)
        # The random state travels too.
        assert_samples_equal(copy.sample(), loads(dumps(space)).sample())


def test_equality_is_structural(space: Space[Any]) -> None:
    rebuilt = space_from_jsonable(space.to_json_dict())
    assert rebuilt == space
    assert space != "not a space"


def test_seed_none_continues_and_generator_is_adopted(space: Space[Any]) -> None:
    assert space.seed(3) == 3
    assert space.seed(None) == 3  # continues the stream seeded with 3
    generator = np.random.default_rng(5)
    assert space.seed(generator) == 5  # the generator's root seed
    assert space.rng is generator
    assert space.np_random is generator


def test_int_seed_is_returned(space: Space[Any]) -> None:
    # sekai 0.2: seed() returns one int, the seed of the space's own generator.
    used = space.seed(11)
    assert used == 11 and type(used) is int


# -- random spaces -----


@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=seeds)
def test_random_spaces_satisfy_every_property(
    data: st.DataObject,
    seed: int,
    space_strategy: st.SearchStrategy[Space[Any]],
    assert_samples_equal: Callable[..., None],
) -> None:
    space = data.draw(space_strategy)
    space.seed(seed)
    sample = space.sample()
    assert sample in space
    assert space.zero() in space
    flat = flatten(space, sample)
    assert flat in flatten_space(space)
    assert_samples_equal(unflatten(space, flat), sample, exact=_exact(space))
    batched = batch_space(space, 2)
    batch = concatenate(space, [sample, space.zero()])
    assert batch in batched
    rows = list(iterate(batched, batch))
    assert_samples_equal(rows[0], sample)
    assert space_from_jsonable(json.loads(json.dumps(space.to_json_dict()))) == space
    assert pickle.loads(cloudpickle.dumps(space)) == space
    restored = space.from_jsonable(json.loads(json.dumps(space.to_jsonable([sample]))))
    assert_samples_equal(restored[0], sample)
