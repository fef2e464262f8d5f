"""Ctrl-C held back while a vector env's bookkeeping must not be split.

Python raises ``KeyboardInterrupt`` between any two bytecodes. One landing
between taking a vector env's call gate and the ``try`` that gives it back,
or between sending a step to one worker and to the next, would leave the
vector env wedged or its sub-envs out of step. As trio does with its "KI
protection", sekai marks such code *protected*: a Ctrl-C that arrives while
it runs is noted and raised when the protected code ends, or when it hands
control to code that may run for long (a sub-env's step, a wait for
workers), which it does through `exposed`. Everything else, sub-env code
above all, is interrupted at once, as usual.

Protection is a property of code objects, so the fast path pays nothing for
it: the SIGINT handler walks the interrupted frame and its callers, and the
innermost frame whose code is marked (protected or exposed) decides.

The handler is installed when a vector env is built in the main thread
while Python's default SIGINT handler is in place, and stays. It acts
as the default one outside protected code. A handler the program installed
itself is never replaced (sekai's sections are then unprotected, and the
lifecycle still recovers as documented, with ``ResetRequired`` where it
cannot tell how far a call got).
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from types import CodeType, FrameType
from typing import Any, ParamSpec, TypeVar

__all__ = [
    "deliver_held",
    "expose",
    "exposed",
    "exposed_await",
    "install_handler",
    "protect",
    "protected",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_PROTECTED: set[CodeType] = set()
_EXPOSED: set[CodeType] = set()  # trampolines: exposed while inside the code they call
_EXPOSED_CODE: set[CodeType] = set()  # code exposed as a whole (hooks that run sub-envs)
# Interrupts held back (signal numbers); main thread only, as signal handlers are.
held: list[int] = []
_MAIN = threading.main_thread().ident


def protect(function: _R) -> _R:
    """Mark ``function``'s code protected; it must deliver what it held itself.

    For the lifecycle methods, which end with `deliver_held`; a
    section called from exposed code uses `protected` instead.
    """
    code = function.__code__  # type: ignore[attr-defined]
    _PROTECTED.add(code)
    _EXPOSED_CODE.discard(code)
    return function


def expose(function: Callable[..., Any]) -> None:
    """Mark ``function``'s code exposed as a whole, even when protected code calls it.

    For the hooks the lifecycle's fast path calls directly (no trampoline):
    a Ctrl-C in them, or in the sub-envs they run, acts at once. Code
    already protected stays protected.
    """
    code = getattr(function, "__code__", None)
    if code is not None and code not in _PROTECTED:
        _EXPOSED_CODE.add(code)


def protected(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Protect ``function``; a Ctrl-C held back in it goes off when it returns."""
    protect(function)

    @functools.wraps(function)
    def section(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        finally:
            if held:
                deliver_held(sys._getframe(1))

    return section


def exposed(function: Callable[_P, _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
    """Call ``function`` where a Ctrl-C acts at once (a held one goes off first)."""
    if held:
        deliver_held(None)
    return function(*args, **kwargs)


async def exposed_await(
    function: Callable[_P, Awaitable[_R]], *args: _P.args, **kwargs: _P.kwargs
) -> _R:
    """Await ``function(*args, **kwargs)`` where a Ctrl-C acts at once (a held one first)."""
    if held:
        deliver_held(None)
    return await function(*args, **kwargs)


_EXPOSED.update((exposed.__code__, exposed_await.__code__))


def _protected_at(frame: FrameType | None) -> bool:
    above: FrameType | None = None  # the frame the walk came from
    while frame is not None:
        code = frame.f_code
        if code in _PROTECTED:
            return True
        if code in _EXPOSED_CODE or (code in _EXPOSED and _calls_into(frame, above)):
            return False
        # A trampoline not inside the code it calls (before the call, after
        # it returned, or under a tracer) counts as the code around it.
        above = frame
        frame = frame.f_back
    return False


def _calls_into(trampoline: FrameType, above: FrameType | None) -> bool:
    """Whether ``above`` is the code ``trampoline`` called (its ``function``).

    A callee without Python code (a builtin, which may call back into Python)
    counts as called whenever a frame is above the trampoline.
    """
    if above is None:
        return False
    function = trampoline.f_locals.get("function")
    while isinstance(function, functools.partial):
        function = function.func
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return code is None or code is above.f_code


def deliver_held(caller: FrameType | None) -> None:
    """Raise the Ctrl-C held back, unless ``caller`` is itself protected code.

    Only in the main thread: an interrupt is the main thread's to receive.
    """
    if threading.get_ident() != _MAIN or (caller is not None and _protected_at(caller)):
        return
    signum = held[-1]
    held.clear()
    signal.default_int_handler(signum, None)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    if _protected_at(frame):
        held.append(signum)
        return
    signal.default_int_handler(signum, frame)


def install_handler() -> None:
    """Put sekai's SIGINT handler in place of Python's default one (main thread only)."""
    if threading.get_ident() != _MAIN:
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
