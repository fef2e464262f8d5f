"""The vector lifecycle lives once, in HookedVecEnv: backends implement batch hooks only.

A backend written here with nothing but ``_step_batch`` / ``_reset_batch``
gets the state checks, the action check, per-env seeds and options, and the
async forms; a vector wrapper written with hooks only behaves the same under
``await``; every backend reports its frozen sub-envs instead of leaving
wrappers to guess them.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from sekai.error import (
    AsyncCallPending,
    ResetRequired,
    SekaiError,
    SyncCallInEventLoop,
    VecEnvClosed,
)
from sekai.spaces import Box, Discrete
from sekai.utils.seeding import SeedType
from sekai.vector import AsyncVecEnv, VecEnv, VecResetResult, VecStepResult, VecWrapper
from sekai.vector._actions import make_action_checker
from sekai.vector._lifecycle import HookedVecEnv


class Minimal(HookedVecEnv[Any, Any]):
    """A backend of two counters that implements the batch hooks and nothing else."""

    def __init__(self) -> None:
        self.num_envs = 2
        self.observation_space = Box(-10, 10, (), np.float64)
        self.action_space = Discrete(3)
        self._check_actions = make_action_checker(self.action_space, 2)
        self.seen: list[Any] = []
        self.counts = np.zeros(2)

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self.seen.append((seeds, options))
        self.counts[:] = 0
        return VecResetResult(self.counts.copy(), [{}, {}])

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        self.counts += batch
        return VecStepResult(
            self.counts.copy(), np.zeros(2), np.zeros(2, bool), np.zeros(2, bool), [{}, {}]
        )

    def close(self) -> None:
        self._closed = True


def test_a_backend_with_only_the_hooks_gets_the_whole_lifecycle() -> None:
    vec = Minimal()
    with pytest.raises(ResetRequired):
        vec.step([1, 1])
    vec.reset(seed=7, options={"a": 1})
    seeds, options = vec.seen[-1]
    assert len(seeds) == 2 and all(isinstance(seed, int) for seed in seeds)
    assert seeds != [7, 7]  # one derived seed per sub-env
    assert options == [{"a": 1}, {"a": 1}]
    with pytest.raises(ValueError, match=r"\(2,\)"):
        vec.step([1, 1, 1])  # the action-batch check, before the hook runs
    np.testing.assert_array_equal(vec.step([1, 2]).observations, [1, 2])
    result = asyncio.run(vec.async_step([1, 1]))
    np.testing.assert_array_equal(result.observations, [2, 3])
    assert asyncio.run(vec.async_reset()).observations.tolist() == [0, 0]
    vec.close()
    with pytest.raises(VecEnvClosed):
        vec.step([0, 0])
    with pytest.raises(VecEnvClosed):
        vec.reset()


def test_a_call_inside_a_running_call_raises_async_call_pending() -> None:
    vec = Minimal()
    vec.reset()

    def reentrant(batch: Any) -> VecStepResult[Any]:
        vec.step([0, 0])  # e.g. a sub-env that reaches back into its vector env
        raise AssertionError("unreachable")

    vec._step_batch = reentrant  # type: ignore[method-assign]
    with pytest.raises(AsyncCallPending):
        vec.step([0, 0])
    assert not vec._gate.locked()  # the failed call does not leave the env stuck
    vec.reset()


def test_a_backend_defining_step_itself_keeps_it() -> None:
    class Own(Minimal):
        def step(self, actions: Any) -> VecStepResult[Any]:
            return VecStepResult(
                np.full(2, 42.0), np.zeros(2), np.zeros(2, bool), np.zeros(2, bool), [{}, {}]
            )

    vec = Own()
    assert vec.step([0, 0]).observations.tolist() == [42.0, 42.0]  # no ResetRequired
    # Its async form runs its own step, not the inherited lifecycle.
    assert asyncio.run(vec.async_step([0, 0])).observations.tolist() == [42.0, 42.0]


def test_vec_env_itself_stays_abstract() -> None:
    assert VecEnv.__abstractmethods__ == {"step", "reset", "close"}
    with pytest.raises(TypeError):
        VecEnv()  # type: ignore[abstract]


def test_sync_calls_inside_a_running_loop_raise_a_sekai_error(kit: Any) -> None:
    vec = AsyncVecEnv(kit.counting_fns((3, 3)))

    async def run() -> None:
        with pytest.raises(SyncCallInEventLoop) as info:
            vec.reset()
        assert isinstance(info.value, SekaiError) and isinstance(info.value, RuntimeError)

    asyncio.run(run())
    vec.reset()  # the refused call left nothing running
    vec.close()


class DoubleRewards(VecWrapper[Any, Any, Any, Any]):
    """Written once, with hooks only: doubles rewards, counts resets, shifts actions."""

    def __init__(self, venv: VecEnv[Any, Any]) -> None:
        super().__init__(venv)
        self.resets = 0

    def _before_step(self, actions: Any) -> Any:
        return np.asarray(actions) + 1

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        return VecStepResult(
            result.observations,
            result.rewards * 2,
            result.terminated,
            result.truncated,
            result.infos,
        )

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        self.resets += 1
        return result


def test_a_wrapper_written_with_hooks_behaves_the_same_under_await(kit: Any) -> None:
    sync = DoubleRewards(kit.build_vec("sync", (5, 5)))
    sync.reset(seed=0)
    expected = [sync.step([0, 1]) for _ in range(3)]

    concurrent = DoubleRewards(AsyncVecEnv(kit.counting_fns((5, 5))))

    async def run() -> list[VecStepResult[Any]]:
        await concurrent.async_reset(seed=0)
        return [await concurrent.async_step([0, 1]) for _ in range(3)]

    results = asyncio.run(run())
    assert concurrent.resets == sync.resets == 1
    for got, want in zip(results, expected, strict=True):
        assert got == want
    # The actions were shifted on the way in: action + 1, rewards doubled.
    np.testing.assert_array_equal(results[0].observations[:, 2], [1, 2])
    sync.close()
    concurrent.close()


def test_every_backend_reports_its_frozen_sub_envs(make_vec: Any) -> None:
    vec = make_vec((1, 3), autoreset=False)
    assert not vec.frozen.any()
    vec.reset()
    vec.step([0, 0])
    assert vec.frozen.tolist() == [True, False]
    wrapped = DoubleRewards(vec)
    assert wrapped.frozen.tolist() == [True, False]
    with pytest.raises(ValueError, match="read-only"):
        vec.frozen[0] = False  # read-only: the vector env owns it
    vec.reset()
    assert vec.frozen.tolist() == [False, False]
    vec.close()
