"""ProcVecEnv: sub-envs run in worker processes, observations through shared memory."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from multiprocessing import util as _mp_util
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_int, check_real
from sekai.core import ActType, Env, InfoDict, ObsType
from sekai.spaces import Space
from sekai.spaces._layout import DictNode, Layout, TupleNode, layout_of
from sekai.utils.seeding import SeedType
from sekai.vector._actions import make_action_checker
from sekai.vector._arguments import per_env_values
from sekai.vector._autoreset import rewards_array
from sekai.vector._in_process import check_batch_size, check_env_fns, check_same_spaces
from sekai.vector._obs_batch import ObsStacker, make_obs_stacker
from sekai.vector._proc_context import get_context
from sekai.vector._proc_pool import WorkerPool, close_quietly
from sekai.vector._proc_protocol import Command
from sekai.vector._proc_shm import BlockViews, block_layout
from sekai.vector._replies import (
    Batch,
    Failure,
    Reply,
    Started,
    Status,
    as_batch,
    invalid_observation,
    worker_error,
)
from sekai.vector._rows import select_rows
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.vec_env import HookedVecEnv

__all__ = ["ProcVecEnv"]

_OK = Status.OK.value


class ProcVecEnv(HookedVecEnv[ObsType, ActType]):
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
            it dead (close the vector env and build a new one).

    Raises:
        ImportError: cloudpickle is not installed (it comes with the
            ``sekai-vector[proc]`` distribution).
        TypeError, ValueError: A bad argument; an entry of ``env_fns`` that
            cannot be pickled to reach its worker (``TypeError`` naming it;
            not with ``"fork"``, where nothing is pickled).
        SpaceMismatch: The sub-envs do not all have the same spaces.
        VecEnvWorkerError: A factory raised or returned something that is not
            an Env, or a worker died while starting.

    Examples:
        >>> if __name__ == "__main__":  # doctest: +SKIP
        ...     with ProcVecEnv([make_env] * 8, num_workers=2) as vec:
        ...         result = vec.reset(seed=0)
        ...         result = vec.step(vec.batch_action_space.sample())

    Attributes:
        autoreset: Whether finished sub-envs are reset within the step.
        close_timeout: The ``close_timeout`` argument.
        num_workers: Number of worker processes.
    """

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
        self.step_timeout = (
            None
            if step_timeout is None
            else check_real(
                step_timeout,
                "ProcVecEnv: step_timeout",
                finite=False,
                minimum=0,
                min_open=True,
                expected="None or a number of seconds > 0",
            )
        )
        n = len(fns)
        self.num_envs = n
        self._batch_size = check_batch_size(batch_size, n, "ProcVecEnv")
        self.num_workers = (
            n
            if num_workers is None
            else check_int(
                num_workers,
                "ProcVecEnv: num_workers",
                minimum=1,
                maximum=n,
                expected=f"None or an int in [1, {n}] (there are {n} sub-envs)",
            )
        )
        self.autoreset = autoreset
        mp_context = get_context(context)
        bounds = _split_evenly(n, self.num_workers)
        self._bounds = bounds
        blobs = _factories(fns, bounds, cloudpickle, fork=mp_context.get_start_method() == "fork")
        timeout = self.step_timeout
        pool = WorkerPool(mp_context, cloudpickle, None if timeout == float("inf") else timeout)
        self._pool = pool
        try:
            replies = pool.start(
                blobs, [lo for lo, _ in bounds], [hi - lo for lo, hi in bounds], autoreset
            )
            self._raise_failures(replies, "its env factory")
            started: list[Started] = [reply.payload for reply in replies]
            self.observation_space, self.action_space = check_same_spaces(
                "ProcVecEnv", [entry for worker in started for entry in worker.spaces]
            )
            self.metadata = started[0].metadata
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
            self._views: BlockViews | None = None if layout is None else pool.attach(layout)
        except BaseException:
            close_quietly(pool, self.close_timeout)
            raise
        self._stack = make_obs_stacker(self.observation_space, n)
        self._stackers: dict[int, ObsStacker] = {n: self._stack}
        self._check_actions = make_action_checker(self.action_space, n)
        self._slice_actions = _make_slicer(self.action_space, bounds)
        views = self._views
        self._block_actions = None if views is None else views.actions
        self._frozen: NDArray[np.bool_] = np.zeros(n, dtype=bool)
        self._frozen_view: NDArray[np.bool_] = self._frozen.view()
        self._frozen_view.flags.writeable = False
        # Partial batches: the worker of each sub-env; per busy worker, the
        # sub-envs of its command in flight and the ones waiting for it to
        # finish; the rows answered but not handed back yet.
        self._worker_of = np.repeat(np.arange(self.num_workers), [hi - lo for lo, hi in bounds])
        self._sent: dict[int, list[int]] = {}
        self._waiting: dict[int, list[tuple[int, Any]]] = {}
        self._answered: deque[tuple[int, Any, float, bool, bool, InfoDict]] = deque()
        self._finalizer = _mp_util.Finalize(
            self, close_quietly, args=(pool, self.close_timeout), exitpriority=10
        )
        self._closed = False

    # -- properties -------------------------------------------------------------------

    @property
    def shared_memory(self) -> bool:
        """Whether observations travel through shared memory (else they are pickled)."""
        return self._views is not None

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Read-only bool array: which sub-envs are frozen (only with ``autoreset=False``)."""
        return self._frozen_view

    @property
    def closed(self) -> bool:
        """Whether `close` was called (or the finaliser closed the workers)."""
        pool = getattr(self, "_pool", None)
        return self._closed or pool is None or pool.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self._closed = bool(value)

    # -- round trips --------------------------------------------------------------------

    def _raise_failures(self, replies: list[Reply], what: str) -> None:
        for status, payload in replies:
            if status == Status.ATTRIBUTE_ERROR:
                raise AttributeError(payload)
            if status == Status.INVALID_OBSERVATION:
                raise invalid_observation(payload, "ProcVecEnv")
            if status != Status.OK:
                raise worker_error(payload, what, "ProcVecEnv", "a worker")

    def _keep_frozen(self, replies: list[Reply]) -> None:
        """Mark what the workers froze in a step, whether or not it failed elsewhere."""
        frozen = self._frozen
        for status, payload in replies:
            if status == _OK:
                batch = as_batch(payload)
                if batch.frozen:
                    frozen[list(batch.frozen)] = True
            elif isinstance(payload, Failure) and payload.frozen:
                frozen[list(payload.frozen)] = True

    def _send_step(self, batch: Any) -> None:
        pool = self._pool
        block = self._block_actions
        if block is not None and batch.dtype == block.dtype:
            pool.prepare()  # no worker may still read the block's actions
            block[...] = batch
            pool.send_step_signal()
        else:
            pool.send(Command.STEP, self._slice_actions(batch))

    def _send_reset(self, seeds: list[SeedType], options: list[dict[str, Any] | None]) -> None:
        payloads = [(seeds[lo:hi], options[lo:hi]) for lo, hi in self._bounds]
        self._pool.send(Command.RESET, payloads)

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        self._send_step(batch)
        return self._step_result(self._pool.gather())

    async def _async_step_batch(self, batch: Any) -> VecStepResult[Any]:
        self._send_step(batch)
        await self._pool.wait_ready()
        return self._step_result(self._pool.gather())

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self._send_reset(seeds, options)
        return self._reset_result(self._pool.gather())

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        self._send_reset(seeds, options)
        await self._pool.wait_ready()
        return self._reset_result(self._pool.gather())

    # -- partial batches ------------------------------------------------------------------

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        groups: dict[int, list[tuple[int, Any]]] = {}
        worker_of = self._worker_of
        for i, action in zip(env_ids.tolist(), actions, strict=True):
            groups.setdefault(int(worker_of[i]), []).append((i, action))
        idle = {}
        for worker, items in groups.items():
            if worker in self._sent:  # busy: the actions wait for its answer
                self._waiting.setdefault(worker, []).extend(items)
            else:
                idle[worker] = items
        self._dispatch(idle)

    def _dispatch(self, groups: dict[int, list[tuple[int, Any]]]) -> None:
        if not groups:
            return
        payloads = {}
        for worker, items in groups.items():
            first = self._bounds[worker][0]
            payloads[worker] = ([i - first for i, _ in items], [action for _, action in items])
        self._pool.send_some(Command.STEP_SOME, payloads)
        for worker, items in groups.items():
            self._sent[worker] = [i for i, _ in items]

    def _collect(self, workers: list[int]) -> None:
        """Read the answers of ``workers`` into the rows to hand back; send what waited."""
        pool = self._pool
        for worker in workers:
            reply = pool.reply_of(worker)
            ids = self._sent.pop(worker)
            if reply.status != _OK:
                self._keep_frozen([reply])
                self._raise_failures([reply], "step()")
            batch = as_batch(reply.payload)
            if batch.frozen:
                self._frozen[list(batch.frozen)] = True
            observations = batch.observations or [None] * len(ids)
            assert batch.rewards is not None
            assert batch.terminated is not None and batch.truncated is not None
            self._answered.extend(
                zip(
                    ids,
                    observations,
                    batch.rewards,
                    batch.terminated,
                    batch.truncated,
                    batch.infos,
                    strict=True,
                )
            )
            waiting = self._waiting.pop(worker, None)
            if waiting:
                self._dispatch({worker: waiting})

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            self._collect(self._pool.ready_among(sorted(self._sent)))
        return self._hand_back(count)

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        while len(self._answered) < count:
            self._collect(await self._pool.ready_among_async(sorted(self._sent)))
        return self._hand_back(count)

    def _hand_back(self, count: int) -> VecStepResult[Any]:
        rows = [self._answered.popleft() for _ in range(count)]
        ids, observations, rewards, terminated, truncated, infos = zip(*rows, strict=True)
        env_ids = np.array(ids, dtype=np.int64)
        views = self._views
        if views is not None:  # the workers wrote the rows: copy them out of the block
            batch = select_rows(views.observations, env_ids)
        else:
            batch = self._stacker_for(count)(list(observations), ids)
        return VecStepResult(
            batch,
            rewards_array(rewards, ids),
            np.array(terminated, dtype=np.bool_),
            np.array(truncated, dtype=np.bool_),
            list(infos),
            env_ids,
        )

    def _stacker_for(self, count: int) -> ObsStacker:
        stack = self._stackers.get(count)
        if stack is None:
            stack = self._stackers[count] = make_obs_stacker(self.observation_space, count)
        return stack

    def _drop_in_flight(self) -> None:
        # The next command drains the answers still to come (see WorkerPool.prepare).
        self._sent.clear()
        self._waiting.clear()
        self._answered.clear()

    # -- results ------------------------------------------------------------------------

    def _batches(self, replies: list[Reply], what: str) -> list[Batch]:
        if len(replies) == 1 and replies[0].status == _OK:
            return [as_batch(replies[0].payload)]
        if what == "step()" and any(reply.status != _OK for reply in replies):
            self._keep_frozen(replies)
        self._raise_failures(replies, what)
        return [as_batch(reply.payload) for reply in replies]

    def _observations(self, batches: list[Batch]) -> Any:
        views = self._views
        if views is not None:
            return views.copy_observations()
        if len(batches) == 1:
            observations = batches[0].observations
            assert observations is not None
            return self._stack(observations)
        return self._stack(_concat(batch.observations for batch in batches))

    def _reset_result(self, replies: list[Reply]) -> VecResetResult[Any]:
        batches = self._batches(replies, "reset()")
        self._frozen[:] = False
        infos = batches[0].infos if len(batches) == 1 else _concat(b.infos for b in batches)
        return VecResetResult(self._observations(batches), infos)

    def _step_result(self, replies: list[Reply]) -> VecStepResult[Any]:
        batches = self._batches(replies, "step()")
        infos = batches[0].infos if len(batches) == 1 else _concat(b.infos for b in batches)
        for batch in batches:
            if batch.frozen:
                self._frozen[list(batch.frozen)] = True
        views = self._views
        if views is not None:
            return VecStepResult(
                views.copy_observations(),
                views.rewards.copy(),
                views.terminated.copy(),
                views.truncated.copy(),
                infos,
            )
        return VecStepResult(
            self._observations(batches),
            rewards_array(_concat(b.rewards for b in batches)),
            np.array(_concat(b.terminated for b in batches), dtype=np.bool_),
            np.array(_concat(b.truncated for b in batches), dtype=np.bool_),
            infos,
        )

    # -- sub-env attributes -----------------------------------------------------------

    def _per_env_results(self, command: Command, payloads: list[Any], what: str) -> list[Any]:
        self._check_open()
        pool = self._pool
        self._pending = True
        try:
            pool.send(command, payloads)
            replies = pool.gather()
        finally:
            self._pending = False
        self._raise_failures(replies, what)
        return _concat(reply.payload for reply in replies)

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env in its worker (or read it, if not callable).

        Arguments and results travel with cloudpickle.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: The method raised in a sub-env.
        """
        payloads = [(method, args, kwargs)] * self.num_workers
        return self._per_env_results(Command.CALL, payloads, f"call({method!r})")

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: Reading it raised another error in a sub-env.
        """
        payloads = [name] * self.num_workers
        return self._per_env_results(Command.GET_ATTR, payloads, f"get_attr({name!r})")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it.

        Raises:
            ValueError: ``values`` is a list whose length is not ``num_envs``.
            AttributeError: A sub-env has no such attribute.
        """
        self._check_open()
        per_env = per_env_values(values, self.num_envs, name)
        payloads = [(name, per_env[lo:hi]) for lo, hi in self._bounds]
        self._per_env_results(Command.SET_ATTR, payloads, f"set_attr({name!r})")

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
        if self._closed:
            return
        with self._closing():
            self._closed = True
            self._finalizer.cancel()
            # No view of the block may outlive its mapping.
            self._views = None
            self._block_actions = None
            failure = self._pool.close(self.close_timeout)
        if failure is not None:
            raise failure

    def _on_interrupt(self, call: str) -> None:
        """An interrupted step or reset completes in the workers: the pool drops its answers."""
        if call not in ("step", "reset"):
            super()._on_interrupt(call)


def _concat(parts: Iterable[list[Any] | None]) -> list[Any]:
    """One list of the per-worker lists, in worker order."""
    return [value for part in parts if part is not None for value in part]


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


def _split_evenly(num_envs: int, num_workers: int) -> list[tuple[int, int]]:
    """Split ``num_envs`` sub-envs into ``num_workers`` contiguous, even groups."""
    size, extra = divmod(num_envs, num_workers)
    bounds, start = [], 0
    for i in range(num_workers):
        stop = start + size + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def _make_slicer(space: Space[Any], bounds: list[tuple[int, int]]) -> Callable[[Any], list[Any]]:
    """Split a checked batch of actions into one batch per worker (chosen once)."""
    if len(bounds) == 1:
        return lambda batch: [batch]
    cut = _row_slicer(layout_of(space))
    return lambda batch: [cut(batch, lo, hi) for lo, hi in bounds]


def _row_slicer(layout: Layout) -> Callable[[Any, int, int], Any]:
    """Rows ``lo:hi`` of a batch: dicts and tuples part by part, anything else sliced."""
    if isinstance(layout, DictNode):
        items = tuple((key, _row_slicer(child)) for key, child in layout.items)
        return lambda batch, lo, hi: {key: cut(batch[key], lo, hi) for key, cut in items}
    if isinstance(layout, TupleNode):
        parts = tuple(_row_slicer(child) for child in layout.parts)
        return lambda batch, lo, hi: tuple(
            cut(part, lo, hi) for cut, part in zip(parts, batch, strict=True)
        )
    return lambda batch, lo, hi: batch[lo:hi]
