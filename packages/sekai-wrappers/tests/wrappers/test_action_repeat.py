"""ActionRepeat: repeat, sum rewards, stop early, info["action_repeats"]."""

from __future__ import annotations

import asyncio

import pytest

from sekai.core import TimeLimit
from sekai.wrappers import ActionRepeat


def test_repeats_and_sums_rewards(counter_env) -> None:
    inner = counter_env(episode_length=100)
    env = ActionRepeat(inner, 3)
    start = env.reset(seed=0).info["start"]
    r = env.step(2)
    assert inner.actions == [2, 2, 2]
    assert r.reward == 1.0 + 2.0 + 3.0
    assert r.observation.tolist() == [start + 3]
    assert r.info == {"t": 3, "action_repeats": 3}


def test_stops_early_when_the_episode_ends(counter_env) -> None:
    inner = counter_env(episode_length=4)
    env = ActionRepeat(inner, 3)
    env.reset(seed=0)
    env.step(0)
    r = env.step(1)
    assert r.terminated
    assert r.info["action_repeats"] == 1
    assert r.reward == 4.0
    assert inner.actions == [0, 0, 0, 1]


def test_async_matches_sync(counter_env) -> None:
    env = ActionRepeat(counter_env(episode_length=100), 2)

    async def run():
        await env.async_reset(seed=0)
        return await env.async_step(1)

    r = asyncio.run(run())
    assert r.reward == 3.0 and r.info["action_repeats"] == 2


@pytest.mark.parametrize(
    ("repeat", "error"), [(0, ValueError), (2.0, TypeError), (True, TypeError)]
)
def test_rejects_bad_repeat(counter_env, repeat, error) -> None:
    with pytest.raises(error, match="repeat"):
        ActionRepeat(counter_env(), repeat)


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(ActionRepeat(space_env(any_space), 2))


def test_stops_early_when_the_episode_is_truncated(counter_env) -> None:
    inner = counter_env(episode_length=100)
    env = ActionRepeat(TimeLimit(inner, 4), 3)
    env.reset(seed=0)
    env.step(0)
    r = env.step(1)
    assert r.truncated and not r.terminated
    assert r.info["action_repeats"] == 1
    assert r.info["elapsed_steps"] == 4  # the info of the last inner step
    assert inner.actions == [0, 0, 0, 1]
