"""TimeAwareObservation: Box append, Dict key, normalisation, where the limit comes from."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.registry import EnvSpec
from sekai.spaces import Box, Dict, Discrete
from sekai.wrappers import AutoReset, TimeAwareObservation


def test_box_gets_normalised_time_appended(counter_env) -> None:
    env = TimeAwareObservation(counter_env(), 4)
    space = env.observation_space
    assert space.shape == (2,)
    assert space.low[-1] == 0.0 and space.high[-1] == 1.0
    first = env.reset(seed=0).observation
    assert first[-1] == 0.0
    times = [env.step(0).observation[-1] for _ in range(4)]
    assert times == [0.25, 0.5, 0.75, 1.0]
    assert env.elapsed_steps == 4


def test_time_restarts_at_reset(counter_env) -> None:
    env = TimeAwareObservation(counter_env(), 10)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    assert env.reset().observation[-1] == 0.0
    assert env.step(0).observation[-1] == pytest.approx(0.1)


def test_unnormalised_time_counts_steps(counter_env) -> None:
    env = TimeAwareObservation(counter_env(), normalize_time=False)
    env.reset(seed=0)
    assert [env.step(0).observation[-1] for _ in range(3)] == [1.0, 2.0, 3.0]
    assert np.isinf(env.observation_space.high[-1])


def test_normalised_time_stays_in_bounds_past_the_limit(counter_env) -> None:
    env = TimeAwareObservation(counter_env(episode_length=100), 2)
    env.reset(seed=0)
    obs = [env.step(0).observation for _ in range(4)]
    assert obs[-1][-1] == 1.0
    assert all(o in env.observation_space for o in obs)


def test_dict_gets_a_time_key(space_env) -> None:
    space = Dict({"price": Box(-1.0, 1.0, (2,)), "regime": Discrete(3)})
    env = TimeAwareObservation(space_env(space), 5, dict_key="clock")
    assert list(env.observation_space.keys()) == ["price", "regime", "clock"]
    obs = env.reset(seed=0).observation
    assert obs["clock"].dtype == np.float32 and obs["clock"].tolist() == [0.0]
    assert env.step(np.zeros(2, np.float32)).observation["clock"].tolist() == [pytest.approx(0.2)]


def test_dict_key_defaults_to_time(space_env) -> None:
    env = TimeAwareObservation(space_env(Dict({"price": Box(-1.0, 1.0, (2,))})), 4)
    assert list(env.observation_space.keys()) == ["price", "time"]
    env.reset(seed=0)
    assert env.step(np.zeros(2, np.float32)).observation["time"].tolist() == [0.25]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"normalize_time": "no"}, "normalize_time must be a bool, got 'no'"),
        ({"normalize_time": 0}, "normalize_time must be a bool, got 0"),
        ({"dict_key": 3}, "dict_key must be a str, got 3"),
        ({"max_episode_steps": 2.5}, "max_episode_steps must be an int"),
    ],
)
def test_rejects_bad_argument_types(space_env, kwargs, match) -> None:
    with pytest.raises(TypeError, match=match):
        TimeAwareObservation(
            space_env(Dict({"a": Discrete(2)})), **{"max_episode_steps": 5, **kwargs}
        )


def test_integer_box_is_cast_to_float32(space_env) -> None:
    env = TimeAwareObservation(space_env(Box(0, 9, (3,), np.int64)), 5)
    assert env.observation_space.dtype == np.float32
    assert env.reset(seed=0).observation.dtype == np.float32


def test_limit_read_from_an_inner_time_limit(counter_env) -> None:
    env = TimeAwareObservation(TimeLimit(counter_env(), 8))
    assert env.max_episode_steps == 8


def test_limit_read_from_the_spec(counter_env) -> None:
    inner = counter_env()
    inner.spec = EnvSpec(id="Counter-v0", entry_point="x:y", max_episode_steps=20)
    env = TimeAwareObservation(inner)
    assert env.max_episode_steps == 20


def test_given_limit_wins_then_the_time_limit_then_the_spec(counter_env) -> None:
    inner = counter_env()
    inner.spec = EnvSpec(id="Counter-v0", entry_point="x:y", max_episode_steps=20)
    assert TimeAwareObservation(TimeLimit(inner, 8), 4).max_episode_steps == 4
    assert TimeAwareObservation(TimeLimit(inner, 8)).max_episode_steps == 8


def test_normalisation_without_a_limit_is_an_error(counter_env) -> None:
    with pytest.raises(ValueError, match="max_episode_steps"):
        TimeAwareObservation(counter_env())


@pytest.mark.parametrize(
    ("space", "error"),
    [
        (Box(0.0, 1.0, (2, 2)), TypeError),
        (Discrete(3), TypeError),
        (Dict({"time": Discrete(2)}), ValueError),
    ],
)
def test_rejects_unsupported_spaces(space_env, space, error) -> None:
    with pytest.raises(error):
        TimeAwareObservation(space_env(space), 5)


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="TimeAwareObservation is wrapped around an AutoReset"):
        TimeAwareObservation(AutoReset(counter_env()), 5)


@pytest.mark.parametrize("normalize_time", [True, False])
def test_check_env(space_env, assert_conforms, normalize_time) -> None:
    for space in (Box(-1.0, 1.0, (3,)), Dict({"a": Discrete(2)})):
        env = TimeAwareObservation(space_env(space), 5, normalize_time=normalize_time)
        assert_conforms(env)


def test_same_seed_same_trajectory(counter_env, rollout, same) -> None:
    a = rollout(TimeAwareObservation(counter_env(episode_length=3), 3), 4, [0] * 7)
    b = rollout(TimeAwareObservation(counter_env(episode_length=3), 3), 4, [0] * 7)
    assert same(a, b)
