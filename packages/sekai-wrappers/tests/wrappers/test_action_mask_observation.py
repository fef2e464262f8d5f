"""ActionMaskObservation: the flattened current action mask in the observation."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete
from sekai.wrappers import ActionMaskObservation


def discrete_mask(t):
    return np.array([1, 0, 1] if t % 2 == 0 else [0, 1, 0], np.int8)


def test_non_dict_observation_is_wrapped(masked_env, assert_conforms) -> None:
    env = ActionMaskObservation(masked_env(Box(0.0, 1.0, (2,)), Discrete(3), discrete_mask))
    space = env.observation_space
    assert list(space.keys()) == ["observation", "action_mask"]
    assert space["action_mask"] == MultiBinary(3)
    obs = env.reset(seed=0).observation
    assert obs["action_mask"].tolist() == [1, 0, 1]
    assert obs["action_mask"].dtype == np.int8
    assert env.step(0).observation["action_mask"].tolist() == [0, 1, 0]
    assert_conforms(env)


def test_dict_observation_gains_a_key(masked_env, assert_conforms) -> None:
    space = Dict({"price": Box(-1.0, 1.0, (2,))})
    action_space = MultiDiscrete([2, 3])
    env = ActionMaskObservation(
        masked_env(space, action_space, (np.array([1, 1]), np.array([0, 1, 1]))), key="legal"
    )
    assert list(env.observation_space.keys()) == ["price", "legal"]
    obs = env.reset(seed=0).observation
    assert obs["legal"].tolist() == [1, 1, 0, 1, 1]
    assert_conforms(env)


def test_env_without_mask_is_rejected(space_env) -> None:
    with pytest.raises(TypeError, match="action_mask"):
        ActionMaskObservation(space_env(Box(0.0, 1.0, (2,)), Discrete(3)))


@pytest.mark.parametrize(
    ("space", "key"),
    [(Dict({"action_mask": Discrete(2)}), "action_mask"), (Box(0.0, 1.0, (2,)), "observation")],
)
def test_key_collisions_are_rejected(masked_env, space, key) -> None:
    with pytest.raises(ValueError, match=repr(key)):
        ActionMaskObservation(masked_env(space, Discrete(3), None), key=key)
