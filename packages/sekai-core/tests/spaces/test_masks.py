"""Masked sampling: every space's samples respect the mask they are given."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
)


def random_mask(space: Space[Any], rng: np.random.Generator) -> Any:
    """A random valid mask for ``space`` (never an all-zero choice mask)."""
    if isinstance(space, MaskedBox):
        return {
            "values": rng.random((space.max_size, *space.element_shape)) < 0.5,
            "mask": rng.random(space.max_size) < 0.5,
        }
    if isinstance(space, Dict):
        return {key: None if rng.random() < 0.2 else random_mask(child, rng)
                for key, child in space.items()}  # fmt: skip
    if isinstance(space, Tuple):
        return tuple(None if rng.random() < 0.2 else random_mask(c, rng) for c in space)
    if isinstance(space, Discrete):
        return _choice_mask(space.n, rng)
    if isinstance(space, MultiDiscrete):
        flat = [_choice_mask(int(n), rng) for n in space.nvec.ravel()]
        if space.nvec.ndim == 1:
            return tuple(flat)
        rows = space.nvec.shape[1]
        return tuple(tuple(flat[i : i + rows]) for i in range(0, len(flat), rows))
    if isinstance(space, (Box, MultiBinary)):
        return rng.random(space.shape) < 0.5
    if isinstance(space, Sequence):
        lengths = rng.choice(space.max_length + 1, size=2, replace=True)
        return (lengths.astype(np.int64), random_mask(space.feature_space, rng))
    raise AssertionError(f"no mask generator for {space!r}")


def _choice_mask(n: int, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    mask = (rng.random(n) < 0.5).astype(np.int8)
    mask[rng.integers(n)] = 1
    return mask


def respects(space: Space[Any], mask: Any, sample: Any) -> bool:
    """Whether ``sample`` obeys ``mask`` (and belongs to ``space``)."""
    if sample not in space:
        return False
    if mask is None:
        return True
    if isinstance(space, MaskedBox):
        slots = sample["mask"].astype(bool)
        if bool(np.any(slots & ~mask["mask"])):
            return False
        zero = space["values"].zero()
        return bool(np.all((sample["values"] == zero)[~mask["values"]]))
    if isinstance(space, Dict):
        return all(respects(child, mask.get(k), sample[k]) for k, child in space.items())
    if isinstance(space, Tuple):
        return all(respects(c, m, s) for c, m, s in zip(space, mask, sample, strict=True))
    if isinstance(space, Discrete):
        return bool(mask[int(sample) - space.start] == 1)
    if isinstance(space, MultiDiscrete):
        flat_masks = np.asarray(mask, dtype=object).reshape(-1) if space.nvec.ndim > 1 else mask
        offsets = (sample - space.start).ravel()
        return all(m[o] == 1 for m, o in zip(flat_masks, offsets, strict=True))
    if isinstance(space, (Box, MultiBinary)):
        return bool(np.all(sample[~mask] == space.zero()[~mask]))
    if isinstance(space, Sequence):
        lengths, feature_mask = mask
        return len(sample) in lengths.tolist() and all(
            respects(space.feature_space, feature_mask, element) for element in sample
        )
    raise AssertionError(f"no mask check for {space!r}")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_masked_samples_respect_the_mask(space: Space[Any], seed: int) -> None:
    rng = np.random.default_rng(seed)
    space.seed(seed)
    for _ in range(3):
        mask = random_mask(space, rng)
        assert respects(space, mask, space.sample(mask))


def test_mask_none_is_unconstrained(space: Space[Any]) -> None:
    space.seed(0)
    assert space.sample(None) in space


def test_fully_masked_box_and_multibinary_are_their_zero() -> None:
    box = Box(1.0, 3.0, (2, 3), seed=0)
    assert np.array_equal(box.sample(np.zeros((2, 3), bool)), np.ones((2, 3), np.float32))
    binary = MultiBinary(4, seed=0)
    assert binary.sample(np.zeros(4, bool)).tolist() == [0, 0, 0, 0]


def test_discrete_mask_with_one_allowed_value_always_draws_it() -> None:
    space = Discrete(4, start=10, seed=0)
    mask = np.array([0, 0, 1, 0], dtype=np.int8)
    assert {int(space.sample(mask)) for _ in range(20)} == {12}


@pytest.mark.parametrize(
    ("bad_space", "mask"),
    [
        (Discrete(3), np.zeros(3, np.int8)),
        (MultiDiscrete([2, 3]), (np.array([1, 0], np.int8), np.zeros(3, np.int8))),
        (Dict(a=Discrete(2)), {"a": np.zeros(2, np.int8)}),
        (Tuple([Discrete(2)]), (np.zeros(2, np.int8),)),
    ],
)
def test_all_zero_choice_mask_is_a_clear_error(bad_space: Space[Any], mask: Any) -> None:
    with pytest.raises(ValueError, match="allows no value"):
        bad_space.sample(mask)


@pytest.mark.parametrize(
    ("bad_space", "mask", "error", "match"),
    [
        (Discrete(3), np.ones(4, np.int8), ValueError, r"shape \(3,\)"),
        (Discrete(3), [1, 1, 1], TypeError, "int8 numpy array"),
        (Discrete(3), np.array([1, 2, 0], np.int8), ValueError, "only 0 and 1"),
        (Box(0.0, 1.0, (2,)), np.ones(3, bool), ValueError, r"shape \(2,\)"),
        (Box(0.0, 1.0, (2,)), [True, False], TypeError, "numpy array of bools"),
        (Box(0.0, 1.0, (2,)), np.array([0.5, 1.0]), ValueError, "booleans"),
        (MultiBinary(2), np.ones((2, 1), bool), ValueError, "shape"),
        (MultiDiscrete([2, 3]), (np.ones(2, np.int8),), ValueError, "2 entries"),
        (MultiDiscrete([2, 3]), "ab", TypeError, "sequence"),
        (Dict(a=Discrete(2)), {"b": None}, ValueError, "not in"),
        (Dict(a=Discrete(2)), [None], TypeError, "dict"),
        (Tuple([Discrete(2)]), (None, None), ValueError, "1 entries"),
        (Tuple([Discrete(2)]), {"a": None}, TypeError, "tuple"),
        (Sequence(Discrete(2), max_length=3), 3, TypeError, "pair"),
        (Sequence(Discrete(2), max_length=3), (4, None), ValueError, r"\[0, 3\]"),
        (Sequence(Discrete(2), max_length=3), (np.array([], np.int64), None), ValueError, "no"),
        (Sequence(Discrete(2), max_length=3), (1.5, None), TypeError, "length mask"),
        (MaskedBox(0.0, 1.0, max_size=2), {"other": None}, ValueError, "expected 'values'"),
        (MaskedBox(0.0, 1.0, max_size=2), {"mask": np.ones(3, bool)}, ValueError, "shape"),
    ],
)
def test_bad_masks_are_rejected(
    bad_space: Space[Any], mask: Any, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        bad_space.sample(mask)


def test_sequence_fixed_length_mask() -> None:
    space = Sequence(Discrete(2), max_length=5, seed=0)
    assert all(len(space.sample((3, None))) == 3 for _ in range(5))
    assert space.sample((0, None)) == ()
