"""The five classic-control tasks against Gymnasium's, step for step (skipped without Gymnasium)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import sekai
from sekai.envs._registration import register_envs
from sekai.registry import EnvRegistry

gymnasium = pytest.importorskip("gymnasium")
to_gymnasium = pytest.importorskip("sekai.compat").to_gymnasium

# Gymnasium warns when stepped past termination and about out-of-bounds actions,
# which these tests do on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _assert_same_step(ours: Any, theirs: tuple[Any, ...], where: str) -> None:
    obs, reward, terminated, truncated, info = theirs
    assert ours.observation.dtype == obs.dtype == np.float32, where
    np.testing.assert_array_equal(ours.observation, obs, err_msg=where)
    assert ours.reward == reward, where
    assert isinstance(ours.reward, float), where
    assert ours.terminated is bool(terminated), where
    assert ours.truncated is bool(truncated), where
    assert ours.info == info == {}, where


def _play(case: Any, ours: Any, theirs: Any, seed: int, steps: int) -> dict[str, int]:
    """Drive both envs with the same actions for ``steps`` steps, comparing every result.

    Episodes end at termination or at the registered time limit; each new
    episode starts from a new seed (so many initial states are compared), and
    the actions mix the case's goal-seeking and random policies.
    """
    rng = np.random.default_rng(seed)
    counts = {"episodes": 0, "terminated": 0}
    ours_obs = ours.reset(seed=seed).observation
    theirs_obs, _ = theirs.reset(seed=seed)
    np.testing.assert_array_equal(ours_obs, theirs_obs)
    elapsed = 0
    goal_seeking = True
    for step in range(steps):
        policy = case.goal if goal_seeking else case.random
        batch = policy(ours_obs[None, :], rng)
        action = int(batch[0]) if batch.ndim == 1 else batch[0]
        result = ours.step(action)
        _assert_same_step(result, theirs.step(action), f"seed {seed}, step {step}")
        np.testing.assert_array_equal(ours.state, np.asarray(theirs.state, dtype=np.float64))
        ours_obs = result.observation
        elapsed += 1
        if result.terminated or elapsed == case.limit:
            counts["episodes"] += 1
            counts["terminated"] += int(result.terminated)
            episode_seed = int(rng.integers(2**31))
            ours_obs = ours.reset(seed=episode_seed).observation
            theirs_obs, _ = theirs.reset(seed=episode_seed)
            np.testing.assert_array_equal(ours_obs, theirs_obs)
            elapsed = 0
            goal_seeking = bool(rng.random() < 0.8)
    return counts


@pytest.mark.parametrize("seed", range(3))
def test_thousands_of_steps_match_gymnasium(case: Any, seed: int) -> None:
    counts = _play(case, case.single(), case.gymnasium_env(), seed, 3000)
    assert counts["episodes"] >= 3
    if case.env_id != "Pendulum-v1":  # Pendulum never terminates
        assert counts["terminated"] >= 3


def test_check_environments_match_through_to_gymnasium(case: Any) -> None:
    from gymnasium.utils.env_match import check_environments_match

    # The adapter's spec rebuilds the sekai env behind Gymnasium's usual wrappers
    # (TimeLimit, OrderEnforcing, PassiveEnvChecker), as gymnasium.make does for its own.
    ours = gymnasium.make(to_gymnasium(sekai.make(case.env_id)).spec)
    theirs = gymnasium.make(case.env_id)
    if case.env_id == "Pendulum-v1":  # Gymnasium's reward is a numpy float64, ours a float
        theirs = gymnasium.wrappers.TransformReward(theirs, float)
    for seed in range(3):
        check_environments_match(theirs, ours, num_steps=2000, seed=seed)
    ours.close()
    theirs.close()


def test_reset_options_draw_the_same_states(case: Any) -> None:
    options: dict[str, Any] = (
        {"x_init": 0.5, "y_init": 0.2}
        if case.env_id == "Pendulum-v1"
        else {"low": -0.2, "high": 0.1}
    )
    for seed in range(5):
        ours, theirs = case.single(), case.gymnasium_env()
        obs, _ = theirs.reset(seed=seed, options=options)
        np.testing.assert_array_equal(ours.reset(seed=seed, options=options).observation, obs)
        np.testing.assert_array_equal(ours.state, np.asarray(theirs.state, dtype=np.float64))


def test_registered_specs_agree(case: Any) -> None:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()  # runs the loader against this registry
    ours, theirs = registry.spec(case.env_id), gymnasium.spec(case.env_id)
    assert ours.max_episode_steps == theirs.max_episode_steps == case.limit
    assert ours.reward_threshold == theirs.reward_threshold == case.threshold
    env, gym_env = case.single(), case.gymnasium_env()
    for name in ("observation_space", "action_space"):
        assert getattr(to_gymnasium(env), name) == getattr(gym_env, name), name


def test_gymnasium_env_checker_passes(case: Any) -> None:
    from gymnasium.utils.env_checker import check_env

    from sekai.envs.classic_control import rendering

    renderer = {
        "CartPole-v1": rendering.CartPoleRenderer,
        "MountainCar-v0": rendering.MountainCarRenderer,
        "MountainCarContinuous-v0": rendering.MountainCarRenderer,
        "Pendulum-v1": rendering.PendulumRenderer,
        "Acrobot-v1": rendering.AcrobotRenderer,
    }[case.env_id]
    pytest.importorskip("PIL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice about unbounded or asymmetric spaces
        check_env(to_gymnasium(sekai.make(case.env_id)))
        gym_env = to_gymnasium(sekai.make(case.env_id), renderer=renderer(64, 48))
        check_env(gym_env, skip_render_check=False)
    gym_env.reset(seed=0)
    frame = gym_env.render()
    assert frame.shape == (48, 64, 3) and frame.dtype == np.uint8


# -- parameters: constructor arguments and public attributes -----------------------------------


def _compare(case: Any, ours: Any, theirs: Any, seed: int, steps: int = 300) -> int:
    """Same seed, same actions (goal-seeking and random): identical results; return terminations."""
    rng = np.random.default_rng(seed)
    obs = ours.reset(seed=seed).observation
    np.testing.assert_array_equal(obs, theirs.reset(seed=seed)[0])
    terminations = 0
    for step in range(steps):
        policy = case.goal if step % 4 else case.random
        batch = policy(obs[None, :], rng)
        action = int(batch[0]) if batch.ndim == 1 else batch[0]
        result = ours.step(action)
        _assert_same_step(result, theirs.step(action), f"seed {seed}, step {step}")
        obs = result.observation
        if result.terminated:
            terminations += 1
            obs = ours.reset().observation
            np.testing.assert_array_equal(obs, theirs.reset()[0])
    return terminations


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    goal_velocity=st.floats(-0.03, 0.03, allow_nan=False, allow_subnormal=False),
    continuous=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_goal_velocity_matches(
    cases: dict[str, Any], goal_velocity: float, continuous: bool, seed: int
) -> None:
    case = cases["MountainCarContinuous-v0" if continuous else "MountainCar-v0"]
    ours = case.single(goal_velocity=goal_velocity)
    theirs = case.gymnasium_env(goal_velocity=goal_velocity)
    _compare(case, ours, theirs, seed)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(g=st.floats(0.0, 30.0, allow_nan=False, allow_subnormal=False), seed=st.integers(0, 2**16))
def test_pendulum_gravity_matches(cases: dict[str, Any], g: float, seed: int) -> None:
    case = cases["Pendulum-v1"]
    _compare(case, case.single(g=g), case.gymnasium_env(g=g), seed)


@pytest.mark.parametrize("sutton_barto_reward", [False, True])
def test_cartpole_reward_variants_match(cases: dict[str, Any], sutton_barto_reward: bool) -> None:
    case = cases["CartPole-v1"]
    ours = case.single(sutton_barto_reward=sutton_barto_reward)
    theirs = case.gymnasium_env(sutton_barto_reward=sutton_barto_reward)
    assert _compare(case, ours, theirs, seed=1) > 5


# Public attributes changed after construction: the step honours them, as Gymnasium's does.
CHANGED_ATTRIBUTES: dict[str, list[dict[str, Any]]] = {
    "CartPole-v1": [
        {"x_threshold": 3.0},
        {"theta_threshold_radians": 0.3, "gravity": 12.0},
        {"force_mag": 5.0, "tau": 0.01},
        {"kinematics_integrator": "semi-implicit euler"},
    ],
    "MountainCar-v0": [
        {"force": 0.0015, "gravity": 0.002},
        {"goal_position": 0.3, "max_speed": 0.05},
    ],
    "MountainCarContinuous-v0": [
        {"power": 0.002, "goal_position": 0.4},
        {"max_speed": 0.05, "min_action": -0.5, "max_action": 0.5},
    ],
    "Pendulum-v1": [
        {"m": 1.5, "l": 0.8},
        {"max_speed": 6.0, "max_torque": 1.0, "dt": 0.04},
    ],
    "Acrobot-v1": [
        {"book_or_nips": "nips"},
        {"LINK_MASS_2": 1.5, "LINK_COM_POS_2": 0.4},
        {"dt": 0.1, "MAX_VEL_1": 2.0},
        {"torque_noise_max": 0.3},  # drawn from each env's generator, seeded alike
    ],
}


@pytest.mark.parametrize(
    ("env_id", "changes"),
    [(env_id, changes) for env_id, variants in CHANGED_ATTRIBUTES.items() for changes in variants],
    ids=lambda value: value if isinstance(value, str) else ",".join(value),
)
def test_changed_attributes_match(
    cases: dict[str, Any], env_id: str, changes: dict[str, Any]
) -> None:
    case = cases[env_id]
    ours, theirs = case.single(), case.gymnasium_env()
    for name, value in changes.items():
        setattr(ours, name, value)
        setattr(theirs, name, value)
    if env_id == "CartPole-v1":  # Gymnasium caches these two; sekai derives them
        theirs.total_mass = theirs.masspole + theirs.masscart
        theirs.polemass_length = theirs.masspole * theirs.length
    _compare(case, ours, theirs, seed=len(changes), steps=600)


def test_states_at_the_limits_match(cases: dict[str, Any]) -> None:
    """States next to the walls, the goal and the speed limits, set on both envs.

    MountainCarContinuous computes in the precision of its state (float64 after
    a reset, float32 after a step), so it starts from both; the others hold
    float64 states (Acrobot's start as float32 values).
    """
    rng = np.random.default_rng(3)
    starts = {
        "MountainCar-v0": [[-1.19, -0.05], [-1.2, 0.0], [0.49, 0.069], [0.45, 0.07], [0.59, 0.07]],
        "MountainCarContinuous-v0": [[-1.19, -0.06], [-1.2, 0.0], [0.44, 0.069], [0.45, 0.0]],
        "Pendulum-v1": [[0.0, 7.9], [np.pi, -8.0], [-3.0, 0.0], [100.0, 3.0]],
        "Acrobot-v1": [[3.1, -3.1, 12.5, 28.0], [-3.1, 3.1, -12.0, -28.0], [0.5, 2.5, 1.0, 1.0]],
    }
    for env_id, states in starts.items():
        case = cases[env_id]
        for start in states:
            dtypes = (np.float64, np.float32) if "Continuous" in env_id else (np.float64,)
            for dtype in dtypes:
                ours, theirs = case.single(), case.gymnasium_env()
                ours.reset(seed=0)
                theirs.reset(seed=0)
                ours.state = np.array(start, dtype=dtype)
                theirs.state = np.array(start, dtype=dtype)
                for step in range(30):
                    batch = case.random(np.zeros((1, 6), np.float32), rng)
                    action = int(batch[0]) if batch.ndim == 1 else batch[0]
                    where = f"{env_id} from {start} ({dtype.__name__}), step {step}"
                    _assert_same_step(ours.step(action), theirs.step(action), where)
