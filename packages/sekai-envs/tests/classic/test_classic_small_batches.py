"""Small batches of the native classic-control envs: the row-by-row path against the array path.

Up to ``_small_batch`` sub-envs, while every parameter is a Python number, a
native classic-control env steps its sub-envs row by row on Python floats
(issue 36: numpy's fixed cost per call dominates tiny arrays). Both paths run
the single env's formulas, so they must agree bit for bit, step for step:
observations, rewards, flags, infos, states, autoresets and the generators'
positions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.envs.classic_control._vector_base import SMALL_BATCH
from sekai.error import InvalidAction


def _assert_same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` hold the same values (NaN equal to NaN) and dtypes, recursively."""
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


def _trace(
    case: Any,
    vec: Any,
    *,
    seed: int,
    steps: int,
    switch_every: int = 0,
) -> list[Any]:
    """Reset, then step with observation-driven actions; everything observable, per step.

    With ``switch_every``, the env alternates between the row and the array
    path every ``switch_every`` steps (forcing the array path as a batch
    above ``_small_batch`` would), so the state each path leaves behind is
    the other's starting point.
    """
    rng = np.random.default_rng(seed)
    result = vec.reset(seed=seed)
    trace: list[Any] = [("reset", result.observations, result.infos)]
    observations = result.observations
    small = vec._small
    for step in range(steps):
        if switch_every and step % switch_every == 0:
            vec._small = small and (step // switch_every) % 2 == 0
        policy = case.goal if (step // 20) % 2 else case.random
        result = vec.step(policy(observations, rng))
        observations = result.observations
        trace.append(
            (
                observations,
                result.rewards,
                result.terminated,
                result.truncated,
                result.infos,
                vec.state,
                vec.elapsed_steps,
                getattr(vec, "last_u", None),
            )
        )
    trace.append([rng.bit_generator.state for rng in vec.rngs])  # exact stream positions
    return trace


def test_small_batches_take_the_row_path(case: Any) -> None:
    limit = case.vector._small_batch
    assert limit >= SMALL_BATCH
    for n, small in ((1, True), (limit, True), (limit + 1, False)):
        vec = case.vector(n)
        assert vec._small is small
        vec.reset(seed=0)
        calls: list[int] = []
        row_step = vec._step_rows

        def spy(*args: Any, _row_step: Any = row_step, _calls: list[int] = calls) -> Any:
            _calls.append(1)
            return _row_step(*args)

        vec._step_rows = spy
        vec.step(case.random(vec.reset(seed=1).observations, np.random.default_rng(0)))
        assert len(calls) == int(small), n


def test_a_parameter_set_per_sub_env_takes_the_array_path(case: Any) -> None:
    name = {
        "CartPole-v1": "gravity",
        "MountainCar-v0": "force",
        "MountainCarContinuous-v0": "power",
        "Pendulum-v1": "g",
        "Acrobot-v1": "LINK_MASS_1",
    }[case.env_id]
    vec = case.vector(2)
    vec.reset(seed=0)
    value = getattr(vec, name)
    vec._step_rows = None  # a call would raise TypeError
    vec.set_attr(name, [value, value])
    vec.step(case.random(vec.reset(seed=1).observations, np.random.default_rng(0)))
    vec.set_attr(name, np.float64(value))  # a numpy scalar follows numpy's rules: arrays too
    vec.step(case.random(vec.reset(seed=1).observations, np.random.default_rng(0)))


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    env_index=st.integers(0, 4),
    n=st.integers(1, SMALL_BATCH),
    seed=st.integers(0, 2**32 - 1),
    autoreset=st.booleans(),
    limit=st.integers(1, 60),
    steps=st.integers(1, 90),
    switch_every=st.sampled_from([0, 1, 3, 17]),
)
def test_the_row_path_matches_the_array_path(
    cases: dict[str, Any],
    env_index: int,
    n: int,
    seed: int,
    autoreset: bool,
    limit: int,
    steps: int,
    switch_every: int,
) -> None:
    case = cases[sorted(cases)[env_index]]
    rows = case.vector(n, autoreset=autoreset, max_episode_steps=limit)
    arrays = case.vector(n, autoreset=autoreset, max_episode_steps=limit)
    assert rows._small
    arrays._small = False
    _assert_same(
        _trace(case, rows, seed=seed, steps=steps, switch_every=switch_every),
        _trace(case, arrays, seed=seed, steps=steps),
    )


@pytest.mark.parametrize("n", [1, 3])
def test_invalid_actions_raise_the_same_errors_on_both_paths(case: Any, n: int) -> None:
    space = case.single().action_space
    if space.shape == ():
        bad = [np.full(n, space.n), np.full(n, -1), np.zeros(n), np.zeros(n, dtype=bool)]
    else:
        bad = [np.full((n, 1), np.nan, dtype=np.float32), np.zeros((n, 1), dtype=bool)]
    messages = []
    for small in (True, False):
        vec = case.vector(n)
        vec._small = small
        vec.reset(seed=0)
        errors = []
        for actions in bad:
            with pytest.raises(InvalidAction) as raised:
                vec.step(actions)
            errors.append(str(raised.value))
        messages.append(errors)
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    ("env_id", "changes"),
    [
        ("CartPole-v1", {"kinematics_integrator": "semi-implicit", "force_mag": 12}),
        ("CartPole-v1", {"tau": 0.05, "masspole": 0.3, "length": 0.7}),
        ("Acrobot-v1", {"book_or_nips": "nips", "LINK_MASS_1": 2, "dt": 0.1}),
        ("Pendulum-v1", {"max_torque": 1.0, "max_speed": 5, "m": 1.3}),
        ("MountainCar-v0", {"force": 0.002, "goal_velocity": 0.01}),
        ("MountainCarContinuous-v0", {"power": 0.003, "max_action": 0.5}),
    ],
)
def test_other_parameter_numbers_match_on_both_paths(
    cases: dict[str, Any], env_id: str, changes: dict[str, Any]
) -> None:
    case = cases[env_id]
    traces = []
    for small in (True, False):
        vec = case.vector(3, max_episode_steps=50)
        for name, value in changes.items():
            setattr(vec, name, value)
        vec._small = small
        traces.append(_trace(case, vec, seed=3, steps=120))
    _assert_same(traces[0], traces[1])


def test_sutton_barto_rewards_match_on_both_paths(cases: dict[str, Any]) -> None:
    case = cases["CartPole-v1"]
    traces = []
    for small in (True, False):
        vec = case.vector(4, sutton_barto_reward=True, max_episode_steps=50)
        vec._small = small
        traces.append(_trace(case, vec, seed=5, steps=120))
    _assert_same(traces[0], traces[1])
    assert any(-1.0 in step[1] for step in traces[0][1:-1])  # terminations were rewarded -1
