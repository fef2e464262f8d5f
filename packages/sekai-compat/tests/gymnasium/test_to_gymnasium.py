"""to_gymnasium: a gymnasium.Env over a sekai env, checked by Gymnasium's own checker."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sekai.registry
from sekai.compat import to_gymnasium
from sekai.core import Env


def test_gymnasium_check_env_passes_on_every_registered_env(single_agent_id: str) -> None:
    env = to_gymnasium(sekai.registry.make(single_agent_id))
    assert isinstance(env, gymnasium.Env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. warnings about unbounded boxes
        check_env(env)
    env.close()


def test_the_reference_envs_are_checked(single_agent_ids: list[str], reference_envs: None) -> None:
    assert {"CartPole-v1", "Portfolio-v0"} <= set(single_agent_ids)
    assert "MarketMicrostructure-v0" not in single_agent_ids


def test_gymnasium_check_env_passes_with_composite_spaces_and_a_renderer(
    rich_env: Any, renderer: Any
) -> None:
    env = to_gymnasium(rich_env, renderer=renderer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env)
    assert renderer.calls


def test_results_become_gymnasium_tuples(info_env_type: Any) -> None:
    env = to_gymnasium(info_env_type())
    reference = info_env_type()
    observation, info = env.reset(seed=3)
    expected = reference.reset(seed=3)
    _assert_equal(observation, expected.observation)
    assert info == expected.info
    for action in [0, 1, 2, 0, 1, 2, 2, 1]:
        step = env.step(action)
        result = reference.step(action)
        assert isinstance(step, tuple) and len(step) == 5
        _assert_equal(step[0], result.observation)
        assert step[1:4] == (result.reward, result.terminated, result.truncated)
        _assert_equal(step[4], result.info)


def _assert_equal(x: Any, y: Any) -> None:
    if isinstance(x, dict):
        assert isinstance(y, dict) and list(x) == list(y)
        for key in x:
            _assert_equal(x[key], y[key])
    else:
        np.testing.assert_array_equal(x, y)


def test_seed_and_options_pass_through(rich_env: Any) -> None:
    env = to_gymnasium(rich_env)
    first, _ = env.reset(seed=11, options={"level": 2})
    assert rich_env.last_options == {"level": 2}
    second, _ = env.reset(seed=11)
    assert rich_env.last_options is None
    np.testing.assert_array_equal(first["price"], second["price"])
    third, _ = env.reset(seed=12)
    assert not np.array_equal(first["price"], third["price"])
    assert env.np_random is rich_env.rng
    assert env.np_random_seed == 12


def test_reference_env_options_pass_through(reference_envs: None) -> None:
    cartpole = to_gymnasium(sekai.registry.make("CartPole-v1"))
    observation, _ = cartpole.reset(seed=0, options={"low": 0.02, "high": 0.02})
    np.testing.assert_allclose(observation, 0.02)


def test_gymnasium_np_random_is_the_sekai_generator(rich_env: Any) -> None:
    env = to_gymnasium(rich_env)
    generator = np.random.default_rng(5)
    env.np_random = generator
    assert rich_env.rng is generator


def test_close_closes_the_sekai_env(rich_env: Any) -> None:
    env = to_gymnasium(rich_env)
    env.close()
    assert rich_env.closed == 1


def test_spec_id_is_carried_over_and_remakes_the_env(registered_rich_id: str) -> None:
    env = to_gymnasium(sekai.registry.make(registered_rich_id))
    assert env.spec is not None
    assert env.spec.id == registered_rich_id
    assert env.spec.max_episode_steps == 3
    assert env.spec.reward_threshold == 9.5
    remade = gymnasium.make(env.spec)
    assert remade.unwrapped.sekai_env.spec.id == registered_rich_id
    assert remade.spec is not None and remade.spec.max_episode_steps == 3
    remade.close()


@pytest.mark.filterwarnings("ignore:.*render fps")
def test_remade_env_keeps_the_time_limit_and_the_renderer(
    registered_rich_id: str, renderer: Any
) -> None:
    sekai_env = sekai.registry.make(registered_rich_id, horizon=100)
    env = to_gymnasium(sekai_env, renderer=renderer)
    remade = gymnasium.make(env.spec, render_mode="rgb_array")
    assert remade.unwrapped.sekai_env.unwrapped.horizon == 100  # the kwargs came along
    for seed in range(20):
        remade.reset(seed=seed)
        flags = []
        for _ in range(3):
            _, _, terminated, truncated, _ = remade.step(remade.action_space.sample())
            flags.append(truncated)
            if terminated:
                break
        if not terminated:
            assert flags == [False, False, True]
            break
    else:
        pytest.fail("every episode terminated before the time limit")
    assert remade.render().shape == (4, 6, 3)
    assert renderer.calls == [remade.unwrapped.sekai_env]


def test_env_without_spec_has_none(rich_env: Any) -> None:
    assert to_gymnasium(rich_env).spec is None


def test_render_uses_the_renderer(rich_env: Any, renderer: Any) -> None:
    env = to_gymnasium(rich_env, renderer=renderer)
    assert env.render_mode == "rgb_array"
    assert env.metadata["render_modes"] == ["rgb_array"]
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (4, 6, 3)
    assert renderer.calls == [rich_env]


def test_render_mode_is_declared_as_given(rich_env: Any, renderer: Any) -> None:
    env = to_gymnasium(rich_env, renderer=renderer, render_mode="human")
    assert env.render_mode == "human"
    assert env.metadata["render_modes"] == ["human"]


def test_without_renderer_there_is_nothing_to_render(rich_env: Any) -> None:
    env = to_gymnasium(rich_env)
    assert env.render_mode is None
    assert env.metadata["render_modes"] == []
    assert env.render() is None


def test_render_mode_without_renderer_is_refused(rich_env: Any) -> None:
    with pytest.raises(ValueError, match="render_mode='rgb_array' needs a renderer"):
        to_gymnasium(rich_env, render_mode="rgb_array")


def test_renderer_without_render_is_refused(rich_env: Any) -> None:
    with pytest.raises(TypeError, match="render"):
        to_gymnasium(rich_env, renderer=object())  # type: ignore[arg-type]


def test_non_env_is_refused() -> None:
    with pytest.raises(TypeError, match="expected a sekai Env, got 'CartPole'"):
        to_gymnasium("CartPole")  # type: ignore[arg-type]


def test_unconvertible_space_names_the_observation_space() -> None:
    from sekai.spaces import Discrete, Space

    class Custom(Space[int]):
        pass

    class Odd(Env[Any, Any]):
        def __init__(self) -> None:
            self.observation_space = Custom()
            self.action_space = Discrete(2)

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            raise NotImplementedError

        def step(self, action: Any) -> Any:
            raise NotImplementedError

    with pytest.raises(TypeError, match="observation_space = "):
        to_gymnasium(Odd())
