"""Faults on the in-process backends (Sync, Async, Native): bad results, failures, Ctrl-C, threads.

Each test fails on the code before the fault work: wrong-shaped observations
broadcast silently, non-bool flags read differently per backend, a failed or
interrupted step left sub-envs out of step, and a second thread got through.
ProcVecEnv's side of the same rules is in ``proc/test_proc_faults.py``.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.error import AsyncCallPending, InvalidObservation, ResetRequired
from sekai.spaces import Box, Dict, Discrete
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv

BOX4 = Box(-1e6, 1e6, (4,), np.float32)
SENTINEL: Any = object()


class Shaped(Env[Any, int]):
    """Observation ``[t, 0, 0, 0]``; on action 1 returns whatever it was told to.

    ``obs``, ``reward``, ``terminated`` replace the step's values on action 1
    (``SENTINEL``: the normal value); ``reset_obs`` replaces the reset's
    observation; action 2 raises; ``length`` ends episodes.
    """

    def __init__(
        self,
        *,
        obs: Any = SENTINEL,
        reward: Any = SENTINEL,
        terminated: Any = SENTINEL,
        reset_obs: Any = SENTINEL,
        length: int = 100,
        space: Any = BOX4,
    ) -> None:
        self.observation_space = space
        self.action_space = Discrete(3)
        self.bad = {"obs": obs, "reward": reward, "terminated": terminated}
        self.reset_obs = reset_obs
        self.length = length
        self.t = 0
        self.resets = 0
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def _obs(self) -> Any:
        return np.array([self.t, 0, 0, 0], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self.t = 0
        self.resets += 1
        obs = self._obs() if self.reset_obs is SENTINEL else self.reset_obs
        return ResetResult(obs, {})

    def step(self, action: int) -> StepResult[Any]:
        if action == 2:
            raise RuntimeError("step failed")
        self.t += 1
        result: dict[str, Any] = {
            "obs": self._obs(),
            "reward": 1.0,
            "terminated": self.t >= self.length,
        }
        if action == 1:
            result.update({k: v for k, v in self.bad.items() if v is not SENTINEL})
        return StepResult(result["obs"], result["reward"], result["terminated"], False, {})


def _fns(n: int, bad_index: int | None, **bad: Any) -> list[Any]:
    return [lambda i=i: Shaped(**(bad if bad_index in (None, i) else {})) for i in range(n)]


# -- item 4: wrong-shaped observations -----------------------------------------------------


@pytest.mark.parametrize(
    "bad", [np.float32([7.0]), np.float32(7.0), None, [1, 2, 3, 4, 5], "text"], ids=repr
)
@pytest.mark.parametrize("everyone", [False, True])
def test_a_wrong_observation_names_the_sub_env_and_the_shapes(
    env_list_backend: Any, bad: Any, everyone: bool
) -> None:
    vec = env_list_backend(_fns(4, None if everyone else 2, obs=bad))
    vec.reset()
    named = 0 if everyone else 2
    with pytest.raises(
        InvalidObservation, match=rf"sub-env {named} .*expected shape \(4,\)"
    ) as info:
        vec.step([1, 1, 1, 1])
    assert "float32" in str(info.value)
    vec.close()


def test_a_wrong_observation_in_reset_and_in_a_dict(env_list_backend: Any) -> None:
    vec = env_list_backend(_fns(3, 1, reset_obs=np.zeros(3, np.float32)))
    with pytest.raises(
        InvalidObservation, match=r"sub-env 1 .*shape \(3,\).*expected shape \(4,\)"
    ):
        vec.reset()
    vec.close()
    space = Dict({"x": BOX4, "n": Discrete(3)})
    good = {"x": np.zeros(4, np.float32), "n": 1}
    fns = [lambda: Shaped(space=space, reset_obs=good)] * 2
    fns.append(lambda: Shaped(space=space, reset_obs={"x": np.zeros(4, np.float32)}))
    vec = env_list_backend(fns)
    with pytest.raises(InvalidObservation, match=r"sub-env 2 .*has no key 'n'"):
        vec.reset()
    vec.close()


def test_a_partial_batch_names_the_sub_env_by_its_id(env_list_backend: Any) -> None:
    vec = env_list_backend(_fns(3, 2, obs=np.zeros(2, np.float32)), batch_size=1)
    vec.reset()
    vec.send(np.array([1]), [2])
    with pytest.raises(InvalidObservation, match=r"sub-env 2 "):
        vec.recv()
    vec.close()


def test_a_native_env_with_the_wrong_number_of_rows(kit: Any) -> None:
    class Short(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _observe(self) -> Any:
            return super()._observe()[:3]

    vec = Short(4)
    with pytest.raises(InvalidObservation, match=r"shape \(3, 3\).*expected shape \(4, 3\)"):
        vec.reset()


# -- items 5 and 6: rewards and flags -------------------------------------------------------


@pytest.mark.parametrize("value", [0.5, "no", np.int8(2), None, [True]], ids=repr)
def test_a_flag_that_is_not_a_bool_is_refused_on_every_backend(
    env_list_backend: Any, value: Any
) -> None:
    vec = env_list_backend(_fns(3, 1, terminated=value))
    vec.reset()
    with pytest.raises(InvalidObservation, match=r"sub-env 1 returned terminated="):
        vec.step([1, 1, 1])
    # Nothing was reset for it; the others took their step.
    assert [env.resets for env in vec.envs] == [1, 1, 1]
    assert [env.t for env in vec.envs] == [1, 1, 1]
    vec.close()


@pytest.mark.parametrize("value", [np.True_, 1, np.int64(1), 1.0], ids=repr)
def test_numpy_bools_and_one_mean_true_on_every_backend(env_list_backend: Any, value: Any) -> None:
    vec = env_list_backend(_fns(2, 1, terminated=value))
    vec.reset()
    result = vec.step([1, 1])
    assert result.terminated.tolist() == [False, True]
    assert "final_observation" in result.infos[1]  # and autoreset ran
    assert vec.envs[1].resets == 2
    assert vec.step([0, 0]).terminated.tolist() == [False, False]  # 0 / np.False_ mean False
    vec.close()


def test_a_native_env_returning_flags_that_are_not_bools(kit: Any) -> None:
    class Halves(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, infos = super()._step(actions)
            flags = terminated.astype(np.float64)
            flags[actions == 2] = 0.5
            return rewards, flags, truncated, infos

    vec = Halves(3, [1, 5, 5])
    vec.reset()
    assert vec.step([0, 0, 0]).terminated.tolist() == [True, False, False]  # 1.0 and 0.0
    with pytest.raises(InvalidObservation, match=r"terminated\[2\] = 0.5 \(sub-env 2\)"):
        vec.step([0, 0, 2])


@pytest.mark.parametrize(
    "reward", ["abc", np.ones(2), {}, None, "1.5", True, np.bool_(False)], ids=repr
)
def test_a_reward_that_is_not_a_number_names_the_sub_env(
    env_list_backend: Any, reward: Any
) -> None:
    vec = env_list_backend(_fns(3, 1, reward=reward))
    vec.reset()
    with pytest.raises(InvalidObservation, match=r"sub-env 1 returned reward"):
        vec.step([1, 1, 1])
    vec.close()


@pytest.mark.parametrize(
    "reward", [1, 0.5, np.float32(0.5), np.int64(2), np.uint8(3), np.array(1.5)], ids=repr
)
def test_real_rewards_of_any_numeric_type_are_read_as_float64(
    env_list_backend: Any, reward: Any
) -> None:
    vec = env_list_backend(_fns(3, 1, reward=reward))
    vec.reset()
    rewards = vec.step([1, 1, 1]).rewards
    assert rewards.dtype == np.float64 and rewards[1] == float(reward)
    vec.close()


@pytest.mark.parametrize("bad", [None, "1.5", True], ids=repr)
def test_a_native_env_returning_a_reward_that_is_not_a_real_number(kit: Any, bad: Any) -> None:
    class Odd(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _step(self, actions: Any) -> Any:
            rewards, terminated, truncated, infos = super()._step(actions)
            rewards = list(rewards)
            rewards[1] = bad
            return rewards, terminated, truncated, infos

    vec = Odd(3, [5, 5, 5])
    vec.reset()
    with pytest.raises(InvalidObservation, match=r"sub-env 1 returned reward"):
        vec.step([0, 0, 0])


def test_a_native_env_returning_text_observations_of_the_right_shape(kit: Any) -> None:
    class Texts(kit.CountingNativeVecEnv):  # type: ignore[misc]
        def _observe(self) -> Any:
            return np.asarray(super()._observe()).astype(str)  # the shape is right

    vec = Texts(3, [5, 5, 5])
    with pytest.raises(InvalidObservation, match=r"dtype <U"):
        vec.reset()


# -- item 10: the state after a failed step -------------------------------------------------


@pytest.mark.parametrize("autoreset", [True, False])
def test_after_a_sub_env_raises_the_others_complete_their_step(
    env_list_backend: Any, autoreset: bool
) -> None:
    lengths = [5, 5, 1, 5]
    vec = env_list_backend([lambda n=n: Shaped(length=n) for n in lengths], autoreset=autoreset)
    vec.reset()
    with pytest.raises(RuntimeError, match="step failed"):
        vec.step([0, 2, 0, 0])
    # Sub-env 1 raised; the others stepped, and sub-env 2, whose episode ended,
    # was reset (autoreset) or frozen.
    if autoreset:
        assert [env.t for env in vec.envs] == [1, 0, 0, 1]
        assert vec.envs[2].resets == 2
    else:
        assert [env.t for env in vec.envs] == [1, 0, 1, 1]
        assert vec.frozen.tolist() == [False, False, True, False]
    result = vec.step([0, 0, 0, 0])  # usable: the next step runs from there
    assert result.observations[:, 0].tolist() == [2, 1, 0 if autoreset else 1, 2]
    vec.close()


def test_a_failed_autoreset_says_so(env_list_backend: Any) -> None:
    class BadReset(Shaped):
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
            if self.resets:
                raise RuntimeError("reset failed")
            return super().reset(seed=seed, options=options)

    vec = env_list_backend([lambda: BadReset(length=1)] * 2)
    vec.reset()
    with pytest.raises(RuntimeError, match="reset failed") as info:
        vec.step([0, 0])
    if sys.version_info >= (3, 11):  # exceptions carry notes
        assert "autoreset of sub-env 0" in " ".join(info.value.__notes__)
    vec.close()


def test_a_failed_reset_needs_a_new_one(env_list_backend: Any) -> None:
    vec = env_list_backend(_fns(2, 1, reset_obs=None))
    with pytest.raises(InvalidObservation):
        vec.reset()
    with pytest.raises(ResetRequired, match="reset"):
        vec.step([0, 0])
    vec.close()


def test_ctrl_c_inside_a_sync_step_needs_a_reset() -> None:
    class Interrupted(Shaped):
        def step(self, action: int) -> StepResult[Any]:
            if action == 1:
                raise KeyboardInterrupt  # as Ctrl-C landing in the sub-env's code
            return super().step(action)

    vec = SyncVecEnv([Interrupted] * 3)
    vec.reset()
    with pytest.raises(KeyboardInterrupt):
        vec.step([0, 1, 0])
    # Sub-env 0 stepped, 1 stopped half-way, 2 did not move: only a reset helps.
    with pytest.raises(ResetRequired, match="interrupted"):
        vec.step([0, 0, 0])
    vec.reset()
    assert vec.step([0, 0, 0]).observations[:, 0].tolist() == [1, 1, 1]
    vec.close()


# -- item 1: AsyncVecEnv after Ctrl-C and cancellation --------------------------------------


class Waiting(Shaped):
    """An async sub-env whose step waits for ``gates[0]`` (an asyncio.Event) when ``slow``.

    Its first step with ``interrupt`` set makes a loop callback raise
    KeyboardInterrupt: outside any sub-env's code, as a Ctrl-C that arrives
    while the loop waits for I/O. (Raised in the loop's own thread: a real
    SIGINT may be delivered to another thread of the test process, and then
    the loop, blocked in select() with nothing due, would never see it.)
    """

    gates: list[asyncio.Event] = []  # noqa: RUF012 - one per test, set by the test

    def __init__(self, slow: bool, interrupt: bool = False) -> None:
        super().__init__()
        self.slow = slow
        self.interrupt = interrupt

    async def async_step(self, action: int) -> StepResult[Any]:
        if self.interrupt:
            self.interrupt = False
            asyncio.get_running_loop().call_soon(_ctrl_c)
        if self.slow:
            if not Waiting.gates:
                Waiting.gates.append(asyncio.Event())
            await Waiting.gates[0].wait()
        return self.step(action)


def _ctrl_c() -> None:
    raise KeyboardInterrupt


@pytest.fixture
def gates() -> Any:
    Waiting.gates.clear()
    yield Waiting.gates
    Waiting.gates.clear()


def test_ctrl_c_in_an_async_step_completes_it_before_the_next_call(gates: Any) -> None:
    fns = [lambda: Waiting(False, interrupt=True), lambda: Waiting(False)]
    fns += [lambda: Waiting(True), lambda: Waiting(True)]
    vec = AsyncVecEnv(fns)
    vec.reset()
    with pytest.raises(KeyboardInterrupt):
        vec.step([0, 0, 0, 0])
    # Sub-envs 0 and 1 stepped, 2 and 3 wait: the interrupted step goes on.
    assert [env.t for env in vec.envs] == [1, 1, 0, 0]
    gates[0].set()
    assert vec.get_attr("t") == [1, 1, 1, 1]  # the next call finished it first
    result = vec.step([0, 0, 0, 0])
    assert result.observations[:, 0].tolist() == [2, 2, 2, 2]
    assert vec.step([0, 0, 0, 0]).observations[:, 0].tolist() == [3, 3, 3, 3]  # no phantom
    vec.close()


def test_ctrl_c_inside_an_async_sub_env_needs_a_reset_and_raises_once() -> None:
    class Raising(Shaped):
        async def async_step(self, action: int) -> StepResult[Any]:
            await asyncio.sleep(0)
            if action == 1:
                raise KeyboardInterrupt  # as Ctrl-C landing in this sub-env's code
            return self.step(action)

    vec = AsyncVecEnv([Raising] * 3)
    vec.reset()
    with pytest.raises(KeyboardInterrupt):
        vec.step([0, 1, 0])
    with pytest.raises(ResetRequired, match="sub-env 1 was interrupted"):
        vec.step([0, 0, 0])  # not a second KeyboardInterrupt
    vec.reset()
    assert vec.step([0, 0, 0]).observations[:, 0].tolist() == [1, 1, 1]
    vec.close()


def test_cancelled_async_steps_leave_every_sub_env_at_the_same_step() -> None:
    class Yielding(Shaped):
        def __init__(self, yields: int) -> None:
            super().__init__()
            self.yields = yields

        async def async_step(self, action: int) -> StepResult[Any]:
            for _ in range(self.yields):
                await asyncio.sleep(0)
            return self.step(action)

    vec = AsyncVecEnv([lambda y=y: Yielding(y) for y in (0, 3, 6, 9)])

    async def main() -> list[int]:
        await vec.async_reset()
        for k in range(30):
            task = asyncio.ensure_future(vec.async_step([0, 0, 0, 0]))
            for _ in range(k % 8):
                await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        result = await vec.async_step([0, 0, 0, 0])
        return result.observations[:, 0].tolist()

    final = asyncio.run(main())
    counts = [env.t for env in vec.envs]
    assert len(set(counts)) == 1, counts  # every cancelled step completed for all of them
    assert final == counts
    vec.close()


def test_ctrl_c_during_recv_then_recv_hands_them_back(gates: Any) -> None:
    fns = [lambda: Waiting(True, interrupt=True), lambda: Waiting(True), lambda: Waiting(True)]
    vec = AsyncVecEnv(fns, batch_size=3)
    vec.reset()
    vec.send(np.zeros(3, dtype=np.int64))
    with pytest.raises(KeyboardInterrupt):
        vec.recv()
    gates[0].set()
    result = vec.recv()  # the interrupted recv handed nothing back; they are still in flight
    assert sorted(result.env_ids.tolist()) == [0, 1, 2]
    assert [env.t for env in vec.envs] == [1, 1, 1]
    vec.close()


# -- item 9: threads ---------------------------------------------------------------------------


def test_a_second_thread_is_refused_while_a_call_runs(make_vec: Any) -> None:
    vec: VecEnv[Any, Any] = make_vec((50, 50))
    vec.reset()
    entered, release = threading.Event(), threading.Event()
    check = vec._check_actions

    def slow_check(actions: Any) -> Any:  # the first call is inside the lifecycle here
        entered.set()
        release.wait(10)
        return check(actions)

    vec._check_actions = slow_check
    results: list[Any] = []
    first = threading.Thread(target=lambda: results.append(vec.step([1, 1])), name="stepper")
    first.start()
    try:
        assert entered.wait(10)
        vec._check_actions = check
        with pytest.raises(AsyncCallPending, match=r"thread 'stepper'.*one thread at a time"):
            vec.step([0, 0])
    finally:
        release.set()
        first.join(10)
    assert len(results) == 1
    assert vec.step([0, 0]).observations[:, 1].tolist() == [2, 2]  # two steps, not three


def test_close_from_another_thread_while_a_step_blocks_is_refused(make_vec: Any) -> None:
    vec: VecEnv[Any, Any] = make_vec((50, 50))
    vec.reset()
    entered, release = threading.Event(), threading.Event()
    check = vec._check_actions

    def blocking(actions: Any) -> Any:
        entered.set()
        release.wait(10)
        return check(actions)

    vec._check_actions = blocking
    stepper = threading.Thread(target=vec.step, args=([1, 1],), name="stepper")
    stepper.start()
    try:
        assert entered.wait(10)
        with pytest.raises(AsyncCallPending, match=r"close\(\) .*thread 'stepper'"):
            vec.close()
        assert not vec.closed
    finally:
        release.set()
        stepper.join(10)
    vec.close()
    assert vec.closed


def test_close_while_a_sub_env_blocks_in_another_thread(env_list_backend: Any) -> None:
    entered, release = threading.Event(), threading.Event()

    class Blocking(Shaped):
        def step(self, action: int) -> StepResult[Any]:
            if action == 1:
                entered.set()
                release.wait(10)
            return super().step(action)

    vec = env_list_backend([Blocking] * 2)
    vec.reset()
    stepper = threading.Thread(target=vec.step, args=([1, 0],), name="stepper")
    stepper.start()
    try:
        assert entered.wait(10)
        with pytest.raises(AsyncCallPending, match="one thread at a time"):
            vec.close()
        assert not any(env.closed for env in vec.envs)
    finally:
        release.set()
        stepper.join(10)
    vec.close()
