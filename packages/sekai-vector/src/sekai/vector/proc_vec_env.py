"""ProcVecEnv: sub-envs run in worker processes, observations through shared memory."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from multiprocessing import util as _mp_util
from typing import Any, ClassVar

from sekai._internal.validation import check_real
from sekai.core import ActType, Env, ObsType
from sekai.utils.seeding import SeedType as SeedType  # sekai 0.2 offered it here
from sekai.vector._arguments import check_num_workers, check_step_timeout
from sekai.vector._in_process import check_batch_size, check_env_fns
from sekai.vector._proc_context import get_context
from sekai.vector._proc_pool import WorkerPool, close_quietly
from sekai.vector._proc_shm import BlockViews, block_layout
from sekai.vector._remote import RemoteVecEnv, split_evenly
from sekai.vector.results import VecStepResult

__all__ = ["ProcVecEnv"]


class ProcVecEnv(RemoteVecEnv[ObsType, ActType]):
    """Runs sub-environments in worker processes, for CPU-bound simulators.

    Each worker process runs a contiguous group of sub-envs and talks to this
    process through a `multiprocessing` pipe; every command (a step, a
    reset, ...) travels once per worker. When the observation space has fixed
    shapes (Box, Discrete, MultiDiscrete, MultiBinary, and Dict / Tuple /
    MaskedBox of them), workers write observations, rewards and flags straight
    into one shared-memory block and only the infos are pickled; the batches
    returned are copies, never views of the block.

    The processes start with ``"forkserver"`` by default (``"spawn"`` on
    Windows), so the script that builds a ProcVecEnv must guard its entry
    point with ``if __name__ == "__main__":``. ``env_fns`` travel with
    cloudpickle, so lambdas, closures and locally defined classes work
    (with ``"fork"`` they are inherited and need not pickle at all).

    Autoreset, frozen sub-envs, seeding and options follow
    [`VecEnv`][sekai.vector.VecEnv] exactly: the same seed gives the same
    trajectories as [`SyncVecEnv`][sekai.vector.SyncVecEnv].

    Failures: an exception in a sub-env is raised here as
    [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError] (with the sub-env's ``index``, the
    worker's ``worker_traceback`` and, when it can be pickled, the original
    exception as ``__cause__``) once every other sub-env has taken its step
    (those in the same worker included), so the vector env stays usable; the
    results of that call are dropped. An observation, reward or flag that
    does not fit raises [`InvalidObservation`][sekai.error.InvalidObservation] naming the
    sub-env, as on every backend. A worker that dies raises
    VecEnvWorkerError naming it and its sub-envs (``index`` is its first
    sub-env), and so does every later call; with ``step_timeout``, so does a
    worker that does not answer in time, which is killed. Workers ignore
    Ctrl-C; a call interrupted in this process completes in the workers and
    its answers are read and dropped before the next command. If this
    process dies (killed, crashed), its workers end at once, whatever their
    sub-envs are doing, and the shared memory is unlinked by
    `multiprocessing`'s resource tracker. ``get_attr`` / ``call`` /
    ``set_attr`` raise `AttributeError` for a name a sub-env lacks.

    Args:
        env_fns: One callable per sub-env, run in its worker, each returning a
            new [`Env`][sekai.core.Env]. If one raises (or anything else in
            the constructor fails), the sub-envs already built are closed, the
            workers stopped and the shared memory freed before the error
            propagates (a factory's error as VecEnvWorkerError).
        autoreset: Reset sub-envs within the step that ends their episode;
            ``False`` freezes them instead (see [`VecEnv`][sekai.vector.VecEnv]).
        context: The `multiprocessing` start method; ``None`` means
            ``"forkserver"`` (``"spawn"`` on Windows). sekai and numpy are
            preloaded into the forkserver.
        close_timeout: Seconds `close` waits in total for the workers
            before terminating them; ``float("inf")`` waits without limit.
        num_workers: Worker processes (1 to ``num_envs``); sub-envs are split
            evenly, in order. ``None`` runs one process per sub-env.
        shared_memory: ``None`` uses shared memory when the observation space
            allows it, ``True`` requires it, ``False`` pickles observations.
        batch_size: How many sub-envs `recv` hands back (``None``:
            all of them): the first whose workers answer. A worker steps the
            sub-envs sent to it together and answers for all of them, so
            partial batches pay off with one sub-env per worker (the
            default) or a few; actions sent to a worker that is still busy
            wait in this process until it answers.
        step_timeout: Seconds a worker may take to answer a command (a
            step, including its autoreset, a reset, a `recv`,
            ``call`` / ``get_attr`` / ``set_attr``); ``None`` (the default)
            waits without limit. A worker that takes longer is killed and
            the call raises VecEnvWorkerError naming it and its sub-envs,
            once the other workers have answered; every later call reports
            it dead (close the vector env and build a new one). It bounds
            start-up too: a worker that has not built its sub-envs within
            ``step_timeout`` of its start is killed, and the constructor
            raises VecEnvWorkerError naming it once every worker is stopped
            (nothing is left running or allocated).

    Raises:
        ImportError: cloudpickle is not installed (it comes with the
            ``sekai-vector[proc]`` distribution).
        TypeError, ValueError: A bad argument; an entry of ``env_fns`` that
            cannot be pickled to reach its worker (``TypeError`` naming it;
            not with ``"fork"``, where nothing is pickled).
        SpaceMismatch: The sub-envs do not all have the same spaces.
        VecEnvWorkerError: A factory raised or returned something that is not
            an Env, or a worker died while starting (or, with ``step_timeout``,
            did not start in time).

    Examples:
        >>> if __name__ == "__main__":  # doctest: +SKIP
        ...     with ProcVecEnv([make_env] * 8, num_workers=2) as vec:
        ...         result = vec.reset(seed=0)
        ...         result = vec.step(vec.batch_action_space.sample())

    Attributes:
        autoreset: Whether finished sub-envs are reset within the step.
        close_timeout: The ``close_timeout`` argument.
        num_workers: Number of worker processes.
        step_timeout: The ``step_timeout`` argument.
    """

    _backend: ClassVar[str] = "ProcVecEnv"
    _worker_name: ClassVar[str] = "a worker"

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env[ObsType, ActType]]],
        *,
        autoreset: bool = True,
        context: str | None = None,
        close_timeout: float = 5.0,
        num_workers: int | None = None,
        shared_memory: bool | None = None,
        batch_size: int | None = None,
        step_timeout: float | None = None,
    ) -> None:
        self._closed = True  # until construction succeeds
        try:
            import cloudpickle
        except ImportError:
            raise ImportError(
                "ProcVecEnv needs cloudpickle to send env_fns to its workers; install the "
                "sekai-vector[proc] distribution (or `pip install cloudpickle`)"
            ) from None
        fns = check_env_fns(env_fns, "ProcVecEnv")
        if not isinstance(autoreset, bool):
            raise TypeError(f"ProcVecEnv: autoreset must be a bool, got {autoreset!r}")
        if shared_memory is not None and not isinstance(shared_memory, bool):
            raise TypeError(
                f"ProcVecEnv: shared_memory must be None, True or False, got {shared_memory!r}"
            )
        self.close_timeout = check_real(
            close_timeout,
            "ProcVecEnv: close_timeout",
            finite=False,
            minimum=0,
            expected="a number of seconds >= 0 (inf: no limit)",
        )
        self.step_timeout = check_step_timeout(step_timeout, "ProcVecEnv")
        n = len(fns)
        self.num_envs = n
        self._batch_size = check_batch_size(batch_size, n, "ProcVecEnv")
        self.num_workers = check_num_workers(num_workers, n, "ProcVecEnv")
        self.autoreset = autoreset
        mp_context = get_context(context, preload=_worker_modules(fns))
        bounds = split_evenly(n, self.num_workers)
        blobs = _factories(fns, bounds, cloudpickle, fork=mp_context.get_start_method() == "fork")
        timeout = self.step_timeout
        pool = WorkerPool(mp_context, cloudpickle, None if timeout == float("inf") else timeout)
        self._pool = pool
        try:
            replies = pool.start(
                blobs, [lo for lo, _ in bounds], [hi - lo for lo, hi in bounds], autoreset
            )
            self._accept_started(replies)
            layout = (
                None
                if shared_memory is False
                else block_layout(self.observation_space, n, self.action_space)
            )
            if shared_memory and layout is None:
                raise ValueError(
                    "ProcVecEnv: shared_memory=True needs an observation space with fixed "
                    "shapes (Box, Discrete, MultiDiscrete, MultiBinary, or Dict / Tuple / "
                    f"MaskedBox of them), got {self.observation_space!r}"
                )
            views: BlockViews | None = None if layout is None else pool.attach(layout)
            self._setup(pool, bounds, block=views)
            self._block_actions = None if views is None else views.actions
            self._finalizer = _mp_util.Finalize(
                self, close_quietly, args=(pool, self.close_timeout), exitpriority=10
            )
            self._closed = False
        except BaseException:
            # Whatever stopped the construction (an error, a Ctrl-C at any line):
            # no worker, pipe or shared block outlives it.
            close_quietly(pool, 0.0 if _interrupted() else self.close_timeout)
            raise

    # -- properties -------------------------------------------------------------------

    @property
    def shared_memory(self) -> bool:
        """Whether observations travel through shared memory (else they are pickled)."""
        return self._block is not None

    @property
    def closed(self) -> bool:
        """Whether `close` was called (or the finaliser closed the workers)."""
        pool = getattr(self, "_pool", None)
        return self._closed or pool is None or pool.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self._closed = bool(value)

    # -- steps --------------------------------------------------------------------------

    def _send_step(self, batch: Any) -> None:
        pool = self._pool
        block = self._block_actions
        if block is not None and batch.dtype == block.dtype:
            pool.prepare()  # no worker may still read the block's actions
            block[...] = batch
            pool.send_step_signal()
        else:
            pool.send_all("step", self._slice_actions(batch))

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        # The common step, with little bookkeeping: actions through the block,
        # and, when every worker answers STEPPED, the results straight from it.
        block = self._block_actions
        if block is None or batch.dtype != block.dtype:
            return self._step_result(self._send_and_gather(batch))
        pool = self._pool
        if pool.dirty or pool.broken:
            pool.prepare()  # no worker may still read the block's actions
        block[...] = batch
        pool.send_step_signal()
        infos, replies = pool.gather_step()
        views = self._block
        if infos is None or views is None:  # (the actions are in the block: so are the results)
            return self._step_result(replies or [])
        return VecStepResult(
            views.copy_observations(),
            views.rewards.copy(),
            views.terminated.copy(),
            views.truncated.copy(),
            infos,
        )

    def _send_and_gather(self, batch: Any) -> list[Any]:
        self._send_step(batch)
        return self._pool.gather()

    # -- shutdown ---------------------------------------------------------------------

    def close(self) -> None:
        """Close every sub-env and stop the workers; free pipes and shared memory.

        Each worker closes all its sub-envs even if one raises. The workers
        get ``close_timeout`` seconds in total to finish; those still running
        are then terminated (with a `RuntimeWarning`). Closing twice
        is harmless; a vector env that is never closed is closed when it is
        garbage collected or when the interpreter exits.

        Raises:
            VecEnvWorkerError: The first failure: a sub-env's ``close()``
                raised, or a worker had died without it being reported yet.
                Raised once everything is released.
            AsyncCallPending: Another thread is running a call of this
                vector env (nothing is closed).
        """
        pool = getattr(self, "_pool", None)
        if self._closed and (pool is None or pool.released):
            return  # closed, or never built (a failed construction frees its own)
        with self._closing():
            self._closed = True
            self._finalizer.cancel()
            # No view of the block may outlive its mapping.
            self._block = None
            self._block_actions = None
            failure = self._pool.close(self.close_timeout)
        if failure is not None:
            raise failure

    def _on_interrupt(self, call: str) -> None:
        """An interrupted step or reset completes in the workers: the pool drops its answers."""
        if call not in ("step", "reset"):
            super()._on_interrupt(call)


def _worker_modules(fns: Sequence[Any]) -> list[str]:
    """The modules `make_vec`'s sub-env factories will import in the workers."""
    from sekai.registry._make_vec import SubEnvFactory

    names: dict[str, None] = {}
    for fn in fns:
        if isinstance(fn, SubEnvFactory):
            names.update(dict.fromkeys(fn.worker_modules()))
    return list(names)


def _factories(
    fns: Sequence[Callable[[], Any]], bounds: list[tuple[int, int]], cloudpickle: Any, fork: bool
) -> list[bytes | list[Any]]:
    """What each worker gets to build its sub-envs: its factories, pickled unless it forks.

    Raises:
        TypeError: An entry cannot be pickled (not with ``fork``); the
            message names it.
    """
    groups = [list(fns[lo:hi]) for lo, hi in bounds]
    if fork:
        # A forked worker inherits its factories: nothing is sent, and one that
        # cannot be pickled is fine. They are pickled all the same when they can
        # be: that registers their classes with cloudpickle before the fork, so
        # an exception of a class defined in __main__ comes back as that class.
        for group in groups:
            with contextlib.suppress(Exception):
                cloudpickle.dumps(group)
        return list(groups)
    blobs: list[bytes | list[Any]] = []
    for (lo, _), group in zip(bounds, groups, strict=True):
        try:
            blobs.append(cloudpickle.dumps(group))
        except Exception:
            for i, fn in enumerate(group, start=lo):
                try:
                    cloudpickle.dumps(fn)
                except Exception as error:
                    raise TypeError(
                        f"ProcVecEnv: env_fns[{i}] ({fn!r}) cannot be sent to its worker "
                        f"process: {type(error).__name__}: {error}. It, or an object it "
                        "refers to (a lock, an open file, a connection, ...), cannot be "
                        "pickled: create such objects inside the factory, or use "
                        "context='fork' where it exists"
                    ) from error
            raise
    return blobs


def _interrupted() -> bool:
    """Whether the exception being handled is an interrupt (Ctrl-C, cancellation)."""
    error = sys.exc_info()[1]
    return error is not None and not isinstance(error, Exception)
