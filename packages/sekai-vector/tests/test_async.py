"""AsyncVecEnv specifics: concurrency, the private loop, async routing."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.error import AsyncCallPending, ResetRequired
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv, VecStepResult


def test_sub_envs_step_concurrently(kit: Any) -> None:
    barrier: dict[str, Any] = {}
    n = 4
    with AsyncVecEnv([lambda: kit.BarrierEnv(barrier, n)] * n) as vec:
        vec.reset()
        # Every sub-env waits inside async_step until all n are there: this only
        # completes if they run concurrently.
        result = vec.step(np.ones(n, dtype=np.int64))
        np.testing.assert_array_equal(result.observations[:, 1], [1] * n)
        result = vec.step(np.ones(n, dtype=np.int64))
        np.testing.assert_array_equal(result.observations[:, 1], [2] * n)


def test_async_api_runs_on_the_callers_loop(kit: Any) -> None:
    barrier: dict[str, Any] = {}
    vec = AsyncVecEnv([lambda: kit.BarrierEnv(barrier, 3)] * 3)

    async def run() -> VecStepResult[Any]:
        await vec.async_reset(seed=0)
        return await vec.async_step([1, 2, 0])

    result = asyncio.run(run())
    np.testing.assert_array_equal(result.observations[:, 2], [1, 2, 0])
    vec.close()


def test_sync_api_inside_a_running_loop_raises(kit: Any) -> None:
    vec = AsyncVecEnv(kit.counting_fns((3, 3)))

    async def run() -> None:
        with pytest.raises(RuntimeError, match=r"running event loop.*async_reset"):
            vec.reset()
        await vec.async_reset()
        with pytest.raises(RuntimeError, match="async_step"):
            vec.step([0, 0])

    asyncio.run(run())
    vec.close()


def test_a_wrapper_overriding_only_step_is_told_to_override_async_step(kit: Any) -> None:
    # Its routed async_step runs its step(), which reaches AsyncVecEnv's sync
    # step() inside the running loop: the error says how to keep it async.
    from sekai.vector import VecWrapper

    class Counted(VecWrapper[Any, Any, Any, Any]):
        def step(self, actions: Any) -> VecStepResult[Any]:
            return self.venv.step(actions)

    vec = Counted(AsyncVecEnv(kit.counting_fns((3, 3))))

    async def run() -> None:
        await vec.async_reset()
        with pytest.raises(RuntimeError, match=r"overrides step\(\).*async_step\(\) too"):
            await vec.async_step([0, 0])

    asyncio.run(run())
    vec.close()


def test_overlapping_async_calls_raise(kit: Any) -> None:
    barrier: dict[str, Any] = {}
    vec = AsyncVecEnv([lambda: kit.BarrierEnv(barrier, 2)] * 2)

    async def run() -> None:
        await vec.async_reset()
        first = asyncio.ensure_future(vec.async_step([0, 0]))
        await asyncio.sleep(0)  # let the first call start and wait at the barrier
        with pytest.raises(AsyncCallPending):
            await vec.async_step([0, 0])
        await first

    asyncio.run(run())
    vec.close()


def test_close_closes_the_private_loop(kit: Any) -> None:
    vec = AsyncVecEnv(kit.counting_fns((3,)))
    vec.reset()
    loop = vec._loop
    assert loop is not None and not loop.is_closed()
    vec.close()
    assert loop.is_closed()


def test_subclass_overriding_only_step_gets_routed_async_step(kit: Any) -> None:
    class Doubling(SyncVecEnv[Any, Any]):
        def step(self, actions: Any) -> VecStepResult[Any]:
            result = super().step(actions)
            return VecStepResult(
                result.observations,
                result.rewards * 2,
                result.terminated,
                result.truncated,
                result.infos,
            )

    class AsyncDoubling(AsyncVecEnv[Any, Any]):
        def step(self, actions: Any) -> VecStepResult[Any]:
            result = super().step(actions)
            return VecStepResult(
                result.observations,
                result.rewards * 2,
                result.terminated,
                result.truncated,
                result.infos,
            )

    with Doubling(kit.counting_fns((3,))) as vec:
        vec.reset()
        result = asyncio.run(vec.async_step([1]))
        assert result.rewards[0] == 3.0

    # The async override of AsyncVecEnv is replaced: awaiting it must not skip step().
    assert AsyncDoubling.async_step is not AsyncVecEnv.async_step
    assert AsyncDoubling.async_reset is AsyncVecEnv.async_reset
    with AsyncDoubling(kit.counting_fns((3,))) as vec:
        vec.reset()
        assert vec.step([1]).rewards[0] == 3.0


def test_default_async_methods_run_the_sync_ones(kit: Any) -> None:
    calls: list[str] = []

    class Minimal(VecEnv[Any, Any]):
        num_envs = 1
        observation_space = kit.CountingEnv().observation_space
        action_space = kit.CountingEnv().action_space

        def step(self, actions: Any) -> Any:
            calls.append("step")
            return "stepped"

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            calls.append(f"reset {seed}")
            return "reset"

        def close(self) -> None:
            pass

    vec = Minimal()
    assert asyncio.run(vec.async_reset(seed=3)) == "reset"
    assert asyncio.run(vec.async_step([0])) == "stepped"
    assert calls == ["reset 3", "step"]
    with pytest.raises(NotImplementedError):
        vec.get_attr("x")


def test_a_failing_sub_env_leaves_no_call_running(kit: Any) -> None:
    finished: list[int] = []

    class Slow(kit.CountingEnv):  # type: ignore[misc]
        async def async_step(self, action: int) -> Any:
            for _ in range(3):
                await asyncio.sleep(0)
            finished.append(action)
            return self.step(action)

    class Failing(kit.CountingEnv):  # type: ignore[misc]
        async def async_step(self, action: int) -> Any:
            raise ValueError("sub-env failed")

    with AsyncVecEnv([Slow, Failing, Slow]) as vec:
        vec.reset()
        with pytest.raises(ValueError, match="sub-env failed"):
            vec.step([1, 1, 2])
        assert finished == [1, 2]  # both completed before the error propagated


class _Stuck:
    """Makes a CountingEnv's async_step wait for ever (until cancelled) on chosen steps."""

    def __init__(self) -> None:
        self.stuck: set[int] = set()  # ids of the sub-envs that hang on their next step

    def fns(self, kit: Any, n: int) -> list[Callable[[], Any]]:
        return [functools.partial(self.env, kit, i) for i in range(n)]

    def env(self, kit: Any, i: int) -> Any:
        stuck = self.stuck

        class Hanging(kit.CountingEnv):  # type: ignore[misc]
            async def async_step(self, action: int) -> Any:
                if i in stuck:
                    await asyncio.Event().wait()  # nothing sets it
                return self.step(action)

        return Hanging(100)


def test_step_timeout_cancels_a_hung_sub_env_and_asks_for_a_reset(kit: Any) -> None:
    hang = _Stuck()
    with AsyncVecEnv(hang.fns(kit, 3), step_timeout=2.0) as vec:
        vec.reset(seed=0)
        vec.step([1, 1, 1])
        hang.stuck.add(1)
        with pytest.raises(ResetRequired, match=r"sub-env 1 did not finish its step"):
            vec.step([1, 1, 1])
        with pytest.raises(ResetRequired, match="call reset"):
            vec.step([1, 1, 1])  # the sub-envs are out of step until a reset
        hang.stuck.clear()
        vec.reset(seed=0)
        assert vec.step([1, 1, 1]).observations[:, 1].tolist() == [1, 1, 1]


def test_step_timeout_is_checked() -> None:
    with pytest.raises(ValueError, match=r"step_timeout.*> 0"):
        AsyncVecEnv([], step_timeout=0)
    with pytest.raises(TypeError, match="step_timeout"):
        AsyncVecEnv([], step_timeout="1")  # type: ignore[arg-type]


def test_reset_after_wait_for_gave_up_on_a_hung_step_does_not_wait_for_it(kit: Any) -> None:
    hang = _Stuck()
    vec = AsyncVecEnv(hang.fns(kit, 2))

    async def run() -> None:
        await vec.async_reset(seed=0)
        hang.stuck.add(0)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(vec.async_step([1, 1]), 0.1)
        hang.stuck.clear()
        # The cancelled step's sub-env 0 still hangs; a reset drops it instead of waiting.
        await vec.async_reset(seed=0)
        result = await vec.async_step([1, 1])
        assert result.observations[:, 1].tolist() == [1, 1]

    asyncio.run(run())
    vec.close()
