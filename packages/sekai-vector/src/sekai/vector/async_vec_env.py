"""AsyncVecEnv: sub-envs stepped concurrently with asyncio."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObsType, ResetResult, StepResult
from sekai.error import AsyncCallPending, ResetRequired, SyncCallInEventLoop
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import check_step_timeout
from sekai.vector._autoreset import Ending, async_end_episode, note_sub_env
from sekai.vector._in_process import EnvListVecEnv, Row
from sekai.vector._interrupts import exposed, exposed_await, protect
from sekai.vector._lifecycle import abandon
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["AsyncVecEnv"]

_T = TypeVar("_T")
FIRST_COMPLETED = asyncio.FIRST_COMPLETED


def _first_failure(outcomes: list[Any], indices: Sequence[int]) -> Exception | None:
    """The first sub-env error among the outcomes of a gather, or ``None``.

    A sub-env whose task ended with a ``KeyboardInterrupt`` (or was
    cancelled) was stopped in the middle of its own code: that interrupt
    already reached the caller when it happened, so it is not raised again;
    the vector env needs a reset instead ([`ResetRequired`][sekai.error.ResetRequired]).
    """
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            break
    else:
        return None  # the common step: one isinstance per sub-env
    interrupted: Exception | None = None
    for i, outcome in zip(indices, outcomes, strict=True):
        if isinstance(outcome, Exception):
            return outcome
        if isinstance(outcome, BaseException) and interrupted is None:
            interrupted = ResetRequired(
                f"sub-env {i} was interrupted ({type(outcome).__name__}) in the middle of its "
                "own code; call reset()"
            )
    return interrupted


class _LoopCall:
    """AsyncVecEnv's step, reset or recv running as a task, and what an interrupt leaves of it.

    ``idle`` -> `start` -> ``running`` -> `finish` -> ``idle``; an interrupt
    while running either leaves the task to run on (`leave`: the next call
    settles it with `take_left`) or ends it (`finish`).
    """

    __slots__ = ("call", "left", "task")

    def __init__(self) -> None:
        self.task: asyncio.Task[Any] | None = None
        self.call = ""
        self.left = False  # interrupted, still running: the next call settles it

    def start(self, task: asyncio.Task[Any], call: str) -> None:
        self.task, self.call, self.left = task, call, False

    def finish(self) -> None:
        self.task, self.call, self.left = None, "", False

    def leave(self) -> None:
        self.left = True

    def take_left(self) -> tuple[asyncio.Task[Any] | None, str]:
        """The task an interrupt left and its call; the state is idle again."""
        task, call = (self.task, self.call) if self.left else (None, "")
        self.finish()
        return task, call


class AsyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments concurrently on an asyncio event loop.

    Each step awaits every sub-env's [`async_step`][sekai.core.Env.async_step]
    together with `asyncio.gather`, so sub-envs that wait on I/O (live
    market feeds, simulators behind a REST or websocket API) wait in
    parallel; sub-envs reset by autoreset are reset concurrently as well.
    Sub-envs whose ``step`` blocks the CPU gain nothing: use ``ProcVecEnv``
    for those. If a sub-env raises, the others' calls still run to completion
    (with autoreset or freezing) before the first error propagates, and that
    step's results are discarded; the vector env stays usable.

    In async code, ``await vec.async_step(actions)`` and
    ``await vec.async_reset(...)`` run on the caller's loop. The sync
    `step` / `reset` run the same coroutines on a private event
    loop owned by this vector env (closed by `close`), so they cannot be
    called from inside a running event loop: there they raise
    [`SyncCallInEventLoop`][sekai.error.SyncCallInEventLoop] (a RuntimeError).

    Interrupted calls complete for every sub-env: after Ctrl-C in
    `step` / `reset`, or when ``asyncio.wait_for`` (or any
    cancellation) stops an ``async_step`` / ``async_reset``, the sub-envs'
    calls go on, and the next call of the vector env waits for them to
    finish (dropping their results) before it runs. The only exception is a
    ``KeyboardInterrupt`` that lands inside a sub-env's own code: that
    sub-env stops where it was, and the next call raises
    [`ResetRequired`][sekai.error.ResetRequired]. An interrupted `recv` hands
    nothing back: the sub-envs in flight keep running and a later
    `recv` hands them back.

    Args:
        env_fns: One callable per sub-env, each returning a new
            [`Env`][sekai.core.Env]. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see [`VecEnv`][sekai.vector.VecEnv]); ``False`` freezes them
            instead.
        batch_size: How many sub-envs `recv` hands back (``None``:
            all of them): the first to finish among those sent.
        step_timeout: Seconds each sub-env's step (with its autoreset) or
            reset may take; ``None`` (the default) waits without limit. A
            sub-env that takes longer is cancelled where it stands (at the
            ``await`` it waits on), the call raises
            [`ResetRequired`][sekai.error.ResetRequired] naming it once the others
            are done, and so does every later call until `reset`. A
            sub-env that blocks the event loop (a long computation with no
            ``await``) cannot be timed out this way: use ``ProcVecEnv``.

    Partial batches: `send` starts one task per sub-env (on the
    running event loop when called from one, else on the private loop) and
    `recv` / `async_recv` hand back the first ``batch_size``
    to finish. Tasks started from async code must be collected with
    ``await vec.async_recv()`` on the same loop. In sync code, the sub-envs
    sent make progress while `recv` runs the private loop.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, or one returned
            something that is not an Env.
        ValueError: ``env_fns`` is empty, or ``batch_size`` is not in
            ``[1, num_envs]``.
        SpaceMismatch: The sub-envs do not all have the same spaces.
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        batch_size: int | None = None,
        step_timeout: float | None = None,
    ) -> None:
        self.step_timeout = check_step_timeout(step_timeout, type(self).__name__)
        self._loop: asyncio.AbstractEventLoop | None = None
        # Partial batches: the task of each sub-env in flight, and the rows of
        # those finished but not handed back yet (in the order they finished).
        self._tasks: dict[asyncio.Task[Row], int] = {}
        self._finished: deque[tuple[int, Row]] = deque()
        self._running = _LoopCall()
        super().__init__(env_fns, autoreset=autoreset, batch_size=batch_size)  # last: see there

    # -- the sync API, on the private loop ---------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, _T], method: str) -> _T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop running in this thread: the sync API may run one
            pass
        else:
            coroutine.close()
            raise SyncCallInEventLoop(
                f"{type(self).__name__}.{method}() was called inside a running event loop; "
                f"use 'await vec.async_{method}(...)' there (the sync API runs its own loop); "
                f"a wrapper that overrides {method}() reaches it from its async_{method}() "
                f"unless it overrides async_{method}() too"
            )
        loop = self._private_loop()
        task = loop.create_task(coroutine)
        running = self._running
        running.start(task, method)
        try:
            result = exposed(loop.run_until_complete, task)
        except Exception:
            running.finish()
            raise
        running.finish()
        return result  # an interrupt leaves the task recorded: see _on_interrupt

    def _private_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.new_event_loop()
        return loop

    def _step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        return self._run(self._step_all(batch), "step")

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        return self._run(self._async_recv_batch(count), "recv")

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        return self._run(self._reset_all(seeds, options), "reset")

    # -- the async API -----------------------------------------------------------------

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        return await self._shielded(self._reset_all(seeds, options), "reset")

    async def _async_step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        return await self._shielded(self._step_all(batch), "step")

    async def _shielded(self, coroutine: Coroutine[Any, Any, _T], call: str) -> _T:
        """Run ``coroutine`` as a task that a cancellation of the caller does not stop."""
        task = asyncio.ensure_future(coroutine)
        running = self._running
        running.start(task, call)
        try:
            result: _T = await exposed_await(asyncio.shield, task)
        except Exception:
            running.finish()
            raise
        running.finish()
        return result  # cancelled: the task runs on, recorded (see _on_interrupt)

    async def _reset_all(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        outcomes: list[Any] = await asyncio.gather(
            *[
                self._in_time(self._reset_one(i, env, seeds[i], options[i]), i, "reset")
                for i, env in enumerate(self.envs)
            ],
            return_exceptions=True,
        )
        failure = _first_failure(outcomes, range(self.num_envs))
        if failure is not None:
            raise failure
        results: list[ResetResult[Any]] = outcomes
        return self._reset_result(results)

    async def _step_all(self, batch: list[Any]) -> VecStepResult[Any]:
        envs = self.envs
        active = self._active()
        indices = range(self.num_envs) if active is None else active
        outcomes: list[Any] = await asyncio.gather(
            *[self._in_time(self._step_one(i, envs[i], batch[i]), i, "step") for i in indices],
            return_exceptions=True,
        )
        failure = _first_failure(outcomes, indices)
        if failure is not None:
            # The sub-envs that stepped were reset already; the ones that finished
            # without autoreset are frozen, though their rows are dropped.
            self._freeze_ended(
                (i, pair[0], pair[1])
                for i, pair in zip(indices, outcomes, strict=True)
                if not isinstance(pair, BaseException)
            )
            raise failure
        return self._batch(active, [result for result, _ in outcomes], [e for _, e in outcomes])

    def _in_time(self, call: Coroutine[Any, Any, _T], i: int, what: str) -> Awaitable[_T]:
        """``call`` of sub-env ``i``, cancelled after ``step_timeout`` seconds (if set)."""
        timeout = self.step_timeout
        if timeout is None:
            return call
        return self._timed(call, timeout, i, what)

    async def _timed(self, call: Coroutine[Any, Any, _T], timeout: float, i: int, what: str) -> _T:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            return await asyncio.wait_for(call, timeout)
        except asyncio.TimeoutError:
            if loop.time() - started < timeout:
                raise  # the sub-env's own timeout (an HTTP client's, ...): its error, as it is
            raise ResetRequired(
                f"{self!r}: sub-env {i} did not finish its {what} within step_timeout="
                f"{timeout:g} s; it was cancelled where it stood, so call reset()"
            ) from None

    async def _step_one(
        self, i: int, env: Env[Any, Any], action: Any
    ) -> tuple[StepResult[Any], Ending | None]:
        """Step one sub-env, then (if its episode ended) reset it: concurrently with the others."""
        try:
            result = await env.async_step(action)
        except Exception as error:
            note_sub_env(error, i, "step()")
            raise
        return result, await async_end_episode(env, result, self.autoreset, self._copy, i)

    @staticmethod
    async def _reset_one(
        i: int, env: Env[Any, Any], seed: SeedType, options: dict[str, Any] | None
    ) -> ResetResult[Any]:
        """Reset one sub-env; an exception it raises says which sub-env it came from."""
        try:
            return await env.async_reset(seed=seed, options=options)
        except Exception as error:
            note_sub_env(error, i, "reset()")
            raise

    # -- interrupted calls -------------------------------------------------------------

    def _on_interrupt(self, call: str) -> None:
        running = self._running
        task = running.task
        if task is not None and call in ("step", "reset") and running.call == call:
            if not task.done():  # its sub-envs run on: the next call lets them finish
                running.leave()
                self._unfinished = True
                return
            running.finish()
            if not task.cancelled() and isinstance(task.exception(), Exception | None):
                return  # it completed for every sub-env (or failed as a step does)
        elif call == "recv" and (task is None or not task.done()):
            # Interrupted while waiting for the first to finish: only the wait
            # stops; the sub-envs in flight run on for the next recv().
            running.finish()
            if task is not None:
                task.cancel()
                self._unwind([task])
            return
        running.finish()
        super()._on_interrupt(call)  # the state is unknown: a reset is needed

    def _finish_interrupted(self) -> None:
        task = self._running.task
        if task is not None and not task.done():
            loop = task.get_loop()
            if loop.is_running():
                raise AsyncCallPending(
                    f"{self!r}: an interrupted {self._running.call}() is still running on its "
                    "event loop; make the next call there, with await"
                )
            if not loop.is_closed():
                exposed(loop.run_until_complete, asyncio.wait([task]))
        self._settle_left()

    async def _async_finish_interrupted(self) -> None:
        task = self._running.task
        if task is not None and not task.done():
            loop = task.get_loop()
            if loop is asyncio.get_running_loop():
                await exposed_await(asyncio.wait, [task])
            elif not loop.is_running() and not loop.is_closed():
                self._finish_interrupted()  # pragma: no cover - needs a third loop
                return
        self._settle_left()

    def _drop_interrupted(self) -> None:
        # A reset follows: an interrupted call that still runs (a sub-env that
        # hangs, after asyncio.wait_for gave up on it) is cancelled, not awaited.
        task = self._running.task
        if task is not None and not task.done() and not task.get_loop().is_running():
            task.cancel()
            self._unwind([task])
        self._settle_left()

    async def _async_drop_interrupted(self) -> None:
        task = self._running.task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            await exposed_await(asyncio.wait, [task])
        self._drop_interrupted()

    def _settle_left(self) -> None:
        """The interrupted call is over (or cannot finish): what state it left."""
        task, call = self._running.take_left()
        self._unfinished = False
        if task is None:
            return
        if not task.done() or task.cancelled():
            abandon(self, f"an interrupted {call}() could not finish: its event loop stopped")
            return
        error = task.exception()
        if error is None:
            if call == "reset":
                self._needs_reset = False  # it completed for every sub-env
                self._reset_reason = ""
        elif call == "reset" or isinstance(error, ResetRequired):
            abandon(self, f"the interrupted {call}() failed: {error}")

    def _unwind(self, tasks: list[asyncio.Task[Any]]) -> None:
        """Let cancelled tasks of the private loop finish, so none is destroyed while pending."""
        loop = self._loop
        private = [task for task in tasks if task.get_loop() is loop]
        if private and loop is not None and not loop.is_running() and not loop.is_closed():
            # Exposed: a sub-env that ignores its cancellation must not make a
            # reset or close impossible to interrupt.
            exposed(loop.run_until_complete, asyncio.gather(*private, return_exceptions=True))

    # -- partial batches -------------------------------------------------------------

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = self._private_loop()
        tasks = self._tasks
        for i, action in zip(env_ids.tolist(), actions, strict=True):
            tasks[loop.create_task(self._row_after_step(i, action))] = i

    async def _row_after_step(self, i: int, action: Any) -> Row:
        if self._frozen.mask[i]:
            return self._row(i, None, None)
        env = self.envs[i]
        result, ending = await self._in_time(self._step_one(i, env, action), i, "step")
        return self._row(i, result, ending)

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        tasks, finished = self._tasks, self._finished
        while len(finished) < count:
            done, _ = await exposed_await(asyncio.wait, tasks, return_when=FIRST_COMPLETED)
            for task in sorted(done, key=tasks.__getitem__):  # ties by sub-env id
                i = tasks[task]
                try:
                    row = task.result()
                except Exception:
                    raise
                except BaseException as error:  # it already reached the caller once
                    raise ResetRequired(
                        f"sub-env {i} was interrupted ({type(error).__name__}) in the middle "
                        "of its own code; call reset()"
                    ) from None
                finished.append((i, row))
                del tasks[task]
        taken = [finished.popleft() for _ in range(count)]
        return self._rows_result([i for i, _ in taken], [row for _, row in taken])

    def _drop_in_flight(self) -> None:
        tasks = list(self._tasks)
        self._tasks.clear()
        self._finished.clear()
        for task in tasks:
            task.cancel()
        self._unwind(tasks)

    def _release(self) -> None:
        leftover, _ = self._running.take_left()
        self._unfinished = False
        if leftover is not None and not leftover.done() and not leftover.get_loop().is_closed():
            leftover.cancel()
            self._unwind([leftover])
        super()._release()

    def close(self) -> None:
        """Close every sub-env and the private event loop.

        A call left running by an interrupt is cancelled. The first error
        raised by a sub-env's ``close()`` is re-raised after everything is
        closed.

        Raises:
            AsyncCallPending: Another thread is running a call of this
                vector env (nothing is closed).
        """
        if self._closed:
            return
        try:
            super().close()
        finally:
            if self.closed:  # not when another thread's call refused the close
                loop, self._loop = self._loop, None
                if loop is not None and not loop.is_closed():
                    loop.close()


# Everything AsyncVecEnv's hooks do in the caller's frames is bookkeeping (the
# sub-envs run in tasks, behind the exposed run of the loop or await): a
# Ctrl-C there is held until the call ends, so a call that completed is never
# taken for one that was cut short (its rows would be lost).
for _method in (
    AsyncVecEnv._run,
    AsyncVecEnv._shielded,
    AsyncVecEnv._on_interrupt,
    AsyncVecEnv._step_batch,
    AsyncVecEnv._reset_batch,
    AsyncVecEnv._recv_batch,
    AsyncVecEnv._send_batch,
    AsyncVecEnv._async_step_batch,
    AsyncVecEnv._async_reset_batch,
    AsyncVecEnv._async_recv_batch,
    AsyncVecEnv._drop_in_flight,
):
    protect(_method)
