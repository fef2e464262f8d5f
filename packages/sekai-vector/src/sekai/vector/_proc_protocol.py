"""The messages a [`ProcVecEnv`][sekai.vector.ProcVecEnv] and its worker processes exchange.

The parent sends each worker one message per command: `HEADER` (the
`Command` and a sequence number) followed by the pickled payload, if
any. The worker answers every command with one pickled
``(seq, status, payload)`` tuple (`Reply` once read): ``seq`` lets the
parent recognise and drop answers to commands it stopped waiting for (e.g.
after Ctrl-C), and ``status`` says what the payload is: the command's result
(`Status.OK`), a `Failure` (`Status.ERROR`) or the message
of a name a sub-env lacks (`Status.ATTRIBUTE_ERROR`); a Failure whose
exception is an [`InvalidObservation`][sekai.error.InvalidObservation] (an observation,
reward or flag that does not fit) has `Status.INVALID_OBSERVATION`, and
the parent raises it as such.

Right after start-up, before any command, a worker sends an unsolicited reply
with sequence number 0: `Started` (or the Failure of a factory).

Step and reset answer with a `Batch` whether or not observations
travel through shared memory; the fields the worker wrote into the shared
block are ``None``.

Named tuples travel as plain tuples (`plain`) and are rebuilt with
`as_batch` / `make_reply`: pickling a named tuple by class costs
several microseconds per message, which every step would pay per worker.
"""

from __future__ import annotations

import contextlib
import pickle
import struct
import traceback
from enum import IntEnum
from typing import Any, NamedTuple

from sekai.core import InfoDict
from sekai.error import InvalidObservation, VecEnvWorkerError
from sekai.spaces import Space

__all__ = [
    "HEADER",
    "Batch",
    "Command",
    "Failure",
    "Reply",
    "Started",
    "Status",
    "as_batch",
    "describe_failure",
    "invalid_observation",
    "make_reply",
    "worker_error",
]

HEADER = struct.Struct("<Bq")
"""Every command message starts with ``(command, seq)``."""


class Command(IntEnum):
    """What the parent asks a worker to do."""

    STEP = 1  # payload: this worker's slice of the batch of actions
    RESET = 2  # payload: (seeds, options), one entry per sub-env of the worker
    CALL = 3  # payload: (name, args, kwargs)
    GET_ATTR = 4  # payload: name
    SET_ATTR = 5  # payload: (name, one value per sub-env of the worker)
    ATTACH = 6  # payload: (shared block name, BlockLayout)
    PING = 7  # no payload: answered at once (resynchronises after an interrupt)
    CLOSE = 8  # no payload: close the sub-envs, answer, exit
    STEP_IN_BLOCK = 9  # no payload: a step whose actions are in the shared block
    STEP_SOME = 10  # payload: (local sub-env indices, one action each): a partial batch


class Status(IntEnum):
    """What the payload of a reply is."""

    OK = 0
    ERROR = 1
    ATTRIBUTE_ERROR = 2
    INVALID_OBSERVATION = 3


class Reply(NamedTuple):
    """One worker's answer to the last command."""

    status: int
    payload: Any


class Failure(NamedTuple):
    """An exception raised in a worker, as it travels to the parent.

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
    """A worker's first message: its sub-envs were built.

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
        observations: The observations, or ``None`` when they are in the
            shared block.
        rewards: The rewards, or ``None`` for a reset and when they are in
            the shared block (as are the flags; a partial step always sends
            them).
        terminated: The ``terminated`` flags (same rule as ``rewards``).
        truncated: The ``truncated`` flags (same rule as ``rewards``).
        frozen: The sub-envs (indices in the vector env) this step froze.
    """

    infos: list[InfoDict]
    observations: list[Any] | None = None
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


def invalid_observation(failure: Failure) -> InvalidObservation:
    """The `InvalidObservation` the parent raises for such a Failure."""
    text = failure.message.removeprefix(f"{InvalidObservation.__name__}: ")
    if not text.startswith("sub-env "):  # raised by the sub-env itself
        text = f"sub-env {failure.env_index} raised InvalidObservation: {text}"
    return InvalidObservation(f"ProcVecEnv: {text}")


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


def worker_error(failure: Failure, what: str) -> VecEnvWorkerError:
    """The [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError] the parent raises for a Failure."""
    index = failure.env_index
    where = f"sub-env {index}" if index is not None else "a worker"
    error = VecEnvWorkerError(
        f"ProcVecEnv: {where} raised {failure.message} in {failure.during or what}",
        index,
        failure.traceback,
    )
    if failure.exception is not None:
        # The cause is a courtesy: the traceback text is there anyway.
        with contextlib.suppress(Exception):
            error.__cause__ = pickle.loads(failure.exception)
    return error
