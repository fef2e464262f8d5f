"""ProcVecEnv: sub-envs run in worker processes, observations through shared memory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from multiprocessing import util as _mp_util
from typing import Any

import numpy as np

from sekai.core import ActType, Env, ObsType
from sekai.error import AsyncCallPending, ResetRequired, SpaceMismatch, VecEnvClosed
from sekai.utils.seeding import SeedType
from sekai.vector._actions import make_action_checker
from sekai.vector._arguments import per_env_options, per_env_seeds, per_env_values
from sekai.vector._obs_batch import make_obs_batcher
from sekai.vector._proc_args import (
    check_close_timeout,
    check_env_fns,
    check_num_workers,
    make_slicer,
    split_evenly,
)
from sekai.vector._proc_context import get_context
from sekai.vector._proc_pool import Reply, WorkerPool, close_quietly, worker_error
from sekai.vector._proc_shm import BlockViews, block_layout
from sekai.vector._proc_worker import (
    ATTRIBUTE_ERROR,
    CALL,
    GET_ATTR,
    OK,
    RESET,
    SET_ATTR,
    STEP,
)
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv

__all__ = ["ProcVecEnv"]

_float64 = np.float64
_bool = np.bool_


class ProcVecEnv(VecEnv[ObsType, ActType]):
    """Runs sub-environments in worker processes, for CPU-bound simulators.

    Each worker process runs a contiguous group of sub-envs and talks to this
    process through a :mod:`multiprocessing` pipe; every command (a step, a
    reset, ...) travels once per worker. When the observation space has fixed
    shapes (Box, Discrete, MultiDiscrete, MultiBinary, and Dict / Tuple /
    MaskedBox of them), workers write observations, rewards and flags straight
    into one shared-memory block and only the infos are pickled; the batches
    returned are copies, never views of the block.

    The processes start with ``"forkserver"`` by default (``"spawn"`` on
    Windows), so the script that builds a ProcVecEnv must guard its entry
    point with ``if __name__ == "__main__":``. ``env_fns`` travel with
    cloudpickle, so lambdas, closures and locally defined classes work.

    Autoreset, frozen sub-envs, seeding and options follow
    :class:`~sekai.vector.VecEnv` exactly: the same seed gives the same
    trajectories as :class:`~sekai.vector.SyncVecEnv`.

    Failures: an exception in a sub-env is raised here as
    :class:`~sekai.error.VecEnvWorkerError` (with the sub-env's ``index``, the
    worker's ``worker_traceback`` and, when it can be pickled, the original
    exception as ``__cause__``) once every other worker has answered, so the
    vector env stays usable; the results of that call are dropped. A worker
    that dies raises VecEnvWorkerError naming it and its sub-envs (``index``
    is its first sub-env), and so does every later call. Workers ignore
    Ctrl-C; a call interrupted in this process leaves answers behind that are
    read and dropped before the next command. ``get_attr`` / ``call`` /
    ``set_attr`` raise :class:`AttributeError` for a name a sub-env lacks.

    Args:
        env_fns: One callable per sub-env, run in its worker, each returning a
            new :class:`~sekai.core.Env`. If one raises (or anything else in
            the constructor fails), the sub-envs already built are closed, the
            workers stopped and the shared memory freed before the error
            propagates (a factory's error as VecEnvWorkerError).
        autoreset: Reset sub-envs within the step that ends their episode;
            ``False`` freezes them instead (see :class:`~sekai.vector.VecEnv`).
        context: The :mod:`multiprocessing` start method; ``None`` means
            ``"forkserver"`` (``"spawn"`` on Windows). sekai and numpy are
            preloaded into the forkserver.
        close_timeout: Seconds :meth:`close` waits in total for the workers
            before terminating them.
        num_workers: Worker processes (1 to ``num_envs``); sub-envs are split
            evenly, in order. ``None`` runs one process per sub-env.
        shared_memory: ``None`` uses shared memory when the observation space
            allows it, ``True`` requires it, ``False`` pickles observations.

    Raises:
        ImportError: cloudpickle is not installed (``pip install
            'sekai-vector[proc]'``).
        TypeError, ValueError: A bad argument.
        SpaceMismatch: The sub-envs do not all have the same spaces.
        VecEnvWorkerError: A factory raised or returned something that is not
            an Env, or a worker died while starting.

    Example:
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
    ) -> None:
        self._closed = True  # until construction succeeds
        self._needs_reset = True
        self._in_call = False
        try:
            import cloudpickle
        except ImportError:
            raise ImportError(
                "ProcVecEnv needs cloudpickle to send env_fns to its workers; install it with "
                "pip install 'sekai-vector[proc]'"
            ) from None
        fns = check_env_fns(env_fns)
        if not isinstance(autoreset, bool):
            raise TypeError(f"ProcVecEnv: autoreset must be a bool, got {autoreset!r}")
        if shared_memory is not None and not isinstance(shared_memory, bool):
            raise TypeError(
                f"ProcVecEnv: shared_memory must be None, True or False, got {shared_memory!r}"
            )
        self.close_timeout = check_close_timeout(close_timeout)
        n = len(fns)
        self.num_envs = n
        self.num_workers = check_num_workers(num_workers, n)
        self.autoreset = autoreset
        mp_context = get_context(context)
        bounds = split_evenly(n, self.num_workers)
        self._bounds = bounds
        blobs: list[bytes | list[Any]] = [cloudpickle.dumps(list(fns[lo:hi])) for lo, hi in bounds]
        if mp_context.get_start_method() == "fork":
            # A forked worker inherits the factories with the parent's memory, so
            # it need not rebuild them. (They are still pickled above: that
            # registers their classes with cloudpickle before the fork, so an
            # exception of such a class comes back as the class itself.)
            blobs = [list(fns[lo:hi]) for lo, hi in bounds]
        pool = WorkerPool(mp_context, cloudpickle)
        self._pool = pool
        try:
            replies = pool.start(
                blobs, [lo for lo, _ in bounds], [hi - lo for lo, hi in bounds], autoreset
            )
            for status, payload in replies:
                if status != OK:
                    raise worker_error(payload, "its env factory")
            self._check_spaces(replies)
            self.metadata = replies[0][1][1]
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
        self._batcher = make_obs_batcher(self.observation_space, n)
        self._check_actions = make_action_checker(self.action_space, n)
        self._slice_actions = make_slicer(self.action_space, bounds)
        self._single = len(bounds) == 1
        views = self._views
        self._shared_memory = views is not None
        self._block_actions = None if views is None else views.actions
        self._finalizer = _mp_util.Finalize(
            self, close_quietly, args=(pool, self.close_timeout), exitpriority=10
        )
        self._closed = False

    def _check_spaces(self, replies: list[Reply]) -> None:
        spaces = [entry for _, payload in replies for entry in payload[0]]
        _, observation_space, action_space = spaces[0]
        for index, obs_space, act_space in spaces[1:]:
            if obs_space != observation_space:
                raise SpaceMismatch(
                    f"ProcVecEnv: every sub-env must have the same observation space; sub-env 0 "
                    f"has {observation_space!r}, sub-env {index} has {obs_space!r}"
                )
            if act_space != action_space:
                raise SpaceMismatch(
                    f"ProcVecEnv: every sub-env must have the same action space; sub-env 0 "
                    f"has {action_space!r}, sub-env {index} has {act_space!r}"
                )
        self.observation_space = observation_space
        self.action_space = action_space

    # -- properties -------------------------------------------------------------------

    @property
    def shared_memory(self) -> bool:
        """Whether observations travel through shared memory (else they are pickled)."""
        return self._shared_memory

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (or the finaliser closed the workers)."""
        pool = getattr(self, "_pool", None)
        return self._closed or pool is None or pool.closed

    # -- commands ---------------------------------------------------------------------

    def _not_ready(self) -> Exception:
        if self.closed:
            return VecEnvClosed(f"{self!r} is closed")
        if self._in_call:
            return self._pending_error()
        return ResetRequired(f"{self!r}: call reset() before step()")

    def _pending_error(self) -> AsyncCallPending:
        return AsyncCallPending(
            f"{self!r}: called while an earlier call (e.g. an async_step() or async_reset() "
            "not awaited to the end) is still running"
        )

    def _begin(self) -> None:
        if self.closed:
            raise VecEnvClosed(f"{self!r} is closed")
        if self._in_call:
            raise self._pending_error()

    def _roundtrip(self, command: int, payloads: list[Any]) -> list[Reply]:
        self._in_call = True
        try:
            pool = self._pool
            pool.send(command, payloads)
            return pool.gather()
        finally:
            self._in_call = False

    async def _async_roundtrip(self, command: int, payloads: list[Any]) -> list[Reply]:
        self._in_call = True
        try:
            pool = self._pool
            pool.send(command, payloads)
            await pool.wait_ready()
            return pool.gather()
        finally:
            self._in_call = False

    def _raise_failures(self, replies: list[Reply], what: str) -> None:
        for status, payload in replies:
            if status == ATTRIBUTE_ERROR:
                raise AttributeError(payload)
            if status != OK:
                raise worker_error(payload, what)

    def _reset_payloads(self, seed: object, options: object) -> list[Any]:
        n = self.num_envs
        seeds = per_env_seeds(seed, n)
        opts = per_env_options(options, n)
        return [(seeds[lo:hi], opts[lo:hi]) for lo, hi in self._bounds]

    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env (see :meth:`VecEnv.reset <sekai.vector.VecEnv.reset>`).

        Raises:
            VecEnvWorkerError: A sub-env raised, or a worker died.
        """
        self._begin()
        replies = self._roundtrip(RESET, self._reset_payloads(seed, options))
        return self._reset_result(replies)

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        """Reset every sub-env, letting the event loop run while the workers compute.

        Raises:
            AsyncCallPending: Another call of this vector env is still running.
            VecEnvWorkerError: A sub-env raised, or a worker died.
        """
        self._begin()
        payloads = self._reset_payloads(seed, options)
        return self._reset_result(await self._async_roundtrip(RESET, payloads))

    def _reset_result(self, replies: list[Reply]) -> VecResetResult[Any]:
        self._raise_failures(replies, "reset()")
        self._needs_reset = False
        views = self._views
        if views is not None:
            if self._single:
                infos = replies[0][1]
            else:
                infos = [info for _, payload in replies for info in payload]
            return VecResetResult(views.copy_observations(), infos)
        batcher = self._batcher
        batch = batcher.new()
        write = batcher.write
        infos = []
        i = 0
        for _, (observations, worker_infos) in replies:
            for obs in observations:
                write(batch, i, obs)
                i += 1
            infos.extend(worker_infos)
        return VecResetResult(batcher.finish(batch), infos)

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env (see :meth:`VecEnv.step <sekai.vector.VecEnv.step>`).

        Raises:
            VecEnvWorkerError: A sub-env raised (every other worker's step
                completed first), or a worker died.
        """
        if self._needs_reset or self._in_call or self._pool.closed:
            raise self._not_ready()
        batch = self._check_actions(actions)
        self._in_call = True
        try:
            pool = self._pool
            block = self._block_actions
            if block is not None and batch.dtype == block.dtype:
                pool.prepare()  # no worker may still read the block's actions
                block[...] = batch
                pool.send_step_signal()
            else:
                pool.send(STEP, self._slice_actions(batch))
            replies = pool.gather()
        finally:
            self._in_call = False
        return self._step_result(replies)

    async def async_step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env, letting the event loop run while the workers compute.

        Raises:
            AsyncCallPending: Another call of this vector env is still running.
            VecEnvWorkerError: A sub-env raised, or a worker died.
        """
        if self._needs_reset or self._in_call or self._pool.closed:
            raise self._not_ready()
        batch = self._check_actions(actions)
        self._in_call = True
        try:
            pool = self._pool
            block = self._block_actions
            if block is not None and batch.dtype == block.dtype:
                pool.prepare()
                block[...] = batch
                pool.send_step_signal()
            else:
                pool.send(STEP, self._slice_actions(batch))
            await pool.wait_ready()
            replies = pool.gather()
        finally:
            self._in_call = False
        return self._step_result(replies)

    def _step_result(self, replies: list[Reply]) -> VecStepResult[Any]:
        views = self._views
        if views is not None:
            if self._single:
                status, infos = replies[0]
                if status != OK:
                    self._raise_failures(replies, "step()")
            else:
                self._raise_failures(replies, "step()")
                infos = [info for _, payload in replies for info in payload]
            return VecStepResult(
                views.copy_observations(),
                views.rewards.copy(),
                views.terminated.copy(),
                views.truncated.copy(),
                infos,
            )
        self._raise_failures(replies, "step()")
        batcher = self._batcher
        batch = batcher.new()
        write = batcher.write
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos = []
        i = 0
        for _, (observations, worker_rewards, worker_term, worker_trunc, worker_infos) in replies:
            for obs in observations:
                write(batch, i, obs)
                i += 1
            rewards.extend(worker_rewards)
            terminated.extend(worker_term)
            truncated.extend(worker_trunc)
            infos.extend(worker_infos)
        return VecStepResult(
            batcher.finish(batch),
            np.array(rewards, dtype=_float64),
            np.array(terminated, dtype=_bool),
            np.array(truncated, dtype=_bool),
            infos,
        )

    # -- sub-env attributes -----------------------------------------------------------

    def _gather_lists(self, command: int, payloads: list[Any], what: str) -> list[Any]:
        self._begin()
        replies = self._roundtrip(command, payloads)
        self._raise_failures(replies, what)
        return [value for _, values in replies for value in values]

    def call(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call ``method`` on every sub-env in its worker (or read it, if not callable).

        Arguments and results travel with cloudpickle.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: The method raised in a sub-env.
        """
        payloads = [(method, args, kwargs)] * self.num_workers
        return self._gather_lists(CALL, payloads, f"call({method!r})")

    def get_attr(self, name: str) -> list[Any]:
        """Read ``name`` from every sub-env, through its wrapper stack.

        Raises:
            AttributeError: A sub-env has no such attribute.
            VecEnvWorkerError: Reading it raised another error in a sub-env.
        """
        return self._gather_lists(GET_ATTR, [name] * self.num_workers, f"get_attr({name!r})")

    def set_attr(self, name: str, values: list[Any] | Any) -> None:
        """Set ``name`` on every sub-env, on the outermost layer that has it.

        Raises:
            ValueError: ``values`` is a list whose length is not ``num_envs``.
            AttributeError: A sub-env has no such attribute.
        """
        self._begin()
        per_env = per_env_values(values, self.num_envs, name)
        payloads = [(name, per_env[lo:hi]) for lo, hi in self._bounds]
        replies = self._roundtrip(SET_ATTR, payloads)
        self._raise_failures(replies, f"set_attr({name!r})")

    # -- shutdown ---------------------------------------------------------------------

    def close(self) -> None:
        """Close every sub-env and stop the workers; free pipes and shared memory.

        Each worker closes all its sub-envs even if one raises. The workers
        get ``close_timeout`` seconds in total to finish; those still running
        are then terminated (with a :class:`RuntimeWarning`). Closing twice
        is harmless; a vector env that is never closed is closed when it is
        garbage collected or when the interpreter exits.

        Raises:
            VecEnvWorkerError: The first failure: a sub-env's ``close()``
                raised, or a worker had died without it being reported yet.
                Raised once everything is released.
        """
        if self._closed:
            return
        self._closed = True
        self._finalizer.cancel()
        # No view of the block may outlive its mapping.
        self._views = None
        self._block_actions = None
        failure = self._pool.close(self.close_timeout)
        if failure is not None:
            raise failure
