"""Sequence and MaskedBox: lengths, stacking, membership, errors."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    Sequence,
    Tuple,
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    unflatten,
)
from sekai.spaces.sequence import DEFAULT_MAX_LENGTH


def test_default_max_length() -> None:
    assert DEFAULT_MAX_LENGTH == 16
    space = Sequence(Discrete(2), seed=0)
    assert space.max_length == 16
    lengths = {len(space.sample()) for _ in range(300)}
    assert min(lengths) == 0 and max(lengths) == 16


def test_sequence_samples_are_tuples_of_elements() -> None:
    space = Sequence(Discrete(3), max_length=5, seed=0)
    sample = space.sample()
    assert isinstance(sample, tuple) and len(sample) <= 5
    assert all(element in space.feature_space for element in sample)
    assert space.zero() == ()


def test_stacked_sequences() -> None:
    space = Sequence(Box(-1.0, 1.0, (2,)), max_length=4, stack=True, seed=1)
    sample = space.sample((3, None))
    assert isinstance(sample, np.ndarray) and sample.shape == (3, 2)
    assert sample.dtype == np.float32
    assert sample in space
    assert tuple(sample) in space  # the tuple form is accepted too
    assert space.zero().shape == (0, 2)
    assert space.zero() in space
    assert np.zeros((5, 2), np.float32) not in space  # too long
    assert np.zeros((2, 3), np.float32) not in space  # wrong feature shape
    assert np.full((2, 2), 3.0, np.float32) not in space  # out of bounds
    discrete = Sequence(Discrete(3), max_length=3, stack=True, seed=0)
    stacked = discrete.sample((2, None))
    assert stacked.shape == (2,) and stacked.dtype == np.int64
    assert stacked in discrete
    assert np.array([0, 5]) not in discrete


def test_sequence_contains() -> None:
    space = Sequence(Discrete(3), max_length=2)
    assert () in space
    assert (0, 2) in space
    assert [1] in space
    assert (0, 1, 2) not in space
    assert (3,) not in space
    assert np.array([0, 1]) not in space  # not stacked: arrays are not sequences here
    assert 1 not in space


@pytest.mark.parametrize("feature", [Dict(a=Discrete(2)), Sequence(Discrete(2))])
def test_stack_needs_a_fixed_shape_feature_space(feature: object) -> None:
    with pytest.raises(TypeError, match="stack=True needs"):
        Sequence(feature, stack=True)  # type: ignore[arg-type]


def test_sequence_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match="feature_space must be a Space"):
        Sequence(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_length"):
        Sequence(Discrete(2), max_length=-1)
    # A string is not a flag: "no" would otherwise turn stacking on.
    for stack in ("no", 0, None):
        with pytest.raises(TypeError, match=f"stack must be a bool, got {stack!r}"):
            Sequence(Discrete(2), stack=stack)  # type: ignore[arg-type]
    assert Sequence(Discrete(2), stack=np.bool_(True)).stack is True


@pytest.mark.parametrize("unsized", [Sequence(Discrete(2)), Dict(s=Sequence(Discrete(2)))])
def test_sequences_are_neither_flattenable_nor_batchable(unsized: object) -> None:
    assert not unsized.is_flattenable  # type: ignore[attr-defined]
    for call in (
        lambda: flatdim(unsized),  # type: ignore[arg-type]
        lambda: flatten(unsized, unsized.sample()),  # type: ignore[arg-type]
        lambda: unflatten(unsized, np.zeros(0)),  # type: ignore[arg-type]
        lambda: flatten_space(unsized),  # type: ignore[arg-type]
        lambda: batch_space(unsized, 2),  # type: ignore[arg-type]
        lambda: concatenate(unsized, [unsized.sample()]),  # type: ignore[arg-type]
        lambda: iterate(unsized, unsized.sample()),  # type: ignore[arg-type]
    ):
        with pytest.raises(TypeError, match=r"needs a space with a fixed shape, got .*Sequence\("):
            call()


def test_sequence_seeding_covers_lengths_and_elements() -> None:
    space = Sequence(Box(0.0, 1.0, (2,)), max_length=5)
    assert space.seed(4) == 4  # sekai 0.2: seed() returns the int seed
    first = space.sample()
    space.seed(4)
    second = space.sample()
    assert len(first) == len(second)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_masked_box_layout() -> None:
    space = MaskedBox(-1.0, 1.0, (3,), max_size=4)
    assert isinstance(space, Dict)
    assert list(space.keys()) == ["values", "mask"]
    assert space["values"] == Box(-1.0, 1.0, (4, 3))
    assert space["mask"] == MultiBinary(4)
    assert space.max_size == 4
    assert space.element_space == Box(-1.0, 1.0, (3,))
    assert space.element_shape == (3,)
    assert space.low.tolist() == [-1.0] * 3 and space.high.tolist() == [1.0] * 3
    assert repr(space) == "MaskedBox(-1.0, 1.0, (3,), max_size=4, dtype=float32)"
    assert space != Dict(values=Box(-1.0, 1.0, (4, 3)), mask=MultiBinary(4))
    assert space != MaskedBox(-1.0, 1.0, (3,), max_size=5)


def test_masked_box_samples_fill_a_prefix() -> None:
    space = MaskedBox(1.0, 2.0, (2,), max_size=5, seed=0)
    for _ in range(30):
        sample = space.sample()
        mask = sample["mask"]
        count = int(mask.sum())
        assert mask.dtype == np.int8
        assert mask[:count].all() and not mask[count:].any()
        assert np.all(sample["values"][count:] == 1.0)  # the element zero (0 clipped)
        assert sample in space


def test_masked_box_contains_checks_occupied_slots_only() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=3)
    values = np.array([[0.5, 0.5], [9.0, 9.0], [-4.0, 0.0]], dtype=np.float32)
    assert {"values": values, "mask": np.array([1, 0, 0], np.int8)} in space
    assert {"values": values, "mask": np.array([1, 1, 0], np.int8)} not in space
    assert {"values": values, "mask": np.array([1, 2, 0], np.int8)} not in space
    assert {"values": values[:2], "mask": np.array([1, 0], np.int8)} not in space
    assert {"values": values.astype(np.int64), "mask": np.zeros(3, np.int8)} in space
    assert {"values": values, "mask": np.zeros(3, np.int8), "x": 0} not in space
    assert {"values": values} not in space
    assert values not in space
    int_space = MaskedBox(0, 5, (2,), max_size=3, dtype=np.int64)
    assert {"values": values, "mask": np.zeros(3, np.int8)} not in int_space


def test_masked_box_zero_and_errors() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=3)
    zero = space.zero()
    assert zero["mask"].tolist() == [0, 0, 0]
    assert np.all(zero["values"] == 0.0)
    for size in (-1, 0):  # a masked box without slots could hold nothing
        with pytest.raises(ValueError, match=f"max_size must be an int >= 1, got {size}"):
            MaskedBox(0.0, 1.0, max_size=size)
    with pytest.raises(ValueError, match="low must be <= high"):
        MaskedBox(1.0, 0.0, (2,), max_size=2)


def test_masked_box_batches_and_flattens_like_a_dict() -> None:
    space = MaskedBox(-1.0, 1.0, (2,), max_size=3, seed=0)
    batched = batch_space(space, 4)
    assert batched == Dict(values=Box(-1.0, 1.0, (4, 3, 2)), mask=MultiBinary((4, 3)))
    items = [space.sample() for _ in range(4)]
    batch = concatenate(space, items)
    assert batch in batched
    assert all(row in space for row in iterate(batched, batch))
    assert flatdim(space) == 3 * 2 + 3
    assert flatten_space(space) == Box(
        np.array([-1.0] * 6 + [0.0] * 3), np.array([1.0] * 6 + [1.0] * 3)
    )


def test_sequence_in_tuple_repr() -> None:
    space = Tuple([Sequence(Discrete(2), max_length=3, stack=True)])
    assert repr(space) == "Tuple(Sequence(Discrete(2), max_length=3, stack=True))"


def test_stacking_after_the_feature_space_was_replaced_by_an_unstackable_one() -> None:
    space = Sequence(Box(0.0, 1.0, (2,)), max_length=3, stack=True, seed=0)
    space.feature_space = Dict({"a": Discrete(2)})
    with pytest.raises(TypeError, match=r"stack=True needs a feature space with a fixed shape"):
        space.sample()


def test_masked_box_sample_refuses_values_that_are_no_longer_a_box() -> None:
    space = MaskedBox(-1.0, 1.0, (2,), max_size=3, seed=0)
    space.spaces["values"] = Discrete(3)
    with pytest.raises(TypeError, match=r"spaces\['values'\] must be a Box, got Discrete\(3\)"):
        space.sample()
