"""PadSequenceObservation: Sequence of Box -> MaskedBox, truncation modes, nesting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import InvalidObservation
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Sequence, Tuple, batch_space, concatenate
from sekai.wrappers import FlattenObservation, NormalizeObservation, PadSequenceObservation

ELEMENT = Box(-1.0, 1.0, (2,), np.float32)


def elements(*rows):
    return tuple(np.array(row, np.float32) for row in rows)


def test_top_level_sequence_becomes_a_masked_box(space_env) -> None:
    env = PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=3)))
    space = env.observation_space
    assert isinstance(space, MaskedBox)
    assert space.max_size == 3 and space.element_shape == (2,) and space.element_space == ELEMENT
    out = env.observation(elements([0.1, 0.2], [0.3, 0.4]))
    np.testing.assert_array_equal(out["mask"], [1, 1, 0])
    np.testing.assert_allclose(out["values"], [[0.1, 0.2], [0.3, 0.4], [0.0, 0.0]])
    assert out["mask"].dtype == np.int8 and out["values"].dtype == np.float32
    assert out in space


def test_empty_slots_hold_the_element_zero(space_env) -> None:
    env = PadSequenceObservation(space_env(Sequence(Box(1.0, 2.0, (1,)), max_length=2)))
    out = env.observation(())
    np.testing.assert_array_equal(out["values"], [[1.0], [1.0]])
    np.testing.assert_array_equal(out["mask"], [0, 0])


def test_stacked_sequences_are_accepted(space_env) -> None:
    env = PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=3, stack=True)))
    out = env.observation(np.array([[0.5, 0.5]], np.float32))
    np.testing.assert_array_equal(out["mask"], [1, 0, 0])


def test_nested_sequences_are_padded_and_others_pass(space_env) -> None:
    space = Dict(
        {
            "orders": Sequence(ELEMENT, max_length=4),
            "regime": Discrete(2),
            "pair": Tuple((Sequence(Box(0.0, 1.0, (1,)), max_length=2), Discrete(3))),
        }
    )
    env = PadSequenceObservation(space_env(space), max_length=3)
    new = env.observation_space
    assert isinstance(new["orders"], MaskedBox) and new["orders"].max_size == 3
    assert isinstance(new["pair"][0], MaskedBox) and new["pair"][0].max_size == 3
    assert new["regime"] is space["regime"]
    obs = env.reset(seed=0).observation
    assert obs in new


@pytest.mark.parametrize(
    ("truncate", "kept"),
    [("tail", [[0.3, 0.3], [0.4, 0.4]]), ("head", [[0.1, 0.1], [0.2, 0.2]])],
)
def test_truncation(space_env, truncate, kept) -> None:
    env = PadSequenceObservation(
        space_env(Sequence(ELEMENT, max_length=4)), max_length=2, truncate=truncate
    )
    out = env.observation(elements([0.1, 0.1], [0.2, 0.2], [0.3, 0.3], [0.4, 0.4]))
    np.testing.assert_allclose(out["values"], kept)
    np.testing.assert_array_equal(out["mask"], [1, 1])


def test_truncate_error(space_env) -> None:
    env = PadSequenceObservation(
        space_env(Sequence(ELEMENT, max_length=4)), max_length=1, truncate="error"
    )
    with pytest.raises(InvalidObservation, match="2 elements"):
        env.observation(elements([0.1, 0.1], [0.2, 0.2]))


def test_result_can_be_batched_for_vectorising(space_env) -> None:
    env = PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=3)))
    batched = batch_space(env.observation_space, 2)
    a = env.observation(elements([0.1, 0.1]))
    b = env.observation(elements([0.2, 0.2], [0.3, 0.3], [0.4, 0.4]))
    stacked = concatenate(env.observation_space, [a, b])
    assert stacked in batched
    assert stacked["values"].shape == (2, 3, 2)
    np.testing.assert_array_equal(stacked["mask"], [[1, 0, 0], [1, 1, 1]])


def test_result_can_be_normalised_and_flattened(space_env, assert_conforms) -> None:
    env = FlattenObservation(
        NormalizeObservation(PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=3))))
    )
    assert env.observation_space.shape == (3 * 2 + 3,)
    assert_conforms(env, check_reset_seed=False, check_async=False)


@pytest.mark.parametrize(
    ("space", "kwargs", "error"),
    [
        (Box(0.0, 1.0, (2,)), {}, TypeError),
        (Sequence(Discrete(3)), {}, TypeError),
        (Sequence(ELEMENT), {"max_length": -1}, ValueError),
        (Sequence(ELEMENT), {"max_length": 0}, ValueError),
        (Sequence(ELEMENT), {"truncate": "middle"}, ValueError),
    ],
)
def test_rejects_bad_arguments(space_env, space, kwargs, error) -> None:
    with pytest.raises(error):
        PadSequenceObservation(space_env(space), **kwargs)


def test_check_env(space_env, assert_conforms) -> None:
    space = Dict({"orders": Sequence(ELEMENT, max_length=5), "cash": Box(0.0, 1.0, (1,))})
    assert_conforms(PadSequenceObservation(space_env(space)))
    assert_conforms(PadSequenceObservation(space_env(space), max_length=2))


def test_same_seed_same_trajectory(space_env, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 6
    a = rollout(PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=4))), 1, actions)
    b = rollout(PadSequenceObservation(space_env(Sequence(ELEMENT, max_length=4))), 1, actions)
    assert same(a, b)


@settings(max_examples=40, deadline=None)
@given(
    length=st.integers(0, 8), slots=st.integers(1, 5), truncate=st.sampled_from(["tail", "head"])
)
def test_padding_keeps_order_and_count(space_env, length, slots, truncate) -> None:
    env = PadSequenceObservation(
        space_env(Sequence(ELEMENT, max_length=8)), max_length=slots, truncate=truncate
    )
    seq = tuple(np.full(2, i / 10, np.float32) for i in range(length))
    out = env.observation(seq)
    kept = min(length, slots)
    assert int(out["mask"].sum()) == kept
    assert out["mask"][:kept].all()
    chosen = seq[length - kept :] if truncate == "tail" else seq[:kept]
    np.testing.assert_array_equal(out["values"][:kept], np.array(chosen).reshape(kept, 2))
    assert out in env.observation_space


@pytest.mark.parametrize(
    "sequence",
    [
        (np.zeros(2, np.float32), np.zeros(3, np.float32)),  # ragged elements
        (np.zeros(2, np.float32), "price"),  # not numbers
    ],
)
def test_malformed_elements_raise_invalid_observation_naming_the_shape(space_env, sequence) -> None:
    env = PadSequenceObservation(space_env(Dict({"book": Sequence(ELEMENT, max_length=4)})))
    with pytest.raises(
        InvalidObservation, match=r"observation\['book'\] must hold elements of shape \(2,\)"
    ):
        env.observation({"book": sequence})
