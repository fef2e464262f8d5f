"""ProcVecEnv under failure: raising sub-envs, dying workers, Ctrl-C, broken constructors, close.

Every test ends (through the autouse fixture of this directory's conftest) by
checking that no worker process is alive and no shared-memory segment of this
process remains; most also check it explicitly right after ``close()``.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult, TimeLimit
from sekai.error import AsyncCallPending, SpaceMismatch, VecEnvClosed, VecEnvWorkerError
from sekai.spaces import Box, Discrete
from sekai.vector import ProcVecEnv

FORK = "fork" in multiprocessing.get_all_start_methods()
OBS = Box(-1e6, 1e6, (3,), np.float32)


class Boom(Exception):
    pass


class Faulty(Env[Any, int]):
    """Counts steps; fails on request.

    Action 3 raises in step; action 2 does what ``on_two`` says ("kill": SIGKILL
    itself, "interrupt": send SIGINT to ``parent``); ``options={"fail": True}``
    raises in reset; ``explode()`` raises; close writes ``marker`` and then
    raises or hangs when asked to.
    """

    def __init__(
        self,
        *,
        on_two: str | None = None,
        parent: int = 0,
        marker: str | None = None,
        close_fails: bool = False,
        close_hangs: bool = False,
        gate: str | None = None,
    ) -> None:
        self.observation_space = OBS
        self.action_space = Discrete(4)
        self.on_two = on_two
        self.parent = parent
        self.marker = marker
        self.close_fails = close_fails
        self.close_hangs = close_hangs
        self.gate = gate
        self.gate_fd: int | None = None
        self.t = 0
        self.total = 0

    def _obs(self) -> Any:
        return np.array([0, self.t, self.total], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        if (options or {}).get("fail"):
            raise Boom("reset failed")
        self.t = 0
        self.total = 0
        return ResetResult(self._obs(), {})

    def step(self, action: int) -> StepResult[Any]:
        if action == 3:
            raise Boom("step failed")
        if action == 2 and self.on_two == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if action == 2 and self.on_two == "interrupt":
            os.kill(self.parent, signal.SIGINT)
        if self.gate is not None:
            self._wait_for_gate()
        self.t += 1
        self.total += int(action)
        return StepResult(self._obs(), float(action), False, False, {"t": self.t})

    def _wait_for_gate(self) -> None:
        assert self.gate is not None
        if self.gate_fd is None:
            self.gate_fd = os.open(self.gate, os.O_RDONLY)
        ready, _, _ = select.select([self.gate_fd], [], [], 10.0)
        if not ready:
            raise TimeoutError("the gate was never opened")
        os.read(self.gate_fd, 1)

    def explode(self) -> None:
        raise Boom("call failed")

    def apply(self, fn: Any) -> Any:
        return fn(self)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        if self.marker is not None:
            Path(self.marker).write_text("closed")
        if self.close_fails:
            raise Boom("close failed")
        if self.close_hangs:
            threading.Event().wait()


def faulty(n: int, **kwargs: Any) -> list[Any]:
    return [lambda: Faulty(**kwargs) for _ in range(n)]


# -- a sub-env raising -------------------------------------------------------------------


def test_step_error_is_raised_after_every_worker_replied_and_vec_stays_usable(
    proc: Any, leaks: Any
) -> None:
    vec = proc(faulty(4), num_workers=2)
    pids = leaks.worker_pids(vec)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 1 raised Boom: step failed") as info:
        vec.step([0, 3, 1, 1])
    error = info.value
    assert error.index == 1
    assert error.worker_traceback is not None
    assert "Boom: step failed" in error.worker_traceback
    assert "in step" in error.worker_traceback
    assert isinstance(error.__cause__, Boom)
    # The other worker finished its step; in the failing worker, sub-env 0 ran before 1.
    assert vec.get_attr("t") == [1, 0, 1, 1]
    result = vec.step([1, 1, 1, 1])
    np.testing.assert_array_equal(result.observations[:, 1], [2, 1, 2, 2])
    vec.close()
    leaks.assert_released(pids)


def test_reset_error_names_the_sub_env_and_a_later_reset_works(proc: Any) -> None:
    vec = proc(faulty(3))
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 2 raised Boom: reset failed in reset"):
        vec.reset(options=[None, None, {"fail": True}])
    result = vec.reset()
    np.testing.assert_array_equal(result.observations[:, 1], [0, 0, 0])
    assert vec.step([1, 1, 1]).rewards.tolist() == [1.0, 1.0, 1.0]


def test_call_errors_and_missing_attributes(proc: Any) -> None:
    vec = proc(faulty(3), num_workers=2)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 0 raised Boom: call failed") as info:
        vec.call("explode")
    assert info.value.index == 0
    with pytest.raises(AttributeError, match="nothing_here"):
        vec.get_attr("nothing_here")
    with pytest.raises(AttributeError, match="nothing_here"):
        vec.set_attr("nothing_here", 1)
    with pytest.raises(AttributeError, match="nothing_here"):
        vec.call("nothing_here")
    # Still usable; arguments travel with cloudpickle (a lambda here).
    assert vec.call("apply", lambda env: env.t + 10) == [10, 10, 10]
    vec.set_attr("t", [5, 6, 7])
    assert vec.get_attr("t") == [5, 6, 7]
    assert vec.step([0, 0, 0]).infos == [{"t": 6}, {"t": 7}, {"t": 8}]


def test_attributes_are_found_through_each_sub_envs_wrapper_stack(proc: Any, kit: Any) -> None:
    fns = [lambda i=i: kit.Tagged(TimeLimit(kit.CountingEnv(3 + i), 10), f"t{i}") for i in range(3)]
    vec = proc(fns, num_workers=2)
    assert vec.get_attr("tag") == ["t0", "t1", "t2"]
    assert vec.get_attr("max_episode_steps") == [10, 10, 10]
    assert vec.get_attr("length") == [3, 4, 5]
    # set_attr reaches the layer that has the name: here the env under both wrappers.
    vec.set_attr("length", [1, 2, 7])
    assert vec.get_attr("length") == [1, 2, 7]
    vec.set_attr("tag", "same")
    assert vec.get_attr("tag") == ["same"] * 3
    vec.reset()
    assert vec.call("tag") == ["same"] * 3
    assert [o.tolist() for o in vec.call("_obs")] == [[0, 0, 0]] * 3
    assert vec.step([0, 0, 0]).terminated.tolist() == [True, False, False]
    assert vec.step([0, 0, 0]).terminated.tolist() == [True, True, False]


def test_unpicklable_infos_travel_with_cloudpickle(proc: Any) -> None:
    vec = proc(faulty(2), shared_memory=False)
    vec.reset()
    values = vec.call("apply", lambda env: lambda: env.t)
    assert [fn() for fn in values] == [0, 0]


def _fail_to_load() -> Any:
    raise Boom("cannot load")


class Unloadable:
    """Pickles fine, fails to unpickle."""

    def __reduce__(self) -> Any:
        return (_fail_to_load, ())


def test_a_command_the_worker_cannot_unpickle_is_an_error_not_a_dead_worker(proc: Any) -> None:
    vec = proc(faulty(2), num_workers=2)
    with pytest.raises(VecEnvWorkerError, match="cannot load"):
        vec.reset(options=[{"x": Unloadable()}, None])
    assert vec.reset().observations.shape == (2, 3)


# -- a worker dying ----------------------------------------------------------------------


def test_worker_killed_mid_step(proc: Any, leaks: Any) -> None:
    vec = proc(faulty(4, on_two="kill"), num_workers=2)
    pids = leaks.worker_pids(vec)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"worker 0 \(sub-envs 0, 1\) died") as info:
        vec.step([0, 2, 0, 0])
    assert info.value.index == 0
    assert "SIGKILL" in str(info.value)
    with pytest.raises(VecEnvWorkerError, match=r"worker 0 .* died earlier"):
        vec.step([0, 0, 0, 0])
    vec.close()  # the death was reported already: close() does not raise it again
    leaks.assert_released(pids)


def test_worker_killed_between_steps(proc: Any, leaks: Any) -> None:
    vec = proc(faulty(3))
    pids = leaks.worker_pids(vec)
    vec.reset()
    os.kill(pids[1], signal.SIGKILL)
    with pytest.raises(VecEnvWorkerError, match=r"worker 1 \(sub-env 1\) died") as info:
        vec.step([0, 0, 0])
    assert info.value.index == 1
    vec.close()
    leaks.assert_released(pids)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on a pidfd (Linux)")
def test_worker_reset_under_the_fast_step_read_is_a_dead_worker(
    proc: Any, leaks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker killed while the parent waits for its answer can leave the
    # parent's read with ECONNRESET (a command it never read was still
    # queued): that is the worker's death, reported as such, not an OSError
    # escaping the step. The read fails here as it does then: the worker is
    # gone, what it sent is lost, and the next read meets the end of the stream.
    from sekai.vector import _proc_pool

    vec = proc(faulty(2), num_workers=1)
    pids = leaks.worker_pids(vec)
    vec.reset()
    real_read = _proc_pool._read

    def reset_by_peer(fd: int, size: int) -> bytes:
        monkeypatch.setattr(_proc_pool, "_read", real_read)
        pidfd = os.pidfd_open(pids[0])
        try:
            os.kill(pids[0], signal.SIGKILL)
            select.select([pidfd], [], [])  # readable once the process has exited
        finally:
            os.close(pidfd)
        real_read(fd, size)  # the answer the reset loses
        raise ConnectionResetError(104, "Connection reset by peer")

    monkeypatch.setattr(_proc_pool, "_read", reset_by_peer)
    with pytest.raises(VecEnvWorkerError, match=r"worker 0 \(sub-envs 0, 1\) died"):
        vec.step([0, 0])
    vec.close()
    leaks.assert_released(pids)


def test_unreported_dead_worker_is_raised_by_close(proc: Any, leaks: Any) -> None:
    vec = proc(faulty(2))
    pids = leaks.worker_pids(vec)
    os.kill(pids[0], signal.SIGKILL)
    with pytest.raises(VecEnvWorkerError, match=r"worker 0 \(sub-env 0\) died"):
        vec.close()
    leaks.assert_released(pids)


# -- Ctrl-C ------------------------------------------------------------------------------


@pytest.mark.parametrize("shared_memory", [True, False])
def test_keyboard_interrupt_while_waiting_then_a_normal_step(
    proc: Any, shared_memory: bool
) -> None:
    vec = proc(
        faulty(3, on_two="interrupt", parent=os.getpid()),
        num_workers=2,
        shared_memory=shared_memory,
    )
    vec.reset()
    with pytest.raises(KeyboardInterrupt):
        # Sub-env 2, in the last worker to get the step, sends SIGINT to this
        # process mid-step, while it waits for the replies.
        vec.step([1, 1, 2])
    # The interrupted step ran in the workers; its replies are dropped, and the
    # next step returns its own results.
    result = vec.step([1, 0, 1])
    np.testing.assert_array_equal(result.observations[:, 1], [2, 2, 2])
    np.testing.assert_array_equal(result.observations[:, 2], [2, 1, 3])
    assert result.rewards.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("window", ["reply read, not yet counted", "command not yet sent"])
def test_an_interrupt_between_any_two_steps_of_a_round_trip_never_hangs(
    proc: Any, monkeypatch: pytest.MonkeyPatch, window: str
) -> None:
    # Ctrl-C lands between two bytecodes: here, right after a reply was read
    # but before the parent counted it, or right before a command was written.
    # The next command must neither wait for a reply that will never come nor
    # take a stale reply for its own.
    from sekai.vector import _proc_pool

    vec = proc(faulty(2), num_workers=2)
    vec.reset()
    if window == "reply read, not yet counted":
        real_loads = _proc_pool._loads

        def interrupted_loads(data: bytes) -> Any:
            real_loads(data)
            raise KeyboardInterrupt

        monkeypatch.setattr(_proc_pool, "_loads", interrupted_loads)
        expected_t = [2, 2]  # the interrupted step ran in the workers
    else:
        channel_type = type(vec._pool.workers[0].channel)

        def interrupted_send(self: Any, data: bytes) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(channel_type, "send", interrupted_send)
        expected_t = [1, 1]  # the interrupted step reached no worker
    with pytest.raises(KeyboardInterrupt):
        vec.step([1, 1])
    monkeypatch.undo()

    def give_up(signum: int, frame: Any) -> None:
        raise TimeoutError("the step after the interrupt hung")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(20)
    try:
        vec.step([1, 1])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert vec.get_attr("t") == expected_t


def test_workers_ignore_sigint(proc: Any, leaks: Any) -> None:
    vec = proc(faulty(2))
    vec.reset()
    for pid in leaks.worker_pids(vec):
        os.kill(pid, signal.SIGINT)
    for _ in range(2):
        vec.step([1, 1])
    assert vec.get_attr("t") == [2, 2]


# -- construction failures ---------------------------------------------------------------


def _bad_factory() -> Any:
    raise Boom("cannot build")


@pytest.mark.parametrize("num_workers", [None, 2])
def test_env_fn_raising_in_the_constructor(
    proc: Any, tmp_path: Path, num_workers: int | None, leaks: Any
) -> None:
    markers = [tmp_path / f"env{i}" for i in range(4)]
    fns: list[Any] = [lambda m=str(m): Faulty(marker=m) for m in markers]
    fns[2] = _bad_factory
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 2 raised Boom: cannot build") as info:
        proc(fns, num_workers=num_workers)
    assert info.value.index == 2
    assert isinstance(info.value.__cause__, Boom)
    leaks.assert_released()
    built = [0, 1] if num_workers == 2 else [0, 1, 3]  # a worker stops at its first failure
    assert [m.exists() for m in markers] == [i in built for i in range(4)]


def test_env_fn_returning_a_non_env(proc: Any, leaks: Any) -> None:
    with pytest.raises(VecEnvWorkerError, match=r"env_fns\[1\] must return a sekai.core.Env"):
        proc([Faulty, lambda: "nope"])
    leaks.assert_released()


def test_sub_envs_with_different_spaces(proc: Any, leaks: Any) -> None:
    def other() -> Faulty:
        env = Faulty()
        env.observation_space = Box(0, 1, (3,), np.float32)
        return env

    with pytest.raises(SpaceMismatch, match="sub-env 2"):
        proc([Faulty, Faulty, other], num_workers=2)
    leaks.assert_released()


def test_env_fns_that_cannot_be_pickled_start_nothing(proc: Any, leaks: Any) -> None:
    lock = threading.Lock()
    fns = [Faulty, Faulty, lambda: (lock, Faulty())[1]]
    # The message names the entry and what could not be pickled.
    with pytest.raises(TypeError, match=r"env_fns\[2\] \(<function .*<lambda>.*\).*_thread\.lock"):
        proc(fns, context=None, num_workers=2)
    leaks.assert_released()


@pytest.mark.skipif(not FORK, reason="needs the fork start method")
def test_with_fork_env_fns_are_inherited_not_pickled(proc: Any) -> None:
    lock = threading.Lock()
    vec = proc([Faulty, lambda: (lock, Faulty())[1]], context="fork")
    assert vec.reset().observations.shape == (2, 3)


def _exit_at_once() -> Any:
    os._exit(3)


def test_worker_dying_during_start_up(proc: Any, leaks: Any) -> None:
    with pytest.raises(VecEnvWorkerError, match=r"worker 1 \(sub-env 1\) died .*exit code 3"):
        proc([Faulty, _exit_at_once, Faulty])
    leaks.assert_released()


def test_worker_failing_to_start(proc: Any, leaks: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    process_type = type(multiprocessing.get_context("fork").Process())
    start = process_type.start
    calls: list[int] = []

    def failing_start(self: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("no more processes")
        start(self)

    monkeypatch.setattr(process_type, "start", failing_start)
    with pytest.raises(OSError, match="no more processes"):
        proc(faulty(3), context="fork")
    monkeypatch.undo()
    leaks.assert_released()


def _interrupt_parent(parent: int) -> Any:
    os.kill(parent, signal.SIGINT)
    return Faulty()


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks")
def test_ctrl_c_right_after_sigint_is_blocked_still_unblocks_it(
    proc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C is handled between two bytecodes: here, right after the parent
    # blocked SIGINT to start a worker. SIGINT must not stay blocked, or every
    # later Ctrl-C of the program would be lost.
    from sekai.vector import _proc_pool

    real_block = _proc_pool._block_sigint

    def interrupted_block() -> Any:
        real_block()
        raise KeyboardInterrupt

    monkeypatch.setattr(_proc_pool, "_block_sigint", interrupted_block)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    try:
        with pytest.raises(KeyboardInterrupt):
            proc(faulty(2))
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def test_keyboard_interrupt_during_construction(proc: Any, leaks: Any) -> None:
    parent = os.getpid()
    with pytest.raises(KeyboardInterrupt):
        proc([Faulty, lambda: _interrupt_parent(parent), Faulty])
    leaks.assert_released()


# -- close -------------------------------------------------------------------------------


def test_a_worker_hanging_in_close_is_terminated_after_close_timeout(
    proc: Any, tmp_path: Path, leaks: Any
) -> None:
    markers = [tmp_path / f"env{i}" for i in range(3)]
    fns = [
        lambda m=str(m), i=i: Faulty(marker=m, close_hangs=i == 1) for i, m in enumerate(markers)
    ]
    vec = proc(fns, close_timeout=2.0)
    pids = leaks.worker_pids(vec)
    with pytest.warns(RuntimeWarning, match=r"worker 1 \(sub-env 1\) did not finish closing"):
        vec.close()
    assert all(m.exists() for m in markers)
    leaks.assert_released(pids)


def test_close_closes_every_sub_env_then_raises_the_first_failure(
    proc: Any, tmp_path: Path, leaks: Any
) -> None:
    markers = [tmp_path / f"env{i}" for i in range(4)]
    fns = [
        lambda m=str(m), i=i: Faulty(marker=m, close_fails=i in (1, 2))
        for i, m in enumerate(markers)
    ]
    vec = proc(fns, num_workers=2)
    pids = leaks.worker_pids(vec)
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 1 raised Boom: close failed") as info:
        vec.close()
    assert info.value.index == 1
    assert all(m.exists() for m in markers)
    leaks.assert_released(pids)
    vec.close()  # idempotent


def test_garbage_collected_vec_env_releases_everything(tmp_path: Path, leaks: Any) -> None:
    marker = tmp_path / "env0"
    vec = ProcVecEnv([lambda: Faulty(marker=str(marker))], context="fork")
    pids = leaks.worker_pids(vec)
    vec.reset()
    del vec
    gc.collect()
    assert marker.exists()
    leaks.assert_released(pids)


def test_after_the_exit_finaliser_ran_the_vec_env_reports_closed(proc: Any) -> None:
    vec = proc(faulty(2))
    vec.reset()
    vec._finalizer()  # what interpreter exit runs for a vector env left open
    assert vec.closed
    with pytest.raises(VecEnvClosed):
        vec.step([0, 0])
    with pytest.raises(VecEnvClosed):
        vec.get_attr("t")
    assert vec.shared_memory


def test_vec_env_left_open_is_closed_at_interpreter_exit(tmp_path: Path) -> None:
    marker = tmp_path / "closed"
    script = tmp_path / "left_open.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            import numpy as np
            from sekai.core import Env, ResetResult, StepResult, TimeLimit
            from sekai.spaces import Box, Discrete
            from sekai.vector import ProcVecEnv

            class Env0(Env):
                observation_space = Box(0, 1, (2,), np.float32)
                action_space = Discrete(2)

                def reset(self, *, seed=None, options=None):
                    return ResetResult(np.zeros(2, np.float32), {{}})

                def step(self, action):
                    return StepResult(np.zeros(2, np.float32), 0.0, False, False, {{}})

                def close(self):
                    with open({str(marker)!r}, "w") as f:
                        f.write("closed")

            if __name__ == "__main__":
                vec = ProcVecEnv([Env0, Env0], context="fork")
                vec.reset()
                print(os.getpid())
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    assert "Traceback" not in done.stderr
    assert "leaked" not in done.stderr
    assert marker.read_text() == "closed"
    child = done.stdout.strip()
    assert not [name for name in os.listdir("/dev/shm") if name.startswith(f"sekai_{child}_")]


# -- async -------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_async_step_lets_the_event_loop_run_and_cancellation_is_recovered(
    proc: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    opener = os.open(gate, os.O_RDWR)  # a writer exists, so the worker's open returns
    try:
        vec = proc([lambda: Faulty(gate=str(gate))])
        vec.reset()

        async def scenario() -> Any:
            task = asyncio.ensure_future(vec.async_step([1]))
            await asyncio.sleep(0)  # the step is sent; the worker waits at the gate
            with pytest.raises(AsyncCallPending):
                vec.step([1])
            os.write(opener, b"x")  # runs only because async_step left the loop free
            first = await task
            cancelled = asyncio.ensure_future(vec.async_step([1]))
            await asyncio.sleep(0)
            cancelled.cancel()
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            os.write(opener, b"xx")  # one for the abandoned step, one for the next
            second = await vec.async_step([0])
            return first, second

        first, second = asyncio.run(scenario())
        assert first.observations[0, 1] == 1
        # The cancelled step still ran in the worker; its reply was dropped.
        np.testing.assert_array_equal(second.observations[0], [0, 3, 2])
        reset = asyncio.run(vec.async_reset())
        np.testing.assert_array_equal(reset.observations[0], [0, 0, 0])
    finally:
        os.close(opener)
