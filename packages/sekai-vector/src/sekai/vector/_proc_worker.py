"""The loop a :class:`~sekai.vector.ProcVecEnv` worker process runs.

A worker owns a contiguous group of sub-envs: it builds them, reports
:class:`~sekai.vector._proc_protocol.Started`, then answers commands (see
:mod:`sekai.vector._proc_protocol`) until CLOSE or until the parent is gone.
Steps follow the per-sub-env rule of every vector env
(:func:`~sekai.vector._autoreset.end_episode`); with shared memory,
observations, rewards and flags are written straight into the block and only
the infos travel back.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any

from sekai.core import Env
from sekai.spaces._layout import copier_for
from sekai.vector._actions import make_action_splitter
from sekai.vector._autoreset import FrozenEnvs, end_episode
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
_dumps = pickle.dumps
_loads = pickle.loads


class _SubEnvFailure(Exception):
    """Raised inside the worker to report which sub-env failed."""

    def __init__(self, index: int | None, error: BaseException) -> None:
        super().__init__(index)
        self.index = index
        self.error = error


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
        """Step the sub-envs; the :class:`Batch` goes back as a plain tuple (cheaper to pickle)."""
        infos, observations, rewards, terminated, truncated, frozen_now = self._step_rows(
            range(self.count), self.split(actions)
        )
        views = self.views
        if views is None:
            return (infos, observations, rewards, terminated, truncated, frozen_now)
        first = self.first
        if self.count == 1:  # scalar writes are cheaper than converting lists
            views.rewards[first] = rewards[0]
            views.terminated[first] = terminated[0]
            views.truncated[first] = truncated[0]
        else:
            end = first + self.count
            views.rewards[first:end] = rewards
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

    def _step_rows(self, indices: Any, per_env: list[Any]) -> tuple[Any, ...]:
        """Step the sub-envs ``indices`` with their actions: the Batch fields, as a tuple."""
        envs = self.envs
        frozen = self.frozen
        autoreset = self.autoreset
        first = self.first
        write = self.write_obs
        block = self.views.observations if self.views is not None else None
        observations: list[Any] = []
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        newly_frozen: list[int] = []
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
                env = envs[j]
                result = env.step(action)
                observation, info = result.observation, result.info
                if result.terminated or result.truncated:
                    ending = end_episode(env, result, autoreset, self.copy)
                    if ending is not None:
                        if ending.frozen:
                            frozen.freeze(j, observation, result.terminated, result.truncated)
                            newly_frozen.append(first + j)
                        observation, info = ending.observation, ending.info
                rewards.append(result.reward)
                terminated.append(result.terminated)
                truncated.append(result.truncated)
                infos.append(info)
                if write is not None:
                    write(block, first + j, observation)
            if write is None:
                observations.append(observation)
        return (
            infos,
            None if write is not None else observations,
            rewards,
            terminated,
            truncated,
            tuple(newly_frozen),
        )

    def reset(self, payload: tuple[list[Any], list[Any]]) -> tuple[Any, ...]:
        """Reset the sub-envs; the :class:`Batch` goes back as a plain tuple."""
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
    """
    # Ctrl-C is the parent's to handle: it decides what happens to the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # the parent blocks it while starting workers
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    for other in inherited:
        other.close()
    import cloudpickle

    channel = Channel(conn)
    try:
        env_fns = env_fns_blob if isinstance(env_fns_blob, list) else _loads(env_fns_blob)
        envs = _build(env_fns, first)
    except BaseException as error:
        index, cause = (
            (error.index, error.error) if isinstance(error, _SubEnvFailure) else (first, error)
        )
        failure = describe_failure(index, cause, cloudpickle)
        channel.send(_dumps((0, _ERROR, failure), _HIGHEST))
        conn.close()
        return
    channel.send(cloudpickle.dumps((0, _OK, _started(envs, first)), _HIGHEST))
    worker = _Worker(envs, first, autoreset, cloudpickle)
    try:
        _serve(worker, channel)
    finally:
        worker.detach()
        conn.close()


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
        try:
            payload = _loads(message[header_size:]) if len(message) > header_size else None
            result = handlers[command](payload)
        except _LookupFailure as failure:
            reply = _dumps((seq, _ATTRIBUTE_ERROR, str(failure)), _HIGHEST)
        except BaseException as error:
            if isinstance(error, _SubEnvFailure):
                reply = _failure(seq, error.index, error.error, worker)
            else:
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


def _failure(seq: int, index: int | None, error: BaseException, worker: _Worker) -> bytes:
    failure = describe_failure(index, error, worker.cloudpickle)
    return _dumps((seq, _ERROR, failure), _HIGHEST)


def _pack(seq: int, result: Any, worker: _Worker) -> bytes:
    """Pickle an OK reply; cloudpickle when plain pickle cannot (lambdas in infos, ...)."""
    with contextlib.suppress(Exception):
        return _dumps((seq, _OK, result), _HIGHEST)
    try:
        blob: bytes = worker.cloudpickle.dumps((seq, _OK, result), _HIGHEST)
    except Exception as error:
        return _failure(seq, worker.first, error, worker)
    return blob
