"""from_gymnasium: a sekai Env over a gymnasium.Env, in sekai's checker and vector backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import sekai.registry
import sekai.vector
from sekai.compat import from_gymnasium, to_gymnasium
from sekai.core import Env
from sekai.spaces import Box, Discrete, Sequence
from sekai.utils.checker import check_env
from sekai.utils.seeding import make_seed_sequence, np_random


def _balance(observation: Any) -> int:
    # Keeps the pole up for long stretches, so episodes reach the time limit too.
    return int(observation[2] + 0.5 * observation[3] > 0)


def test_gymnasium_cartpole_matches_sekai_cartpole_step_for_step(reference_envs: None) -> None:
    ported = from_gymnasium(gymnasium.make("CartPole-v1"))
    native = sekai.registry.make("CartPole-v1")
    rng = np.random.default_rng(0)
    truncations = 0
    for episode, seed in enumerate([0, 1, 2, None, 7]):
        a, b = ported.reset(seed=seed), native.reset(seed=seed)
        np.testing.assert_array_equal(a.observation, b.observation)
        while not a.done:
            noisy = rng.random() < (0.05 if episode % 2 else 0.5)
            action = int(rng.integers(2)) if noisy else _balance(a.observation)
            a, b = ported.step(action), native.step(action)
            np.testing.assert_array_equal(a.observation, b.observation)
            assert (a.reward, a.terminated, a.truncated) == (b.reward, b.terminated, b.truncated)
            assert b.done == a.done
        truncations += a.truncated
    assert truncations >= 1  # the time limit was exercised too


def test_sekai_check_env_passes() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    assert check_env(env, check_determinism=True) == []


def test_results_and_spaces_are_sekai_types() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    assert isinstance(env, Env)
    assert isinstance(env.observation_space, Box) and env.observation_space.shape == (4,)
    assert env.action_space == Discrete(2)
    reset = env.reset(seed=0)
    assert reset.info == {}
    step = env.step(1)
    assert type(step.reward) is float and type(step.terminated) is bool
    assert type(step.truncated) is bool


class _Recorder(gymnasium.Env[np.ndarray, np.int64]):
    """A tiny Gymnasium env recording seeds, options and close calls."""

    def __init__(self) -> None:
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(2)
        self.options: list[Any] = []
        self.closed = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.options.append(options)
        return self.np_random.uniform(-1, 1, 2).astype(np.float32), {}

    def step(self, action: np.int64) -> tuple[np.ndarray, Any, Any, Any, dict[str, Any]]:
        observation = self.np_random.uniform(-1, 1, 2).astype(np.float32)
        return observation, np.float32(0.5), np.bool_(False), np.bool_(False), {"a": int(action)}

    def close(self) -> None:
        self.closed += 1


def test_seeding_follows_sekai_contract() -> None:
    gym_env = _Recorder()
    env = from_gymnasium(gym_env)
    first = env.reset(seed=4).observation
    assert env.rng is gym_env.np_random
    # an int seed builds the generator sekai itself builds from it
    expected = np_random(4)[0].uniform(-1, 1, 2).astype(np.float32)
    np.testing.assert_array_equal(first, expected)
    continued = env.reset().observation
    assert not np.array_equal(first, continued)
    generator = np.random.default_rng(9)
    env.reset(seed=generator)
    assert gym_env.np_random is generator and env.rng is generator
    with pytest.raises(TypeError, match="seed must be an int"):
        env.reset(seed="4")  # type: ignore[arg-type]


def test_options_pass_through_and_close_closes() -> None:
    gym_env = _Recorder()
    env = from_gymnasium(gym_env)
    env.reset(seed=0, options={"x": 1})
    env.reset()
    assert gym_env.options == [{"x": 1}, None]
    step = env.step(np.int64(1))
    assert (step.reward, step.terminated, step.truncated, step.info) == (
        0.5,
        False,
        False,
        {"a": 1},
    )
    env.close()
    assert gym_env.closed == 1


def test_spec_is_carried_over_and_remakes_the_env() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    assert env.spec is not None
    assert (env.spec.id, env.spec.max_episode_steps, env.spec.reward_threshold) == (
        "CartPole-v1",
        500,
        475.0,
    )
    remade = sekai.registry.make(env.spec, max_episode_steps=2)
    remade.reset(seed=0)
    assert [remade.step(0).truncated, remade.step(0).truncated] == [False, True]
    assert from_gymnasium(_Recorder()).spec is None


def test_sequence_spaces_need_a_bound() -> None:
    class SequenceEnv(_Recorder):
        def __init__(self) -> None:
            super().__init__()
            self.observation_space = gymnasium.spaces.Sequence(gymnasium.spaces.Discrete(3))

    with pytest.raises(ValueError, match=r"observation_space = Sequence.*max_sequence_length"):
        from_gymnasium(SequenceEnv())
    env = from_gymnasium(SequenceEnv(), max_sequence_length=8)
    assert env.observation_space == Sequence(Discrete(3), max_length=8)


def test_non_env_is_refused() -> None:
    with pytest.raises(TypeError, match=r"expected a gymnasium\.Env.*without 'reset'"):
        from_gymnasium(42)


def test_round_trip_preserves_trajectories(single_agent_id: str) -> None:
    through = from_gymnasium(to_gymnasium(sekai.registry.make(single_agent_id)))
    direct = sekai.registry.make(single_agent_id)
    _assert_same_trajectories(through, direct, seeds=[3, None, 5], max_steps=300)


def test_round_trip_preserves_trajectories_with_composite_spaces(rich_env: Any) -> None:
    through = from_gymnasium(to_gymnasium(rich_env))
    direct = type(rich_env)()
    assert through.observation_space == direct.observation_space
    assert through.action_space == direct.action_space
    _assert_same_trajectories(through, direct, seeds=[0, None, 1], max_steps=100)


def _assert_same_trajectories(
    through: Env[Any, Any], direct: Env[Any, Any], *, seeds: list[Any], max_steps: int
) -> None:
    actions = direct.action_space
    actions.seed(123)
    for seed in seeds:
        a, b = through.reset(seed=seed), direct.reset(seed=seed)
        _assert_equal(a.observation, b.observation)
        assert a.info.keys() == b.info.keys()
        for _ in range(max_steps):
            action = actions.sample()
            a, b = through.step(action), direct.step(action)
            _assert_equal(a.observation, b.observation)
            assert (a.reward, a.terminated, a.truncated) == (b.reward, b.terminated, b.truncated)
            _assert_equal(a.info, b.info)
            if b.done:
                break


def _assert_equal(x: Any, y: Any) -> None:
    if isinstance(x, dict):
        assert isinstance(y, dict) and list(x) == list(y)
        for key in x:
            _assert_equal(x[key], y[key])
    elif isinstance(x, (tuple, list)):
        assert type(x) is type(y) and len(x) == len(y)
        for a, b in zip(x, y, strict=True):
            _assert_equal(a, b)
    else:
        np.testing.assert_array_equal(x, y)


def _backends() -> list[Any]:
    backends: list[Any] = [sekai.vector.SyncVecEnv, sekai.vector.AsyncVecEnv]
    proc = getattr(sekai.vector, "ProcVecEnv", None)
    backends.append(
        proc
        if proc is not None
        else pytest.param(None, marks=pytest.mark.skip(reason="ProcVecEnv is not available"))
    )
    return backends


def _gym_cartpole() -> Env[Any, Any]:
    return from_gymnasium(gymnasium.make("CartPole-v1"))


def _gym_cartpole_factory() -> Callable[[], Env[Any, Any]]:
    # A local function travels to ProcVecEnv's workers by value (cloudpickle);
    # a function of this test module would be looked up by a module name the
    # workers cannot import.
    def make() -> Env[Any, Any]:
        return from_gymnasium(gymnasium.make("CartPole-v1"))

    return make


@pytest.mark.parametrize("backend", _backends())
def test_gymnasium_envs_run_in_every_vector_backend(backend: Callable[..., Any]) -> None:
    n = 3
    vec = backend([_gym_cartpole_factory()] * n)
    # The reference: the same Gymnasium envs stepped one by one, reset by hand.
    envs = [_gym_cartpole() for _ in range(n)]
    try:
        batch = vec.reset(seed=42)
        for index, (env, seed) in enumerate(zip(envs, make_seed_sequence(42, n), strict=True)):
            expected = env.reset(seed=seed).observation
            np.testing.assert_array_equal(batch.observations[index], expected)
        rng = np.random.default_rng(1)
        finished = 0
        for _ in range(150):
            actions = rng.integers(0, 2, n)
            batch = vec.step(actions)
            for index, env in enumerate(envs):
                result = env.step(actions[index])
                assert batch.rewards[index] == result.reward
                assert batch.terminated[index] == result.terminated
                assert batch.truncated[index] == result.truncated
                info = batch.infos[index]
                if result.done:
                    finished += 1
                    np.testing.assert_array_equal(info["final_observation"], result.observation)
                    expected = env.reset().observation
                else:
                    assert "final_observation" not in info
                    expected = result.observation
                np.testing.assert_array_equal(batch.observations[index], expected)
        assert finished > 3  # autoreset happened on the way
    finally:
        vec.close()
