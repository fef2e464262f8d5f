"""The action-mask protocol in sekai.utils.masking."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Sequence, Tuple
from sekai.utils import (
    action_mask_space,
    flatten_action_mask,
    get_action_mask,
    supports_action_mask,
)


class MaskedEnv(Env[np.int64, np.int64]):
    def __init__(self) -> None:
        self.observation_space = Discrete(3)
        self.action_space = Discrete(4)

    def action_mask(self) -> np.ndarray:
        return np.array([1, 0, 1, 0], dtype=np.int8)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.int64]:
        return ResetResult(np.int64(0), {})

    def step(self, action: np.int64) -> StepResult[np.int64]:
        return StepResult(np.int64(0), 0.0, False, False, {})


class UnmaskedEnv(MaskedEnv):
    action_mask = None  # type: ignore[assignment]


def test_protocol_through_wrappers() -> None:
    env = Wrapper(Wrapper(MaskedEnv()))
    assert supports_action_mask(env)
    np.testing.assert_array_equal(get_action_mask(env), [1, 0, 1, 0])
    assert not supports_action_mask(UnmaskedEnv())
    with pytest.raises(TypeError, match=r"action_mask\(\)"):
        get_action_mask(Wrapper(UnmaskedEnv()))


def test_mask_from_the_protocol_drives_sampling() -> None:
    env = MaskedEnv()
    env.action_space.seed(0)
    samples = {int(env.action_space.sample(mask=get_action_mask(env))) for _ in range(50)}
    assert samples == {0, 2}


NESTED = Dict(
    {
        "order": Discrete(3),
        "size": Box(0.0, 1.0, (2,)),
        "legs": Tuple((MultiDiscrete([2, 3]), MultiBinary(2))),
    }
)


@pytest.mark.parametrize(
    ("space", "size"),
    [
        (Discrete(5), 5),
        (Discrete(3, start=10), 3),
        (MultiDiscrete([2, 3, 4]), 9),
        (MultiDiscrete([[2, 3], [4, 5]]), 14),
        (MultiBinary((2, 3)), 6),
        (Box(-1.0, 1.0, (2, 2)), 4),
        (NESTED, 3 + 2 + 5 + 2),
    ],
)
def test_action_mask_space_size(space: Any, size: int) -> None:
    mask_space = action_mask_space(space)
    assert mask_space == MultiBinary(size)
    ones = flatten_action_mask(space, None)
    assert ones.dtype == np.int8
    assert ones.shape == (size,)
    assert ones in mask_space
    assert ones.all()


def test_flatten_nested_mask_in_space_order() -> None:
    mask = {
        "order": np.array([0, 1, 1], dtype=np.int8),
        "size": np.array([True, False]),
        "legs": ([np.array([1, 0], np.int8), None], np.array([False, True])),
    }
    flat = flatten_action_mask(NESTED, mask)
    np.testing.assert_array_equal(flat, [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1])
    assert flat in action_mask_space(NESTED)
    # A missing Dict key is unconstrained.
    partial = flatten_action_mask(NESTED, {"order": np.array([0, 0, 1], np.int8)})
    np.testing.assert_array_equal(partial, [0, 0, 1] + [1] * 9)


def test_flatten_multi_dimensional_multidiscrete() -> None:
    space = MultiDiscrete([[2, 3], [1, 2]])
    mask = [[np.array([0, 1]), np.array([1, 1, 0])], [None, np.array([1, 0])]]
    np.testing.assert_array_equal(flatten_action_mask(space, mask), [0, 1, 1, 1, 0, 1, 1, 0])


@given(st.lists(st.booleans(), min_size=1, max_size=8))
def test_discrete_flat_mask_is_the_mask(bits: list[bool]) -> None:
    mask = np.array(bits, dtype=np.int8)
    np.testing.assert_array_equal(flatten_action_mask(Discrete(len(bits)), mask), mask)


@pytest.mark.parametrize(
    ("space", "mask", "error", "match"),
    [
        (Discrete(3), np.array([1, 0], np.int8), ValueError, r"shape \(3,\)"),
        (Discrete(3), np.array([1, 2, 0]), ValueError, "0/1"),
        (Box(0.0, 1.0, (2,)), np.array([0.5, 1.0]), ValueError, "0/1"),
        (MultiDiscrete([2, 2]), [np.array([1, 0])], TypeError, "2 per-entry masks"),
        (NESTED, {"nope": None}, ValueError, "nope"),
        (NESTED, [None], TypeError, "dict of sub-space masks"),
        (Tuple((Discrete(2), Discrete(2))), (None,), TypeError, "2 sub-space masks"),
    ],
)
def test_bad_masks_are_rejected(space: Any, mask: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        flatten_action_mask(space, mask)


def test_spaces_without_a_fixed_mask_are_rejected() -> None:
    with pytest.raises(TypeError, match="Sequence"):
        action_mask_space(Sequence(Discrete(2)))


def test_masked_components_take_the_space_zero() -> None:
    # The convention the module documents: what sample(mask=...) puts in a masked component.
    box = Box(1.0, 2.0, (3,), seed=0)
    sample = box.sample(mask=np.array([True, False, True]))
    assert sample[1] == box.zero()[1] == 1.0
