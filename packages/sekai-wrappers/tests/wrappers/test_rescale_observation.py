"""RescaleObservation: affine map of a bounded Box onto [min_obs, max_obs]."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import InvalidObservation
from sekai.spaces import Box, Discrete
from sekai.wrappers import RescaleObservation


def test_bounds_map_onto_new_bounds(space_env) -> None:
    inner = space_env(Box(np.array([0.0, -2.0]), np.array([10.0, 2.0]), dtype=np.float64))
    env = RescaleObservation(inner, -1.0, 1.0)
    np.testing.assert_allclose(env.observation(np.array([0.0, -2.0])), [-1.0, -1.0])
    np.testing.assert_allclose(env.observation(np.array([10.0, 2.0])), [1.0, 1.0])
    np.testing.assert_allclose(env.observation(np.array([5.0, 1.0])), [0.0, 0.5])
    assert env.observation(np.array([5.0, 1.0])).dtype == np.float64


def test_uint8_pixels_become_float32(space_env) -> None:
    env = RescaleObservation(space_env(Box(0, 255, (4, 3), np.uint8)), 0.0, 1.0)
    assert env.observation_space.dtype == np.float32
    obs = env.reset(seed=0).observation
    assert obs.dtype == np.float32
    out = env.observation(np.full((4, 3), 255, np.uint8))
    np.testing.assert_array_equal(out, np.ones((4, 3), np.float32))


def test_array_bounds_and_degenerate_components(space_env) -> None:
    inner = space_env(Box(np.array([1.0, 0.0]), np.array([1.0, 4.0])))
    env = RescaleObservation(inner, np.array([0.0, 10.0]), np.array([1.0, 20.0]))
    np.testing.assert_allclose(env.observation(np.array([1.0, 2.0], np.float32)), [0.0, 15.0])


@pytest.mark.parametrize("observation", [0.5, np.array([0.5]), np.zeros(3)])
def test_observations_of_another_shape_are_refused_not_broadcast(space_env, observation) -> None:
    env = RescaleObservation(space_env(Box(0.0, 1.0, (2,))), -1.0, 1.0)
    with pytest.raises(InvalidObservation, match=r"shape \(2,\), got one of shape"):
        env.observation(observation)


@pytest.mark.parametrize(
    ("space", "args", "error"),
    [
        (Discrete(3), (0.0, 1.0), TypeError),
        (Box(-np.inf, 0.0, (2,)), (0.0, 1.0), ValueError),
        (Box(0.0, 1.0, (2,)), (1.0, 0.0), ValueError),
        (Box(0.0, 1.0, (2,)), (0.0, np.inf), ValueError),
        (Box(0.0, 1.0, (2,)), (np.zeros(3), 1.0), ValueError),
        (Box(0.0, 1.0, (2,)), (0.0, np.array([True, True])), TypeError),
    ],
)
def test_rejects_bad_arguments(space_env, space, args, error) -> None:
    with pytest.raises(error):
        RescaleObservation(space_env(space), *args)


def test_check_env(space_env, assert_conforms) -> None:
    assert_conforms(RescaleObservation(space_env(Box(-2.0, 3.0, (3,))), -1.0, 1.0))
    assert_conforms(RescaleObservation(space_env(Box(0, 255, (4, 3), np.uint8)), 0.0, 1.0))


@settings(max_examples=40, deadline=None)
@given(
    low=st.floats(-1e3, 1e3),
    width=st.floats(1e-2, 1e3),
    u=st.floats(0.0, 1.0),
    new_low=st.floats(-10.0, 10.0),
    new_width=st.floats(0.0, 10.0),
)
def test_rescaled_values_stay_in_the_new_space(
    space_env, low, width, u, new_low, new_width
) -> None:
    env = RescaleObservation(
        space_env(Box(low, low + width, (1,), np.float32)), new_low, new_low + new_width
    )
    space = env.env.observation_space
    x = np.clip(np.array([low + u * width], np.float32), space.low, space.high)
    assert env.observation(x) in env.observation_space


def test_a_scalar_box_observation_is_rescaled(space_env) -> None:
    env = RescaleObservation(space_env(Box(0.0, 4.0, ())), -1.0, 1.0)
    out = env.observation(np.array(3.0, np.float32))
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float32
    assert out == 0.5
    assert env.reset(seed=0).observation in env.observation_space


def test_an_unbounded_space_is_refused_naming_what_was_given(space_env) -> None:
    with pytest.raises(
        ValueError, match=r"needs an observation space with finite bounds, got Box\(-inf"
    ):
        RescaleObservation(space_env(Box(-np.inf, 0.0, (2,))), 0.0, 1.0)
