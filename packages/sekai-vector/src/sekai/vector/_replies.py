"""What a remote worker answers: the replies of ProcVecEnv's processes and RayVecEnv's actors.

A worker (a [`ProcVecEnv`][sekai.vector.ProcVecEnv] worker process or a
[`RayVecEnv`][sekai.vector.RayVecEnv] actor) answers every command with a
`Reply`: ``(status, payload)``, where ``status`` says what the payload is:
the command's result (`Status.OK`), a `Failure` (`Status.ERROR`) or the
message of a name a sub-env lacks (`Status.ATTRIBUTE_ERROR`); a Failure whose
exception is an [`InvalidObservation`][sekai.error.InvalidObservation] (an
observation, reward or flag that does not fit) has
`Status.INVALID_OBSERVATION`, and the vector env raises it as such.

Right after start-up a worker answers with `Started` (or the Failure of a
factory); step and reset answer with a `Batch`.

Named tuples travel as plain tuples and are rebuilt with `as_batch` /
`make_reply`: pickling a named tuple by class costs several microseconds per
message, which every step would pay per worker.

`raise_failures` turns the failures of a command's replies into the
exception the vector env raises, naming the backend.
"""

from __future__ import annotations

import contextlib
import pickle
import traceback
from collections.abc import Iterable
from enum import IntEnum
from typing import Any, NamedTuple

from sekai.core import InfoDict
from sekai.error import InvalidObservation, VecEnvWorkerError
from sekai.spaces import Space

__all__ = [
    "Batch",
    "Failure",
    "Reply",
    "Started",
    "Status",
    "as_batch",
    "describe_failure",
    "invalid_observation",
    "make_reply",
    "raise_failures",
    "worker_error",
]


class Status(IntEnum):
    """What the payload of a reply is."""

    OK = 0
    ERROR = 1
    ATTRIBUTE_ERROR = 2
    INVALID_OBSERVATION = 3


_OK = Status.OK.value
_ATTRIBUTE_ERROR = Status.ATTRIBUTE_ERROR.value
_INVALID = Status.INVALID_OBSERVATION.value


class Reply(NamedTuple):
    """One worker's answer to the last command."""

    status: int
    payload: Any


class Failure(NamedTuple):
    """An exception raised in a worker, as it travels to the vector env.

    Attributes:
        env_index: The sub-env that raised (its index in the vector env),
            or ``None`` when it was the worker itself.
        message: ``"ExceptionType: text"``.
        traceback: The formatted traceback.
        exception: The cloudpickled exception, or ``None`` when it cannot be
            rebuilt on the other side.
        during: What the sub-env was doing, when it is not the command
            itself (e.g. the autoreset of a step), else ``None``.
        frozen: The sub-envs a failed step froze all the same (the others
            of the worker took their step).
    """

    env_index: int | None
    message: str
    traceback: str
    exception: bytes | None
    during: str | None = None
    frozen: tuple[int, ...] = ()


class Started(NamedTuple):
    """A worker's first answer: its sub-envs were built.

    Attributes:
        spaces: ``(index, observation_space, action_space)`` of its first
            sub-env and of every later one whose spaces differ from those.
        metadata: The first sub-env's metadata.
    """

    spaces: list[tuple[int, Space[Any], Space[Any]]]
    metadata: dict[str, Any]


class Batch(NamedTuple):
    """A worker's answer to a step or a reset, one entry per sub-env it ran.

    Attributes:
        infos: The info dicts (after autoreset or freezing).
        observations: The observations: a list, one stacked batch (RayVecEnv
            with array observations), or ``None`` when they are in
            ProcVecEnv's shared block.
        rewards: The rewards, or ``None`` for a reset and when they are in
            the shared block (as are the flags; a partial step always sends
            them).
        terminated: The ``terminated`` flags (same rule as ``rewards``).
        truncated: The ``truncated`` flags (same rule as ``rewards``).
        frozen: The sub-envs (indices in the vector env) this step froze.
    """

    infos: list[InfoDict]
    observations: Any = None
    rewards: list[float] | None = None
    terminated: list[bool] | None = None
    truncated: list[bool] | None = None
    frozen: tuple[int, ...] = ()


_new_tuple = tuple.__new__


def as_batch(payload: tuple[Any, ...]) -> Batch:
    """The `Batch` a worker sent as a plain tuple (no copy, no checks)."""
    return _new_tuple(Batch, payload)


def make_reply(status: int, payload: Any) -> Reply:
    """A `Reply`, built without the named tuple's Python-level constructor."""
    return _new_tuple(Reply, (status, payload))


def describe_failure(index: int | None, error: BaseException, cloudpickle: Any) -> Failure:
    """The `Failure` that reports ``error`` (raised by sub-env ``index``)."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    name = type(error).__name__
    message = f"{name}: {error}" if str(error) else name
    blob: bytes | None
    try:
        blob = cloudpickle.dumps(error)
        pickle.loads(blob)  # an exception that cannot be rebuilt is sent as text only
    except Exception:
        blob = None
    return Failure(index, message, text, blob)


def invalid_observation(failure: Failure, backend: str) -> InvalidObservation:
    """The `InvalidObservation` ``backend`` (e.g. ``"ProcVecEnv"``) raises for such a Failure."""
    text = failure.message.removeprefix(f"{InvalidObservation.__name__}: ")
    if not text.startswith("sub-env "):  # raised by the sub-env itself
        text = f"sub-env {failure.env_index} raised InvalidObservation: {text}"
    return InvalidObservation(f"{backend}: {text}")


def worker_error(failure: Failure, what: str, backend: str, worker: str) -> VecEnvWorkerError:
    """The [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError] ``backend`` raises for a Failure.

    Args:
        failure: What the worker reported.
        what: The command, when the Failure does not say what the sub-env
            was doing (e.g. ``"step()"``).
        backend: The vector env's class name, which starts the message.
        worker: How to name a worker that failed outside its sub-envs
            (``"a worker"``, ``"an actor"``).
    """
    index = failure.env_index
    where = f"sub-env {index}" if index is not None else worker
    error = VecEnvWorkerError(
        f"{backend}: {where} raised {failure.message} in {failure.during or what}",
        index,
        failure.traceback,
    )
    if failure.exception is not None:
        # The cause is a courtesy: the traceback text is there anyway.
        with contextlib.suppress(Exception):
            error.__cause__ = pickle.loads(failure.exception)
    return error


def raise_failures(replies: Iterable[Reply], what: str, backend: str, worker: str) -> None:
    """Raise for the first reply that is not OK (see `worker_error` for the arguments).

    Raises:
        AttributeError: A sub-env lacks a name.
        InvalidObservation: A value did not fit its space.
        VecEnvWorkerError: Anything else a worker reported.
    """
    for status, payload in replies:
        if status == _ATTRIBUTE_ERROR:
            raise AttributeError(payload)
        if status == _INVALID:
            raise invalid_observation(payload, backend)
        if status != _OK:
            raise worker_error(payload, what, backend, worker)
