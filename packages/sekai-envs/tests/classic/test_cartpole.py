"""CartPole-v1: dynamics, reward, termination, reset distribution and registration."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.core import TimeLimit
from sekai.envs._registration import register_envs
from sekai.envs.cartpole import CartPoleEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.registry import EnvRegistry
from sekai.utils import check_env


def _registry() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()  # runs the loader against this registry
    return registry


def test_check_env_passes() -> None:
    assert check_env(CartPoleEnv(), check_determinism=True) == []


def test_spaces() -> None:
    env = CartPoleEnv()
    assert env.observation_space.shape == (4,)
    assert env.observation_space.dtype == np.float32
    high = np.array([4.8, np.inf, 12 * 2 * math.pi / 360 * 2, np.inf], dtype=np.float32)
    np.testing.assert_array_equal(env.observation_space.high, high)
    np.testing.assert_array_equal(env.observation_space.low, -high)
    assert env.action_space.n == 2


def test_reset_distribution_is_uniform_within_bounds() -> None:
    env = CartPoleEnv()
    env.reset(seed=0)
    starts = np.array([env.reset().observation for _ in range(2000)])
    assert starts.dtype == np.float32
    assert starts.min() >= -0.05 and starts.max() <= 0.05
    # uniform(-0.05, 0.05): mean 0, standard deviation 0.1 / sqrt(12)
    assert np.all(np.abs(starts.mean(axis=0)) < 0.004)
    np.testing.assert_allclose(starts.std(axis=0), 0.1 / math.sqrt(12), rtol=0.06)


def test_reset_options_change_the_bounds() -> None:
    env = CartPoleEnv()
    obs = env.reset(seed=1, options={"low": 0.2, "high": 0.3}).observation
    assert np.all((obs >= 0.2) & (obs <= 0.3))
    with pytest.raises(ValueError, match="low <= high"):
        env.reset(options={"low": 0.3, "high": 0.2})
    with pytest.raises(ValueError, match=r"'low'.*'x'"):
        env.reset(options={"low": "x"})


def test_same_seed_same_trajectory() -> None:
    def run(seed: int) -> list[Any]:
        env = CartPoleEnv()
        out: list[Any] = [env.reset(seed=seed).observation]
        for i in range(60):
            step = env.step(i % 3 % 2)
            out.append((step.observation, step.reward, step.terminated))
            if step.terminated:
                out.append(env.reset().observation)
        return out

    a, b = run(5), run(5)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(np.asarray(x[0]), np.asarray(y[0]))
    assert not np.array_equal(run(6)[0], a[0])


def test_step_follows_the_euler_equations() -> None:
    env = CartPoleEnv()
    env.reset(seed=0)
    env.state = np.array([0.1, -0.2, 0.05, 0.3])
    step = env.step(1)
    x, x_dot, theta, theta_dot = 0.1, -0.2, 0.05, 0.3
    temp = (10.0 + 0.05 * theta_dot**2 * math.sin(theta)) / 1.1
    thetaacc = (9.8 * math.sin(theta) - math.cos(theta) * temp) / (
        0.5 * (4.0 / 3.0 - 0.1 * math.cos(theta) ** 2 / 1.1)
    )
    xacc = temp - 0.05 * thetaacc * math.cos(theta) / 1.1
    expected = [x + 0.02 * x_dot, x_dot + 0.02 * xacc, theta + 0.02 * theta_dot]
    expected.append(theta_dot + 0.02 * thetaacc)
    state = env.state
    assert state is not None
    np.testing.assert_allclose(state, expected, rtol=1e-12)
    np.testing.assert_array_equal(step.observation, state.astype(np.float32))
    assert step.reward == 1.0 and step.terminated is False and step.truncated is False


@pytest.mark.parametrize(
    ("state", "terminated"),
    [
        ([2.39, 0.0, 0.0, 0.0], False),
        ([2.41, 0.0, 0.0, 0.0], True),
        ([-2.41, 0.0, 0.0, 0.0], True),
        ([0.0, 0.0, 0.2, 0.0], False),
        ([0.0, 0.0, 0.21, 0.0], True),
        ([0.0, 0.0, -0.21, 0.0], True),
    ],
)
def test_termination_thresholds(state: list[float], terminated: bool) -> None:
    env = CartPoleEnv()
    env.reset(seed=0)
    env.state = state
    # One step moves x and theta by tau * velocity = 0: the check sees `state`.
    assert env.step(0).terminated is terminated


def test_reward_after_termination() -> None:
    for sutton_barto, rewards in ((False, [1.0, 0.0, 0.0]), (True, [-1.0, -1.0, -1.0])):
        env = CartPoleEnv(sutton_barto_reward=sutton_barto)
        env.reset(seed=0)
        env.state = [0.0, 0.0, 0.3, 0.0]
        steps = [env.step(0) for _ in range(3)]
        assert [s.reward for s in steps] == rewards
        assert all(s.terminated for s in steps)
    env = CartPoleEnv(sutton_barto_reward=True)
    env.reset(seed=0)
    assert env.step(0).reward == 0.0


def test_invalid_use() -> None:
    env = CartPoleEnv()
    with pytest.raises(ResetRequired):
        env.step(0)
    env.reset(seed=0)
    for bad in (2, -1, 0.5, True, "1", np.array([1])):
        with pytest.raises(InvalidAction, match="0 or 1"):
            env.step(bad)  # type: ignore[arg-type]
    env.step(np.int64(1))
    env.step(np.array(0))
    with pytest.raises(ValueError, match="4 finite"):
        env.state = [0.0, 1.0]
    with pytest.raises(TypeError, match="sutton_barto_reward"):
        CartPoleEnv(sutton_barto_reward=1)  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-0.2, 0.2), min_size=4, max_size=4), st.integers(0, 1))
def test_state_round_trip(state: list[float], action: int) -> None:
    a, b = CartPoleEnv(), CartPoleEnv()
    a.reset(seed=0)
    b.reset(seed=1)
    a.state = state
    b.state = a.state
    sa, sb = a.step(action), b.step(action)
    np.testing.assert_array_equal(sa.observation, sb.observation)


def test_registered_with_a_500_step_limit() -> None:
    registry = _registry()
    spec = registry.spec("CartPole-v1")
    assert spec.max_episode_steps == 500
    assert spec.reward_threshold == 475.0
    env = registry.make("CartPole-v1")
    assert isinstance(env, TimeLimit)
    assert isinstance(env.unwrapped, CartPoleEnv)
    env.reset(seed=0)
    steps = 0
    while True:
        env.unwrapped.state = [0.0, 0.0, 0.0, 0.0]  # keep the pole upright
        step = env.step(steps % 2)
        steps += 1
        if step.terminated or step.truncated:
            break
    assert steps == 500 and step.truncated and not step.terminated
