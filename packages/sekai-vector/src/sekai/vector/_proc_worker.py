"""The loop a :class:`~sekai.vector.ProcVecEnv` worker process runs.

A worker owns a contiguous group of sub-envs. The parent sends it one message
per command: ``HEADER.pack(command, seq)`` followed by the pickled payload (if
any), and it answers each with ``pickle((seq, status, payload))``; ``seq`` lets
the parent recognise and drop answers to commands it stopped waiting for (e.g.
after Ctrl-C). Payloads plain pickle cannot write (lambdas, ...) are written
with cloudpickle; :func:`pickle.loads` reads both.

Right after start-up, before any command, the worker builds its sub-envs and
sends an unsolicited ``(0, status, ...)`` reply describing them (or the error).

With shared memory, step and reset write observations, rewards and flags
straight into the block and only the infos travel back; without it, the whole
results are pickled. The autoreset and frozen-env rules are those of every
vector env (:mod:`sekai.vector._autoreset`).
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any

from sekai.core import Env
from sekai.vector._actions import make_action_splitter
from sekai.vector._autoreset import (
    FINAL_OBSERVATION,
    FrozenEnvs,
    autoreset_info,
    copy_observation,
)
from sekai.vector._env_list import _read, _write
from sekai.vector._obs_batch import make_obs_batcher
from sekai.vector._proc_channel import Channel
from sekai.vector._proc_shm import BlockLayout, BlockViews

__all__ = [
    "ATTACH",
    "ATTRIBUTE_ERROR",
    "CALL",
    "CLOSE",
    "ERROR",
    "GET_ATTR",
    "HEADER",
    "OK",
    "PING",
    "RESET",
    "SET_ATTR",
    "STEP",
    "STEP_IN_BLOCK",
    "worker_main",
]

# Commands.
STEP = 1
RESET = 2
CALL = 3
GET_ATTR = 4
SET_ATTR = 5
ATTACH = 6
PING = 7
CLOSE = 8

STEP_IN_BLOCK = 9  # a step whose actions are in the shared block: no payload

HEADER = struct.Struct("<Bq")
"""Every command message starts with (command, seq)."""

# Reply status. ERROR payload: (sub-env index or None, message, traceback text,
# cloudpickled exception or None). ATTRIBUTE_ERROR payload: the message.
OK = 0
ERROR = 1
ATTRIBUTE_ERROR = 2

_HIGHEST = pickle.HIGHEST_PROTOCOL
_dumps = pickle.dumps
_loads = pickle.loads


class _SubEnvFailure(Exception):
    """Raised inside the worker to report which sub-env failed."""

    def __init__(self, index: int | None, error: BaseException) -> None:
        super().__init__(index)
        self.index = index
        self.error = error


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _error_payload(
    index: int | None, error: BaseException, cloudpickle: Any
) -> tuple[int | None, str, str, bytes | None]:
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    blob: bytes | None
    try:
        blob = cloudpickle.dumps(error)
        pickle.loads(blob)  # an exception that cannot be rebuilt is sent as text only
    except Exception:
        blob = None
    return (index, _describe(error), text, blob)


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
        self.frozen = FrozenEnvs(self.count)
        self.split = make_action_splitter(envs[0].action_space, self.count)
        self.views: BlockViews | None = None
        self.shm: Any = None
        self.write_obs: Callable[[Any, int, Any], None] | None = None
        self.block_actions: Any = None  # this worker's rows of the actions in the block
        self.current = 0  # local index of the sub-env being run, for error reports

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

    def step(self, actions: Any) -> Any:
        per_env = self.split(actions)
        frozen = self.frozen
        autoreset = self.autoreset
        views = self.views
        first = self.first
        rewards: list[float] = []
        terminated: list[bool] = []
        truncated: list[bool] = []
        infos: list[dict[str, Any]] = []
        observations: list[Any] = []
        write = self.write_obs
        batch = views.observations if views is not None else None
        for j, env in enumerate(self.envs):
            if frozen.any and frozen.mask[j]:
                # The row of the block still holds the final observation.
                rewards.append(0.0)
                terminated.append(frozen.terminated[j])
                truncated.append(frozen.truncated[j])
                infos.append({})
                if views is None:
                    observations.append(frozen.observations[j])
                continue
            self.current = j
            result = env.step(per_env[j])
            obs = result.observation
            info = result.info
            if (result.terminated or result.truncated) and FINAL_OBSERVATION not in info:
                if autoreset:
                    final_observation, final_info = copy_observation(obs), dict(info)
                    reset = env.reset()
                    info = autoreset_info(final_info, final_observation, reset.info)
                    obs = reset.observation
                else:
                    frozen.freeze(j, obs, result.terminated, result.truncated)
            rewards.append(result.reward)
            terminated.append(result.terminated)
            truncated.append(result.truncated)
            infos.append(info)
            if write is None:
                observations.append(obs)
            else:
                write(batch, first + j, obs)
        if views is None:
            return (observations, rewards, terminated, truncated, infos)
        if self.count == 1:  # scalar writes are cheaper than converting lists
            views.rewards[first] = rewards[0]
            views.terminated[first] = terminated[0]
            views.truncated[first] = truncated[0]
        else:
            end = first + self.count
            views.rewards[first:end] = rewards
            views.terminated[first:end] = terminated
            views.truncated[first:end] = truncated
        return infos

    def reset(self, payload: tuple[list[Any], list[Any]]) -> Any:
        seeds, options = payload
        views = self.views
        write = self.write_obs
        batch = views.observations if views is not None else None
        first = self.first
        observations: list[Any] = []
        infos: list[dict[str, Any]] = []
        for j, env in enumerate(self.envs):
            self.current = j
            result = env.reset(seed=seeds[j], options=options[j])
            if write is None:
                observations.append(result.observation)
            else:
                write(batch, first + j, result.observation)
            infos.append(result.info)
        self.frozen.clear()
        return infos if views is not None else (observations, infos)

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
                _write(env, name, values[j])
            except AttributeError as error:
                raise _LookupFailure(str(error)) from None

    def close(self) -> BaseException | None:
        """Close every sub-env; return the first failure (as a _SubEnvFailure)."""
        first_failure: BaseException | None = None
        for j, env in enumerate(self.envs):
            try:
                env.close()
            except BaseException as error:
                if first_failure is None:
                    first_failure = _SubEnvFailure(self.first + j, error)
        return first_failure


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


class _LookupFailure(Exception):
    """A name that get_attr / call / set_attr could not find on a sub-env."""


def _lookup(env: Env[Any, Any], name: str) -> Any:
    try:
        return _read(env, name)
    except AttributeError as error:
        raise _LookupFailure(str(error)) from None


def _build_envs(
    env_fns: list[Any], first: int
) -> tuple[list[Env[Any, Any]], list[tuple[int, Any, Any]], dict[str, Any]]:
    """Build the sub-envs; on failure close those built and raise a _SubEnvFailure."""
    envs: list[Env[Any, Any]] = []
    index = first
    try:
        for i, fn in enumerate(env_fns):
            index = first + i
            env: object = fn()
            if not isinstance(env, Env):
                closer = getattr(env, "close", None)
                if callable(closer):
                    closer()
                raise TypeError(f"env_fns[{index}] must return a sekai.core.Env, got {env!r}")
            envs.append(env)
    except BaseException as error:
        for env in envs:
            with contextlib.suppress(Exception):  # the construction error is the one to report
                env.close()
        raise _SubEnvFailure(index, error) from None
    obs0, act0 = envs[0].observation_space, envs[0].action_space
    spaces = [(first, obs0, act0)]
    for j, env in enumerate(envs[1:], start=1):
        if env.observation_space != obs0 or env.action_space != act0:
            spaces.append((first + j, env.observation_space, env.action_space))
    return envs, spaces, dict(envs[0].metadata)


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
    send = channel.send
    try:
        env_fns = env_fns_blob if isinstance(env_fns_blob, list) else _loads(env_fns_blob)
        envs, spaces, metadata = _build_envs(env_fns, first)
    except _SubEnvFailure as failure:
        send(
            _dumps((0, ERROR, _error_payload(failure.index, failure.error, cloudpickle)), _HIGHEST)
        )
        conn.close()
        return
    except BaseException as error:
        send(_dumps((0, ERROR, _error_payload(first, error, cloudpickle)), _HIGHEST))
        conn.close()
        return
    send(cloudpickle.dumps((0, OK, (spaces, metadata)), _HIGHEST))
    worker = _Worker(envs, first, autoreset, cloudpickle)
    try:
        _serve(worker, channel, cloudpickle)
    finally:
        worker.detach()
        conn.close()


def _pack(seq: int, result: Any, worker: _Worker, cloudpickle: Any) -> bytes:
    """Pickle a reply; cloudpickle when plain pickle cannot (lambdas in infos, ...)."""
    with contextlib.suppress(Exception):
        return _dumps((seq, OK, result), _HIGHEST)
    try:
        blob: bytes = cloudpickle.dumps((seq, OK, result), _HIGHEST)
    except Exception as error:
        return _dumps((seq, ERROR, _error_payload(worker.first, error, cloudpickle)), _HIGHEST)
    return blob


def _serve(worker: _Worker, channel: Channel, cloudpickle: Any) -> None:
    recv = channel.recv
    send = channel.send
    step = worker.step
    header_size = HEADER.size
    while True:
        try:
            message = recv()
        except (EOFError, OSError):  # the parent is gone
            worker.close()
            return
        command, seq = HEADER.unpack_from(message)
        worker.current = 0
        try:
            if command == STEP_IN_BLOCK:
                reply = _pack(seq, step(worker.block_actions), worker, cloudpickle)
            else:
                payload = _loads(message[header_size:]) if len(message) > header_size else None
                reply = _run(worker, command, seq, payload, cloudpickle)
        except _LookupFailure as failure:
            reply = _dumps((seq, ATTRIBUTE_ERROR, str(failure)), _HIGHEST)
        except BaseException as error:
            index = worker.first + worker.current
            reply = _dumps((seq, ERROR, _error_payload(index, error, cloudpickle)), _HIGHEST)
        try:
            send(reply)
        except OSError:  # the parent is gone
            worker.close()
            return
        if command == CLOSE:
            return


def _run(worker: _Worker, command: int, seq: int, payload: Any, cloudpickle: Any) -> bytes:
    """Run one (non-fast) command and return the pickled reply."""
    result: Any = None
    if command == STEP:
        result = worker.step(payload)
    elif command == RESET:
        result = worker.reset(payload)
    elif command == CALL:
        result = worker.call(payload)
    elif command == GET_ATTR:
        result = worker.get_attr(payload)
    elif command == SET_ATTR:
        worker.set_attr(payload)
    elif command == ATTACH:
        worker.attach(payload)
    elif command == CLOSE:
        failure = worker.close()
        worker.detach()
        if failure is not None:
            assert isinstance(failure, _SubEnvFailure)
            error_payload = _error_payload(failure.index, failure.error, cloudpickle)
            return _dumps((seq, ERROR, error_payload), _HIGHEST)
    elif command != PING:  # pragma: no cover - the parent sends only the commands above
        raise ValueError(f"unknown command {command!r}")
    return _pack(seq, result, worker, cloudpickle)
