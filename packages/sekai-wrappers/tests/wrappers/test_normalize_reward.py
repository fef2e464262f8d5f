"""NormalizeReward: scale by the std of the discounted return, without centring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sekai.wrappers import AutoReset, NormalizeReward


def expected_rewards(rewards, dones, gamma, epsilon=1e-8):
    """Reference computation, written out step by step."""
    returns = []
    g = 0.0
    out = []
    for r, done in zip(rewards, dones, strict=True):
        g = gamma * g + r
        returns.append(g)
        samples = np.array(returns)
        count = 1e-4 + len(samples)
        mean = samples.sum() / count
        var = (1e-4 * (0 - mean) ** 2 + 1e-4 * 1.0 + ((samples - mean) ** 2).sum()) / count
        out.append(r / math.sqrt(var + epsilon))
        if done:
            g = 0.0
    return out


def test_matches_the_reference_computation(counter_env) -> None:
    env = NormalizeReward(counter_env(episode_length=3), gamma=0.9)
    env.reset(seed=0)
    got = []
    dones = []
    for _ in range(7):
        r = env.step(0)
        got.append(r.reward)
        dones.append(r.terminated)
        if r.terminated:
            env.reset()
    rewards = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0]
    np.testing.assert_allclose(got, expected_rewards(rewards, dones, 0.9), rtol=1e-6)


def test_epsilon_is_added_to_the_variance(counter_env) -> None:
    env = NormalizeReward(counter_env(episode_length=3), gamma=0.5, epsilon=4.0)
    env.reset(seed=0)
    got = [env.step(0).reward for _ in range(3)]
    np.testing.assert_allclose(
        got, expected_rewards([1.0, 2.0, 3.0], [False, False, True], 0.5, 4.0), rtol=1e-6
    )


def test_sign_is_kept_and_mean_not_subtracted(counter_env) -> None:
    env = NormalizeReward(counter_env(episode_length=100))
    env.reset(seed=0)
    assert all(env.step(0).reward > 0 for _ in range(20))


def test_return_restarts_after_an_episode_ends_without_reset(counter_env) -> None:
    a = NormalizeReward(AutoReset(counter_env(episode_length=2)), gamma=0.5)
    b = NormalizeReward(counter_env(episode_length=2), gamma=0.5)
    a.reset(seed=0)
    b.reset(seed=0)
    ra = [a.step(0).reward for _ in range(6)]
    rb = []
    for _ in range(3):
        rb += [b.step(0).reward, b.step(0).reward]
        b.reset()
    np.testing.assert_allclose(ra, rb)


def test_freezing_and_state(counter_env) -> None:
    env = NormalizeReward(counter_env(episode_length=100))
    env.reset(seed=0)
    for _ in range(5):
        env.step(0)
    env.update_running_mean = False
    state = env.state_dict()
    env.step(0)
    assert env.return_rms.count == state["count"]
    other = NormalizeReward(counter_env(episode_length=100))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.return_rms.var, env.return_rms.var)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [({"gamma": 1.5}, ValueError), ({"epsilon": -1.0}, ValueError), ({"gamma": "x"}, TypeError)],
)
def test_rejects_bad_arguments(counter_env, kwargs, error) -> None:
    with pytest.raises(error):
        NormalizeReward(counter_env(), **kwargs)


def test_check_env(space_env, any_space, assert_conforms) -> None:
    env = NormalizeReward(space_env(any_space))
    assert_conforms(env, check_async=False)
    env.update_running_mean = False
    assert_conforms(env)


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 10
    a = rollout(NormalizeReward(space_env(any_space)), 2, actions)
    b = rollout(NormalizeReward(space_env(any_space)), 2, actions)
    assert same(a, b)
