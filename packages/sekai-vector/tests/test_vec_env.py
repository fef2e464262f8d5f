"""The VecEnv contract (``sekai.testing.VecEnvContract``) on SyncVecEnv, AsyncVecEnv and native.

The contract itself lives in the kit (``sekai.vector._contract``), which third-party
backends run too; the tests below it are about these backends' own behaviour
(sub-env objects in this process, a native env's ``_step`` calls, step timeouts).
ProcVecEnv and RayVecEnv run the kit in ``proc/test_proc_contract.py`` and
``ray/test_ray_contract.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.error import ResetRequired
from sekai.testing import VecEnvContract
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv
from sekai.vector._contract_envs import CountingNativeVecEnv


class TestSyncVecEnvContract(VecEnvContract):
    supports_partial_batches = True

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        return SyncVecEnv(env_fns, **kwargs)


class TestAsyncVecEnvContract(VecEnvContract):
    supports_partial_batches = True

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        return AsyncVecEnv(env_fns, **kwargs)


class TestNativeVecEnvContract(VecEnvContract):
    """A native env is not built from factories: the kit's native reference env is
    built from the kit's factories' parameters, and the contract checks it steps
    exactly as those factories' envs do under the other backends."""

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        return CountingNativeVecEnv.from_env_fns(env_fns, **kwargs)


def test_a_native_env_advances_frozen_rows_with_their_last_action(kit: Any) -> None:
    # The kit's contract checks that frozen sub-envs do not move (get_attr("actions"));
    # a native env's _step is still called for every row, with the frozen row's last
    # action again, so that array simulations need no masking.
    vec = kit.build_vec("native", (1, 4), autoreset=False)
    vec.reset()
    vec.step([2, 0])
    vec.step([1, 0])
    vec.step([1, 0])
    np.testing.assert_array_equal([a[0] for a in vec.step_actions], [2, 2, 2])
    assert vec.get_attr("actions") == [[2], [0, 0, 0]]


def test_closing_closes_the_sub_envs(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend(kit.counting_fns((3, 3))) as vec:
        vec.reset()
    assert all(env.closed for env in vec.envs)


def test_int_seed_derives_per_env_seeds_with_seed_sequence(env_list_backend: Any, kit: Any) -> None:
    with env_list_backend(kit.counting_fns((3, 3, 3))) as vec:
        vec.reset(seed=99)
        assert [env.seeds[-1] for env in vec.envs] == make_seed_sequence(99, 3)
        vec.reset()
        assert [env.seeds[-1] for env in vec.envs] == [None, None, None]
        vec.reset(seed=[4, None, 6])
        assert [env.seeds[-1] for env in vec.envs] == [4, None, 6]


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


def test_sync_step_timeout_stops_a_sub_env_that_loops_and_asks_for_a_reset(kit: Any) -> None:
    hang = {"on": False}

    class Looping(kit.CountingEnv):  # type: ignore[misc]
        def step(self, action: int) -> Any:
            while hang["on"]:  # pure Python: the watchdog's exception lands here
                pass
            return super().step(action)

    with SyncVecEnv([lambda: Looping(100)] * 2, step_timeout=2.0) as vec:
        vec.reset(seed=0)
        vec.step([1, 1])
        hang["on"] = True
        with pytest.raises(ResetRequired, match=r"step_timeout=2 s.*reset\(\)"):
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
