"""RayVecEnv faults: a sub-env raising, an actor dying, actors replaced, close going wrong.

Actors are killed with ``ray.kill`` or, to simulate a crash, by sending SIGKILL
to their process (the cluster runs on this machine). A test waits for a
death through Ray itself: the reference returned by ``__ray_terminate__``
resolves (as an error) once the actor is gone.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import warnings
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.error import ResetRequired, VecEnvWorkerError
from sekai.spaces import Box, Discrete

ray = pytest.importorskip("ray")
RayActorError = ray.exceptions.RayActorError
RayVecEnv = pytest.importorskip("sekai.vector.ray_vec_env").RayVecEnv


class Fragile(Env[Any, int]):
    """Observation ``[start, t]``; action 2 raises, as a simulator rejecting an order might.

    ``reset(options={"fail": True})`` raises too; ``close_mode`` makes ``close()``
    raise (``"raise"``) or hang (``"hang"``); ``slow`` seconds are spent in every
    step with action 1.
    """

    observation_space = Box(-1e6, 1e6, (2,), np.float32)
    action_space = Discrete(3)

    def __init__(self, length: int = 5, close_mode: str = "", slow: float = 0.0) -> None:
        self.length = length
        self.close_mode = close_mode
        self.slow = slow
        self.start = 0.0
        self.t = 0

    def _obs(self) -> Any:
        return np.array([self.start, self.t], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        options = options or {}
        if options.get("fail"):
            raise ValueError("cannot reset")
        self.start, self.t = float(options.get("start", 0.0)), 0
        return ResetResult(self._obs(), {"start": self.start})

    def step(self, action: int) -> StepResult[Any]:
        if action == 2:
            raise RuntimeError("boom")
        if action == 1 and self.slow:
            time.sleep(self.slow)
        self.t += 1
        return StepResult(self._obs(), 1.0, self.t >= self.length, False, {"t": self.t})

    def pid(self) -> int:
        return os.getpid()

    def explode(self) -> None:
        raise KeyError("no such order")

    def close(self) -> None:
        if self.close_mode == "raise":
            raise OSError("cannot flush the order log")
        if self.close_mode == "hang":
            time.sleep(60)


def _wait_dead(handle: Any) -> None:
    """Return once the actor is dead (``__ray_terminate__`` resolves then, as an error)."""
    with pytest.raises(RayActorError):
        ray.get(handle.__ray_terminate__.remote())


def _crash(vec: Any, env_index: int) -> None:
    """SIGKILL the process of the actor running sub-env ``env_index``."""
    os.kill(vec.call("pid")[env_index], signal.SIGKILL)


def test_a_sub_env_raising_is_reported_and_the_vector_env_stays_usable(ray_vec: Any) -> None:
    vec = ray_vec([Fragile] * 4, num_workers=2)
    vec.reset(options={"start": 1.0})
    with pytest.raises(
        VecEnvWorkerError, match=r"sub-env 2 raised RuntimeError: boom in step\(\)"
    ) as caught:
        vec.step(np.array([0, 0, 2, 0]))
    error = caught.value
    assert error.index == 2
    # The actor's traceback (the class travelled by value: no source lines to quote).
    assert "in step\nRuntimeError: boom" in (error.worker_traceback or "")
    assert isinstance(error.__cause__, RuntimeError) and str(error.__cause__) == "boom"
    assert vec.get_attr("t") == [1, 1, 0, 1]  # the others took their step
    result = vec.step(np.zeros(4, dtype=np.int64))  # still usable, without a reset
    np.testing.assert_array_equal(result.observations[:, 1], [2, 2, 1, 2])

    with pytest.raises(VecEnvWorkerError, match="sub-env 0 raised KeyError") as called:
        vec.call("explode")
    assert isinstance(called.value.__cause__, KeyError)

    with pytest.raises(VecEnvWorkerError, match=r"sub-env 3 raised ValueError: cannot reset"):
        vec.reset(options=[None, None, None, {"fail": True}])
    with pytest.raises(ResetRequired, match="reset"):
        vec.step(np.zeros(4, dtype=np.int64))
    again = vec.reset(seed=1)
    np.testing.assert_array_equal(again.observations, np.zeros((4, 2)))
    assert vec.step(np.zeros(4, dtype=np.int64)).rewards.tolist() == [1.0] * 4

    # A dead actor is named, with its sub-envs, on this and every later call.
    dead = vec.actors[1]
    ray.kill(dead)
    _wait_dead(dead)
    with pytest.raises(
        VecEnvWorkerError, match=r"actor 1 \(sub-envs 2 and 3\) died unexpectedly"
    ) as died:
        vec.step(np.zeros(4, dtype=np.int64))
    assert died.value.index == 2 and died.value.worker_traceback is None
    assert "restart_failed=True" in str(died.value)
    for call in (
        lambda: vec.step(np.zeros(4, dtype=np.int64)),
        lambda: vec.reset(),
        lambda: vec.get_attr("t"),
    ):
        with pytest.raises(VecEnvWorkerError, match=r"actor 1 \(sub-envs 2 and 3\) died earlier"):
            call()
    vec.close()  # the death was reported: closing is quiet
    assert vec.closed


def test_a_failing_factory_is_reported_and_every_actor_killed(
    monkeypatch: pytest.MonkeyPatch, leaks: Any
) -> None:
    from sekai.vector._ray_pool import ActorPool

    created: list[Any] = []
    create = ActorPool._create

    def spy(self: Any, slot: Any) -> Any:
        created.append(create(self, slot))
        return created[-1]

    monkeypatch.setattr(ActorPool, "_create", spy)

    def broken() -> Env[Any, Any]:
        raise OSError("market data feed unavailable")

    with pytest.raises(VecEnvWorkerError, match="sub-env 2 raised OSError: market data") as caught:
        RayVecEnv([Fragile, Fragile, broken, Fragile], num_workers=2, num_cpus=0)
    assert caught.value.index == 2
    assert len(created) == 2
    leaks.assert_dead(created)


def _restarted_row(result: Any, row: int) -> None:
    """Row ``row`` ends an episode interrupted by its actor's death, as documented."""
    np.testing.assert_array_equal(result.observations[row], [0.0, 0.0])  # the new episode
    assert result.rewards[row] == 0.0
    assert not result.terminated[row] and result.truncated[row]
    assert result.infos[row] == {"worker_restarted": True, "reset_info": {"start": 0.0}}


def test_dead_actors_are_replaced_within_their_budget(ray_vec: Any) -> None:
    vec = ray_vec(
        [Fragile] * 4,
        num_workers=2,
        batch_size=2,
        restart_failed=True,
        max_restarts=2,
        restart_delay=0,
    )
    vec.reset(options={"start": 1.0})
    vec.step(np.zeros(4, dtype=np.int64))
    old = vec.actors[1]

    # 1. A crash found by a step: the interrupted episodes end truncated.
    _crash(vec, 2)
    result = vec.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(result.observations[:2], [[1.0, 2.0], [1.0, 2.0]])
    assert not result.dones[:2].any()
    for row in (2, 3):
        _restarted_row(result, row)
    assert vec.restarts == 1 and vec.actors[1] is not old
    after = vec.step(np.zeros(4, dtype=np.int64))  # the new episodes go on
    np.testing.assert_array_equal(after.observations[:, 1], [3, 3, 1, 1])
    assert all("worker_restarted" not in info for info in after.infos)

    # 2. A crash found by recv(): the same rows, for the sub-envs sent.
    _crash(vec, 0)
    vec.send(np.zeros(4, dtype=np.int64))
    rows = {}
    for _ in range(2):
        part = vec.recv()
        for k, i in enumerate(part.env_ids.tolist()):
            rows[i] = (part, k)
    assert sorted(rows) == [0, 1, 2, 3]
    for i in (0, 1):
        _restarted_row(*rows[i])
    for i in (2, 3):
        part, k = rows[i]
        assert part.observations[k, 1] == 2 and "worker_restarted" not in part.infos[k]
    assert vec.restarts == 2

    # 3. A crash found by reset(): the reset runs on the new actor (actor 1's 2nd).
    _crash(vec, 3)
    first = vec.reset(seed=5, options={"start": 2.0})
    assert vec.restarts == 3
    assert first == vec.reset(seed=5, options={"start": 2.0})
    stepped = vec.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(stepped.observations, [[2.0, 1.0]] * 4)

    # 4. Actor 1 has used up its max_restarts=2: its death is raised, now and later.
    _crash(vec, 2)
    with pytest.raises(VecEnvWorkerError, match="max_restarts=2 replacements are used up"):
        vec.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(VecEnvWorkerError, match="died earlier"):
        vec.get_attr("t")


def test_a_replaced_actor_keeps_its_frozen_sub_envs_without_autoreset(ray_vec: Any) -> None:
    fns = [lambda n=n: Fragile(n) for n in (9, 9, 1, 9)]
    vec = ray_vec(fns, num_workers=2, autoreset=False, restart_failed=True, restart_delay=0)
    vec.reset()
    first = vec.step(np.zeros(4, dtype=np.int64))
    assert vec.frozen.tolist() == [False, False, True, False]
    _crash(vec, 3)
    result = vec.step(np.zeros(4, dtype=np.int64))
    np.testing.assert_array_equal(result.observations[2], first.observations[2])  # still frozen
    assert result.terminated[2] and result.rewards[2] == 0.0 and result.infos[2] == {}
    _restarted_row(result, 3)
    assert vec.frozen.tolist() == [False, False, True, True]
    later = vec.step(np.zeros(4, dtype=np.int64))  # sub-env 3 now repeats its last row
    np.testing.assert_array_equal(later.observations[2:], [[0.0, 1.0], [0.0, 0.0]])
    assert later.truncated[3] and later.infos[3] == {} and later.rewards[3] == 0.0
    np.testing.assert_array_equal(later.observations[:2, 1], [3, 3])


def test_async_calls_leave_the_loop_free_and_an_interrupted_one_finishes_first(
    ray_vec: Any,
) -> None:
    vec = ray_vec([lambda: Fragile(9, slow=0.5)] * 2, num_workers=1)

    async def main() -> int:
        ticks = 0
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        await vec.async_reset(seed=1)
        await vec.async_step(np.ones(2, dtype=np.int64))  # the actor spends a second on it
        stop.set()
        await task
        with pytest.raises(asyncio.TimeoutError):  # cancelled while the actor works
            await asyncio.wait_for(vec.async_step(np.ones(2, dtype=np.int64)), 0.05)
        return ticks

    ticks = asyncio.run(main())
    assert ticks > 10  # the loop ran another task while the actor worked
    result = vec.step(np.zeros(2, dtype=np.int64))  # waits for the interrupted step first
    np.testing.assert_array_equal(result.observations[:, 1], [3, 3])


def test_close_reports_a_failing_close_and_kills_a_hanging_one(ray_vec: Any) -> None:
    fns = [lambda: Fragile(close_mode="raise"), lambda: Fragile(close_mode="hang")]
    vec = ray_vec(fns, num_workers=2, close_timeout=1.0)
    vec.reset()
    handles = vec.actors
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(VecEnvWorkerError, match="sub-env 0 raised OSError: cannot flush"):
            vec.close()
    assert any(
        "actor 1 (sub-env 1) did not finish closing in time and was killed" in str(w.message)
        for w in caught
    )
    assert vec.closed
    for handle in handles:
        with pytest.raises(RayActorError):
            ray.get(handle.ping.remote())


# -- step_timeout ------------------------------------------------------------------------


def test_a_step_timeout_kills_the_late_actor(ray_vec: Any, leaks: Any) -> None:
    fns = [lambda: Fragile(slow=60.0)] * 4
    vec = ray_vec(fns, num_workers=2, step_timeout=1.0, restart_failed=True, restart_delay=0)
    late = vec.actors[1]
    vec.reset()
    with pytest.raises(
        VecEnvWorkerError,
        match=r"actor 1 \(sub-envs 2 and 3\) did not answer step\(\) within step_timeout=1 s "
        r"and was killed; close this vector env",
    ) as info:
        vec.step([0, 0, 1, 0])
    assert info.value.index == 2
    leaks.assert_dead([late])  # killed, and not replaced
    assert vec.restarts == 0
    with pytest.raises(VecEnvWorkerError, match=r"actor 1 \(sub-envs 2 and 3\) was killed earlier"):
        vec.step([0, 0, 0, 0])
    with pytest.raises(VecEnvWorkerError, match="was killed earlier"):
        vec.get_attr("t")
    vec.close()  # reported already: close() does not raise it again


def test_a_step_timeout_while_recv_waits(ray_vec: Any) -> None:
    vec = ray_vec([lambda: Fragile(slow=60.0)] * 3, step_timeout=1.0, batch_size=1)
    vec.reset()
    vec.send(np.array([0, 1, 0]))
    assert sorted(vec.recv().env_ids.tolist() + vec.recv().env_ids.tolist()) == [0, 2]
    with pytest.raises(
        VecEnvWorkerError, match=r"actor 1 \(sub-env 1\) did not answer a step sent by send\(\)"
    ):
        vec.recv()
    with pytest.raises(ResetRequired):
        vec.recv()
    with pytest.raises(VecEnvWorkerError, match="was killed earlier"):
        vec.reset()


def test_a_step_timeout_in_async_step_and_a_call_within_it(ray_vec: Any) -> None:
    vec = ray_vec([lambda: Fragile(slow=0.2)] * 2, num_workers=1, step_timeout=30.0)
    vec.reset()
    assert vec.step([1, 1]).observations[:, 1].tolist() == [1, 1]  # in time: untouched
    vec = ray_vec([lambda: Fragile(slow=60.0)] * 2, num_workers=1, step_timeout=1.0)
    vec.reset()

    async def main() -> None:
        with pytest.raises(VecEnvWorkerError, match=r"actor 0 \(sub-envs 0 and 1\) did not answer"):
            await vec.async_step([1, 0])

    asyncio.run(main())


@pytest.mark.parametrize("value", [0, -1, float("nan"), "1"])
def test_bad_step_timeouts(value: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="step_timeout"):
        RayVecEnv([Fragile], num_cpus=0, step_timeout=value)
