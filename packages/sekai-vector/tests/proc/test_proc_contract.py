"""The VecEnv contract tests of sekai-vector, run against ProcVecEnv.

The tests of ``tests/test_vec_env.py`` are collected here too; this
directory's conftest makes their ``make_vec`` fixture build ProcVecEnvs (shared
memory, pickled observations, grouped sub-envs, forkserver). Tests that look
at the sub-env objects (``vec.envs``), which live in other processes here, are
left out and covered below through ``get_attr``.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.error import VecEnvClosed


def _contract_tests() -> dict[str, Any]:
    path = Path(__file__).parents[1] / "test_vec_env.py"
    spec = importlib.util.spec_from_file_location("sekai_vector_contract_tests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = {}
    for name, fn in vars(module).items():
        if not name.startswith("test_") or not callable(fn):
            continue
        source = inspect.getsource(fn)
        if ".envs" in source or "env_list_backend" in source:
            continue  # needs the sub-env objects in this process
        tests[name] = fn
    return tests


CONTRACT_TESTS = _contract_tests()
globals().update(CONTRACT_TESTS)


def test_the_contract_tests_were_collected() -> None:
    assert len(CONTRACT_TESTS) >= 15
    assert "test_autoreset_same_step" in CONTRACT_TESTS


def test_frozen_sub_env_is_not_stepped(make_vec: Any) -> None:
    vec = make_vec((1, 4), autoreset=False)
    vec.reset()
    vec.step([2, 0])
    vec.step([1, 0])
    vec.step([1, 0])
    assert vec.get_attr("actions") == [[2], [0, 0, 0]]


@pytest.mark.parametrize("actions", [[0, 1], np.zeros((3, 1), dtype=np.int64), [[0, 1], [2]]])
def test_bad_action_batch_raises_before_any_step(make_vec: Any, actions: Any) -> None:
    vec = make_vec()
    vec.reset()
    with pytest.raises(ValueError, match=r"expected a batch of actions.*\(3,\)"):
        vec.step(actions)
    assert vec.get_attr("actions") == [[], [], []]


def test_context_manager_closes(make_vec: Any) -> None:
    with make_vec() as vec:
        vec.reset()
    assert vec.closed
    with pytest.raises(VecEnvClosed):
        vec.reset()
    with pytest.raises(VecEnvClosed):
        vec.get_attr("t")


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


def test_the_workers_report_the_sub_envs_they_freeze(make_vec: Any) -> None:
    # The parent learns which sub-envs froze from the workers, not from the infos.
    vec = make_vec((1, 3, 1), autoreset=False)
    vec.reset()
    assert not vec.frozen.any()
    vec.step([0, 0, 0])
    assert vec.frozen.tolist() == [True, False, True]
    vec.step([0, 0, 0])
    assert vec.frozen.tolist() == [True, False, True]
    vec.reset()
    assert not vec.frozen.any()
