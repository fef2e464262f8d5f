"""DtypeObservation: cast Box observations, keeping them inside the new space."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box, Discrete
from sekai.wrappers import DtypeObservation


def test_float64_to_float32(space_env, assert_conforms) -> None:
    env = DtypeObservation(space_env(Box(0.1, 0.7, (3,), np.float64)), np.float32)
    assert env.observation_space.dtype == np.float32
    obs = env.reset(seed=0).observation
    assert obs.dtype == np.float32
    assert obs in env.observation_space
    assert_conforms(env)


def test_float_to_int_truncates(space_env, assert_conforms) -> None:
    env = DtypeObservation(space_env(Box(-0.5, 3.7, (2,), np.float32)), np.int16)
    assert env.observation_space == Box(0, 3, (2,), np.int16)
    out = env.observation(np.array([3.7, -0.4], np.float32))
    assert out.dtype == np.int16 and out.tolist() == [3, 0]
    assert_conforms(env)


def test_huge_float_bounds_become_infinite(space_env) -> None:
    env = DtypeObservation(space_env(Box(-1e300, 1e300, (1,), np.float64)), np.float32)
    assert np.isinf(env.observation_space.high[0])


def test_observation_is_a_new_array(space_env) -> None:
    env = DtypeObservation(space_env(Box(0.0, 1.0, (2,), np.float32)), np.float32)
    x = np.zeros(2, np.float32)
    assert env.observation(x) is not x


@pytest.mark.parametrize(
    ("space", "dtype", "error"),
    [
        (Discrete(3), np.float32, TypeError),
        (Box(0.0, 1.0, (2,)), np.bool_, TypeError),
        (Box(0.0, 1.0, (2,)), "not-a-dtype", TypeError),
        (Box(0.0, 1.0, (2,), np.float32), None, TypeError),
        (Box(0.0, np.inf, (2,)), np.int32, ValueError),
        (Box(0, 1000, (2,), np.int64), np.int8, ValueError),
    ],
)
def test_rejects_bad_arguments(space_env, space, dtype, error) -> None:
    with pytest.raises(error):
        DtypeObservation(space_env(space), dtype)
