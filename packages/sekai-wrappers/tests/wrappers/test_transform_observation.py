"""TransformObservation: func, new_observation_space, deprecated fn=."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.error import DeprecatedAPI
from sekai.spaces import Box
from sekai.wrappers import TransformObservation


def test_func_is_applied_to_reset_and_step(counter_env) -> None:
    env = TransformObservation(counter_env(), lambda obs: obs * 2)
    start = env.reset(seed=0).info["start"]
    assert env.reset(seed=0).observation.tolist() == [2 * start]
    assert env.step(0).observation.tolist() == [2 * (start + 1)]


def test_new_observation_space_is_used(counter_env, assert_conforms) -> None:
    space = Box(0.0, 2000.0, (1,), np.float32)
    env = TransformObservation(counter_env(), lambda obs: obs * 2, space)
    assert env.observation_space is space
    assert_conforms(env)


def test_space_defaults_to_the_env_space(counter_env) -> None:
    inner = counter_env()
    assert TransformObservation(inner, lambda obs: obs).observation_space is inner.observation_space


def test_fn_still_works_with_a_deprecation_warning(counter_env) -> None:
    with pytest.warns(DeprecationWarning, match="func") as record:
        env = TransformObservation(counter_env(), fn=lambda obs: obs + 1)
    assert record[0].category is DeprecatedAPI
    assert record[0].filename == __file__
    start = env.reset(seed=0).info["start"]
    assert env.reset(seed=0).observation.tolist() == [start + 1]


def test_func_and_fn_together_are_rejected(counter_env) -> None:
    with pytest.raises(TypeError, match="not both"):
        TransformObservation(counter_env(), lambda o: o, fn=lambda o: o)


@pytest.mark.parametrize("func", [None, 3])
def test_missing_or_non_callable_func(counter_env, func) -> None:
    with pytest.raises(TypeError, match="func"):
        TransformObservation(counter_env(), func)


def test_bad_space_is_rejected(counter_env) -> None:
    with pytest.raises(TypeError, match="new_observation_space"):
        TransformObservation(counter_env(), lambda o: o, "box")


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(TransformObservation(space_env(any_space), lambda obs: obs))
