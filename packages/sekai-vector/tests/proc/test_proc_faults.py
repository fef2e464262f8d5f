"""ProcVecEnv under the faults of issue 16: timeouts, a dying parent, bad results, threads.

Each test fails on the code before that work. The rules they check are the
ones ``tests/test_faults.py`` checks on the in-process backends.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidObservation, ResetRequired, VecEnvWorkerError
from sekai.spaces import Box, Discrete

FORK = "fork" in multiprocessing.get_all_start_methods()
BOX4 = Box(-1e6, 1e6, (4,), np.float32)
SENTINEL: Any = object()
# ProcVecEnv configurations: shared memory, pickled observations, grouped sub-envs.
CONFIGS = {
    "shm": {},
    "pickle": {"shared_memory": False},
    "grouped": {"num_workers": 1},
}


class Gate:
    """A named pipe a sub-env blocks on until the test writes to it (or forever)."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = str(path)
        self.writer = os.open(path, os.O_RDWR)  # a writer exists, so readers' opens return

    def open(self, times: int = 1) -> None:
        os.write(self.writer, b"x" * times)

    def close(self) -> None:
        os.close(self.writer)


class Odd(Env[Any, int]):
    """Observation ``[t, 0, 0, 0]``; on action 1 returns what it was told to.

    Action 2 blocks on ``gate`` (a named pipe); action 3 raises.
    """

    def __init__(
        self,
        *,
        obs: Any = SENTINEL,
        reward: Any = SENTINEL,
        terminated: Any = SENTINEL,
        info: Any = SENTINEL,
        reset_obs: Any = SENTINEL,
        gate: str | None = None,
        length: int = 100,
        bad_reset: bool = False,
    ) -> None:
        self.observation_space = BOX4
        self.action_space = Discrete(4)
        self.bad = {"obs": obs, "reward": reward, "terminated": terminated, "info": info}
        self.reset_obs = reset_obs
        self.gate = gate
        self.length = length
        self.bad_reset = bad_reset
        self.t = 0
        self.resets = 0

    def _obs(self) -> Any:
        return np.array([self.t, 0, 0, 0], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        if self.bad_reset and self.resets:
            raise RuntimeError("reset failed")
        self.t = 0
        self.resets += 1
        return ResetResult(self._obs() if self.reset_obs is SENTINEL else self.reset_obs, {})

    def step(self, action: int) -> StepResult[Any]:
        if action == 2:
            assert self.gate is not None
            fd = os.open(self.gate, os.O_RDONLY)
            ready, _, _ = select.select([fd], [], [], 60)
            if ready:
                os.read(fd, 1)
            os.close(fd)
        if action == 3:
            raise RuntimeError("step failed")
        self.t += 1
        result = {"obs": self._obs(), "reward": 1.0, "terminated": self.t >= self.length}
        result["info"] = {"t": self.t}
        if action == 1:
            result.update({k: v for k, v in self.bad.items() if v is not SENTINEL})
        return StepResult(
            result["obs"], result["reward"], result["terminated"], False, result["info"]
        )

    def pid(self) -> int:
        return os.getpid()


def _fns(n: int, bad_index: int | None, **kwargs: Any) -> list[Any]:
    return [lambda i=i: Odd(**(kwargs if bad_index in (None, i) else {})) for i in range(n)]


@pytest.fixture(params=sorted(CONFIGS))
def config(request: pytest.FixtureRequest) -> dict[str, Any]:
    return dict(CONFIGS[str(request.param)])


@pytest.fixture
def gate(tmp_path: Path) -> Any:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    made = Gate(tmp_path / "gate")
    yield made
    made.close()


# -- item 4: wrong-shaped observations -------------------------------------------------


@pytest.mark.parametrize("bad", [np.float32([7.0]), None, "text"], ids=repr)
@pytest.mark.parametrize("everyone", [False, True])
def test_a_wrong_observation_names_the_sub_env(
    proc: Any, config: dict[str, Any], bad: Any, everyone: bool
) -> None:
    vec = proc(_fns(3, None if everyone else 2, obs=bad), **config)
    vec.reset()
    named = 0 if everyone else 2
    with pytest.raises(InvalidObservation, match=rf"sub-env {named} .*expected shape \(4,\)"):
        vec.step([1, 1, 1])
    assert vec.step([0, 0, 0]).observations[:, 0].tolist() == [2, 2, 2]  # still usable


def test_a_wrong_observation_in_reset(proc: Any, config: dict[str, Any]) -> None:
    vec = proc(_fns(3, 1, reset_obs=np.zeros(2, np.float32)), **config)
    with pytest.raises(
        InvalidObservation, match=r"sub-env 1 .*shape \(2,\).*expected shape \(4,\)"
    ):
        vec.reset()


# -- items 5 and 6: rewards, flags, unpicklable infos; blame in groups -------------------


@pytest.mark.parametrize("reward", ["abc", {}, None, "1.5", True], ids=repr)
def test_a_bad_reward_names_its_sub_env_in_a_group(
    proc: Any, config: dict[str, Any], reward: Any
) -> None:
    vec = proc(_fns(3, 1, reward=reward), **config)
    vec.reset()
    with pytest.raises(InvalidObservation, match=r"sub-env 1 returned reward"):
        vec.step([1, 1, 1])


@pytest.mark.parametrize("value", [0.5, "no", np.int8(2), None], ids=repr)
def test_a_flag_that_is_not_a_bool_is_refused(
    proc: Any, config: dict[str, Any], value: Any
) -> None:
    vec = proc(_fns(3, 1, terminated=value), **config)
    vec.reset()
    with pytest.raises(InvalidObservation, match=r"sub-env 1 returned terminated="):
        vec.step([1, 1, 1])
    assert vec.get_attr("resets") == [1, 1, 1]  # nothing was reset
    assert vec.get_attr("t") == [1, 1, 1]  # every sub-env took its step


def test_numpy_bools_and_one_mean_true(proc: Any, config: dict[str, Any]) -> None:
    vec = proc(_fns(3, 1, terminated=np.int64(1)), **config)
    vec.reset()
    result = vec.step([1, 1, 1])
    assert result.terminated.tolist() == [False, True, False]
    assert vec.get_attr("resets") == [1, 2, 1]


def test_an_unpicklable_info_names_its_sub_env_in_a_group(proc: Any) -> None:
    lock = threading.Lock()
    vec = proc(_fns(3, 2, info={"lock": lock}), num_workers=1)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 2 raised") as info:
        vec.step([1, 1, 1])
    assert info.value.index == 2


def test_a_sub_env_raising_does_not_stop_the_others_of_its_worker(proc: Any) -> None:
    vec = proc([lambda n=n: Odd(length=n) for n in (5, 1, 5, 5)], num_workers=2, autoreset=False)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 0 raised RuntimeError: step failed"):
        vec.step([3, 0, 0, 0])
    assert vec.get_attr("t") == [0, 1, 1, 1]  # sub-env 1, after 0 in its worker, stepped
    assert vec.frozen.tolist() == [False, True, False, False]  # and ended its episode


def test_a_failed_autoreset_is_reported_as_such(proc: Any) -> None:
    vec = proc([lambda: Odd(length=1, bad_reset=True)] * 2, num_workers=1)
    vec.reset()
    with pytest.raises(VecEnvWorkerError, match=r"sub-env 0 raised .* in the autoreset of step"):
        vec.step([0, 0])


# -- item 3: step_timeout ----------------------------------------------------------------


def test_a_step_timeout_ends_the_hung_worker(proc: Any, gate: Any, leaks: Any) -> None:
    vec = proc(_fns(3, 1, gate=gate.path), step_timeout=2.0)
    pids = leaks.worker_pids(vec)
    vec.reset()
    with pytest.raises(
        VecEnvWorkerError,
        match=r"worker 1 \(sub-env 1\) did not answer step\(\) within step_timeout=2 s "
        r"and was terminated",
    ) as info:
        vec.step([0, 2, 0])
    assert info.value.index == 1
    assert vec._pool.workers[1].process.exitcode == -signal.SIGKILL
    with pytest.raises(VecEnvWorkerError, match=r"worker 1 \(sub-env 1\) was terminated earlier"):
        vec.step([0, 0, 0])
    vec.close()  # reported already: close() does not raise it again
    leaks.assert_released(pids)


def test_a_step_timeout_while_recv_waits(proc: Any, gate: Any) -> None:
    vec = proc(_fns(3, 1, gate=gate.path), step_timeout=2.0, batch_size=1)
    vec.reset()
    vec.send(np.array([0, 2, 0]))
    assert sorted(vec.recv().env_ids.tolist() + vec.recv().env_ids.tolist()) == [0, 2]
    with pytest.raises(VecEnvWorkerError, match=r"worker 1 \(sub-env 1\) did not answer"):
        vec.recv()
    with pytest.raises(ResetRequired):
        vec.recv()
    with pytest.raises(VecEnvWorkerError, match="terminated earlier"):
        vec.reset()


def test_a_step_timeout_in_async_step(proc: Any, gate: Any) -> None:
    vec = proc(_fns(2, 0, gate=gate.path), step_timeout=2.0, num_workers=1)
    vec.reset()

    async def main() -> None:
        with pytest.raises(VecEnvWorkerError, match=r"worker 0 \(sub-envs 0, 1\) did not answer"):
            await vec.async_step([2, 0])

    asyncio.run(main())


def test_a_step_within_the_timeout_is_untouched(proc: Any, gate: Any) -> None:
    vec = proc(_fns(2, 0, gate=gate.path), step_timeout=30)
    vec.reset()
    gate.open()
    assert vec.step([2, 0]).observations[:, 0].tolist() == [1, 1]


def _never_starts() -> Env[Any, int]:
    time.sleep(60)
    return Odd()


def test_a_worker_that_does_not_start_within_the_step_timeout(leaks: Any) -> None:
    from sekai.vector import ProcVecEnv

    began = time.monotonic()
    with pytest.raises(
        VecEnvWorkerError,
        match=r"worker 1 \(sub-env 1\) did not start \(build its sub-envs\) within "
        r"step_timeout=3 s and was terminated",
    ) as info:
        ProcVecEnv([Odd, _never_starts, Odd], context="fork" if FORK else None, step_timeout=3.0)
    assert info.value.index == 1
    assert time.monotonic() - began < 20
    leaks.assert_released()  # every worker stopped, no pipe or shared memory left


@pytest.mark.parametrize("value", [0, -1, float("nan"), "1"])
def test_bad_step_timeouts(value: Any) -> None:
    from sekai.vector import ProcVecEnv

    with pytest.raises((TypeError, ValueError), match="step_timeout"):
        ProcVecEnv([Odd], context="fork" if FORK else None, step_timeout=value)


# -- item 7: close_timeout=inf -----------------------------------------------------------


def test_close_timeout_may_be_infinite(proc: Any, leaks: Any) -> None:
    vec = proc(_fns(2, None), close_timeout=float("inf"))
    pids = leaks.worker_pids(vec)
    vec.reset()
    vec.step([0, 0])
    vec.close()
    leaks.assert_released(pids)


# -- item 9: threads ---------------------------------------------------------------------


def test_close_from_another_thread_while_a_step_blocks(proc: Any, gate: Any) -> None:
    from sekai.error import AsyncCallPending

    vec = proc(_fns(2, 1, gate=gate.path))
    vec.reset()
    entered = threading.Event()
    check = vec._check_actions

    def noting(actions: Any) -> Any:  # runs once the step holds the vector env
        entered.set()
        return check(actions)

    vec._check_actions = noting
    stepper = threading.Thread(target=vec.step, args=([0, 2],), name="stepper")
    stepper.start()
    try:
        assert entered.wait(30)  # the step then waits for the gate, in the worker
        with pytest.raises(AsyncCallPending, match=r"close\(\).*thread 'stepper'"):
            vec.close()
    finally:
        gate.open()
        stepper.join(30)
    assert vec.step([0, 0]).observations[:, 0].tolist() == [2, 2]


# -- item 2: workers die with their parent -----------------------------------------------


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(ppid, []).append(int(name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


_GONE_CASES = [
    (context, where, "holds the GIL")
    for context in ("forkserver", "spawn", "fork")
    for where in ("main thread", "other thread")
] + [("forkserver", "main thread", "waits")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("context", "where", "hang"), _GONE_CASES)
def test_workers_and_shared_memory_go_when_the_parent_is_killed(
    tmp_path: Path, context: str, where: str, hang: str
) -> None:
    # A sub-env stuck in C code with the GIL held (ctypes.PyDLL does not
    # release it) stops every thread of its worker, the parent watchdog too:
    # only something outside the worker can end it.
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import ctypes, os, sys, threading
            import numpy as np
            from sekai.core import Env, ResetResult, StepResult
            from sekai.spaces import Box, Discrete
            from sekai.vector import ProcVecEnv

            class Hangs(Env):
                observation_space = Box(0, 1, (2,), np.float32)
                action_space = Discrete(2)

                def reset(self, *, seed=None, options=None):
                    return ResetResult(np.zeros(2, np.float32), {{}})

                def step(self, action):
                    if action:
                        print("hanging", flush=True)
                        if {hang!r} == "holds the GIL":
                            ctypes.PyDLL(None).sleep(600)
                        else:
                            threading.Event().wait()
                    return StepResult(np.zeros(2, np.float32), 0.0, False, False, {{}})

            def build():
                return ProcVecEnv([Hangs, Hangs], context={context!r})

            if __name__ == "__main__":
                if {where!r} == "other thread":
                    made = []
                    thread = threading.Thread(target=lambda: made.append(build()))
                    thread.start()
                    thread.join()
                    vec = made[0]
                else:
                    vec = build()
                vec.reset()
                assert vec.shared_memory
                print("ready", flush=True)
                vec.step([0, 1])
            """
        )
    )
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    others: set[int] = set()
    try:
        assert parent.stdout is not None
        lines = [parent.stdout.readline().strip() for _ in range(2)]
        assert lines == ["ready", "hanging"], parent.stderr.read() if parent.stderr else ""
        others = _descendants(parent.pid)
        assert len(others) >= 2  # the workers (and the reaper, the fork server, the tracker)
        segments = [n for n in os.listdir("/dev/shm") if n.startswith(f"sekai_{parent.pid}_")]
        assert len(segments) == 1
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            alive = {pid for pid in others if _alive(pid)}
            left = [n for n in os.listdir("/dev/shm") if n.startswith(f"sekai_{parent.pid}_")]
            if not alive and not left:
                break
            time.sleep(0.05)  # polling for processes this test does not own
        assert not alive, f"still running: {sorted(alive)}"
        assert not left, f"shared memory left: {left}"
    finally:
        parent.kill()
        parent.wait()
        for pid in filter(_alive, others):  # what a failure left behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pidfds are Linux's")
def test_the_reaper_guards_every_worker_and_ends_with_the_vector_env(proc: Any) -> None:
    vec = proc([Odd, Odd, Odd], num_workers=3)
    reaper = vec._pool.reaper._process
    assert reaper.poll() is None
    pids = {w.process.pid for w in vec._pool.workers}
    watched = set()  # the processes it holds a pidfd of
    for fd in os.listdir(f"/proc/{reaper.pid}/fdinfo"):
        with open(f"/proc/{reaper.pid}/fdinfo/{fd}") as info:
            for line in info:
                if line.startswith("Pid:"):
                    watched.add(int(line.split()[1]))
    assert watched == pids | {os.getpid()}
    vec.close()
    assert reaper.poll() is not None
    assert vec._pool.reaper is None


def _wait_gone(pids: set[int], timeout: float) -> set[int]:
    """Wait (on pidfds) up to ``timeout`` seconds for ``pids`` to exit; those still running."""
    fds = {}
    for pid in filter(_alive, pids):
        with contextlib.suppress(ProcessLookupError):
            fds[os.pidfd_open(pid)] = pid
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        left, deadline = set(fds), time.monotonic() + timeout
        while left and (remaining := deadline - time.monotonic()) > 0:
            for fd, _ in poller.poll(remaining * 1000):
                poller.unregister(fd)
                left.discard(fd)
        return set(filter(_alive, (fds[fd] for fd in left)))
    finally:
        for fd in fds:
            os.close(fd)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the reaper needs pidfds")
def test_the_reaper_kills_what_it_guards_even_if_its_creator_dies_before_it_starts(
    tmp_path: Path,
) -> None:
    # The creator hands over a pidfd of itself, so a reaper that starts after
    # the creator is gone still knows it is gone, and still has the pidfds.
    script = tmp_path / "creator.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, subprocess, sys
            from sekai.vector._proc_reaper import start_reaper

            reaper = start_reaper()
            child = subprocess.Popen(["sleep", "600"])
            reaper.guard(child.pid)
            print(child.pid, flush=True)
            os._exit(0)  # at once: the reaper is most likely not running yet
            """
        )
    )
    output = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True
    ).stdout
    child = int(output)
    try:
        assert _wait_gone({child}, timeout=60) == set()
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="no forkserver"
)
@pytest.mark.parametrize("fault", ["reaped elsewhere", "alive but unreachable"])
def test_a_fork_server_that_stopped_answering_is_replaced(
    proc: Any, fault: str, tmp_path: Path
) -> None:
    from multiprocessing import forkserver

    server: Any = getattr(forkserver, "_forkserver")  # noqa: B009 - private, untyped
    running = proc([Odd, Odd], context="forkserver")
    running.reset()
    old = server._forkserver_pid
    if fault == "reaped elsewhere":  # e.g. by code that waits for any child
        os.kill(old, signal.SIGKILL)
        os.waitpid(old, 0)
    else:  # e.g. its socket file was removed by a temp-dir cleaner
        server._forkserver_address = str(tmp_path / "nobody-listens-here")
    for _ in range(2):  # not only once: every later construction works
        vec = proc([Odd, Odd], context="forkserver")
        vec.reset()
        assert vec.step([1, 1]).observations.shape[0] == 2
        vec.close()
    assert server._forkserver_pid != old
    workers = {w.process.pid for w in running._pool.workers}
    if fault == "alive but unreachable":
        # A vector env whose workers the old server started goes on working: a
        # live server is not ended (its workers report their exit through it).
        assert running.step([1, 1]).observations.shape[0] == 2
        running.close()
    else:  # a killed server took its workers' exit reports with it: they may look dead
        with contextlib.suppress(VecEnvWorkerError):
            running.close()
    assert _wait_gone(workers | {old}, timeout=60) == set()  # the server goes after them


# -- item 10: interrupted construction prints nothing from the workers -------------------


def _interrupt_parent(parent: int) -> Any:
    os.kill(parent, signal.SIGINT)
    return Odd()


def test_ctrl_c_during_construction_prints_no_worker_traceback(
    proc: Any, leaks: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    parent = os.getpid()
    for _ in range(3):
        with pytest.raises(KeyboardInterrupt):
            proc([lambda: _interrupt_parent(parent), Odd, Odd, Odd])
        leaks.assert_released()
    err = capfd.readouterr().err
    assert "Traceback" not in err, err


@pytest.mark.skipif(not FORK, reason="needs the fork start method")
def test_a_worker_whose_parent_is_gone_before_it_starts_prints_nothing(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from sekai.vector._proc_worker import worker_main

    context = multiprocessing.get_context("fork")
    parent_end, child_end = context.Pipe(duplex=True)
    parent_end.close()  # as after Ctrl-C in the constructor: nobody reads the start-up reply
    worker = context.Process(target=worker_main, args=(child_end, [Odd], 0, True, []))
    worker.start()
    child_end.close()
    worker.join(30)
    assert worker.exitcode is not None
    err = capfd.readouterr().err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
