"""ClipAction: out-of-range actions are clipped into the env's bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import InvalidAction
from sekai.spaces import Box, Discrete
from sekai.wrappers import ClipAction


def test_actions_are_clipped(space_env) -> None:
    inner = space_env(Box(0.0, 1.0, (1,)), Box(np.array([-1.0, 0.0]), np.array([1.0, 2.0])))
    env = ClipAction(inner)
    env.reset(seed=0)
    env.step(np.array([5.0, -3.0]))
    executed = inner.actions[-1]
    np.testing.assert_array_equal(executed, [1.0, 0.0])
    assert executed.dtype == np.float32
    env.step(np.array([0.5, 1.5], np.float32))
    np.testing.assert_array_equal(inner.actions[-1], [0.5, 1.5])


def test_action_space_is_unbounded_with_the_env_shape(space_env) -> None:
    env = ClipAction(space_env(Box(0.0, 1.0, (1,)), Box(-1.0, 1.0, (3,), np.float64)))
    space = env.action_space
    assert space.shape == (3,) and space.dtype == np.float64
    assert not space.is_bounded("below") and not space.is_bounded("above")
    assert np.full(3, 1e6) in space


@pytest.mark.parametrize("action", [5.0, np.array([0.5]), np.zeros(3), np.zeros((1, 2))])
def test_actions_of_another_shape_are_refused_not_broadcast(space_env, action) -> None:
    inner = space_env(Box(0.0, 1.0, (1,)), Box(-1.0, 1.0, (2,)))
    env = ClipAction(inner)
    env.reset(seed=0)
    with pytest.raises(InvalidAction, match=r"shape \(2,\), got one of shape"):
        env.step(action)
    assert inner.actions == []


@pytest.mark.parametrize("action_space", [Discrete(3), Box(0, 5, (2,), np.int64)])
def test_rejects_non_float_box(space_env, action_space) -> None:
    with pytest.raises(TypeError, match="Box"):
        ClipAction(space_env(Box(0.0, 1.0, (1,)), action_space))


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(ClipAction(space_env(any_space)))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=2, max_size=2))
def test_clipped_actions_are_in_the_env_space_and_inside_ones_unchanged(space_env, values) -> None:
    bounds = Box(np.array([-1.0, 0.0], np.float32), np.array([1.0, 2.0], np.float32))
    env = ClipAction(space_env(Box(0.0, 1.0, (1,)), bounds))
    action = np.array(values, np.float32)
    out = env.action(action)
    assert out in bounds
    np.testing.assert_array_equal(out, np.clip(action, bounds.low, bounds.high))
    inside = bounds.contains(action)
    assert inside == bool(np.array_equal(out, action))


def test_a_scalar_box_action_is_clipped(space_env) -> None:
    inner = space_env(Box(0.0, 1.0, (1,)), Box(-1.0, 1.0, ()))
    env = ClipAction(inner)
    env.reset(seed=0)
    env.step(np.array(3.0))
    executed = inner.actions[-1]
    assert isinstance(executed, np.ndarray) and executed.shape == ()
    assert executed == 1.0 and executed.dtype == np.float32
