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

All of them pickle and unpickle to an equal exception: they cross process
boundaries in :class:`~sekai.vector.ProcVecEnv`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AsyncCallPending",
    "DeprecatedAPI",
    "EnvAlreadyRegistered",
    "EnvNotFound",
    "InvalidAction",
    "InvalidObservation",
    "LookAheadError",
    "NothingInFlight",
    "ResetRequired",
    "SekaiError",
    "SpaceMismatch",
    "SyncCallInEventLoop",
    "VecEnvClosed",
    "VecEnvWorkerError",
]


class SekaiError(Exception):
    """Base class of every exception raised by sekai."""


class EnvNotFound(SekaiError, LookupError):
    """No environment is registered under the requested id."""


class EnvAlreadyRegistered(SekaiError, ValueError):
    """An environment is already registered under this id."""


class InvalidAction(SekaiError, ValueError):
    """An action is not valid for the environment's action space."""


class InvalidObservation(SekaiError, ValueError):
    """An observation does not belong to the declared observation space."""


class ResetRequired(SekaiError, RuntimeError):
    """``step()`` was called before ``reset()`` (or after the env was closed)."""


class AsyncCallPending(SekaiError, RuntimeError):
    """A new call was made while an earlier asynchronous call is still running."""


class NothingInFlight(SekaiError, RuntimeError):
    """``recv()`` was called while fewer than ``batch_size`` sub-envs had been sent actions.

    A vector env hands back, from :meth:`~sekai.vector.VecEnv.recv`, sub-envs
    that :meth:`~sekai.vector.VecEnv.send` started stepping and that were not
    received yet; the message says how many there are.
    """


class SpaceMismatch(SekaiError, ValueError):
    """Two spaces that must agree (e.g. across sub-environments) do not."""


class DeprecatedAPI(SekaiError, DeprecationWarning):
    """A removed or deprecated API was used; the message names the replacement."""


class SyncCallInEventLoop(SekaiError, RuntimeError):
    """A blocking call (e.g. ``AsyncVecEnv.step()``) was made inside a running event loop.

    Such a call would have to run a second event loop inside the first; the
    message names the ``await``-able method to use there instead.
    """


class VecEnvClosed(SekaiError, RuntimeError):
    """A vector environment was used after ``close()``."""


class LookAheadError(SekaiError, RuntimeError):
    """A simulator tried to reveal data from the future of the current step."""


class VecEnvWorkerError(SekaiError, RuntimeError):
    """A sub-environment failed inside a vector-environment worker.

    Attributes:
        index: Index of the failing sub-environment in the vector env.
        worker_traceback: The formatted traceback from the worker process, or
            ``None`` when the worker died without sending one.
    """

    def __init__(
        self, message: str, index: int | None = None, worker_traceback: str | None = None
    ) -> None:
        super().__init__(message)
        self.index = index
        self.worker_traceback = worker_traceback

    def __reduce__(self) -> tuple[Any, ...]:
        # The default reduction only replays ``args`` and would drop the
        # index and traceback when the error crosses a process boundary.
        return (type(self), (str(self.args[0]), self.index, self.worker_traceback))

    def __str__(self) -> str:
        message = str(self.args[0]) if self.args else ""
        if self.worker_traceback:
            return f"{message}\n\nWorker traceback:\n{self.worker_traceback}"
        return message
