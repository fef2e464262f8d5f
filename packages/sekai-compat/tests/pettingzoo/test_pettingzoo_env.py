"""to_pettingzoo / from_pettingzoo, checked by PettingZoo's parallel_api_test."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.test.example_envs import generated_agents_parallel_v0

import sekai.registry
from sekai.compat import from_pettingzoo, to_pettingzoo
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.spaces import Box, Discrete

REFERENCE_ID = "MarketMicrostructure-v0"


def test_parallel_api_test_passes_on_the_multi_agent_reference_env(
    capsys: pytest.CaptureFixture[str], reference_envs: None
) -> None:
    env = to_pettingzoo(sekai.registry.make(REFERENCE_ID))
    assert isinstance(env, pettingzoo.ParallelEnv)
    parallel_api_test(env, num_cycles=300)
    assert "Passed Parallel API test" in capsys.readouterr().out
    env.close()


def test_parallel_api_test_passes_on_an_env_whose_agents_drop_out(
    capsys: pytest.CaptureFixture[str], duel_env: Any
) -> None:
    parallel_api_test(to_pettingzoo(duel_env), num_cycles=300)
    assert "Passed Parallel API test" in capsys.readouterr().out


def test_parallel_api_test_passes_on_a_round_trip(
    capsys: pytest.CaptureFixture[str], duel_env: Any
) -> None:
    env = to_pettingzoo(from_pettingzoo(to_pettingzoo(duel_env)))
    parallel_api_test(env, num_cycles=300)
    assert "Passed Parallel API test" in capsys.readouterr().out


def test_spaces_and_agents(reference_envs: None) -> None:
    sekai_env = sekai.registry.make(REFERENCE_ID)
    env = to_pettingzoo(sekai_env)
    assert env.possible_agents == ["market_maker", "trader"]
    assert env.action_space("trader") == gymnasium.spaces.Discrete(3)
    assert isinstance(env.observation_space("market_maker"), gymnasium.spaces.Box)
    assert env.observation_spaces["trader"] is env.observation_space("trader")
    assert env.metadata["name"] == REFERENCE_ID
    observations, infos = env.reset(seed=0)
    assert env.agents == ["market_maker", "trader"]
    assert set(observations) == set(infos) == set(env.agents)
    sekai_env.agents = ["trader"]  # the adapter reads the live list
    assert env.agents == ["trader"]


def test_results_become_pettingzoo_dicts_and_seeds_pass_through(duel_env: Any) -> None:
    env = to_pettingzoo(duel_env)
    reference = type(duel_env)()
    observations, infos = env.reset(seed=4, options={"mode": "x"})
    assert duel_env.last_options == {"mode": "x"}
    expected = reference.reset(seed=4)
    _assert_equal(observations, expected.observations)
    assert infos == expected.info
    for agent in env.possible_agents:
        env.action_space(agent).seed(1)
    for _ in range(20):
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        step = env.step(actions)
        result = reference.step(actions)
        assert isinstance(step, tuple) and len(step) == 5
        _assert_equal(step[0], result.observations)
        assert step[1:4] == (result.rewards, result.terminated, result.truncated)
        _assert_equal(step[4], result.info)


@pytest.mark.parametrize("reference", [False, True], ids=["DuelEnv", REFERENCE_ID])
def test_round_trip_preserves_trajectories(
    reference: bool, request: pytest.FixtureRequest, duel_env: Any
) -> None:
    if reference:
        request.getfixturevalue("reference_envs")
        through = from_pettingzoo(to_pettingzoo(sekai.registry.make(REFERENCE_ID)))
        direct = sekai.registry.make(REFERENCE_ID)
    else:
        through = from_pettingzoo(to_pettingzoo(duel_env))
        direct = type(duel_env)()
    assert isinstance(through, MultiAgentEnv)
    assert through.possible_agents == direct.possible_agents
    for agent in direct.possible_agents:
        assert through.observation_space(agent) == direct.observation_space(agent)
        assert through.action_space(agent) == direct.action_space(agent)
        direct.action_space(agent).seed(7)
    for seed in [0, None, 3]:
        a, b = through.reset(seed=seed), direct.reset(seed=seed)
        assert isinstance(a, MAResetResult)
        _assert_equal(a.observations, b.observations)
        while not b.all_done:
            actions = {agent: direct.action_space(agent).sample() for agent in direct.agents}
            a, b = through.step(actions), direct.step(actions)
            assert isinstance(a, MAStepResult)
            _assert_equal(a.observations, b.observations)
            assert (a.rewards, a.terminated, a.truncated) == (b.rewards, b.terminated, b.truncated)
            _assert_equal(a.info, b.info)
            assert through.agents == direct.agents
        assert a.all_done


def _assert_equal(x: Any, y: Any) -> None:
    if isinstance(x, dict):
        assert isinstance(y, dict) and set(x) == set(y)
        for key in x:
            _assert_equal(x[key], y[key])
    else:
        np.testing.assert_array_equal(x, y)


class _Closing:
    def __init__(self) -> None:
        self.frames: list[Any] = []

    def render(self, env: Any) -> np.ndarray:
        self.frames.append(env)
        return np.zeros((2, 2, 3), np.uint8)


def test_render_state_and_close(duel_env: Any) -> None:
    sekai_env = duel_env
    renderer = _Closing()
    env = to_pettingzoo(sekai_env, renderer=renderer)
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=0)
    assert env.render().shape == (2, 2, 3)
    assert renderer.frames == [sekai_env]
    with pytest.raises(NotImplementedError, match="state"):
        env.state()
    env.close()
    assert sekai_env.closed == 1
    assert to_pettingzoo(type(duel_env)()).render() is None


def test_render_mode_builds_the_default_renderer(duel_env: Any) -> None:
    made: list[_Closing] = []

    def factory() -> _Closing:
        made.append(_Closing())
        return made[-1]

    duel_type = type(duel_env)
    env_type = type(
        "DuelEnv", (duel_type,), {"metadata": {**duel_type.metadata, "renderer": factory}}
    )
    env = to_pettingzoo(env_type())
    assert env.render_mode is None and made == [] and env.metadata["render_modes"] == []
    env = to_pettingzoo(env_type(), render_mode="rgb_array")
    assert env.renderer is made[0] and env.metadata["render_modes"] == ["rgb_array"]
    assert "renderer" not in env.metadata
    env.reset(seed=0)
    assert env.render().shape == (2, 2, 3)


def test_render_mode_draws_the_order_book_market(reference_envs: None) -> None:
    pytest.importorskip("PIL", reason="the market renderers draw with Pillow")
    from sekai.envs import LimitOrderBookMarket

    env = to_pettingzoo(LimitOrderBookMarket(), render_mode="rgb_array")
    observations, _ = env.reset(seed=0)
    env.step({agent: env.action_space(agent).sample() for agent in observations})
    frame = env.render()
    assert frame.shape == (env.renderer.height, env.renderer.width, 3)
    assert frame.dtype == np.uint8
    env.close()


def test_bad_arguments_are_refused(duel_env: Any, rich_env: Any) -> None:
    with pytest.raises(TypeError, match="expected a sekai MultiAgentEnv"):
        to_pettingzoo(rich_env)
    with pytest.raises(ValueError, match="needs a renderer, and DuelEnv declares no default one"):
        to_pettingzoo(duel_env, render_mode="rgb_array")
    with pytest.raises(TypeError, match=r"expected a pettingzoo\.ParallelEnv"):
        from_pettingzoo(object())


def test_from_pettingzoo_follows_agents_that_appear_during_an_episode() -> None:
    source = generated_agents_parallel_v0.parallel_env(max_cycles=40)
    env = from_pettingzoo(source)
    assert env.agents == []  # before the first reset
    result = env.reset(seed=0)
    assert set(result.observations) == set(env.agents)
    seen = set(env.agents)
    for _ in range(40):
        for agent in env.agents:
            env.action_space(agent).seed(0)
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        result = env.step(actions)
        for agent, observation in result.observations.items():
            assert env.observation_space(agent).contains(observation)
        assert all(type(reward) is float for reward in result.rewards.values())
        seen |= set(env.agents)
        if result.all_done:
            break
    assert len(seen) > 5  # agents were added on the way
    np.testing.assert_array_equal(env.state(), source.state())  # type: ignore[attr-defined]


class _TinyParallel(pettingzoo.ParallelEnv[str, np.ndarray, int]):
    metadata = {"name": "tiny"}  # noqa: RUF012

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.spaces = {
            agent: gymnasium.spaces.Box(0.0, 1.0, (2,)) for agent in self.possible_agents
        }
        self.seeds: list[Any] = []
        self.closed = False

    def observation_space(self, agent: str) -> Any:
        return self.spaces[agent]

    def action_space(self, agent: str) -> Any:
        return gymnasium.spaces.Discrete(2)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self.seeds.append(seed)
        self.agents = list(self.possible_agents)
        return {agent: np.zeros(2, np.float32) for agent in self.agents}, {
            agent: {} for agent in self.agents
        }

    def step(self, actions: dict[str, int]) -> Any:
        observations = {agent: np.ones(2, np.float32) for agent in self.agents}
        rewards = {agent: np.float32(actions[agent]) for agent in self.agents}
        flags = {agent: np.bool_(True) for agent in self.agents}
        self.agents = []
        return observations, rewards, flags, dict(flags), {agent: {} for agent in observations}

    def close(self) -> None:
        self.closed = True


def test_from_pettingzoo_converts_results_seeds_and_close() -> None:
    source = _TinyParallel()
    env = from_pettingzoo(source)
    assert env.observation_space("a") == Box(0.0, 1.0, (2,))
    assert env.action_space("b") == Discrete(2)
    assert env.observation_space("a") is env.observation_space("a")
    env.reset(seed=3)
    env.reset(seed=np.random.default_rng(0))
    env.reset()
    assert source.seeds[0] == 3 and isinstance(source.seeds[1], int) and source.seeds[2] is None
    result = env.step({"a": 1, "b": 0})
    assert result.rewards == {"a": 1.0, "b": 0.0}
    assert type(result.rewards["a"]) is float and type(result.terminated["a"]) is bool
    assert result.all_done and env.agents == []
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed=1.5)  # type: ignore[arg-type]
    env.close()
    assert source.closed
