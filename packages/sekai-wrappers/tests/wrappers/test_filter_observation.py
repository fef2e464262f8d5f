"""FilterObservation: keep the given keys of a Dict observation."""

from __future__ import annotations

import pytest

from sekai.spaces import Box, Dict, Discrete
from sekai.wrappers import FilterObservation

SPACE = Dict({"a": Box(0.0, 1.0, (2,)), "b": Discrete(3), "c": Box(-1.0, 1.0, (1,))})


def test_keeps_the_given_keys_in_order(space_env, assert_conforms) -> None:
    inner = space_env(SPACE)
    env = FilterObservation(inner, ["c", "a"])
    assert list(env.observation_space.keys()) == ["c", "a"]
    assert env.observation_space["a"] is SPACE["a"]
    obs = env.reset(seed=0).observation
    assert list(obs) == ["c", "a"]
    assert obs in env.observation_space
    assert_conforms(env)


def test_env_observation_is_not_modified(space_env) -> None:
    inner = space_env(SPACE)
    env = FilterObservation(inner, ("b",))
    raw = inner.reset(seed=0).observation
    assert env.observation(raw) == {"b": raw["b"]}
    assert set(raw) == {"a", "b", "c"}


@pytest.mark.parametrize(
    ("space", "keys", "error", "match"),
    [
        (Box(0.0, 1.0, (2,)), ["a"], TypeError, "Dict"),
        (SPACE, [], ValueError, "at least one"),
        (SPACE, ["a", "a"], ValueError, "repeat"),
        (SPACE, ["a", "z"], ValueError, "'z'"),
        (SPACE, "a", TypeError, "str"),
        (SPACE, [1], TypeError, "strings"),
        (SPACE, 3, TypeError, "keys must be an iterable of keys, got 3"),
        (SPACE, None, TypeError, "keys must be an iterable of keys, got None"),
    ],
)
def test_rejects_bad_arguments(space_env, space, keys, error, match) -> None:
    with pytest.raises(error, match=match):
        FilterObservation(space_env(space), keys)
