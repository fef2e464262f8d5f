"""The exceptions sekai raises.

The promise: ``except sekai.error.SekaiError`` catches every error sekai
raises on purpose while an environment is in use (making, resetting,
stepping, closing, vector calls, space operations on samples). Each family
also derives from the builtin exception that describes it best (an unknown id
is a ``LookupError``, a bad action a ``ValueError``), so code written against
the builtins keeps working.

The exception: a bad argument to a constructor or a configuration function
(``Box(low=..., high=...)``, ``TimeLimit(env, max_episode_steps=0)``,
``SyncVecEnv(env_fns=[])``, ``np_random(seed=-1)``) raises a plain
``TypeError`` (wrong type) or ``ValueError`` (wrong value) that is *not* a
``SekaiError``. Such errors are programming mistakes found when the object is
built, not conditions to handle while it runs; the message names the owner and
the argument, what was expected and what was given.

Constructors follow sekai 0.2: ``EnvNotFound(id, suggestions=())``,
``InvalidAction(action, space)``, ``VecEnvWorkerError(rank, exc_type, message,
remote_traceback)``, ... build the message from the values they are given and
keep them as attributes. Every class also accepts a single ready-made message
(``InvalidAction("weights must sum to 1")``), which is what most of sekai
raises internally.

All of them pickle and unpickle to an exception of the same type, message and
attributes: they cross process boundaries in [`ProcVecEnv`][sekai.vector.ProcVecEnv].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "AsyncCallPending",
    "DeprecatedAPI",
    "EmptyTable",
    "EnvAlreadyRegistered",
    "EnvNotFound",
    "InvalidAction",
    "InvalidArgument",
    "InvalidArgumentType",
    "InvalidData",
    "InvalidDataType",
    "InvalidObservation",
    "LookAheadError",
    "MissingColumns",
    "NotAnEnv",
    "NothingInFlight",
    "OrderNotFound",
    "ResetRequired",
    "ResultNotIterable",
    "SekaiError",
    "SpaceMismatch",
    "SyncCallInEventLoop",
    "UntrustedEntryPoint",
    "VecEnvClosed",
    "VecEnvWorkerError",
]


def _restore(cls: type[SekaiError], args: tuple[Any, ...], state: dict[str, Any]) -> SekaiError:
    # Rebuilds a pickled error without calling its __init__, whose arguments
    # differ from class to class: the message (args) and the attributes are
    # restored as they were.
    error = cls.__new__(cls, *args)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class SekaiError(Exception):
    """Base class of every exception raised by sekai.

    Keyword arguments, if any, become attributes of the error (extra context
    for handlers and logs); positional arguments are the message, as for any
    exception.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args, dict(self.__dict__)))


class EnvNotFound(SekaiError, LookupError):
    """No environment is registered under the requested id.

    Args:
        id: The id that was asked for.
        suggestions: Registered ids close to it, best first.
        message: The full message, when the default one is not wanted.

    Attributes:
        id: The id that was asked for.
        suggestions: Registered ids close to it (a tuple).
    """

    def __init__(
        self, id: str, suggestions: Sequence[str] = (), *, message: str | None = None
    ) -> None:
        self.id = id
        self.suggestions: tuple[str, ...] = tuple(suggestions)
        if message is None:
            message = f"environment {id!r} is not registered"
            if self.suggestions:
                message += f"; did you mean {' or '.join(map(repr, self.suggestions))}?"
        super().__init__(message)


class EnvAlreadyRegistered(SekaiError, ValueError):
    """An environment is already registered under this id.

    Args:
        id: The id that is taken.
        message: The full message, when the default one is not wanted.

    Attributes:
        id: The id that is taken.
    """

    def __init__(self, id: str, *, message: str | None = None) -> None:
        self.id = id
        super().__init__(message or f"environment {id!r} is already registered")


class InvalidAction(SekaiError, ValueError):
    """An action is not valid for the environment's action space.

    Built as ``InvalidAction(action, space)``, the message names both; built
    with a single string, that string is the message.

    Args:
        action: The action that was refused (or the whole message).
        space: The space it is not an element of.
        message: The full message, when the default one is not wanted.

    Attributes:
        action: The refused action (``None`` when only a message was given).
        space: The action space (``None`` when not given).
    """

    def __init__(self, action: object, space: object = None, *, message: str | None = None) -> None:
        self.action, self.space, text = _value_and_space("action", action, space, message)
        super().__init__(text)


class InvalidObservation(SekaiError, ValueError):
    """An observation does not belong to the declared observation space.

    Built as ``InvalidObservation(obs, space)``, the message names both; built
    with a single string, that string is the message.

    Args:
        obs: The observation that was refused (or the whole message).
        space: The space it is not an element of.
        message: The full message, when the default one is not wanted.

    Attributes:
        obs: The refused observation (``None`` when only a message was given).
        space: The observation space (``None`` when not given).
    """

    def __init__(self, obs: object, space: object = None, *, message: str | None = None) -> None:
        self.obs, self.space, text = _value_and_space("observation", obs, space, message)
        super().__init__(text)


def _value_and_space(
    kind: str, value: object, space: object, message: str | None
) -> tuple[object, object, str]:
    """The (value, space, message) of an InvalidAction / InvalidObservation."""
    if message is not None:
        return value, space, message
    if space is None:
        if isinstance(value, str):  # a ready-made message
            return None, None, value
        return value, None, f"invalid {kind} {value!r}"
    return value, space, f"invalid {kind} {value!r}: it is not an element of the space {space!r}"


class ResetRequired(SekaiError, RuntimeError):
    """``step()`` was called before ``reset()`` (or after the env was closed).

    Args:
        message: What happened; a default explains the rule.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message
            or "reset() must be called before step(), and again after close() or once an "
            "episode has ended"
        )


class AsyncCallPending(SekaiError, RuntimeError):
    """A new call was made while an earlier asynchronous call is still running.

    Args:
        message: What happened; a default explains the rule.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message
            or "an asynchronous call is still pending: wait for its result before making "
            "another call"
        )


class NothingInFlight(SekaiError, RuntimeError):
    """``recv()`` was called while fewer than ``batch_size`` sub-envs had been sent actions.

    A vector env hands back, from [`recv`][sekai.vector.VecEnv.recv], sub-envs
    that [`send`][sekai.vector.VecEnv.send] started stepping and that were not
    received yet; the message says how many there are.
    """


class SpaceMismatch(SekaiError, ValueError):
    """Two spaces that must agree (e.g. across sub-environments) do not.

    Args:
        msg: What differs.
    """

    def __init__(self, msg: str) -> None:
        super().__init__(msg)


class DeprecatedAPI(SekaiError, DeprecationWarning):
    """A removed or deprecated API was used; the message names the replacement.

    Args:
        old: The deprecated name (or, alone, the whole message).
        new: What to use instead.

    Attributes:
        old: The deprecated name.
        new: Its replacement (``None`` when only a message was given).
    """

    def __init__(self, old: str, new: str | None = None) -> None:
        self.old = old
        self.new = new
        super().__init__(old if new is None else f"{old} is deprecated; use {new} instead")


class SyncCallInEventLoop(SekaiError, RuntimeError):
    """A blocking call (e.g. ``AsyncVecEnv.step()``) was made inside a running event loop.

    Such a call would have to run a second event loop inside the first; the
    message names the ``await``-able method to use there instead.
    """


class VecEnvClosed(SekaiError, RuntimeError):
    """A vector environment was used after ``close()``.

    Args:
        message: What was called; a default says the env is closed.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or "the vector environment is closed")


class LookAheadError(SekaiError, RuntimeError):
    """A simulator tried to reveal data from the future of the current step.

    Args:
        msg: What was read too early.
    """

    def __init__(self, msg: str) -> None:
        super().__init__(msg)


class VecEnvWorkerError(SekaiError, RuntimeError):
    """A sub-environment failed inside a vector-environment worker.

    sekai 0.2's form is ``VecEnvWorkerError(rank, exc_type, message,
    remote_traceback)``: the failing sub-env's index, the name of the
    exception it raised, that exception's message and the traceback formatted
    in the worker. The vector backends raise it with a ready-made message
    instead: ``VecEnvWorkerError(message, index, worker_traceback)``. Both
    forms give every attribute below; ``str()`` ends with the worker's
    traceback when there is one.

    Attributes:
        rank: Index of the failing sub-environment in the vector env (``None``
            when unknown).
        exc_type: Name of the exception the sub-environment raised (``None``
            when unknown).
        message: That exception's message (or the whole message).
        remote_traceback: The traceback formatted in the worker, or ``None``
            when the worker died without sending one.
        index: Same as ``rank``.
        worker_traceback: Same as ``remote_traceback``.
    """

    def __init__(
        self,
        rank: int | str | None,
        exc_type: str | int | None = None,
        message: str | None = None,
        remote_traceback: str | None = None,
        *,
        index: int | None = None,
        worker_traceback: str | None = None,
    ) -> None:
        if isinstance(rank, str):
            # The message form: (message, index=None, worker_traceback=None).
            text = rank
            self.rank: int | None = exc_type if isinstance(exc_type, int) else index
            self.exc_type: str | None = None
            self.message: str = text
            self.remote_traceback: str | None = message if message is not None else worker_traceback
        else:
            self.rank = rank if rank is not None else index
            self.exc_type = None if exc_type is None else str(exc_type)
            self.message = "" if message is None else message
            self.remote_traceback = (
                remote_traceback if remote_traceback is not None else worker_traceback
            )
            text = f"sub-environment {self.rank} raised {self.exc_type}: {self.message}"
        super().__init__(text)

    @property
    def index(self) -> int | None:
        """Index of the failing sub-environment (``rank``)."""
        return self.rank

    @property
    def worker_traceback(self) -> str | None:
        """The traceback formatted in the worker (``remote_traceback``)."""
        return self.remote_traceback

    def __str__(self) -> str:
        message = str(self.args[0]) if self.args else ""
        if self.remote_traceback:
            return f"{message}\n\nWorker traceback:\n{self.remote_traceback}"
        return message


class _MessageKeyError(KeyError):
    # KeyError's str() is the repr of its argument (quotes and escapes around
    # a sentence); these errors carry a message, shown as it is.
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidData(SekaiError, ValueError):
    """Market data (a table, a CSV or Parquet file) cannot be read as asked.

    The message names the problem and where it is: the column, the row and
    its time or asset, and the value found there.
    """


class MissingColumns(InvalidData, _MessageKeyError):
    """Columns a reader was told to use are not in the table.

    Every missing column is named in one message, with the columns the table
    has. Also a ``KeyError``, as a missing column was before.

    Attributes:
        columns: The missing columns (a tuple), when given.
        available: The table's columns (a tuple), when given.
    """


class OrderNotFound(SekaiError, _MessageKeyError):
    """No order with this id rests in the order book.

    Also a ``KeyError``, as it was before.

    Attributes:
        order_id: The id that was asked for, when given.
    """


class ResultNotIterable(SekaiError, TypeError):
    """A `ResetResult` or `StepResult` was unpacked or iterated like a Gymnasium tuple.

    sekai's results are read by field name (``result.observation``,
    ``result.info``); the message says which fields the result has, and that
    `sekai.compat.to_gymnasium` gives an env that returns tuples.
    """


class NotAnEnv(SekaiError, TypeError):
    """An env factory returned something that is not an environment.

    Raised by `sekai.make` when a registered entry point returns anything but
    a [`Env`][sekai.core.Env] or [`MultiAgentEnv`][sekai.core.MultiAgentEnv],
    and by the vector envs when one of their ``env_fns`` returns anything but
    an `Env`; the message names the factory and what it returned. What was
    returned is closed first, when it has a ``close`` method.
    """


class UntrustedEntryPoint(SekaiError, ValueError):
    """A spec read from JSON names an entry point sekai will not import without consent.

    [`EnvSpec.from_json`][sekai.registry.EnvSpec.from_json] accepts only
    entry points that a registered spec uses in the same role, and classes of
    the right kind (an env, a vector env, a wrapper) defined in sekai or in an
    installed plugin; anything else, a plain function above all, could run
    arbitrary code once the spec is made. The message names the field, the
    entry point and how to opt in (``trust_entry_points=True``) for JSON from
    a source you trust.

    Args:
        message: What was refused and why.
        entry_point: The ``"module:attr"`` string that was refused.
        field: The spec field that holds it (e.g. ``"additional_wrappers[0].entry_point"``).

    Attributes:
        entry_point: The refused ``"module:attr"`` string.
        field: The spec field that holds it.
    """

    def __init__(self, message: str, *, entry_point: str = "", field: str = "") -> None:
        super().__init__(message, entry_point=entry_point, field=field)


class InvalidArgument(SekaiError, ValueError):
    """An argument of a call to an environment in use is not valid.

    For example the ``env_ids`` of a vector env's ``send()`` (a sub-env named
    twice, out of range, or sent and not received yet), or a list of seeds
    for ``reset()`` that does not have one entry per sub-env. The message
    names the call and the argument, what was expected and what was given.
    An argument of the wrong type raises `InvalidArgumentType`, which is
    also a ``TypeError``.
    """


class InvalidArgumentType(InvalidArgument, TypeError):
    """An argument of a call to an environment in use has the wrong type.

    An `InvalidArgument` that is also a ``TypeError`` (what such a mistake
    raised before), e.g. ``reset(seed=<a numpy Generator>)`` on a vector env.
    """


class InvalidDataType(InvalidData, TypeError):
    """Market data holds values of the wrong kind where a ``TypeError`` was raised before.

    An `InvalidData` that is also a ``TypeError``, so ``except TypeError``
    written for earlier versions keeps working: times that are neither
    integers nor dates (floats, bools, durations), or a price or field cell
    holding an object that is no number and no text (a date, say).
    """


class EmptyTable(InvalidData, _MessageKeyError):
    """A table has no rows, so there are no times or assets to read.

    An `InvalidData` that is also a ``KeyError``: an empty long table
    raised a bare ``KeyError`` naming its price column before.
    """
