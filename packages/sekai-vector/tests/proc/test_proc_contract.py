"""The VecEnv contract (``sekai.testing.VecEnvContract``), run against ProcVecEnv.

The kit runs once per configuration of :data:`PROC_BACKENDS` (shared memory,
pickled observations, grouped sub-envs, forkserver). Its reference envs are
importable by name (``sekai.vector._contract_envs``), so the workers load them as
any user's env module. The tests below the kit look at what only this backend has.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from sekai.testing import VecEnvContract
from sekai.vector import ProcVecEnv, VecEnv

# name -> ProcVecEnv keyword arguments (num_workers is capped at the number of sub-envs)
PROC_BACKENDS: dict[str, dict[str, Any]] = {
    "shm": {"context": "fork"},
    "pickle": {"context": "fork", "shared_memory": False},
    "grouped": {"context": "fork", "num_workers": 2},
    "forkserver": {"context": None, "num_workers": 1},
}


class TestProcVecEnvContract(VecEnvContract):
    supports_partial_batches = True

    @pytest.fixture(autouse=True, params=sorted(PROC_BACKENDS))
    def _configuration(self, request: pytest.FixtureRequest) -> None:
        self.options = dict(PROC_BACKENDS[request.param])
        if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
            self.options["context"] = None

    def make_vec_env(self, env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> VecEnv[Any, Any]:
        options = dict(self.options)
        if options.get("num_workers", 0) > len(env_fns):
            options["num_workers"] = len(env_fns)
        return ProcVecEnv(env_fns, **options, **kwargs)


@pytest.mark.parametrize("autoreset", [True, False])
def test_self_resetting_sub_env_is_not_frozen_nor_reset_twice(
    proc: Any, kit: Any, autoreset: bool
) -> None:
    fns = [lambda: kit.SelfResettingEnv(kit.CountingEnv(1)), lambda: kit.CountingEnv(5)]
    vec = proc(fns, autoreset=autoreset, num_workers=1)
    vec.reset()
    result = vec.step([1, 1])
    assert result.terminated[0]
    assert vec.get_attr("reset_calls") == [2, 1]  # its own reset only
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [0, 1, 1])
    again = vec.step([2, 1])
    np.testing.assert_array_equal(again.observations[0], [0, 0, 0])
    assert vec.get_attr("actions")[0] == [1, 2]  # stepped: not frozen


@pytest.mark.parametrize("num_workers", [None, 1])
def test_final_observation_and_info_survive_envs_reusing_their_buffers(
    proc: Any, kit: Any, num_workers: int | None
) -> None:
    vec = proc([kit.BufferEnv, lambda: kit.BufferEnv(3)], num_workers=num_workers)
    kit.check_buffer_finals(vec)


@pytest.mark.parametrize("num_workers", [None, 2])
def test_the_workers_report_the_sub_envs_they_freeze(
    proc: Any, kit: Any, num_workers: int | None
) -> None:
    # The parent learns which sub-envs froze from the workers, not from the infos.
    vec = proc(kit.counting_fns((1, 3, 1)), autoreset=False, num_workers=num_workers)
    vec.reset()
    assert not vec.frozen.any()
    vec.step([0, 0, 0])
    assert vec.frozen.tolist() == [True, False, True]
    vec.step([0, 0, 0])
    assert vec.frozen.tolist() == [True, False, True]
    vec.reset()
    assert not vec.frozen.any()
