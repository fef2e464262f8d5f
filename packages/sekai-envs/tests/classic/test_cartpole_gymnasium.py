"""CartPole-v1 against Gymnasium's CartPole-v1, step for step (skipped without Gymnasium)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.envs.cartpole import CartPoleEnv

gymnasium = pytest.importorskip("gymnasium")

# Gymnasium warns when stepped past termination, which these tests do on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:.*already returned terminated:UserWarning")


def _gym_env() -> Any:
    from gymnasium.envs.classic_control.cartpole import CartPoleEnv as GymCartPole

    return GymCartPole()


def _compare(ours: CartPoleEnv, theirs: Any, actions: np.ndarray[Any, Any]) -> int:
    """Drive both envs with ``actions``; assert every result is identical; return steps."""
    for i, action in enumerate(actions):
        step = ours.step(int(action))
        obs, reward, terminated, truncated, _ = theirs.step(int(action))
        assert step.observation.dtype == obs.dtype == np.float32
        np.testing.assert_array_equal(step.observation, obs, err_msg=f"step {i}")
        assert step.reward == reward, i
        assert step.terminated == terminated, i
        assert step.truncated == truncated, i
        np.testing.assert_array_equal(ours.state, theirs.state)
    return len(actions)


@pytest.mark.parametrize("seed", range(8))
def test_same_seed_gives_the_same_initial_state(seed: int) -> None:
    ours, theirs = CartPoleEnv(), _gym_env()
    obs, _ = theirs.reset(seed=seed)
    np.testing.assert_array_equal(ours.reset(seed=seed).observation, obs)
    np.testing.assert_array_equal(ours.state, theirs.state)
    options = {"low": -0.2, "high": 0.1}
    obs, _ = theirs.reset(seed=seed, options=options)
    np.testing.assert_array_equal(ours.reset(seed=seed, options=options).observation, obs)


@pytest.mark.parametrize("seed", range(20))
def test_random_actions_from_copied_states(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ours, theirs = CartPoleEnv(), _gym_env()
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for _ in range(5):
        # Start anywhere, including beyond the termination thresholds, and keep
        # stepping past termination (reward 0 there in both).
        start = rng.uniform(-0.3, 0.3, size=4) * [10.0, 5.0, 1.0, 5.0]
        ours.state = start
        theirs.state = start.copy()
        theirs.steps_beyond_terminated = None
        _compare(ours, theirs, rng.integers(0, 2, size=40))


def test_long_balanced_episodes() -> None:
    rng = np.random.default_rng(1)
    for seed in range(5):
        ours, theirs = CartPoleEnv(), _gym_env()
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for _ in range(300):
            state = ours.state
            assert state is not None
            # a simple controller keeps the episode going; noise varies the actions
            action = int(state[2] + 0.5 * state[3] + 0.01 * rng.normal() > 0)
            _compare(ours, theirs, np.array([action]))


def test_registered_specs_agree() -> None:
    from sekai.envs._registration import register_envs
    from sekai.registry import EnvRegistry

    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    ours, theirs = registry.spec("CartPole-v1"), gymnasium.spec("CartPole-v1")
    assert ours.max_episode_steps == theirs.max_episode_steps == 500
    assert ours.reward_threshold == theirs.reward_threshold
    space, gym_space = CartPoleEnv().observation_space, _gym_env().observation_space
    np.testing.assert_array_equal(space.low, gym_space.low)
    np.testing.assert_array_equal(space.high, gym_space.high)
    assert space.dtype == gym_space.dtype


def test_native_vector_env_matches_gymnasium() -> None:
    from sekai.envs.cartpole_vector import CartPoleVecEnv

    n, rng = 8, np.random.default_rng(7)
    vec = CartPoleVecEnv(n, autoreset=False)
    vec.reset(seed=0)
    start = rng.uniform(-0.1, 0.1, size=(n, 4))
    vec.state = start
    theirs = [_gym_env() for _ in range(n)]
    for i, env in enumerate(theirs):
        env.reset(seed=0)
        env.state = start[i].copy()
    alive = np.ones(n, dtype=bool)
    while alive.any():
        actions = rng.integers(0, 2, size=n)
        result = vec.step(actions)
        for i in np.flatnonzero(alive):
            obs, reward, terminated, _, _ = theirs[i].step(int(actions[i]))
            np.testing.assert_array_equal(result.observations[i], obs)
            assert result.rewards[i] == reward and result.terminated[i] == terminated
        alive &= ~result.terminated
