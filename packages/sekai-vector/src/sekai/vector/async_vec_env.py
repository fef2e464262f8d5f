"""AsyncVecEnv: sub-envs stepped concurrently with asyncio."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObsType, StepResult
from sekai.error import SyncCallInEventLoop
from sekai.utils.seeding import SeedType
from sekai.vector._autoreset import Ending, async_end_episode
from sekai.vector._in_process import EnvListVecEnv, Row
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["AsyncVecEnv"]

_T = TypeVar("_T")


async def _gather_all(coroutines: list[Coroutine[Any, Any, _T]]) -> list[_T]:
    """Await every coroutine concurrently; if some raise, re-raise the first once all are done.

    Unlike a plain :func:`asyncio.gather`, no sub-env call is left running in
    the background after a failure.
    """
    results = await asyncio.gather(*coroutines, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results  # type: ignore[return-value]


class AsyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments concurrently on an asyncio event loop.

    Each step awaits every sub-env's :meth:`~sekai.core.Env.async_step`
    together with :func:`asyncio.gather`, so sub-envs that wait on I/O (live
    market feeds, simulators behind a REST or websocket API) wait in
    parallel; sub-envs reset by autoreset are reset concurrently as well.
    Sub-envs whose ``step`` blocks the CPU gain nothing: use ``ProcVecEnv``
    for those. If a sub-env raises, the others' calls still run to completion
    before the first error propagates, and that step's results are discarded.

    In async code, ``await vec.async_step(actions)`` and
    ``await vec.async_reset(...)`` run on the caller's loop. The sync
    :meth:`step` / :meth:`reset` run the same coroutines on a private event
    loop owned by this vector env (closed by :meth:`close`), so they cannot be
    called from inside a running event loop: there they raise
    :class:`~sekai.error.SyncCallInEventLoop` (a RuntimeError).

    Args:
        env_fns: One callable per sub-env, each returning a new
            :class:`~sekai.core.Env`. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see :class:`~sekai.vector.VecEnv`); ``False`` freezes them
            instead.
        batch_size: How many sub-envs :meth:`recv` hands back (``None``:
            all of them): the first to finish among those sent.

    Partial batches: :meth:`send` starts one task per sub-env (on the
    running event loop when called from one, else on the private loop) and
    :meth:`recv` / :meth:`async_recv` hand back the first ``batch_size``
    to finish. Tasks started from async code must be collected with
    ``await vec.async_recv()`` on the same loop. In sync code, the sub-envs
    sent make progress while :meth:`recv` runs the private loop.

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
    ) -> None:
        super().__init__(env_fns, autoreset=autoreset, batch_size=batch_size)
        self._loop: asyncio.AbstractEventLoop | None = None
        # Partial batches: the task of each sub-env in flight, and the rows of
        # those finished but not handed back yet (in the order they finished).
        self._tasks: dict[asyncio.Task[Row], int] = {}
        self._finished: deque[tuple[int, Row]] = deque()

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
        return self._private_loop().run_until_complete(coroutine)

    def _private_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.new_event_loop()
        return loop

    def _step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        return self._run(self._async_step_batch(batch), "step")

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        return self._run(self._async_recv_batch(count), "recv")

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        return self._run(self._async_reset_batch(seeds, options), "reset")

    # -- the async API -----------------------------------------------------------------

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        return self._reset_result(
            await _gather_all(
                [
                    env.async_reset(seed=seeds[i], options=options[i])
                    for i, env in enumerate(self.envs)
                ]
            )
        )

    async def _async_step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        envs = self.envs
        active = self._active()
        indices = range(self.num_envs) if active is None else active
        pairs = await _gather_all([self._step_one(envs[i], batch[i]) for i in indices])
        return self._batch(active, [result for result, _ in pairs], [ending for _, ending in pairs])

    async def _step_one(
        self, env: Env[Any, Any], action: Any
    ) -> tuple[StepResult[Any], Ending | None]:
        """Step one sub-env, then (if its episode ended) reset it: concurrently with the others."""
        result = await env.async_step(action)
        return result, await async_end_episode(env, result, self.autoreset, self._copy)

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
        result, ending = await self._step_one(env, action)
        return self._row(i, result, ending)

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        tasks, finished = self._tasks, self._finished
        while len(finished) < count:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=tasks.__getitem__):  # ties by sub-env id
                finished.append((tasks.pop(task), task.result()))
        taken = [finished.popleft() for _ in range(count)]
        return self._rows_result([i for i, _ in taken], [row for _, row in taken])

    def _drop_in_flight(self) -> None:
        tasks = list(self._tasks)
        self._tasks.clear()
        self._finished.clear()
        for task in tasks:
            task.cancel()
        loop = self._loop
        private = [task for task in tasks if task.get_loop() is loop]
        if private and loop is not None and not loop.is_running():
            # Let the cancelled tasks unwind, so none is destroyed while pending.
            loop.run_until_complete(asyncio.gather(*private, return_exceptions=True))

    def close(self) -> None:
        """Close every sub-env and the private event loop.

        The first error raised by a sub-env's ``close()`` is re-raised after
        everything is closed.
        """
        if self._closed:
            return
        try:
            super().close()
        finally:
            loop, self._loop = self._loop, None
            if loop is not None and not loop.is_closed():
                loop.close()
