"""DelayObservation: observations from delay steps ago, zeros or reset padding."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box
from sekai.wrappers import AutoReset, DelayObservation


def values(env, n):
    return [env.step(0).observation[0] for _ in range(n)]


def test_zeros_padding_then_delayed_observations(counter_env) -> None:
    env = DelayObservation(counter_env(), 2)
    start = env.reset(seed=0).info["start"]
    assert env.reset(seed=0).observation.tolist() == [0.0]
    assert values(env, 4) == [0.0, start, start + 1, start + 2]


def test_reset_padding_repeats_the_first_observation(counter_env) -> None:
    env = DelayObservation(counter_env(), 2, padding="reset")
    start = env.reset(seed=0).info["start"]
    assert env.reset(seed=0).observation.tolist() == [start]
    assert values(env, 3) == [start, start, start + 1]


def test_zero_padding_is_clipped_into_the_bounds(space_env) -> None:
    env = DelayObservation(space_env(Box(1.0, 2.0, (2,))), 1)
    assert env.reset(seed=0).observation.tolist() == [1.0, 1.0]


def test_delay_zero_changes_nothing(counter_env) -> None:
    env = DelayObservation(counter_env(), 0)
    start = env.reset(seed=0).info["start"]
    assert env.reset(seed=0).observation.tolist() == [start]
    assert values(env, 2) == [start + 1, start + 2]


def test_reset_empties_the_queue(counter_env) -> None:
    env = DelayObservation(counter_env(), 1)
    env.reset(seed=0)
    values(env, 3)
    start = env.reset(seed=1).info["start"]
    assert values(env, 2) == [start, start + 1]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"delay": -1}, ValueError),
        ({"delay": 1.5}, TypeError),
        ({"delay": 1, "padding": "x"}, ValueError),
    ],
)
def test_rejects_bad_arguments(counter_env, kwargs, error) -> None:
    with pytest.raises(error):
        DelayObservation(counter_env(), **kwargs)


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="DelayObservation is wrapped around an AutoReset"):
        DelayObservation(AutoReset(counter_env()), 1)


@pytest.mark.parametrize("padding", ["zeros", "reset"])
def test_check_env(space_env, any_space, assert_conforms, padding) -> None:
    assert_conforms(DelayObservation(space_env(any_space), 2, padding=padding))


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 8
    a = rollout(DelayObservation(space_env(any_space), 2), 3, actions)
    b = rollout(DelayObservation(space_env(any_space), 2), 3, actions)
    assert same(a, b)


@pytest.mark.parametrize("padding", ["zeros", "reset"])
def test_an_env_reusing_its_buffers_is_still_seen_late(buffer_env, padding) -> None:
    env = DelayObservation(buffer_env(), 2, padding=padding)
    seen = [env.reset(seed=0).observation]
    seen += [env.step(0).observation for _ in range(5)]
    # Padding (t = 0 in both modes) for two steps, then step t - 2.
    assert [float(obs["t"][0]) for obs in seen] == [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]
    assert [int(obs["book"]["mask"].sum()) for obs in seen[2:]] == [0, 1, 2, 0]
    # Modifying a returned padding observation does not change the next one.
    first = env.reset(seed=0).observation
    first["t"][0] = 99.0
    assert float(env.step(0).observation["t"][0]) == 0.0
