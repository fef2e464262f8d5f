"""AutoReset: same-step reset, final_observation / final_info / reset_info, ordering."""

from __future__ import annotations

import asyncio
import warnings

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.wrappers import AutoReset


def test_terminal_step_returns_first_observation_of_next_episode(counter_env) -> None:
    inner = counter_env(episode_length=3)
    env = AutoReset(inner)
    first_start = env.reset(seed=1).info["start"]
    env.step(0)
    env.step(0)
    last = env.step(0)
    assert last.terminated and not last.truncated
    assert last.reward == 3.0
    # The inner env was reset within the step: the observation starts the new episode.
    assert inner.t == 0
    assert last.observation.tolist() == [inner.start]
    assert last.info["final_observation"].tolist() == [first_start + 3]
    assert last.info["final_info"] == {"t": 3}
    assert last.info["reset_info"] == {"start": inner.start}
    assert last.info["t"] == 3  # the final step's own entries stay at the top level


def test_non_terminal_steps_are_unchanged(counter_env) -> None:
    env = AutoReset(counter_env(episode_length=3))
    env.reset(seed=0)
    r = env.step(1)
    assert "final_observation" not in r.info
    assert r.info == {"t": 1}


def test_truncation_also_resets(space_env) -> None:
    from sekai.spaces import Box

    inner = space_env(Box(0.0, 1.0, (2,)), episode_length=2, terminate=False)
    env = AutoReset(inner)
    env.reset(seed=0)
    env.step(np.zeros(2, np.float32))
    r = env.step(np.zeros(2, np.float32))
    assert r.truncated and not r.terminated
    assert inner.resets == 2
    assert "final_observation" in r.info


def test_final_info_is_the_env_dict_and_not_mutated(space_env) -> None:
    from sekai.spaces import Box

    inner = space_env(Box(0.0, 1.0, (2,)), episode_length=1)
    env = AutoReset(inner)
    env.reset(seed=0)
    r = env.step(np.zeros(2, np.float32))
    assert r.info["final_info"] == {"t": 1}
    assert "final_observation" not in r.info["final_info"]


def test_autoreset_outside_time_limit_is_silent_and_correct(counter_env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = AutoReset(TimeLimit(counter_env(episode_length=100), 2))
    env.reset(seed=0)
    flags = [env.step(0).truncated for _ in range(6)]
    assert flags == [False, True] * 3


def test_time_limit_around_autoreset_warns(counter_env) -> None:
    with pytest.warns(UserWarning, match="AutoReset"):
        TimeLimit(AutoReset(counter_env()), 5)


def test_double_autoreset_warns(counter_env) -> None:
    with pytest.warns(UserWarning, match="another AutoReset"):
        AutoReset(AutoReset(counter_env()))


def test_async_step_resets_through_async_reset(counter_env) -> None:
    inner = counter_env(episode_length=2)
    env = AutoReset(inner)

    async def run():
        await env.async_reset(seed=3)
        await env.async_step(0)
        return await env.async_step(0)

    r = asyncio.run(run())
    assert r.terminated
    assert inner.t == 0
    assert "reset_info" in r.info


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(AutoReset(space_env(any_space, episode_length=4)))


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 12
    a = rollout(AutoReset(space_env(any_space, episode_length=4)), 7, actions)
    b = rollout(AutoReset(space_env(any_space, episode_length=4)), 7, actions)
    assert same(a, b)


@pytest.mark.parametrize("use_async", [False, True])
def test_final_observation_and_info_survive_an_env_reusing_its_buffers(
    buffer_env, use_async
) -> None:
    env = AutoReset(buffer_env(episode_length=2))
    env.reset(seed=0)
    env.step(0)
    last = asyncio.run(env.async_step(0)) if use_async else env.step(0)
    assert last.terminated
    assert last.observation["t"].tolist() == [0.0]  # the new episode
    assert last.info["final_observation"]["t"].tolist() == [2.0]
    assert last.info["final_observation"]["book"]["mask"].tolist() == [1, 1, 0]
    assert last.info["final_info"] == {"t": 2}
    assert last.info["t"] == 2
    assert last.info["reset_info"] == {"t": 0}
