"""The loop a [`ProcVecEnv`][sekai.vector.ProcVecEnv] worker process runs.

A worker owns a contiguous group of sub-envs: it builds them, reports
`Started`, then answers commands (see
`sekai.vector._proc_protocol`) until CLOSE or until the parent is gone.
Steps follow the per-sub-env rule of every vector env
(`end_episode`); with shared memory,
observations, rewards and flags are written straight into the block and only
the infos travel back. A sub-env that raises does not stop the others of the
worker: they take their step too, and the first failure is reported with the
index of the sub-env that raised it.

A worker dies with the process that created the vector env: a watchdog
thread sees the parent's end of the pipe close (the parent exited, however),
and on Linux, when that process is the worker's parent, the kernel kills it
too (``PR_SET_PDEATHSIG``), even if a sub-env holds the GIL in C code.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from sekai.core import Env
from sekai.error import InvalidObservation
from sekai.spaces._layout import copier_for
from sekai.vector._actions import make_action_splitter
from sekai.vector._autoreset import (
    FrozenEnvs,
    check_flags,
    end_episode,
    flags_all_false,
    rewards_array,
)
from sekai.vector._in_process import build_env, close_all, read_attr, write_attr
from sekai.vector._obs_batch import make_obs_batcher
from sekai.vector._proc_channel import Channel
from sekai.vector._proc_protocol import (
    HEADER,
    Batch,
    Command,
    Started,
    Status,
    describe_failure,
)
from sekai.vector._proc_shm import BlockLayout, BlockViews

__all__ = ["worker_main"]

_HIGHEST = pickle.HIGHEST_PROTOCOL
_OK = Status.OK.value
_ERROR = Status.ERROR.value
_ATTRIBUTE_ERROR = Status.ATTRIBUTE_ERROR.value
_INVALID = Status.INVALID_OBSERVATION.value
_AUTORESET = "the autoreset of step() (reset() after its episode ended)"
_dumps = pickle.dumps
_loads = pickle.loads


class _SubEnvFailure(Exception):
    """Raised inside the worker to report which sub-env failed (and what the step froze)."""

    def __init__(
        self,
        index: int | None,
        error: BaseException,
        during: str | None = None,
        frozen: tuple[int, ...] = (),
    ) -> None:
        super().__init__(index)
        self.index = index
        self.error = error
        self.during = during
        self.frozen = frozen


class _LookupFailure(Exception):
    """A name that get_attr / call / set_attr could not find on a sub-env."""


class _Worker:
    """The sub-envs of one worker and the command handlers."""

    def __init__(
        self, envs: list[Env[Any, Any]], first: int, autoreset: bool, cloudpickle: Any
    ) -> None:
        self.envs = envs
        self.first = first
        self.count = len(envs)
        self.autoreset = autoreset
        self.cloudpickle = cloudpickle
        self.copy = copier_for(envs[0].observation_space)
        self.frozen = FrozenEnvs(self.count, self.copy)
        self.split = make_action_splitter(envs[0].action_space, self.count)
        self.views: BlockViews | None = None
        self.shm: Any = None
        self.write_obs: Callable[[Any, int, Any], None] | None = None
        self.block_actions: Any = None  # this worker's rows of the actions in the block
        self.current = 0  # local index of the sub-env being run, for error reports
        self.all_rows = range(self.count)
        self.rows: Sequence[int] = self.all_rows  # local indices of the last command's rows
        self.handlers: dict[int, Callable[[Any], Any]] = {
            Command.STEP: self.step,
            Command.STEP_IN_BLOCK: lambda _: self.step(self.block_actions),
            Command.STEP_SOME: self.step_some,
            Command.RESET: self.reset,
            Command.CALL: self.call,
            Command.GET_ATTR: self.get_attr,
            Command.SET_ATTR: self.set_attr,
            Command.ATTACH: self.attach,
            Command.PING: lambda _: None,
            Command.CLOSE: self.close,
        }

    # -- shared memory ------------------------------------------------------------------

    def attach(self, payload: tuple[str, BlockLayout]) -> None:
        name, layout = payload
        self.shm = shm = _open_block(name)
        self.views = views = BlockViews(layout, shm.buf)
        if views.actions is not None:
            self.block_actions = views.actions[self.first : self.first + self.count]
        self.write_obs = make_obs_batcher(self.envs[0].observation_space, layout.num_envs).write

    def detach(self) -> None:
        self.block_actions = None
        if self.views is not None:
            self.views.release()
            self.views = None
        if self.shm is not None:
            # A view that escaped keeps the mapping until the process ends.
            with contextlib.suppress(BufferError):
                self.shm.close()
            self.shm = None

    # -- commands ------------------------------------------------------------------------

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Step the sub-envs; the `Batch` goes back as a plain tuple (cheaper to pickle)."""
        infos, observations, rewards, terminated, truncated, frozen_now = self._step_rows(
            range(self.count), self.split(actions)
        )
        views = self.views
        if views is None:
            return (infos, observations, rewards, terminated, truncated, frozen_now)
        first = self.first
        if self.count == 1:  # scalar writes are cheaper than converting lists
            reward = rewards[0]
            if reward.__class__ is not float:  # checked as every backend checks rewards
                reward = rewards_array(rewards, (first,))[0]
            views.rewards[first] = reward
            views.terminated[first] = terminated[0]
            views.truncated[first] = truncated[0]
        else:
            end = first + self.count
            views.rewards[first:end] = rewards_array(rewards, range(first, end))
            views.terminated[first:end] = terminated
            views.truncated[first:end] = truncated
        return (infos, None, None, None, None, frozen_now)

    def step_some(self, payload: tuple[list[int], list[Any]]) -> tuple[Any, ...]:
        """Step some of the sub-envs (partial batches): one action per local index.

        Rewards and flags always come back in the tuple; observations too,
        unless they were written into the shared block.
        """
        indices, actions = payload
        return self._step_rows(indices, actions)

    def _step_rows(self, indices: Sequence[int], per_env: list[Any]) -> tuple[Any, ...]:
        """Step the sub-envs ``indices`` with their actions: the Batch fields, as a tuple.

        A sub-env that raises does not stop the others; the first failure is
        raised once every sub-env has stepped (a `_SubEnvFailure`).
        """
        envs = self.envs
        frozen = self.frozen
        autoreset = self.autoreset
        first = self.first
        write = self.write_obs
        block = self.views.observations if self.views is not None else None
        self.rows = indices
        observations: list[Any] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        newly_frozen: list[int] = []
        failure: _SubEnvFailure | None = None
        for j, action in zip(indices, per_env, strict=True):
            if frozen.any and frozen.mask[j]:
                # With shared memory, the block's row still holds the final observation.
                observation: Any = frozen.observations[j]
                rewards.append(0.0)
                terminated.append(frozen.terminated[j])
                truncated.append(frozen.truncated[j])
                infos.append({})
            else:
                self.current = j
                during = None
                try:
                    env = envs[j]
                    result = env.step(action)
                    observation, info = result.observation, result.info
                    if result.terminated or result.truncated:
                        during = _AUTORESET
                        ending = end_episode(env, result, autoreset, self.copy, first + j)
                        during = None
                        if ending is not None:
                            if ending.frozen:
                                frozen.freeze(j, observation, result.terminated, result.truncated)
                                newly_frozen.append(first + j)
                            observation, info = ending.observation, ending.info
                    if write is not None:
                        write(block, first + j, observation)
                except Exception as error:
                    if failure is None:
                        failure = _SubEnvFailure(first + j, error, during)
                    continue
                rewards.append(result.reward)
                terminated.append(result.terminated)
                truncated.append(result.truncated)
                infos.append(info)
            if write is None:
                observations.append(observation)
        if failure is not None:
            failure.frozen = tuple(newly_frozen)
            raise failure
        if not flags_all_false(terminated, truncated):
            check_flags(terminated, truncated, [first + j for j in indices])
        return (
            infos,
            None if write is not None else observations,
            rewards,
            terminated,
            truncated,
            tuple(newly_frozen),
        )

    def blame_unpicklable(self, result: Any) -> int:
        """The sub-env whose part of ``result`` cannot be pickled (else the first one)."""
        if isinstance(result, tuple):  # a Batch: infos, then observations (or None)
            observations = result[1] if result[1] is not None else [None] * len(result[0])
            parts: list[Any] = list(zip(result[0], observations, strict=False))
        elif isinstance(result, list):  # call / get_attr: one value per sub-env
            parts = result
        else:  # pragma: no cover - every reply is one of those
            return self.first
        for k, part in enumerate(parts):
            try:
                self.cloudpickle.dumps(part, _HIGHEST)
            except Exception:
                return self.first + self.rows[k]
        return self.first  # pragma: no cover - the whole failed, no part alone

    def reset(self, payload: tuple[list[Any], list[Any]]) -> tuple[Any, ...]:
        """Reset the sub-envs; the `Batch` goes back as a plain tuple."""
        seeds, options = payload
        write = self.write_obs
        block = self.views.observations if self.views is not None else None
        observations: list[Any] = []
        infos: list[dict[str, Any]] = []
        for j, env in enumerate(self.envs):
            self.current = j
            result = env.reset(seed=seeds[j], options=options[j])
            if write is None:
                observations.append(result.observation)
            else:
                write(block, self.first + j, result.observation)
            infos.append(result.info)
        self.frozen.clear()
        return tuple(Batch(infos, None if write is not None else observations))

    def call(self, payload: tuple[str, tuple[Any, ...], dict[str, Any]]) -> list[Any]:
        name, args, kwargs = payload
        results = []
        for j, env in enumerate(self.envs):
            self.current = j
            value = _lookup(env, name)
            results.append(value(*args, **kwargs) if callable(value) else value)
        return results

    def get_attr(self, name: str) -> list[Any]:
        results = []
        for j, env in enumerate(self.envs):
            self.current = j
            results.append(_lookup(env, name))
        return results

    def set_attr(self, payload: tuple[str, list[Any]]) -> None:
        name, values = payload
        for j, env in enumerate(self.envs):
            self.current = j
            try:
                write_attr(env, name, values[j])
            except AttributeError as error:
                raise _LookupFailure(str(error)) from None

    def close(self, _: object = None) -> None:
        """Close every sub-env and unmap the block; raise the first failure afterwards."""
        first_failure: _SubEnvFailure | None = None
        for j, env in enumerate(self.envs):
            try:
                env.close()
            except BaseException as error:
                if first_failure is None:
                    first_failure = _SubEnvFailure(self.first + j, error)
        self.detach()
        if first_failure is not None:
            raise first_failure


def _open_block(name: str) -> Any:
    """Map the parent's shared block without registering it with a resource tracker.

    The parent created the block and alone unlinks it (its resource tracker
    does so if it is killed); a worker registering it too would make a
    tracker report it as leaked, or unlink it, when the worker exits.
    """
    from multiprocessing import resource_tracker, shared_memory

    if sys.version_info >= (3, 13):
        return shared_memory.SharedMemory(name, track=False)  # type: ignore[call-arg, unused-ignore]
    register = resource_tracker.register
    resource_tracker.register = _register_nothing  # type: ignore[assignment]
    try:
        return shared_memory.SharedMemory(name)
    finally:
        resource_tracker.register = register


def _register_nothing(name: str, rtype: str) -> None:
    return None


def _lookup(env: Env[Any, Any], name: str) -> Any:
    try:
        return read_attr(env, name)
    except AttributeError as error:
        raise _LookupFailure(str(error)) from None


def _build(env_fns: list[Any], first: int) -> list[Env[Any, Any]]:
    """Build the sub-envs; a failure closes those built and raises a _SubEnvFailure naming it."""
    envs: list[Env[Any, Any]] = []
    try:
        for i, fn in enumerate(env_fns):
            envs.append(build_env(fn, "ProcVecEnv", first + i))
    except BaseException as error:
        with contextlib.suppress(Exception):  # the construction error is the one to report
            close_all(envs)
        raise _SubEnvFailure(first + len(envs), error) from None
    return envs


def _started(envs: list[Env[Any, Any]], first: int) -> Started:
    obs0, act0 = envs[0].observation_space, envs[0].action_space
    spaces = [(first, obs0, act0)]
    for j, env in enumerate(envs[1:], start=1):
        if env.observation_space != obs0 or env.action_space != act0:
            spaces.append((first + j, env.observation_space, env.action_space))
    return Started(spaces, dict(envs[0].metadata))


def worker_main(
    conn: Any,
    env_fns_blob: bytes | list[Any],
    first: int,
    autoreset: bool,
    inherited: list[Any],
    parent: tuple[int, bool] = (0, False),
) -> None:
    """Run one worker: build the sub-envs, then serve commands until CLOSE or EOF.

    Args:
        conn: This worker's end of its pipe.
        env_fns_blob: The cloudpickled list of this worker's env factories
            (or, for a forked worker, which inherits them, the list itself).
        first: Index (in the vector env) of the worker's first sub-env.
        autoreset: The vector env's autoreset flag.
        inherited: Parent-side connections this process inherited through
            ``fork``; closed at once so only the parent holds them.
        parent: The pid of the process that created the vector env, and
            whether its main thread started this worker (see
            `_die_with_parent`).
    """
    # Ctrl-C is the parent's to handle: it decides what happens to the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # the parent blocks it while starting workers
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    for other in inherited:
        other.close()
    _die_with_parent(conn, *parent)
    import cloudpickle

    channel = Channel(conn)
    try:
        try:
            env_fns = env_fns_blob if isinstance(env_fns_blob, list) else _loads(env_fns_blob)
            envs = _build(env_fns, first)
            started = cloudpickle.dumps((0, _OK, _started(envs, first)), _HIGHEST)
        except BaseException as error:
            index, cause = (
                (error.index, error.error) if isinstance(error, _SubEnvFailure) else (first, error)
            )
            channel.send(_dumps((0, _ERROR, describe_failure(index, cause, cloudpickle)), _HIGHEST))
            return
        channel.send(started)
    except OSError:  # the parent is gone already (e.g. Ctrl-C while it was starting workers)
        conn.close()
        return
    worker = _Worker(envs, first, autoreset, cloudpickle)
    try:
        _serve(worker, channel)
    finally:
        worker.detach()
        conn.close()


def _die_with_parent(conn: Any, parent_pid: int, from_main_thread: bool) -> None:
    """End this worker as soon as the process that created the vector env is gone.

    A daemon thread waits for the parent's end of the pipe to close (only the
    parent holds it, so it closes when the parent exits, however it exits)
    and ends the process at once, even while a sub-env hangs. On Linux, when
    that process is this worker's parent (``fork``, ``spawn``) and its main
    thread started it, the kernel also kills the worker with it
    (``PR_SET_PDEATHSIG``: it fires when the parent *thread* ends, hence the
    main-thread condition); with ``forkserver`` the worker's parent is the
    fork server, which outlives no worker, so the watchdog does it.
    """
    if from_main_thread and sys.platform.startswith("linux") and os.getppid() == parent_pid:
        with contextlib.suppress(Exception):  # no libc prctl: the watchdog still runs
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        if os.getppid() != parent_pid:  # it died before the line above
            os._exit(1)
    threading.Thread(
        target=_watch_parent, args=(conn,), name="sekai-parent-watchdog", daemon=True
    ).start()


def _watch_parent(conn: Any) -> None:
    """Wait until the parent's end of ``conn`` closes, then end this process."""
    import select

    poll = getattr(select, "poll", None)
    if poll is not None:
        poller = poll()
        poller.register(conn.fileno(), 0)  # hang-up and errors only: data is the worker's
        gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
        while not any(event & gone for _, event in poller.poll()):
            pass
    else:  # pragma: no cover - Windows: wait on the parent process itself
        import multiprocessing

        parent = multiprocessing.parent_process()
        if parent is None:
            return
        parent.join()
    os._exit(1)


def _serve(worker: _Worker, channel: Channel) -> None:
    recv, send = channel.recv, channel.send
    handlers = worker.handlers
    header_size = HEADER.size
    while True:
        try:
            message = recv()
        except (EOFError, OSError):  # the parent is gone
            with contextlib.suppress(BaseException):
                worker.close()
            return
        command, seq = HEADER.unpack_from(message)
        worker.current = 0
        worker.rows = worker.all_rows
        try:
            payload = _loads(message[header_size:]) if len(message) > header_size else None
            result = handlers[command](payload)
        except _LookupFailure as failure:
            reply = _dumps((seq, _ATTRIBUTE_ERROR, str(failure)), _HIGHEST)
        except _SubEnvFailure as failure:
            reply = _failure(seq, failure.index, failure.error, worker, failure)
        except BaseException as error:
            reply = _failure(seq, worker.first + worker.current, error, worker)
        else:
            reply = _pack(seq, result, worker)
        try:
            send(reply)
        except OSError:  # the parent is gone
            with contextlib.suppress(BaseException):
                worker.close()
            return
        if command == Command.CLOSE:
            return


def _failure(
    seq: int,
    index: int | None,
    error: BaseException,
    worker: _Worker,
    context: _SubEnvFailure | None = None,
) -> bytes:
    failure = describe_failure(index, error, worker.cloudpickle)
    if context is not None:
        failure = failure._replace(during=context.during, frozen=context.frozen)
    status = _INVALID if isinstance(error, InvalidObservation) else _ERROR
    return _dumps((seq, status, failure), _HIGHEST)


def _pack(seq: int, result: Any, worker: _Worker) -> bytes:
    """Pickle an OK reply; cloudpickle when plain pickle cannot (lambdas in infos, ...)."""
    with contextlib.suppress(Exception):
        return _dumps((seq, _OK, result), _HIGHEST)
    try:
        blob: bytes = worker.cloudpickle.dumps((seq, _OK, result), _HIGHEST)
    except Exception as error:
        return _failure(seq, worker.blame_unpicklable(result), error, worker)
    return blob
