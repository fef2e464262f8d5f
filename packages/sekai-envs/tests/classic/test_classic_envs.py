"""The classic-control single envs: spaces, equations, resets, checks and registration."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.envs
from sekai.core import TimeLimit
from sekai.envs._registration import register_envs
from sekai.envs.classic_control import (
    AcrobotEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from sekai.envs.classic_control._squares import pow_squares, powf_squares, square
from sekai.envs.classic_control.acrobot import bound, wrap
from sekai.envs.classic_control.pendulum import DEFAULT_X, DEFAULT_Y, angle_normalize
from sekai.error import InvalidAction, ResetRequired
from sekai.registry import EnvRegistry
from sekai.utils import check_env


def _registry() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    return registry


# -- every env -------------------------------------------------------------------------------


def test_check_env_passes(case: Any) -> None:
    assert check_env(case.single(), n_steps=300, check_determinism=True) == []
    assert check_env(_registry().make(case.env_id), n_steps=300) == []


def test_registered_with_gymnasiums_limit_and_threshold(case: Any) -> None:
    registry = _registry()
    spec = registry.spec(case.env_id)
    assert spec.max_episode_steps == case.limit
    assert spec.reward_threshold == case.threshold
    env = registry.make(case.env_id)
    assert isinstance(env, TimeLimit)
    assert type(env.unwrapped) is case.single
    env.reset(seed=0)
    steps, result = 0, None
    rng = np.random.default_rng(0)
    while result is None or not result.done:
        batch = case.random(np.zeros((1, 6), np.float32), rng)
        result = env.step(int(batch[0]) if batch.ndim == 1 else batch[0])
        steps += 1
    assert steps <= case.limit
    assert result.terminated or (result.truncated and steps == case.limit)


def test_exported_by_sekai_envs_and_classic_control(case: Any) -> None:
    import sekai.envs.classic_control as classic

    for cls in (case.single, case.vector):
        assert getattr(sekai.envs, cls.__name__) is cls
        assert getattr(classic, cls.__name__) is cls
        assert cls.__name__ in sekai.envs.__all__ and cls.__name__ in classic.__all__


def test_step_before_reset_raises(case: Any) -> None:
    env = case.single()
    assert env.state is None
    action = env.action_space.sample()
    with pytest.raises(ResetRequired, match="reset"):
        env.step(action)


def test_same_seed_same_episode_and_pickling(case: Any) -> None:
    env = case.single()
    copy = pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(1)
    first = [env.reset(seed=3).observation, copy.reset(seed=3).observation]
    np.testing.assert_array_equal(*first)
    for _ in range(50):
        batch = case.random(first[0][None, :], rng)
        action = int(batch[0]) if batch.ndim == 1 else batch[0]
        a, b = env.step(action), copy.step(action)
        np.testing.assert_array_equal(a.observation, b.observation)
        assert a.reward == b.reward and a.terminated == b.terminated
    assert not np.array_equal(case.single().reset(seed=4).observation, first[0])


def test_reset_options_are_checked(case: Any) -> None:
    env = case.single()
    if case.env_id == "Pendulum-v1":
        with pytest.raises(ValueError, match="x_init"):
            env.reset(options={"x_init": -1.0})
        with pytest.raises(ValueError, match="y_init"):
            env.reset(options={"y_init": "1"})
        return
    with pytest.raises(ValueError, match="low <= high"):
        env.reset(options={"low": 0.3, "high": 0.2})
    with pytest.raises(ValueError, match=r"'low'.*'x'"):
        env.reset(options={"low": "x"})
    with pytest.raises(ValueError, match="'high'"):
        env.reset(options={"high": math.inf})


def test_state_setter_checks_its_input(case: Any) -> None:
    env = case.single()
    env.reset(seed=0)
    state = env.state
    env.state = state
    np.testing.assert_array_equal(env.state, state)
    with pytest.raises(ValueError, match="finite"):
        env.state = np.zeros(len(state) + 1)
    with pytest.raises(ValueError, match="finite"):
        env.state = np.full(len(state), np.nan)


# -- discrete actions ----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [MountainCarEnv, AcrobotEnv])
def test_invalid_discrete_actions(cls: type[Any]) -> None:
    env = cls()
    env.reset(seed=0)
    for bad in (3, -1, 0.5, True, "1", np.array([1]), None):
        with pytest.raises(InvalidAction, match="0, 1 or 2"):
            env.step(bad)
    for good in (0, np.int64(1), np.uint8(2), np.array(1)):
        env.step(good)


# -- continuous actions --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [ContinuousMountainCarEnv, PendulumEnv])
def test_box_actions_are_converted_or_rejected(cls: type[Any]) -> None:
    env = cls()
    env.reset(seed=0)
    state = env.state
    for good in ([0.5], (0.5,), np.array([0.5]), np.array([0.5], np.float32), np.array([1])):
        env.state = state
        env.step(good)
    for bad in (
        0.5,
        [0.5, 0.5],
        np.array([[0.5]]),
        [np.nan],
        ["a"],
        np.array([True]),
        [[1], [2, 3]],
    ):
        with pytest.raises(InvalidAction):
            env.step(bad)


def test_float64_actions_behave_as_their_float32_value() -> None:
    a, b = PendulumEnv(), PendulumEnv()
    a.reset(seed=1)
    b.reset(seed=1)
    value = 1.2345678901234
    ra = a.step(np.array([value]))
    rb = b.step(np.array([value], dtype=np.float32))
    np.testing.assert_array_equal(ra.observation, rb.observation)
    assert ra.reward == rb.reward


# -- MountainCar ---------------------------------------------------------------------------------


def test_mountain_car_equations_and_wall() -> None:
    env = MountainCarEnv()
    env.reset(seed=0)
    env.state = [-0.5, 0.01]
    result = env.step(2)
    velocity = 0.01 + (0.001 + math.cos(3 * -0.5) * -0.0025)
    np.testing.assert_array_equal(env.state, [-0.5 + velocity, velocity])
    assert result.reward == -1.0 and not result.terminated
    env.state = [-1.19, -0.05]  # hits the wall: stopped there
    env.step(0)
    np.testing.assert_array_equal(env.state, [-1.2, 0.0])
    env.state = [0.49, 0.07]  # reaches the flag
    assert env.step(1).terminated


@settings(max_examples=40, deadline=None)
@given(
    position=st.floats(-1.2, 0.6),
    velocity=st.floats(-0.07, 0.07),
    action=st.integers(0, 2),
    goal_velocity=st.floats(-0.07, 0.07),
)
def test_mountain_car_stays_in_bounds(
    position: float, velocity: float, action: int, goal_velocity: float
) -> None:
    env = MountainCarEnv(goal_velocity=goal_velocity)
    env.reset(seed=0)
    env.state = [position, velocity]
    result = env.step(action)
    new_position, new_velocity = env.state
    assert -1.2 <= new_position <= 0.6 and -0.07 <= new_velocity <= 0.07
    assert result.terminated == (new_position >= 0.5 and new_velocity >= goal_velocity)
    assert env.observation_space.contains(result.observation)


def test_mountain_car_reset_distribution() -> None:
    env = MountainCarEnv()
    env.reset(seed=0)
    starts = np.array([env.reset().observation for _ in range(2000)])
    assert starts[:, 0].min() >= -0.6 and starts[:, 0].max() <= -0.4
    assert np.all(starts[:, 1] == 0.0)
    np.testing.assert_allclose(starts[:, 0].mean(), -0.5, atol=0.005)
    assert MountainCarEnv.height(np.array([0.0]))[0] == pytest.approx(0.55)


def test_continuous_mountain_car_reward_and_precision() -> None:
    env = ContinuousMountainCarEnv()
    env.reset(seed=0)
    assert env.state is not None and env.state.dtype == np.float64  # as after Gymnasium's reset
    result = env.step(np.array([0.5], np.float32))
    assert result.reward == pytest.approx(-0.1 * 0.25)
    assert env.state.dtype == np.float32  # Gymnasium keeps a float32 state after a step
    result = env.step(np.array([3.0], np.float32))  # clipped for the force, not the cost
    assert result.reward == pytest.approx(-0.9)
    env.state = np.array([0.44, 0.07], np.float32)
    result = env.step(np.array([1.0], np.float32))
    assert result.terminated and result.reward == pytest.approx(100.0 - 0.1)
    with pytest.raises(ValueError, match="goal_velocity"):
        ContinuousMountainCarEnv(goal_velocity=math.nan)


# -- Pendulum ------------------------------------------------------------------------------------


def test_pendulum_equations() -> None:
    env = PendulumEnv(g=9.81)
    env.reset(seed=0)
    env.state = [0.5, -1.0]
    result = env.step(np.array([1.5], np.float32))
    omega = -1.0 + (3 * 9.81 / 2 * math.sin(0.5) + 3.0 * 1.5) * 0.05
    np.testing.assert_allclose(env.state, [0.5 + omega * 0.05, omega], rtol=1e-12)
    assert result.reward == pytest.approx(-(0.25 + 0.1 + 0.001 * 2.25), rel=1e-7)
    assert env.last_u == 1.5
    env.step(np.array([5.0], np.float32))
    assert env.last_u == 2.0  # clipped to max_torque
    assert env.reset(seed=0).observation.shape == (3,) and env.last_u is None
    with pytest.raises(TypeError, match="g"):
        PendulumEnv(g="10")  # type: ignore[arg-type]


def test_pendulum_reset_bounds_and_angle_normalize() -> None:
    env = PendulumEnv()
    env.reset(seed=0)
    states = np.array([(env.reset(), env.state)[1] for _ in range(1000)])
    assert np.all(np.abs(states[:, 0]) <= DEFAULT_X) and np.all(np.abs(states[:, 1]) <= DEFAULT_Y)
    env.reset(options={"x_init": 0.1, "y_init": 0.0})
    assert abs(env.state[0]) <= 0.1 and env.state[1] == 0.0
    angles = np.array([-7.0, -math.pi, 0.0, math.pi, 7.0])
    normalized = angle_normalize(angles)
    assert np.all((normalized >= -math.pi) & (normalized < math.pi))
    np.testing.assert_allclose(np.cos(normalized), np.cos(angles), atol=1e-12)


# -- Acrobot -------------------------------------------------------------------------------------


def test_acrobot_terminates_above_the_line() -> None:
    env = AcrobotEnv()
    env.reset(seed=0)
    env.state = [math.pi, 0.0, 0.0, 0.0]  # upright: tip at height 2
    result = env.step(1)
    assert result.terminated and result.reward == 0.0
    env.state = [0.0, 0.0, 0.0, 0.0]  # hanging
    result = env.step(1)
    assert not result.terminated and result.reward == -1.0
    np.testing.assert_allclose(env.state, np.zeros(4), atol=1e-15)  # at rest without torque


def test_acrobot_reset_rounds_to_float32_and_observation_layout() -> None:
    env = AcrobotEnv()
    observation = env.reset(seed=2).observation
    state = env.state
    assert state is not None
    np.testing.assert_array_equal(state, state.astype(np.float32))
    assert np.all(np.abs(state) <= 0.1)
    expected = [
        math.cos(state[0]),
        math.sin(state[0]),
        math.cos(state[1]),
        math.sin(state[1]),
        state[2],
        state[3],
    ]
    np.testing.assert_array_equal(observation, np.array(expected, np.float32))


@settings(max_examples=50, deadline=None)
@given(st.floats(-100, 100, allow_nan=False), st.floats(-5, 5), st.floats(-5, 5))
def test_wrap_and_bound(x: float, low: float, width: float) -> None:
    high = low + abs(width) + 0.5
    wrapped = wrap(x, low, high)
    assert low <= wrapped <= high
    turns = (x - wrapped) / (high - low)
    assert turns == pytest.approx(round(turns), abs=1e-6)
    assert bound(x, low, high) == min(max(x, low), high)


def test_acrobot_torque_noise_draws_from_the_env_generator() -> None:
    a, b = AcrobotEnv(), AcrobotEnv()
    a.torque_noise_max = b.torque_noise_max = 0.5
    a.reset(seed=5)
    b.reset(seed=5)
    for _ in range(20):
        np.testing.assert_array_equal(a.step(1).observation, b.step(1).observation)
    c = AcrobotEnv()
    c.reset(seed=5)
    assert not np.array_equal(a.state, [c.step(1) and c.state][0])


# -- squares as numpy scalars compute them -------------------------------------------------------


def test_squares_match_numpy_scalars() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 5, 200_000), [0.0, -0.0, 1e-170, 3.0, 1e150]])
    np.testing.assert_array_equal(pow_squares(x), [np.float64(v) ** 2 for v in x])
    assert not np.array_equal(pow_squares(x), x * x)  # the reason they exist
    u = np.concatenate(
        [rng.uniform(-2, 2, 200_000), [0.0, 1e-25, -1e-40, 2.0], rng.normal(0, 1e-20, 100)]
    ).astype(np.float32)
    expected = np.array([v**2 for v in u], dtype=np.float32)
    np.testing.assert_array_equal(powf_squares(u).view(np.int32), expected.view(np.int32))
    assert square(0.8) == 0.8**2
    np.testing.assert_array_equal(square(np.array([0.8, 1.1])), [0.8**2, 1.1**2])


def test_pow_squares_at_the_edges_of_its_tie_test() -> None:
    # Around square roots of powers of two (where the spacing of the squares halves),
    # over the exponent range, at the overflow and underflow ends, and for NaN and infinities;
    # in 2-D blocks, as the vector envs pass them. Compared bit for bit with C pow.
    rng = np.random.default_rng(1)
    roots = np.sqrt(2.0 ** np.arange(-1000.0, 1000.0, 0.5))
    near_roots = np.concatenate([np.nextafter(roots, 0), roots, np.nextafter(roots, np.inf)])
    scaled = rng.uniform(1, 2, 4000) * 2.0 ** rng.integers(-1000, 1000, 4000)
    ends = [0.0, -0.0, 5e-324, 1e-160, 2.0**-480, 1.3e154, 1.4e154, 1e300, np.inf, -np.inf, np.nan]
    x = np.concatenate([near_roots, scaled, -scaled, ends, rng.uniform(-10, 10, 100_000)])
    x = x[: x.size // 2 * 2].reshape(2, -1)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = np.float_power(x, 2.0)  # C pow per element, as np.float64(v) ** 2
        np.testing.assert_array_equal(pow_squares(x).view(np.int64), expected.view(np.int64))
    assert [np.float64(v) ** 2 for v in x[1, -5:]] == list(expected[1, -5:])
