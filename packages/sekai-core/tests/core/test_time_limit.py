"""TimeLimit."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any, ClassVar

import pytest

from sekai.core import StepResult, TimeLimit, Wrapper


@pytest.mark.parametrize("bad", [0, -1])
def test_limit_must_be_at_least_one(env: Any, bad: int) -> None:
    with pytest.raises(ValueError, match=f"got {bad}"):
        TimeLimit(env, bad)


@pytest.mark.parametrize("bad", [1.5, "3", True, None])
def test_limit_must_be_an_int(env: Any, bad: Any) -> None:
    with pytest.raises(TypeError, match="max_episode_steps"):
        TimeLimit(env, bad)


def test_truncates_at_the_limit_and_counts_steps(counter_env_cls: Any) -> None:
    env = TimeLimit(counter_env_cls(length=100), 3)
    env.reset(seed=0)
    results = [env.step(0) for _ in range(3)]
    assert [r.truncated for r in results] == [False, False, True]
    assert [r.terminated for r in results] == [False, False, False]
    assert [r.info["elapsed_steps"] for r in results] == [1, 2, 3]
    assert env.max_episode_steps == 3
    assert env.elapsed_steps == 3


def test_reset_restarts_the_count(counter_env_cls: Any) -> None:
    env = TimeLimit(counter_env_cls(length=100), 2)
    env.reset()
    env.step(0)
    env.step(0)
    env.reset()
    assert env.elapsed_steps == 0
    result = env.step(0)
    assert result.info["elapsed_steps"] == 1
    assert not result.truncated


def test_termination_on_the_last_step_is_not_turned_into_truncation(counter_env_cls: Any) -> None:
    env = TimeLimit(counter_env_cls(length=2), 2)
    env.reset()
    env.step(0)
    last = env.step(0)
    assert last.terminated is True
    assert last.truncated is False


def test_termination_before_the_limit_passes_through(counter_env_cls: Any) -> None:
    env = TimeLimit(counter_env_cls(length=1), 5)
    env.reset()
    result = env.step(0)
    assert (result.terminated, result.truncated) == (True, False)


def test_info_of_the_env_is_not_mutated(counter_env_cls: Any) -> None:
    inner = counter_env_cls(length=100)
    inner.info = {"shared": True}
    env = TimeLimit(inner, 5)
    env.reset()
    result = env.step(0)
    assert result.info == {"shared": True, "elapsed_steps": 1}
    assert inner.info == {"shared": True}


def test_async_path_counts_and_truncates(counter_env_cls: Any) -> None:
    env = TimeLimit(counter_env_cls(length=100), 2)

    async def run() -> list[StepResult[int]]:
        await env.async_reset(seed=0)
        first = [await env.async_step(0), await env.async_step(0)]
        await env.async_reset()
        return [*first, await env.async_step(0)]

    results = asyncio.run(run())
    assert [r.truncated for r in results] == [False, True, False]
    assert [r.info["elapsed_steps"] for r in results] == [1, 2, 1]


class AutoReset(Wrapper[Any, Any, Any, Any]):
    """Stand-in for the real AutoReset: its name is in the warning, its flag triggers it."""

    _resets_itself: ClassVar[bool] = True


class SelfResetting(Wrapper[Any, Any, Any, Any]):
    _resets_itself: ClassVar[bool] = True


@pytest.mark.parametrize("layer", [AutoReset, SelfResetting])
def test_warns_when_built_around_an_autoreset(env: Any, layer: Any) -> None:
    with pytest.warns(UserWarning, match=r"AutoReset\(TimeLimit"):
        TimeLimit(Wrapper(layer(env)), 10)


def test_no_warning_in_the_right_order(env: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AutoReset(TimeLimit(env, 10))
        TimeLimit(Wrapper(env), 10)


def test_timelimit_is_part_of_the_stack(env: Any) -> None:
    limited = TimeLimit(env, 4)
    assert list(limited) == [limited, env]
    assert str(limited) == "<TimeLimit<CounterEnv>>"
    assert Wrapper(limited).get_attr("max_episode_steps") == 4


def test_get_attr_reaches_private_state(env: Any) -> None:
    limited = TimeLimit(env, 4)
    limited.reset()
    limited.step(0)
    outer = Wrapper(limited)
    assert outer.get_attr("_elapsed_steps") == 1
    with pytest.raises(AttributeError, match="private"):
        _ = outer._elapsed_steps


def test_the_limit_can_be_changed_through_the_stack(counter_env_cls: Any) -> None:
    env = Wrapper(TimeLimit(counter_env_cls(length=100), 2))
    env.set_attr("max_episode_steps", 4)
    assert env.get_attr("max_episode_steps") == 4
    env.reset()
    assert [env.step(0).truncated for _ in range(4)] == [False, False, False, True]
    env.reset()
    env.step(0)
    env.step(0)
    env.set_attr("max_episode_steps", 1)  # already past it: the next step truncates
    assert env.step(0).truncated
    for bad, error in ((0, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="max_episode_steps must be an int >= 1"):
            env.set_attr("max_episode_steps", bad)
    assert env.get_attr("max_episode_steps") == 1
