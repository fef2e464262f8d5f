"""MultiAgentEnv."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.utils.seeding import SeededRNG


class Market(MultiAgentEnv[float, int, str]):
    def __init__(self) -> None:
        self.possible_agents = ["maker", "taker", "observer"]
        self.agents = ["maker", "taker"]
        self.observation_spaces = {"maker": "maker-obs", "taker": "taker-obs"}  # type: ignore[dict-item]
        self.action_spaces = {"maker": "maker-act", "taker": "taker-act"}  # type: ignore[dict-item]
        self.closed = False

    def reset(self, *, seed: Any = None, options: Any = None) -> MAResetResult[float, str]:
        self._set_rng(seed)
        self.agents = ["maker", "taker"]
        return MAResetResult(
            {a: float(self.rng.random()) for a in self.agents}, {a: {} for a in self.agents}
        )

    def step(self, actions: dict[str, int]) -> MAStepResult[float, str]:
        self.agents = ["maker"]
        return MAStepResult(
            {"maker": 0.0},
            {a: float(v) for a, v in actions.items()},
            {"maker": False, "taker": True},
            {"maker": False, "taker": False},
            {"maker": {}, "taker": {}},
        )

    def close(self) -> None:
        self.closed = True


def test_multi_agent_env_is_abstract() -> None:
    with pytest.raises(TypeError, match="abstract"):
        MultiAgentEnv()  # type: ignore[abstract]


def test_agent_counts_follow_the_lists() -> None:
    env = Market()
    assert isinstance(env, SeededRNG)
    assert (env.num_agents, env.max_num_agents) == (2, 3)
    result = env.step({"maker": 1, "taker": 2})
    assert result.any_done and not result.all_done
    assert env.num_agents == 1
    assert env.max_num_agents == 3


def test_per_agent_spaces_come_from_the_dicts() -> None:
    env = Market()
    assert env.observation_space("maker") == "maker-obs"
    assert env.action_space("taker") == "taker-act"
    with pytest.raises(KeyError, match="'observer'"):
        env.observation_space("observer")


def test_missing_space_dicts_say_what_to_do() -> None:
    class NoSpaces(Market):
        def __init__(self) -> None:
            self.agents = self.possible_agents = ["a"]

    with pytest.raises(NotImplementedError, match="observation_spaces"):
        NoSpaces().observation_space("a")
    with pytest.raises(NotImplementedError, match="action_spaces"):
        NoSpaces().action_space("a")


def test_seeding_works_as_for_env() -> None:
    env = Market()
    first = env.reset(seed=11).observations
    assert env.reset(seed=11).observations == first
    generator = env.rng
    assert env.reset().observations != first
    assert env.rng is generator
    gen = np.random.default_rng(0)
    env.reset(seed=gen)
    assert env.rng is gen


def test_async_defaults_and_close() -> None:
    env = Market()

    async def run() -> tuple[Any, Any]:
        return await env.async_reset(seed=1), await env.async_step({"maker": 3})

    reset, step = asyncio.run(run())
    assert reset.observations == Market().reset(seed=1).observations
    assert step.rewards == {"maker": 3.0}
    with env:
        pass
    assert env.closed


def test_str_and_metadata() -> None:
    env = Market()
    assert str(env) == "<Market>"
    env.spec = SimpleNamespace(id="Market-v0")  # type: ignore[assignment]
    assert repr(env) == "<Market<Market-v0>>"
    Market.metadata["x"] = 1
    assert MultiAgentEnv.metadata == {}
