"""A watchdog that stops a call of the calling thread once it runs past its time.

SyncVecEnv runs its sub-envs in the calling thread, so its ``step_timeout``
cannot wait on another process or task: a watchdog thread raises `Overrun`
inside the calling thread instead (CPython's ``PyThreadState_SetAsyncExc``),
where the sub-env's Python code stands. It is raised at the next bytecode,
so a sub-env blocked inside one long C call (a sleep, a socket read with no
timeout) is stopped only when that call returns.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Overrun", "Watchdog"]

_R = TypeVar("_R")


class Overrun(BaseException):
    """Raised inside a call that ran past its time.

    A `BaseException`, so a sub-env's ``except Exception`` does not swallow it.
    """


def _raise_in(thread_id: int, exception: type[BaseException]) -> None:
    """Make ``thread_id`` raise ``exception`` at its next bytecode."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception)
    )


def _absorb_late_overrun() -> None:
    """Let an `Overrun` fired as the call returned land here, where it is dropped.

    It is raised at the next check of the interpreter's eval breaker, which a
    jump back makes. (Cancelling it with ``PyThreadState_SetAsyncExc(id,
    NULL)`` instead would leave that breaker set for good on CPython 3.11.)
    """
    try:
        for _ in range(2):
            pass
    except Overrun:
        pass


class Watchdog:
    """Runs calls of this thread with a time limit of ``timeout`` seconds each."""

    def __init__(self, timeout: float, name: str) -> None:
        self.timeout = timeout
        self._cond = threading.Condition()
        self._deadline: float | None = None  # of the call running now
        self._target = 0  # the thread running it
        self._fired = False
        self._closed = False
        self._thread = threading.Thread(target=self._watch, name=name, daemon=True)
        self._thread.start()

    def run(self, function: Callable[..., _R], *args: Any) -> _R:
        """``function(*args)``, stopped with `Overrun` if it takes longer than ``timeout``."""
        cond = self._cond
        with cond:
            self._target = threading.get_ident()
            self._deadline = time.monotonic() + self.timeout
            self._fired = False
            cond.notify()
        try:
            return function(*args)
        finally:
            if self._disarm():
                _absorb_late_overrun()

    def _disarm(self) -> bool:
        """Stop watching this thread's call; whether the watchdog fired at it.

        A late `Overrun` can land while the lock is taken or given back (just
        after the C call that takes it returns): it is dropped (the call had
        finished), the lock given back if this thread holds it, and the
        disarming done again. The watchdog fires once per call, so it ends.
        """
        cond = self._cond
        while True:
            try:
                with cond:
                    self._deadline = None  # from here on, nothing more is raised here
                    return self._fired
            except Overrun:
                if cond._is_owned():  # type: ignore[attr-defined]  # Condition over an RLock
                    cond.release()

    def _watch(self) -> None:
        cond = self._cond
        with cond:
            while not self._closed:
                deadline = self._deadline
                if deadline is None:
                    cond.wait()
                    continue
                left = deadline - time.monotonic()
                if left > 0:
                    cond.wait(left)
                    continue
                self._deadline = None
                self._fired = True
                _raise_in(self._target, Overrun)

    def close(self) -> None:
        """Stop the watchdog thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not threading.current_thread():
            self._thread.join()
