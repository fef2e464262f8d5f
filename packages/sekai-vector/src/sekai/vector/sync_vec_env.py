"""SyncVecEnv: sub-envs stepped one after another in this process."""

from __future__ import annotations

import contextlib
import functools
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObsType, StepResult
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import check_step_timeout
from sekai.vector._autoreset import Ending, end_episode, note_sub_env
from sekai.vector._in_process import EnvListVecEnv
from sekai.vector._watchdog import Overrun, Watchdog
from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["SyncVecEnv"]

_R = TypeVar("_R")


class SyncVecEnv(EnvListVecEnv[ObsType, ActType]):
    """Runs ``num_envs`` sub-environments sequentially, in this process.

    The right backend for fast environments, where the cost of sending work to
    other processes would exceed the work itself. For CPU-heavy simulators use
    ``ProcVecEnv``; for environments that wait on I/O use
    [`AsyncVecEnv`][sekai.vector.AsyncVecEnv].

    Observations of array spaces are written straight into the rows of one
    newly allocated batch per step (Dict / Tuple observations leaf by leaf),
    and the shape of the action batch is checked before any sub-env moves.

    A sub-env that raises in `step` does not stop the others: the
    sub-envs after it still take their step (with autoreset or freezing),
    then the first exception propagates as it is (with a note naming the
    sub-env, Python 3.11+) and the step's results are dropped; the failing
    sub-env stays where its exception left it, and the vector env stays
    usable. A ``KeyboardInterrupt`` stops the sub-env
    it lands in wherever it is, so after an interrupted step the next call
    raises [`ResetRequired`][sekai.error.ResetRequired] until `reset`.

    Args:
        env_fns: One callable per sub-env, each returning a new
            [`Env`][sekai.core.Env]. If one raises, the sub-envs already
            built are closed and the error propagates.
        autoreset: Reset sub-envs within the step that ends their episode
            (see [`VecEnv`][sekai.vector.VecEnv]); ``False`` freezes them
            instead.
        copy: Accepted for compatibility and ignored: every batch of
            observations is a new array already.
        batch_size: How many sub-envs `recv` hands back (``None``:
            all of them). Sub-envs run one after another here, so a partial
            batch is simply the ones sent first; it lets code written for
            the concurrent backends run unchanged.
        step_timeout: Seconds a call may spend in the sub-envs (a step of
            all of them with their autoresets, a reset, a `recv`);
            ``None`` (the default) waits without limit. Past it, the sub-env
            running then is stopped where it stands (an exception is raised
            inside it, in this thread, that ``except Exception`` does not
            catch), and the call raises [`ResetRequired`][sekai.error.ResetRequired],
            as does every later call until `reset`. A sub-env blocked
            inside one long C call (a sleep, a read with no timeout) is
            stopped only when that call returns: use ``ProcVecEnv``, whose
            workers can be killed, for those.

    Raises:
        TypeError: ``env_fns`` is not a sequence of callables, one returned
            something that is not an Env, or ``autoreset`` / ``copy`` is not a
            bool.
        ValueError: ``env_fns`` is empty, or ``batch_size`` is not in
            ``[1, num_envs]``.
        SpaceMismatch: The sub-envs do not all have the same spaces.

    Examples:
        >>> vec = SyncVecEnv([make_env] * 4)  # doctest: +SKIP
        >>> result = vec.reset(seed=42)  # doctest: +SKIP
        >>> result = vec.step(vec.batch_action_space.sample())  # doctest: +SKIP
    """

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        copy: bool = True,
        batch_size: int | None = None,
        step_timeout: float | None = None,
    ) -> None:
        if not isinstance(copy, bool):
            raise TypeError(f"SyncVecEnv: copy must be a bool, got {copy!r}")
        self.step_timeout = check_step_timeout(step_timeout, "SyncVecEnv")
        self.copy = copy
        self._queue: deque[tuple[int, Any]] = deque()  # sent, not stepped yet: FIFO
        self._watchdog: Watchdog | None = None  # started by the first timed call
        if self.step_timeout is not None:
            # The timed hooks shadow the plain ones on this instance only, so a
            # vector env without a time limit pays nothing for the feature.
            self._step_batch = functools.partial(self._timed, "step", self._step_batch)  # type: ignore[method-assign]
            self._reset_batch = functools.partial(self._timed, "reset", self._reset_batch)  # type: ignore[method-assign]
            self._recv_batch = functools.partial(self._timed, "recv", self._recv_batch)  # type: ignore[method-assign]
        super().__init__(env_fns, autoreset=autoreset, batch_size=batch_size)  # last: see there

    def _timed(self, call: str, hook: Callable[..., _R], *args: Any) -> _R:
        """``hook(*args)`` under the watchdog: past ``step_timeout``, stopped and reported."""
        watchdog = self._watchdog
        if watchdog is None:
            timeout = self.step_timeout
            if timeout is None:  # pragma: no cover - only timed hooks come here
                return hook(*args)
            watchdog = self._watchdog = Watchdog(timeout, f"{self!r} step_timeout")
        try:
            return watchdog.run(hook, *args)
        except Overrun:
            raise ResetRequired(
                f"{self!r}: a {call}() of the sub-envs did not finish within step_timeout="
                f"{watchdog.timeout:g} s; the sub-env running then was stopped where it stood, "
                "so call reset()"
            ) from None

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        results = []
        for i, env in enumerate(self.envs):
            try:
                results.append(env.reset(seed=seeds[i], options=options[i]))
            except Exception as error:
                note_sub_env(error, i, "reset()")
                raise
        return self._reset_result(results)

    def _step_batch(self, batch: list[Any]) -> VecStepResult[Any]:
        envs = self.envs
        active = self._active()
        results: list[StepResult[Any]] = []
        append = results.append  # the list so far says which sub-env raised
        try:
            if active is None:
                for env, action in zip(envs, batch, strict=True):
                    append(env.step(action))
            else:
                for i in active:
                    append(envs[i].step(batch[i]))
        except Exception as error:
            rows = range(self.num_envs) if active is None else active
            note_sub_env(error, rows[len(results)], "step()")
            self._step_the_rest(rows, batch, results)
            raise
        return self._batch(active, results)

    def _step_the_rest(
        self, rows: Sequence[int], batch: list[Any], results: list[StepResult[Any]]
    ) -> None:
        """After sub-env ``rows[len(results)]`` raised: step the ones after it, end their episodes.

        Errors of these are dropped: the first one is the one raised.
        """
        envs, autoreset, copy = self.envs, self.autoreset, self._copy
        ended: list[tuple[int, StepResult[Any], Ending | None]] = []
        stepped = list(zip(rows, results, strict=False))
        for i in rows[len(results) + 1 :]:
            with contextlib.suppress(Exception):
                stepped.append((i, envs[i].step(batch[i])))
        for i, result in stepped:
            if result.terminated or result.truncated:
                with contextlib.suppress(Exception):
                    ended.append((i, result, end_episode(envs[i], result, autoreset, copy, i)))
        self._freeze_ended(ended)

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        self._queue.extend(zip(env_ids.tolist(), actions, strict=True))

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        # The sub-envs sent first are stepped now, one after another.
        queue, envs, frozen = self._queue, self.envs, self._frozen.mask
        ids, rows = [], []
        for _ in range(count):
            i, action = queue.popleft()
            ids.append(i)
            if frozen[i]:
                rows.append(self._row(i, None, None))
                continue
            try:
                result = envs[i].step(action)
            except Exception as error:
                note_sub_env(error, i, "step()")
                raise
            ending = (
                end_episode(envs[i], result, self.autoreset, self._copy, i)
                if result.terminated or result.truncated
                else None
            )
            rows.append(self._row(i, result, ending))
        return self._rows_result(ids, rows)

    def _drop_in_flight(self) -> None:
        self._queue.clear()

    def _release(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:
            watchdog.close()
        super()._release()
