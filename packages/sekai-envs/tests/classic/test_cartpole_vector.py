"""The native CartPole vector env against N single envs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs._registration import register_envs
from sekai.envs.cartpole import RESET_HIGH, RESET_LOW, CartPoleEnv
from sekai.envs.cartpole_vector import CartPoleVecEnv
from sekai.error import InvalidAction
from sekai.registry import EnvRegistry
from sekai.utils.seeding import make_seed_sequence


def _registry() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    return registry


@pytest.mark.parametrize("sutton_barto", [False, True])
def test_exactly_identical_given_the_same_states(sutton_barto: bool) -> None:
    n = 16
    rng = np.random.default_rng(0)
    vec = CartPoleVecEnv(n, autoreset=False, sutton_barto_reward=sutton_barto)
    singles = [CartPoleEnv(sutton_barto_reward=sutton_barto) for _ in range(n)]
    vec.reset(seed=0)
    for env in singles:
        env.reset(seed=0)
    for _ in range(4):
        start = rng.uniform(-0.15, 0.15, size=(n, 4))
        vec.reset()
        vec.state = start
        for i, env in enumerate(singles):
            env.state = start[i]
        alive = np.ones(n, dtype=bool)
        for _ in range(60):
            actions = rng.integers(0, 2, size=n)
            result = vec.step(actions)
            for i in np.flatnonzero(alive):
                step = singles[i].step(int(actions[i]))
                np.testing.assert_array_equal(result.observations[i], step.observation)
                assert result.rewards[i] == step.reward
                assert result.terminated[i] == step.terminated
                assert not result.truncated[i]
                np.testing.assert_array_equal(vec.state[i], singles[i].state)
            alive &= ~result.terminated
        assert not alive.all()  # some episodes ended on the way


@pytest.mark.parametrize("n", [1, 3])
def test_sub_env_i_starts_as_the_single_env_seeded_with_its_derived_seed(n: int) -> None:
    for seed in range(5):
        vec = CartPoleVecEnv(n)
        observations = vec.reset(seed=seed).observations
        for i, sub_seed in enumerate(make_seed_sequence(seed, n)):
            single = CartPoleEnv()
            np.testing.assert_array_equal(observations[i], single.reset(seed=sub_seed).observation)
            np.testing.assert_array_equal(vec.state[i], single.state)


def _play(vec: Any, resets: list[dict[str, Any]], steps: int = 45) -> list[Any]:
    """Reset with each keyword set in turn, then step with random actions; the whole trace."""
    rng = np.random.default_rng(7)
    trace: list[Any] = []
    for kwargs in resets:
        trace.append(vec.reset(**kwargs).observations)
        for _ in range(steps):
            result = vec.step(rng.integers(0, 2, size=vec.num_envs))
            trace += [result.observations, result.rewards, result.terminated, result.truncated]
            trace += [
                info["final_observation"] for info in result.infos if "final_observation" in info
            ]
    return trace


def _assert_same_traces(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_reset_options_between_autoresets_match_sync() -> None:
    # Initial states are drawn ahead: a reset with other bounds must still take the
    # next draws of the sub-env's stream, and the autoresets after it the ones after.
    registry = _registry()
    bounds = {"low": 0.1, "high": 0.2}
    resets = [
        {"seed": 1},
        {"options": [bounds, None, {}, {"low": RESET_LOW, "high": RESET_HIGH}]},
        {"options": bounds},
        {},
    ]
    traces = [
        _play(registry.make_vec("CartPole-v1", 4, vectorization_mode=mode), resets)
        for mode in ("sync", "native")
    ]
    _assert_same_traces(*traces)


def test_rngs_are_handed_out_at_their_exact_positions() -> None:
    registry = _registry()
    native = registry.make_vec("CartPole-v1", 3)
    sync = registry.make_vec("CartPole-v1", 3, vectorization_mode="sync")
    adopted = [np.random.default_rng(3), np.random.default_rng(3)]
    traces: list[list[Any]] = [[], []]
    for k, vec in enumerate((native, sync)):
        traces[k] += _play(vec, [{"seed": [adopted[k], 4, 6]}])
    rngs = (native.rngs, sync.get_attr("rng"))
    for a, b in zip(*rngs, strict=True):
        assert a.bit_generator.state == b.bit_generator.state
        assert a.random() == b.random()  # a draw from outside shifts both streams alike
    for k, vec in enumerate((native, sync)):
        traces[k] += _play(vec, [{}, {"seed": 9}])  # re-seeding replaces the adopted one
    _assert_same_traces(*traces)
    assert adopted[0].bit_generator.state == adopted[1].bit_generator.state
    sync.close()


def test_hundreds_of_resets_cross_the_blocks_drawn_ahead() -> None:
    registry = _registry()
    native = registry.make_vec("CartPole-v1", 2)
    sync = registry.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    native.reset(seed=3)
    sync.reset(seed=3)
    for _ in range(300):  # more resets than the native env draws ahead at once
        np.testing.assert_array_equal(native.reset().observations, sync.reset().observations)
    for a, b in zip(native.rngs, sync.get_attr("rng"), strict=True):
        assert a.bit_generator.state == b.bit_generator.state
    sync.close()


def test_one_generator_for_several_sub_envs_matches_sync() -> None:
    registry = _registry()
    traces = []
    for mode in ("sync", "native"):
        shared = np.random.default_rng(5)
        vec = registry.make_vec("CartPole-v1", 3, vectorization_mode=mode)
        traces.append(_play(vec, [{"seed": [shared, 2, shared]}, {}, {"seed": 4}]))
    _assert_same_traces(*traces)


def test_reset_distribution_and_options() -> None:
    vec = CartPoleVecEnv(500)
    obs = vec.reset(seed=3).observations
    assert obs.shape == (500, 4) and obs.dtype == np.float32
    assert obs.min() >= -0.05 and obs.max() <= 0.05
    np.testing.assert_allclose(obs.std(axis=0), 0.1 / math.sqrt(12), rtol=0.1)
    options = [{"low": 0.1, "high": 0.2} if i % 2 else None for i in range(500)]
    obs = vec.reset(options=options).observations
    assert np.all((obs[1::2] >= 0.1) & (obs[1::2] <= 0.2))
    assert np.all(np.abs(obs[::2]) <= 0.05)


def test_autoreset_reports_the_final_observation() -> None:
    vec = CartPoleVecEnv(3)
    vec.reset(seed=0)
    vec.state = [[0.0, 0.0, 0.2, 1.0], [0.0, 0.0, 0.0, 0.0], [2.39, 1.0, 0.0, 0.0]]
    result = vec.step(np.array([1, 0, 1]))
    np.testing.assert_array_equal(result.terminated, [True, False, True])
    for i in (0, 2):
        final = result.infos[i]["final_observation"]
        assert abs(final[2]) > 0.2094 or abs(final[0]) > 2.4
        assert np.all(np.abs(result.observations[i]) <= 0.05)  # already reset
    np.testing.assert_array_equal(result.rewards, [1.0, 1.0, 1.0])


def test_episode_lengths_match_the_single_env_in_distribution() -> None:
    rng = np.random.default_rng(1)
    vec = CartPoleVecEnv(200)
    vec.reset(seed=2)
    native_lengths: list[int] = []
    for _ in range(150):
        elapsed = vec.elapsed_steps
        result = vec.step(rng.integers(0, 2, size=200))
        native_lengths.extend((elapsed[result.terminated] + 1).tolist())
    single = CartPoleEnv()
    single.reset(seed=2)
    single_lengths: list[int] = []
    while len(single_lengths) < 1500:
        length = 0
        while True:
            length += 1
            if single.step(int(rng.integers(0, 2))).terminated:
                break
        single_lengths.append(length)
        single.reset()
    a, b = np.array(native_lengths), np.array(single_lengths)
    assert len(a) > 1000
    stderr = math.sqrt(a.var() / len(a) + b.var() / len(b))
    assert abs(a.mean() - b.mean()) < 4 * stderr
    assert 15 < a.mean() < 30  # random play lasts about 22 steps


def test_make_vec_uses_the_native_env_with_the_time_limit() -> None:
    registry = _registry()
    vec = registry.make_vec("CartPole-v1", num_envs=2)
    assert isinstance(vec, CartPoleVecEnv)
    assert vec.max_episode_steps == 500
    vec.reset(seed=0)
    for step in range(500):
        vec.state = np.zeros((2, 4))  # keep the poles upright
        result = vec.step(np.array([step % 2, 1 - step % 2]))
    assert result.truncated.all() and not result.terminated.any()
    assert result.infos[0]["elapsed_steps"] == 500


def test_invalid_actions() -> None:
    vec = CartPoleVecEnv(2)
    vec.reset(seed=0)
    for bad in (
        np.array([0, 2]),
        np.array([0.0, 1.0]),
        np.array([-1, 0]),
        np.array([1, -2], dtype=np.int8),
        np.array([3, 0], dtype=np.uint8),
        np.array([0, 2**40]),
    ):
        with pytest.raises(InvalidAction, match="0 or 1"):
            vec.step(bad)
    for good in (np.array([0, 1], dtype=np.int8), np.array([1, 1], dtype=np.uint64)):
        assert vec.step(good).rewards.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="shape"):
        vec.state = np.zeros((3, 4))
