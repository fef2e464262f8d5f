"""The VecEnv contract, run against SyncVecEnv, AsyncVecEnv and a NativeVecEnv."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.error import InvalidAction, ResetRequired, VecEnvClosed
from sekai.spaces import Box, MultiDiscrete
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import SyncVecEnv, VecResetResult, VecStepResult


def test_spaces_are_single_env_and_batch_spaces_have_leading_axis(make_vec: Any) -> None:
    vec = make_vec((3, 4, 5, 6))
    assert vec.num_envs == 4
    assert vec.observation_space == Box(-1e6, 1e6, (3,), np.float32)
    assert vec.batch_observation_space == Box(-1e6, 1e6, (4, 3), np.float32)
    assert vec.batch_action_space == MultiDiscrete([3, 3, 3, 3])
    assert vec.batch_observation_space is vec.batch_observation_space  # cached


def test_reset_returns_batch_and_infos(make_vec: Any) -> None:
    vec = make_vec()
    result = vec.reset(options=[{"start": 1.0}, None, {"start": 3.0}])
    assert isinstance(result, VecResetResult)
    assert result.observations.dtype == np.float32
    assert result.observations.shape == (3, 3)
    np.testing.assert_array_equal(result.observations[:, 0], [1.0, 0.0, 3.0])
    assert [info["start"] for info in result.infos] == [1.0, 0.0, 3.0]
    np.testing.assert_array_equal(result.dones, [False, False, False])


def test_one_options_dict_goes_to_every_sub_env(make_vec: Any) -> None:
    vec = make_vec()
    result = vec.reset(options={"start": 2.0})
    np.testing.assert_array_equal(result.observations[:, 0], [2.0, 2.0, 2.0])


def test_step_result_types_and_values(make_vec: Any) -> None:
    vec = make_vec()
    vec.reset()
    result = vec.step(np.array([0, 1, 2]))
    assert isinstance(result, VecStepResult)
    assert result.rewards.dtype == np.float64 and result.rewards.shape == (3,)
    assert result.terminated.dtype == np.bool_ and result.terminated.shape == (3,)
    assert result.truncated.dtype == np.bool_ and result.truncated.shape == (3,)
    assert isinstance(result.infos, list) and len(result.infos) == 3
    np.testing.assert_array_equal(result.rewards, [0.5, 1.5, 2.5])
    np.testing.assert_array_equal(result.observations, [[0, 1, 0], [0, 1, 1], [0, 1, 2]])
    assert [info["t"] for info in result.infos] == [1, 1, 1]


def test_actions_as_a_list_are_accepted(make_vec: Any) -> None:
    vec = make_vec()
    vec.reset()
    result = vec.step([2, 1, 0])
    np.testing.assert_array_equal(result.observations[:, 2], [2, 1, 0])


def test_observation_batches_are_fresh_arrays(make_vec: Any) -> None:
    vec = make_vec()
    first = vec.reset().observations
    kept = first.copy()
    second = vec.step([1, 1, 1]).observations
    third = vec.step([1, 1, 1]).observations
    assert not np.shares_memory(first, second)
    assert not np.shares_memory(second, third)
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(second[:, 1], [1, 1, 1])


def test_autoreset_same_step(make_vec: Any) -> None:
    vec = make_vec((2, 3, 5))
    vec.reset(options={"start": 7.0})
    vec.step([1, 1, 1])
    result = vec.step([2, 2, 2])
    np.testing.assert_array_equal(result.terminated, [True, False, False])
    np.testing.assert_array_equal(result.dones, [True, False, False])
    # Sub-env 0 was reset in this very step: its row is the new first observation.
    np.testing.assert_array_equal(result.observations[0], [0.0, 0, 0])
    info = result.infos[0]
    np.testing.assert_array_equal(info["final_observation"], [7.0, 2, 3])
    assert info["final_info"] == {"t": 2}
    assert info["reset_info"] == {"start": 0.0}
    assert info["t"] == 2
    assert "final_observation" not in result.infos[1]
    assert result.rewards[0] == 2 + 1.0  # the terminal step's reward
    # The new episode continues from there.
    after = vec.step([1, 1, 1])
    np.testing.assert_array_equal(after.observations[0], [0.0, 1, 1])
    assert not after.dones[0]


def test_truncation_is_reported_and_autoreset(make_vec: Any) -> None:
    vec = make_vec((5, 5), truncate_after=2)
    vec.reset()
    vec.step([0, 0])
    result = vec.step([0, 0])
    np.testing.assert_array_equal(result.truncated, [True, True])
    np.testing.assert_array_equal(result.terminated, [False, False])
    assert all("final_observation" in info for info in result.infos)


def test_without_autoreset_finished_sub_envs_freeze(make_vec: Any) -> None:
    vec = make_vec((1, 3), autoreset=False)
    vec.reset()
    first = vec.step([2, 1])
    np.testing.assert_array_equal(first.terminated, [True, False])
    np.testing.assert_array_equal(first.observations[0], [0, 1, 2])
    assert "final_observation" not in first.infos[0]
    assert first.infos[0] == {"t": 1}

    for step in (2, 3):
        result = vec.step([1, 1])
        np.testing.assert_array_equal(result.observations[0], [0, 1, 2])  # final observation
        assert result.rewards[0] == 0.0
        assert result.terminated[0] and not result.truncated[0]
        assert result.dones[0]
        assert result.infos[0] == {}
        np.testing.assert_array_equal(result.observations[1], [0, step, step])
    assert result.dones.all()
    # reset() unfreezes.
    vec.reset()
    again = vec.step([1, 1])
    np.testing.assert_array_equal(again.observations[0], [0, 1, 1])


def test_frozen_sub_env_is_not_stepped(backend: str, make_vec: Any) -> None:
    vec = make_vec((1, 4), autoreset=False)
    vec.reset()
    vec.step([2, 0])
    vec.step([1, 0])
    vec.step([1, 0])
    if backend == "native":
        # A native env advances every row, with the frozen row's last action again.
        np.testing.assert_array_equal([a[0] for a in vec.step_actions], [2, 2, 2])
    else:
        assert vec.envs[0].actions == [2]
        assert vec.envs[1].actions == [0, 0, 0]


def test_frozen_truncated_flags_persist(make_vec: Any) -> None:
    vec = make_vec((9, 9), autoreset=False, truncate_after=1)
    vec.reset()
    vec.step([0, 0])
    result = vec.step([0, 0])
    np.testing.assert_array_equal(result.truncated, [True, True])
    np.testing.assert_array_equal(result.terminated, [False, False])


def test_step_before_reset_raises(make_vec: Any) -> None:
    vec = make_vec()
    with pytest.raises(ResetRequired):
        vec.step([0, 0, 0])


@pytest.mark.parametrize(
    ("actions", "fragment"),
    [
        ([0, 1], "(3,)"),
        (np.zeros((3, 1), dtype=np.int64), "(3,)"),
        (np.zeros(4, dtype=np.int64), "(3,)"),
        ([[0, 1], [2]], "(3,)"),
    ],
)
def test_bad_action_batch_raises_before_any_step(
    backend: str, make_vec: Any, actions: Any, fragment: str
) -> None:
    vec = make_vec()
    vec.reset()
    with pytest.raises(ValueError, match="expected a batch of actions") as info:
        vec.step(actions)
    assert fragment in str(info.value)
    if backend == "native":
        assert vec.step_actions == []
    else:
        assert all(env.actions == [] for env in vec.envs)


def test_float_batch_for_a_discrete_space_raises_before_any_step(
    backend: str, make_vec: Any
) -> None:
    if backend == "native":
        pytest.skip("a native vector env validates the values of its actions itself")
    vec = make_vec()
    vec.reset()
    with pytest.raises(InvalidAction, match=r"integer actions for Discrete\(3\).*float64"):
        vec.step(np.array([0.0, 1.0, 2.0]))
    assert vec.get_attr("actions") == [[], [], []]
    vec.step(np.array([0, 1, 2], dtype=np.uint8))
    assert vec.get_attr("actions") == [[0], [1], [2]]


def test_use_after_close_raises_and_close_is_idempotent(make_vec: Any) -> None:
    vec = make_vec()
    vec.reset()
    vec.close()
    vec.close()
    with pytest.raises(VecEnvClosed):
        vec.step([0, 0, 0])
    with pytest.raises(VecEnvClosed):
        vec.reset()
    with pytest.raises(VecEnvClosed):
        vec.get_attr("name")
    with pytest.raises(VecEnvClosed):
        vec.call("name")
    with pytest.raises(VecEnvClosed):
        vec.set_attr("name", "closed")


def test_context_manager_closes(backend: str, make_vec: Any) -> None:
    with make_vec() as vec:
        vec.reset()
    with pytest.raises(VecEnvClosed):
        vec.reset()
    if backend != "native":
        assert all(env.closed for env in vec.envs)


def test_int_seed_is_reproducible(make_vec: Any) -> None:
    vec = make_vec(random_start=True)
    a = vec.reset(seed=123).observations
    b = vec.reset(seed=123).observations
    c = vec.reset(seed=124).observations
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # Different sub-envs get different starts from one int seed.
    assert len(set(a[:, 0].tolist())) == 3


def test_seed_none_continues_the_stream(make_vec: Any) -> None:
    vec = make_vec(random_start=True)
    a = vec.reset(seed=5).observations
    b = vec.reset().observations
    vec.reset(seed=5)
    c = vec.reset(seed=None).observations
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(b, c)


def test_list_of_seeds(make_vec: Any) -> None:
    vec = make_vec(random_start=True)
    a = vec.reset(seed=[1, 2, 3]).observations
    b = vec.reset(seed=[1, 2, 3]).observations
    c = vec.reset(seed=[1, 2, 4]).observations
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize(
    ("seed", "error"),
    [
        ([1, 2], ValueError),
        (np.random.default_rng(0), TypeError),
        ("42", TypeError),
        (-1, ValueError),
        ([1, -1, 2], ValueError),
        ([1, 2.5, 3], TypeError),
    ],
)
def test_bad_seeds_raise(make_vec: Any, seed: Any, error: type[Exception]) -> None:
    vec = make_vec()
    with pytest.raises(error):
        vec.reset(seed=seed)


@pytest.mark.parametrize(
    ("options", "error"),
    [([{}, {}], ValueError), (["x", None, None], TypeError), (3, TypeError)],
)
def test_bad_options_raise(make_vec: Any, options: Any, error: type[Exception]) -> None:
    vec = make_vec()
    with pytest.raises(error):
        vec.reset(options=options)


def test_int_seed_derives_per_env_seeds_with_seed_sequence(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend(kit.counting_fns((3, 3, 3))) as vec:
        vec.reset(seed=99)
        assert [env.seeds[-1] for env in vec.envs] == make_seed_sequence(99, 3)
        vec.reset()
        assert [env.seeds[-1] for env in vec.envs] == [None, None, None]
        vec.reset(seed=[4, None, 6])
        assert [env.seeds[-1] for env in vec.envs] == [4, None, 6]


def test_async_methods_exist_everywhere(make_vec: Any) -> None:
    import asyncio

    vec = make_vec()

    async def run() -> tuple[Any, Any]:
        reset = await vec.async_reset(options={"start": 1.0})
        step = await vec.async_step([1, 1, 1])
        return reset, step

    reset, step = asyncio.run(run())
    np.testing.assert_array_equal(reset.observations[:, 0], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(step.observations[:, 1], [1, 1, 1])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple))
def test_action_batch_shape_property(kit: Any, shape: tuple[int, ...]) -> None:
    for backend in ("sync", "native"):
        vec = kit.build_vec(backend)
        vec.reset()
        actions = np.ones(shape, dtype=np.int64)
        if shape == (3,):
            assert vec.step(actions).rewards.shape == (3,)
        else:
            with pytest.raises(ValueError, match=r"of shape \(3,\)"):
                vec.step(actions)
            stepped = vec.step_actions if backend == "native" else [e.actions for e in vec.envs]
            assert not any(len(s) for s in stepped)
        vec.close()


def test_seeded_runs_give_equal_results(make_vec: Any) -> None:
    # VecStepResult / VecResetResult are dataclasses: == compares their values
    # (a native env's lazily built infos included), as StepResult's does.
    first, second = make_vec(random_start=True), make_vec(random_start=True)
    assert first.reset(seed=3) == second.reset(seed=3)
    for actions in ([0, 1, 2], [1, 1, 1], [2, 0, 1], [0, 0, 0]):
        assert first.step(actions) == second.step(actions)
    assert first.step([0, 1, 2]) != second.step([1, 1, 2])
    assert first.reset(seed=3) != second.reset(seed=4)


def test_sync_step_timeout_stops_a_sub_env_that_loops_and_asks_for_a_reset(kit: Any) -> None:
    hang = {"on": False}

    class Looping(kit.CountingEnv):  # type: ignore[misc]
        def step(self, action: int) -> Any:
            while hang["on"]:  # pure Python: the watchdog's exception lands here
                pass
            return super().step(action)

    with SyncVecEnv([lambda: Looping(100)] * 2, step_timeout=0.3) as vec:
        vec.reset(seed=0)
        vec.step([1, 1])
        hang["on"] = True
        with pytest.raises(ResetRequired, match=r"step_timeout=0\.3 s.*reset\(\)"):
            vec.step([1, 1])
        hang["on"] = False
        with pytest.raises(ResetRequired):
            vec.step([1, 1])  # out of step until a reset
        vec.reset(seed=0)
        assert vec.step([1, 1]).observations[:, 1].tolist() == [1, 1]
        assert vec.step([1, 1]).observations[:, 1].tolist() == [2, 2]  # nothing fires late


def test_sync_step_timeout_is_checked(kit: Any) -> None:
    with pytest.raises(ValueError, match=r"step_timeout.*> 0"):
        SyncVecEnv(kit.counting_fns((3,)), step_timeout=-1)
