"""A real Ctrl-C at every line of sekai's code during one call of SyncVecEnv and AsyncVecEnv.

Ctrl-C can arrive anywhere: a user stopping a training run does not wait
for a step to end. Whatever line it lands on, the vector env must stay
usable with every sub-env at the same step, or say so with ResetRequired
until a reset; it must never be wedged, out of step without saying so, or
raise a bare error. The harness (``_interrupts.py``, through the
``interrupts`` fixture) raises SIGINT at the n-th line of sekai's code and
checks that contract after each interrupted call; see its docstring.

The sweeps try every ``STRIDE``-th line (``SEKAI_INTERRUPT_STRIDE=1``: all).
The reproducers below put the interrupt at one chosen line, to show a broken
case on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.error import NothingInFlight, ResetRequired, SekaiError
from sekai.spaces import Box, Discrete
from sekai.vector import AsyncVecEnv, SyncVecEnv

STRIDE = 7  # in-process calls are quick: a small prime stride
NUM_ENVS = 3


@pytest.mark.parametrize("vec_backend", ["sync", "async"])
def test_ctrl_c_at_any_line(
    vec_backend: str, interrupted_call: str, interrupts: Any, kit: Any
) -> None:
    """After a Ctrl-C anywhere in ``call``, the contract of `_interrupts` holds."""
    cls = SyncVecEnv if vec_backend == "sync" else AsyncVecEnv
    fns = kit.counting_fns([interrupts.LENGTH] * NUM_ENVS)
    rig = interrupts.Rig(make=lambda: cls(fns), leaks=lambda: "", num_envs=NUM_ENVS)
    case = interrupts.Case(rig, interrupted_call)
    failures = case.sweep(STRIDE)
    assert case.runs > 1, "the call ran no line of sekai"
    assert not failures, case.summary()


# -- reproducers: one interrupt at a chosen line ------------------------------------------


def _rows(observations: Any) -> list[tuple[float, ...]]:
    return [tuple(row) for row in np.asarray(observations).tolist()]


class Overlapping(Env[NDArray[np.float32], np.int64]):
    """A counter (observation ``[start, t, total]``) whose async step yields to the loop twice.

    A step that starts while another step of the same sub-env is still
    running is recorded in ``overlaps``: a sub-env is never stepped twice at
    once.
    """

    observation_space = Box(-1e6, 1e6, (3,), np.float32)
    action_space = Discrete(3)

    def __init__(self, overlaps: list[int]) -> None:
        self.overlaps = overlaps
        self.busy = False
        self.t = self.total = 0

    def _obs(self) -> NDArray[np.float32]:
        return np.array([0.0, self.t, self.total], dtype=np.float32)

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        self.t = self.total = 0
        return ResetResult(self._obs(), {})

    def step(self, action: np.int64) -> StepResult[NDArray[np.float32]]:
        self.t += 1
        self.total += int(action)
        return StepResult(self._obs(), 0.0, False, False, {})

    async def async_step(self, action: np.int64) -> StepResult[NDArray[np.float32]]:
        if self.busy:
            self.overlaps.append(self.t)
        self.busy = True
        try:
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            return self.step(action)
        finally:
            self.busy = False


def _send_and_receive(vec: Any, action: int) -> Any:
    """``send`` + ``recv`` of every sub-env; after ResetRequired, a reset first."""
    batch = np.full(vec.num_envs, action, dtype=np.int64)
    try:
        vec.send(batch)
        return vec.recv()
    except ResetRequired:
        vec.reset(seed=0)
        vec.send(batch)
        return vec.recv()


@pytest.mark.parametrize("vec_backend", ["sync", "async"])
def test_send_interrupted_before_its_bookkeeping(
    vec_backend: str, interrupts: Any, kit: Any
) -> None:
    """Ctrl-C in ``send()`` after the sub-envs got their actions, before they are marked sent.

    The next ``recv()`` finds nothing in flight, yet the actions are still
    queued (SyncVecEnv) or their tasks still run (AsyncVecEnv). A later
    ``send`` + ``recv`` then hands back stale results: a sub-env twice
    (env_ids [0, 0]) and another one's result lost, or the step of the
    interrupted send in place of the new one. Each sub-env sent must come
    back once, with the interrupted action applied once or not at all.
    """
    cls = SyncVecEnv if vec_backend == "sync" else AsyncVecEnv
    with cls(kit.counting_fns([interrupts.LENGTH] * 2)) as vec:
        vec.reset(seed=0)
        with (
            pytest.raises(KeyboardInterrupt),
            interrupts.CtrlC(1, function="VecEnv._mark_in_flight") as ctrl,
        ):
            vec.send(np.full(2, 2, dtype=np.int64))
        assert ctrl.fired
        with contextlib.suppress(ResetRequired, NothingInFlight):
            vec.recv()  # whatever it hands back, the next batch must be right
        result = _send_and_receive(vec, 1)
        ids = sorted(result.env_ids.tolist())
        assert ids == [0, 1], f"recv() handed back env_ids {ids} (interrupt at {ctrl.site})"
        rows = _rows(result.observations)
        assert rows[0] == rows[1], f"sub-envs out of step: {rows}"
        # The interrupted action (2) applied once or not at all, then this one (1).
        assert rows[0][1:] in ((1.0, 1.0), (2.0, 3.0)), f"unexpected history: {rows[0]}"


def test_async_send_interrupted_never_steps_a_sub_env_twice_at_once(interrupts: Any) -> None:
    """After a Ctrl-C in AsyncVecEnv.send(), no sub-env runs two steps concurrently.

    The tasks of the interrupted send run on, unknown to the vector env; the
    next ``send`` starts a second task for the same sub-envs beside them.
    """
    overlaps: list[int] = []
    with AsyncVecEnv([lambda: Overlapping(overlaps)] * 2) as vec:
        vec.reset(seed=0)
        with (
            pytest.raises(KeyboardInterrupt),
            interrupts.CtrlC(1, function="VecEnv._mark_in_flight"),
        ):
            vec.send(np.full(2, 2, dtype=np.int64))
        with contextlib.suppress(ResetRequired, NothingInFlight):
            vec.recv()
        _send_and_receive(vec, 1)
        assert overlaps == [], f"sub-envs stepped twice at once (at t={overlaps})"


def test_async_recv_interrupted_after_its_task_started(interrupts: Any, kit: Any) -> None:
    """Ctrl-C in AsyncVecEnv.recv() just after the task that waits for the sub-envs is created.

    The interrupt leaves that task unknown to the vector env: the next
    ``recv()`` runs a second one beside it on the same loop, both collecting
    the same sub-envs, and it fails with a bare error (KeyError) instead of
    handing each sub-env back once or raising a sekai error.
    """
    with AsyncVecEnv(kit.counting_fns([interrupts.LENGTH] * 2)) as vec:
        vec.reset(seed=0)
        vec.send(np.full(2, 2, dtype=np.int64))
        with (
            pytest.raises(KeyboardInterrupt),
            interrupts.CtrlC(1, function="AsyncVecEnv._run", text="create_task(") as ctrl,
        ):
            vec.recv()
        try:
            result = vec.recv()
        except (ResetRequired, NothingInFlight):
            result = _send_and_receive(vec, 1)
        except SekaiError:
            raise
        except Exception as error:
            pytest.fail(f"recv() after the interrupt at {ctrl.site} raised {error!r}")
        ids = sorted(np.asarray(result.env_ids).tolist())
        assert ids == [0, 1], f"recv() handed back env_ids {ids}"
        rows = _rows(result.observations)
        assert rows[0] == rows[1], f"sub-envs out of step: {rows}"
