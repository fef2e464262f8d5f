"""The native classic-control vector envs against SyncVecEnv over the single envs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.envs._registration import register_envs
from sekai.error import InvalidAction
from sekai.registry import EnvRegistry
from sekai.utils.seeding import make_seed_sequence


def _registry() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    return registry


def _pair(env_id: str, n: int, **kwargs: Any) -> tuple[Any, Any]:
    registry = _registry()
    native = registry.make_vec(env_id, n, **kwargs)
    sync = registry.make_vec(env_id, n, vectorization_mode="sync", **kwargs)
    return native, sync


def _assert_same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` hold the same values and dtypes, recursively."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    else:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)


def _session(
    case: Any, vec: Any, resets: list[dict[str, Any]], steps: int, seed: int = 7
) -> tuple[list[Any], int]:
    """Reset with each keyword set in turn and step after each; the trace and the episode ends.

    The actions come from the observations (goal-seeking or random by turns),
    so two backends that agree keep receiving the same actions.
    """
    rng = np.random.default_rng(seed)
    trace: list[Any] = []
    ends = 0
    for kwargs in resets:
        result = vec.reset(**kwargs)
        trace.append(("reset", result.observations, result.infos))
        observations = result.observations
        for step in range(steps):
            policy = case.goal if (step // 25) % 3 else case.random
            step_result = vec.step(policy(observations, rng))
            observations = step_result.observations
            trace.append(
                (
                    "step",
                    observations,
                    step_result.rewards,
                    step_result.terminated,
                    step_result.truncated,
                    step_result.infos,
                )
            )
            ends += int(np.count_nonzero(step_result.terminated | step_result.truncated))
    return trace, ends


@pytest.mark.parametrize("autoreset", [True, False])
def test_native_gives_the_same_trajectories_as_sync(case: Any, autoreset: bool) -> None:
    n = 5
    native, sync = _pair(
        case.env_id, n, max_episode_steps=70, vector_kwargs={"autoreset": autoreset}
    )
    assert native.autoreset is sync.autoreset is autoreset
    resets: list[dict[str, Any]] = [
        {"seed": 11},
        {},  # continues every stream
        # ints re-seed, None continues, a Generator is adopted (a fresh one per backend)
        {"seed": [3, None, 2**40, None, 5]},
    ]
    traces = []
    for vec in (native, sync):
        shared = np.random.default_rng(5)  # one generator for two sub-envs: draws interleave
        plan = [
            *resets,
            {"seed": [np.random.default_rng(9), None, 1, 2, 3]},
            {"seed": [shared, 6, shared, None, 8]},
            {"seed": 12},
        ]
        trace, ends = _session(case, vec, plan, steps=160)
        traces.append(trace)
        vec.close()
    assert ends >= 4 * n  # sub-envs ended episodes (and, with autoreset, restarted)
    _assert_same(traces[0], traces[1])
    assert type(native).__name__ == case.vector.__name__


def test_episodes_end_both_ways(case: Any) -> None:
    native, _ = _pair(case.env_id, 8)
    native.reset(seed=0)
    rng = np.random.default_rng(0)
    observations = native.reset(seed=1).observations
    terminated = truncated = 0
    for _ in range(3 * case.limit):
        result = native.step(case.goal(observations, rng))
        observations = result.observations
        terminated += int(result.terminated.sum())
        truncated += int(result.truncated.sum())
        assert not (result.terminated & result.truncated).any()
    if case.env_id != "Pendulum-v1":
        assert terminated >= 8
    else:
        assert terminated == 0 and truncated == 3 * 8


def test_sub_env_i_starts_as_the_single_env_seeded_with_its_derived_seed(case: Any) -> None:
    n = 3
    for seed in range(4):
        vec = case.vector(n)
        observations = vec.reset(seed=seed).observations
        for i, sub_seed in enumerate(make_seed_sequence(seed, n)):
            single = case.single()
            np.testing.assert_array_equal(observations[i], single.reset(seed=sub_seed).observation)
            np.testing.assert_array_equal(vec.state[i], single.state)


def _options(env_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Reset options with other bounds, and options that spell out the default ones."""
    if env_id == "Pendulum-v1":
        return {"x_init": 0.3, "y_init": 0.1}, {"x_init": np.pi, "y_init": 1.0}
    defaults = {
        "CartPole-v1": (-0.05, 0.05),
        "MountainCar-v0": (-0.6, -0.4),
        "MountainCarContinuous-v0": (-0.6, -0.4),
        "Acrobot-v1": (-0.1, 0.1),
    }[env_id]
    return {"low": -0.3, "high": -0.2}, {"low": defaults[0], "high": defaults[1]}


def test_reset_options_between_autoresets_match_sync(case: Any) -> None:
    # Initial states are drawn ahead: a reset with other bounds must still take the
    # next draws of the sub-env's stream, and the autoresets after it the ones after.
    other, default = _options(case.env_id)
    resets = [{"seed": 1}, {"options": [other, None, {}, default]}, {"options": other}, {}]
    traces = [
        _session(case, vec, resets, steps=60)[0]
        for vec in _pair(case.env_id, 4, max_episode_steps=30)
    ]
    _assert_same(traces[0], traces[1])


def test_rngs_are_handed_out_at_their_exact_positions(case: Any) -> None:
    native, sync = _pair(case.env_id, 3, max_episode_steps=20)
    for vec in (native, sync):
        _session(case, vec, [{"seed": 4}], steps=100)
    for a, b in zip(native.rngs, sync.get_attr("rng"), strict=True):
        assert a.bit_generator.state == b.bit_generator.state
        assert a.random() == b.random()  # a draw from outside shifts both streams alike
    traces = [_session(case, vec, [{}, {}], steps=50)[0] for vec in (native, sync)]
    _assert_same(traces[0], traces[1])
    sync.close()


# Attribute values that change the dynamics, for every sub-env or one per sub-env.
ATTRIBUTES: dict[str, tuple[str, float, list[float]]] = {
    "CartPole-v1": ("force_mag", 7.0, [5.0, 10.0, 15.0]),
    "MountainCar-v0": ("force", 0.0015, [0.001, 0.0012, 0.0016]),
    "MountainCarContinuous-v0": ("power", 0.002, [0.0013, 0.0015, 0.0021]),
    "Pendulum-v1": ("g", 9.81, [3.7, 9.81, 24.8]),
    "Acrobot-v1": ("LINK_MASS_2", 1.3, [0.7, 1.0, 1.4]),
}


@pytest.mark.parametrize("per_env", [False, True])
def test_set_attr_changes_the_simulation_as_on_sync(case: Any, per_env: bool) -> None:
    name, value, values = ATTRIBUTES[case.env_id]
    native, sync = _pair(case.env_id, 3, max_episode_steps=40)
    traces = []
    for vec in (native, sync):
        vec.reset(seed=2)
        vec.set_attr(name, values if per_env else value)
        assert vec.get_attr(name) == (values if per_env else [value] * 3)
        traces.append(_session(case, vec, [{}], steps=90)[0])
    _assert_same(traces[0], traces[1])
    # and the change matters: the default value gives other trajectories
    default = case.vector(3, max_episode_steps=40)
    default.reset(seed=2)
    assert not np.array_equal(_session(case, default, [{}], steps=90)[0][-1][1], traces[0][-1][1])


# Parameters the native Pendulum and Acrobot fold into coefficients, skip when they multiply by
# 1.0, or read per sub-env: shared values and one value per sub-env (lists), mixed.
PARAMETER_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("Pendulum-v1", {"m": [1.0, 1.5, 0.7], "l": [1.0, 0.8, 1.3], "dt": 0.04}),
    ("Pendulum-v1", {"max_speed": [8.0, 4.0, 12.0], "max_torque": [2.0, 1.0, 3.0], "g": 9.81}),
    ("Acrobot-v1", {"book_or_nips": "nips", "LINK_MASS_2": 1.5}),
    ("Acrobot-v1", {"LINK_LENGTH_1": [0.8, 1.0, 1.3], "LINK_COM_POS_2": 0.4}),
    ("Acrobot-v1", {"LINK_MASS_1": [1.0, 2.0, 0.5], "LINK_MOI": [1.0, 0.8, 1.5]}),
    ("Acrobot-v1", {"LINK_COM_POS_1": 0.3, "LINK_LENGTH_1": 1.2}),
    ("Acrobot-v1", {"dt": [0.2, 0.1, 0.25], "MAX_VEL_1": 2.0, "MAX_VEL_2": [9 * np.pi, 5.0, 20.0]}),
]


@pytest.mark.parametrize(
    ("env_id", "changes"), PARAMETER_VARIANTS, ids=[",".join(c) for _, c in PARAMETER_VARIANTS]
)
def test_parameter_variants_match_sync(
    cases: dict[str, Any], env_id: str, changes: dict[str, Any]
) -> None:
    case = cases[env_id]
    native, sync = _pair(env_id, 3, max_episode_steps=60)
    traces = []
    for vec in (native, sync):
        vec.reset(seed=4)
        for name, value in changes.items():
            vec.set_attr(name, value)
        trace = _session(case, vec, [{}], steps=80)[0]
        for name in changes:  # and back to the defaults, where the coefficients are cached
            vec.set_attr(name, getattr(case.single(), name))
        traces.append(trace + _session(case, vec, [{}], steps=40)[0])
    _assert_same(traces[0], traces[1])


def test_acrobot_torque_noise_matches_sync(cases: dict[str, Any]) -> None:
    # The noise is drawn during steps, from each sub-env's generator: no drawing ahead
    # while it is on, and the streams stay aligned when it is switched off again.
    case = cases["Acrobot-v1"]
    native, sync = _pair("Acrobot-v1", 4, max_episode_steps=25)
    traces = []
    for vec in (native, sync):
        trace, _ = _session(case, vec, [{"seed": 3}], steps=60)
        vec.set_attr("torque_noise_max", 0.4)
        trace += _session(case, vec, [{}], steps=60)[0]
        vec.set_attr("torque_noise_max", [0.0, 0.2, 0.0, 0.1])
        trace += _session(case, vec, [{}], steps=60)[0]
        vec.set_attr("torque_noise_max", 0.0)
        trace += _session(case, vec, [{}], steps=60)[0]
        traces.append(trace)
    _assert_same(traces[0], traces[1])
    for a, b in zip(native.rngs, sync.get_attr("rng"), strict=True):
        assert a.bit_generator.state == b.bit_generator.state


# Sub-env states at the walls, the goal and the speed limits, with actions pushing outwards.
LIMIT_STATES: dict[str, tuple[list[list[float]], list[Any]]] = {
    "CartPole-v1": ([[2.39, 1.0, 0.0, 0.0], [0.0, 0.0, -0.2, -1.0]], [1, 0]),
    "MountainCar-v0": ([[-1.19, -0.069], [0.49, 0.069]], [0, 2]),
    "MountainCarContinuous-v0": ([[-1.19, -0.069], [0.59, 0.07]], [[-1.0], [1.0]]),
    "Pendulum-v1": ([[0.0, 7.9], [3.0, -7.95]], [[2.0], [-2.0]]),
    "Acrobot-v1": ([[3.1, -3.1, 12.5, 28.0], [-3.1, 3.1, -12.5, -28.0]], [2, 0]),
}


def test_states_at_the_limits_match_sync(case: Any) -> None:
    states, pushes = LIMIT_STATES[case.env_id]
    actions = np.array(pushes, dtype=case.single().action_space.dtype)
    native, sync = _pair(case.env_id, 2, max_episode_steps=100)
    native.reset(seed=0)
    sync.reset(seed=0)
    native.state = np.array(states)
    sync.set_attr("state", [np.array(state) for state in states])
    for step in range(12):
        a, b = native.step(actions), sync.step(actions)
        _assert_same(
            (a.observations, a.rewards, a.terminated, a.truncated),
            (b.observations, b.rewards, b.terminated, b.truncated),
            f"step {step}",
        )


def test_x_threshold_set_with_set_attr_is_honoured() -> None:
    registry = _registry()
    for mode in ("native", "sync"):
        vec = registry.make_vec("CartPole-v1", 2, vectorization_mode=mode)
        vec.reset(seed=0)
        vec.set_attr("x_threshold", 3.0)
        for env_state in ([2.5, 0.0, 0.0, 0.0], [3.05, 0.0, 0.0, 0.0]):
            if mode == "native":
                vec.state = np.array([env_state, env_state])
            else:
                vec.set_attr("state", [env_state, env_state])
            result = vec.step(np.array([1, 0]))
            assert result.terminated.tolist() == [env_state[0] > 3.0] * 2, (mode, env_state)
        vec.close()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    env_index=st.integers(0, 4),
    n=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    limit=st.integers(1, 40),
    steps=st.integers(1, 60),
)
def test_any_seed_and_size_matches_sync(
    cases: dict[str, Any], env_index: int, n: int, seed: int, limit: int, steps: int
) -> None:
    case = cases[sorted(cases)[env_index]]
    traces = [
        _session(case, vec, [{"seed": seed}], steps=steps, seed=seed)[0]
        for vec in _pair(case.env_id, n, max_episode_steps=limit)
    ]
    _assert_same(traces[0], traces[1])


def test_make_vec_builds_the_native_env_with_the_registered_limit(case: Any) -> None:
    vec = _registry().make_vec(case.env_id, 2)
    assert type(vec) is case.vector
    assert vec.max_episode_steps == case.limit
    assert vec.observation_space == case.single().observation_space
    assert vec.action_space == case.single().action_space
    assert case.vector.__name__ in repr(vec)


def test_state_round_trips_and_checks_its_shape(case: Any) -> None:
    vec = case.vector(3)
    vec.reset(seed=0)
    state = vec.state
    assert state.dtype == np.float64 and state.shape[0] == 3
    vec.state = state * 0.5
    np.testing.assert_array_equal(vec.state, state * 0.5)
    with pytest.raises(ValueError, match="shape"):
        vec.state = np.zeros((4, state.shape[1]))
    with pytest.raises(ValueError, match="finite"):
        vec.state = np.full_like(state, np.nan)


def test_invalid_actions_are_rejected(case: Any) -> None:
    vec = case.vector(2)
    vec.reset(seed=0)
    if case.single().action_space.shape == ():
        n = case.single().action_space.n
        bad = [
            np.array([0, n]),
            np.array([0.0, 1.0]),
            np.array([-1, 0]),
            np.array([n, 0], np.uint8),
        ]
    else:
        bad = [
            np.array([[0.0], [np.nan]], dtype=np.float32),
            np.array([[True], [False]]),
        ]
    for actions in bad:
        with pytest.raises(InvalidAction):
            vec.step(actions)
