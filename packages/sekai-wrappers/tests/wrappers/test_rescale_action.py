"""RescaleAction: affine map from [min_action, max_action], clipping, the mask rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import InvalidAction
from sekai.spaces import Box, Discrete
from sekai.wrappers import RescaleAction

OBS = Box(0.0, 1.0, (1,))


def test_maps_the_policy_range_onto_the_env_range(space_env) -> None:
    inner = space_env(OBS, Box(np.array([0.0, -10.0]), np.array([1.0, 10.0])))
    env = RescaleAction(inner, -1.0, 1.0)
    assert env.action_space == Box(-1.0, 1.0, (2,))
    env.reset(seed=0)
    for action, expected in [
        ([-1, -1], [0.0, -10.0]),
        ([1, 1], [1.0, 10.0]),
        ([0, 0.5], [0.5, 5.0]),
    ]:
        env.step(np.array(action, np.float32))
        np.testing.assert_allclose(inner.actions[-1], expected, rtol=1e-6)
        assert inner.actions[-1].dtype == np.float32


def test_results_are_clipped_to_the_env_bounds(space_env) -> None:
    inner = space_env(OBS, Box(0.0, 1.0, (1,)))
    env = RescaleAction(inner, -1.0, 1.0)
    env.reset(seed=0)
    env.step(np.array([3.0]))
    np.testing.assert_array_equal(inner.actions[-1], [1.0])


@pytest.mark.parametrize("action", [0.5, np.array([0.5]), np.zeros(3)])
def test_actions_of_another_shape_are_refused_not_broadcast(space_env, action) -> None:
    inner = space_env(OBS, Box(0.0, 1.0, (2,)))
    env = RescaleAction(inner, -1.0, 1.0)
    env.reset(seed=0)
    with pytest.raises(InvalidAction, match=r"shape \(2,\), got one of shape"):
        env.step(action)
    assert inner.actions == []


def test_reverse_action(space_env) -> None:
    env = RescaleAction(space_env(OBS, Box(0.0, 4.0, (2,))), -1.0, 1.0)
    np.testing.assert_allclose(env.reverse_action(np.array([1.0, 4.0])), [-0.5, 1.0])
    np.testing.assert_allclose(env.reverse_action(np.array([9.0, -9.0])), [1.0, -1.0])


def test_masked_components_reach_the_env_as_its_zero(masked_env) -> None:
    action_space = Box(np.array([-1.0, 2.0, 0.0]), np.array([1.0, 4.0, 10.0]))
    mask = np.array([True, False, False])
    inner = masked_env(OBS, action_space, mask)
    env = RescaleAction(inner, -1.0, 1.0)
    env.reset(seed=0)
    # The wrapper's zero in a masked component would be the middle of the env's range.
    env.step(np.zeros(3, np.float32))
    np.testing.assert_allclose(inner.actions[-1], [0.0, 2.0, 0.0])
    env.step(np.ones(3, np.float32))
    np.testing.assert_allclose(inner.actions[-1], [1.0, 2.0, 0.0])
    np.testing.assert_array_equal(inner.actions[-1][1:], action_space.zero()[1:])
    # reverse_action ignores the mask.
    np.testing.assert_allclose(env.reverse_action(np.array([0.0, 3.0, 5.0])), [0.0, 0.0, 0.0])


def test_a_none_mask_masks_nothing(masked_env) -> None:
    inner = masked_env(OBS, Box(0.0, 2.0, (2,)), None)
    env = RescaleAction(inner, -1.0, 1.0)
    env.reset(seed=0)
    env.step(np.array([0.0, 1.0], np.float32))
    np.testing.assert_allclose(inner.actions[-1], [1.0, 2.0])


@pytest.mark.parametrize(
    ("action_space", "bounds", "error"),
    [
        (Discrete(3), (-1.0, 1.0), TypeError),
        (Box(0, 5, (2,), np.int64), (-1.0, 1.0), TypeError),
        (Box(0.0, np.inf, (2,)), (-1.0, 1.0), ValueError),
        (Box(0.0, 1.0, (2,)), (1.0, 1.0), ValueError),
        (Box(0.0, 1.0, (2,)), (np.zeros(3), 1.0), ValueError),
        (Box(0.0, 1.0, (2,)), ("a", 1.0), TypeError),
        (Box(0.0, 1.0, (2,)), (False, True), TypeError),
    ],
)
def test_rejects_bad_arguments(space_env, action_space, bounds, error) -> None:
    with pytest.raises(error):
        RescaleAction(space_env(OBS, action_space), *bounds)


def test_check_env(space_env, masked_env, assert_conforms) -> None:
    assert_conforms(RescaleAction(space_env(OBS, Box(0.0, 5.0, (3,))), -1.0, 1.0))
    masked = masked_env(OBS, Box(0.0, 5.0, (3,)), np.array([True, False, True]))
    assert_conforms(RescaleAction(masked, -1.0, 1.0))


@settings(max_examples=40, deadline=None)
@given(
    low=st.floats(-100, 100),
    width=st.floats(1e-3, 100),
    u=st.floats(-0.5, 1.5),
)
def test_round_trip_inside_the_range(space_env, low, width, u) -> None:
    env = RescaleAction(space_env(OBS, Box(low, low + width, (1,), np.float64)), -1.0, 1.0)
    a = np.array([-1.0 + 2.0 * u])
    executed = env.action(a)
    assert executed in env.env.action_space
    back = env.reverse_action(executed)
    assert back in env.action_space
    if 0.0 <= u <= 1.0:
        np.testing.assert_allclose(back, a, atol=1e-6 * max(1.0, abs(low) / width))


def test_a_scalar_box_action_is_rescaled(space_env) -> None:
    inner = space_env(OBS, Box(-2.0, 2.0, ()))
    env = RescaleAction(inner, -1.0, 1.0)
    env.reset(seed=0)
    env.step(np.array(0.5, np.float32))
    executed = inner.actions[-1]
    assert isinstance(executed, np.ndarray) and executed.shape == ()
    assert executed == 1.0 and executed in inner.action_space
    reverse = env.reverse_action(np.array(1.0, np.float32))
    assert isinstance(reverse, np.ndarray) and reverse == 0.5


def test_an_unbounded_action_space_is_refused_naming_what_was_given(space_env) -> None:
    with pytest.raises(ValueError, match=r"needs an action space with finite bounds, got Box\("):
        RescaleAction(space_env(OBS, Box(0.0, np.inf, (2,))), -1.0, 1.0)
