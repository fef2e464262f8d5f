"""FlattenObservation: nested observations as one float32 vector."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box, Dict, Discrete, Sequence, flatdim, flatten, unflatten
from sekai.wrappers import FlattenObservation


def test_space_and_observations_are_flat_float32(space_env, any_space) -> None:
    env = FlattenObservation(space_env(any_space))
    space = env.observation_space
    assert isinstance(space, Box)
    assert space.shape == (flatdim(any_space),)
    assert space.dtype == np.float32
    obs = env.reset(seed=0).observation
    assert obs.dtype == np.float32 and obs.shape == space.shape
    assert obs in space


def test_matches_sekai_spaces_flatten(space_env) -> None:
    inner_space = Dict({"a": Box(-1.0, 1.0, (2,)), "b": Discrete(3)})
    inner = space_env(inner_space)
    env = FlattenObservation(inner)
    inner_obs = inner.reset(seed=4).observation
    obs = env.reset(seed=4).observation
    np.testing.assert_array_equal(obs, flatten(inner_space, inner_obs))
    restored = unflatten(inner_space, obs)
    np.testing.assert_array_equal(restored["a"], inner_obs["a"])
    assert restored["b"] == inner_obs["b"]


def test_sequence_space_is_rejected_with_a_hint(space_env) -> None:
    with pytest.raises(TypeError, match="PadSequenceObservation"):
        FlattenObservation(space_env(Sequence(Box(0.0, 1.0, (2,)))))


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(FlattenObservation(space_env(any_space)))
