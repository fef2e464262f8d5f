"""A real Ctrl-C at every line of sekai's code during one call of ProcVecEnv.

ProcVecEnv's workers ignore Ctrl-C, so an interrupted call goes on in them
while the parent stops wherever the signal lands: between two sends, between
a send and its bookkeeping, while reading replies, while starting workers or
tearing them down. Whatever the line, the contract of ``_interrupts.py``
(through the ``interrupts`` fixture) must hold: sub-envs in step or
ResetRequired until a reset, no wedged call, no bare error, no hang, and no
worker process or shared-memory block left behind by an interrupted
construction or close.

The sweeps try every ``STRIDE``-th line (``SEKAI_INTERRUPT_STRIDE=1``: all)
with two workers for three sub-envs (uneven groups), forked for speed; the
default start method is swept for construction and step only (each run
starts workers through the fork server). The reproducers put the interrupt
at one chosen line.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
import warnings
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.error import ResetRequired
from sekai.spaces import Box, Discrete
from sekai.vector import ProcVecEnv
from sekai.vector._proc_pool import SHM_PREFIX

STRIDE = 31  # a prime: each run starts worker processes
NUM_ENVS = 3
NUM_WORKERS = 2


def proc_leaks() -> str:
    """Worker processes still alive after a bounded join, and this process's shared blocks.

    What is found is reported, then removed (killed, unlinked), so that one
    leak is not reported again by every later run.
    """
    deadline = time.monotonic() + 5.0
    for child in multiprocessing.active_children():
        child.join(max(0.0, deadline - time.monotonic()))
    alive = [child.name for child in multiprocessing.active_children()]
    prefix = f"{SHM_PREFIX}{os.getpid()}_"
    try:
        blocks = sorted(name for name in os.listdir("/dev/shm") if name.startswith(prefix))
    except FileNotFoundError:  # pragma: no cover - no /dev/shm on this platform
        blocks = []
    for child in multiprocessing.active_children():
        child.kill()
        child.join(5.0)
    for name in blocks:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join("/dev/shm", name))
    leaked = []
    if alive:
        leaked.append(f"worker processes alive: {alive}")
    if blocks:
        leaked.append(f"shared-memory blocks: {blocks}")
    return "; ".join(leaked)


def _rig(interrupts: Any, kit: Any, context: str | None) -> Any:
    fns = kit.counting_fns([interrupts.LENGTH] * NUM_ENVS)

    def make() -> ProcVecEnv[Any, Any]:
        return ProcVecEnv(fns, num_workers=NUM_WORKERS, context=context, close_timeout=3.0)

    return interrupts.Rig(make=make, leaks=proc_leaks, num_envs=NUM_ENVS)


def test_ctrl_c_at_any_line(interrupted_call: str, interrupts: Any, kit: Any) -> None:
    """After a Ctrl-C anywhere in ``call`` (forked workers), the contract holds."""
    case = interrupts.Case(_rig(interrupts, kit, "fork"), interrupted_call)
    failures = case.sweep(STRIDE)
    assert case.runs > 1, "the call ran no line of sekai"
    assert not failures, case.summary()


@pytest.mark.parametrize("call", ["init", "step"])
def test_ctrl_c_at_any_line_default_context(call: str, interrupts: Any, kit: Any) -> None:
    """The same with the default start method (the fork server), for construction and step."""
    case = interrupts.Case(_rig(interrupts, kit, None), call)
    failures = case.sweep(STRIDE * 2 + 1)
    assert case.runs > 1, "the call ran no line of sekai"
    assert not failures, case.summary()


# -- reproducers: one interrupt at a chosen line ------------------------------------------


def test_interrupted_step_leaves_sub_envs_in_step(interrupts: Any, kit: Any) -> None:
    """Ctrl-C in step() between the commands to the two workers: all step, or ResetRequired.

    The step reaches worker 0 but not worker 1. ProcVecEnv treats an
    interrupted step as one that completes in the workers, so the next step
    runs without ResetRequired with worker 0's sub-envs one step ahead.
    """
    fns = kit.counting_fns([interrupts.LENGTH] * NUM_ENVS)
    with ProcVecEnv(fns, num_workers=NUM_WORKERS, context="fork", close_timeout=3.0) as vec:
        vec.reset(seed=0)
        ones = np.ones(NUM_ENVS, dtype=np.int64)
        vec.step(ones)
        # Before the command goes to the second worker.
        with (
            pytest.raises(KeyboardInterrupt),
            interrupts.CtrlC(1, function="Channel.send", invocation=2) as ctrl,
        ):
            vec.step(ones * 2)
        try:
            result = vec.step(ones)
        except ResetRequired:
            vec.reset(seed=0)
            result = vec.step(ones)
        rows = [tuple(row) for row in result.observations.tolist()]
        assert len(set(rows)) == 1, f"sub-envs out of step after Ctrl-C at {ctrl.site}: {rows}"


class SlowClose(Env[NDArray[np.float32], np.int64]):
    """A sub-env whose close() takes a minute, as a simulator flushing a large log might."""

    observation_space = Box(-1.0, 1.0, (3,), np.float32)
    action_space = Discrete(3)

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        return ResetResult(np.zeros(3, dtype=np.float32), {})

    def step(self, action: np.int64) -> StepResult[NDArray[np.float32]]:
        return StepResult(np.zeros(3, dtype=np.float32), 0.0, False, False, {})

    def close(self) -> None:
        time.sleep(60)


def test_interrupted_close_returns_at_once(interrupts: Any) -> None:
    """Ctrl-C in close() while a sub-env closes slowly: close() stops now, not at close_timeout.

    A user pressing Ctrl-C wants out; the interrupted close still waits
    the whole ``close_timeout`` (20 s here) for the workers before it lets
    the interrupt through. A second close() must then finish and leave no
    worker behind. The bounds are generous: they only tell a prompt return
    from a wait for the timeout.
    """
    vec = ProcVecEnv([SlowClose] * 2, num_workers=2, context="fork", close_timeout=20.0)
    vec.reset(seed=0)
    with interrupts.watchdog(60.0):
        started = time.monotonic()
        # While waiting for the first worker's answer to the close command.
        with pytest.raises(KeyboardInterrupt), interrupts.CtrlC(1, function="WorkerPool._recv"):
            vec.close()
        interrupted = time.monotonic() - started
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # workers terminated late
            vec.close()
        leaked = proc_leaks()
    assert interrupted < 5.0, f"the interrupted close() took {interrupted:.1f} s"
    assert leaked == "", leaked
