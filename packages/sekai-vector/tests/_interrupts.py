"""A real Ctrl-C at any line of sekai's own code, and what a vector env must do after it.

`CtrlC` is a ``sys.settrace`` tracer that counts the "line" events of
sekai's source trees (the ``src/sekai`` directories of the imported
``sekai.*`` modules: not the tests, not the sub-envs they define, not numpy or
the standard library) in this process's main thread. At the n-th one it
raises SIGINT with `signal.raise_signal`, once: the handler in effect (Python's
default one, which raises `KeyboardInterrupt`) runs as it would for a
terminal's Ctrl-C, and the interrupt lands at that line.

`sweep` runs one call of a vector env once per n (n = 1, 2, 3, then every
``stride``-th line; ``SEKAI_INTERRUPT_STRIDE=1`` tries them all) until a run
ends without the signal firing, and `Case` checks the contract after each
interrupted call:

* the vector env either works, with every sub-env at the same step (a full
  ``step`` and ``send`` + ``recv`` whose observations agree with each other
  and with the history: the interrupted call took effect everywhere or
  nowhere), or its next call raises `ResetRequired` until ``reset()``, which
  must work, followed by a working step;
* after an interrupted ``send`` / ``recv``, ``recv`` hands back each sub-env
  sent exactly once (or raises `ResetRequired` / `NothingInFlight`);
* an interrupted construction leaves no worker, shared-memory block or actor
  behind, and the next construction works;
* after an interrupted ``close()``, a second ``close()`` completes and leaves
  no worker behind.

Every sub-env is a ``CountingEnv`` (observation ``[start, t, total]``) with
an episode too long to end during a case, stepped with action 1, except in
the interrupted call, which uses action 2 (a step) or ``start=7`` (a reset):
so a row tells how many steps its sub-env took and whether the interrupted
call reached it. A run that takes longer than `HANG` seconds is a hang: SIGALRM
stops it and the sweep goes on (a last-resort `faulthandler` watchdog ends
the process if even that does not return).
"""

from __future__ import annotations

import asyncio
import contextlib
import dis
import faulthandler
import gc
import linecache
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import numpy as np

from sekai.error import AsyncCallPending, NothingInFlight, ResetRequired, SekaiError
from sekai.vector._interrupts import _on_sigint as sekai_sigint_handler

CALLS = (
    "init",
    "step",
    "send",
    "recv",
    "reset",
    "async_step",
    "async_reset",
    "async_recv",
    "close",
)
LENGTH = 10_000  # no episode ends during a case: t counts every step since the last reset
NORMAL, MARK = 1, 2  # the action of every step, and of the interrupted one
HANG = (
    10.0  # seconds one run may take (the proc tests close with close_timeout=3) before it is a hang
)
WATCHDOG = 60.0  # seconds more before the process is ended: even the hang did not end
MAX_HANGS = 2  # a sweep stops after this many hangs
STRIDE = int(os.environ.get("SEKAI_INTERRUPT_STRIDE", "0")) or None
ALWAYS = (1, 2, 3)  # the first lines of a call are always tried

Row = tuple[float, float, float]  # (start, t, total)
TraceFn = Callable[[FrameType, str, Any], Any]


def sekai_roots() -> tuple[str, ...]:
    """The ``src/sekai`` directory of every imported sekai module (with a trailing separator)."""
    roots = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("sekai."):
            continue
        file = getattr(module, "__file__", None)
        if not file:
            continue
        path = Path(os.path.realpath(file))
        depth = name.count(".")
        root = path.parents[depth if path.stem == "__init__" else depth - 1]
        assert root.name == "sekai", (name, file)
        roots.add(str(root) + os.sep)
    return tuple(sorted(roots))


_REAL: dict[str, str] = {}


def _realpath(filename: str) -> str:
    real = _REAL.get(filename)
    if real is None:
        real = _REAL[filename] = os.path.realpath(filename)
    return real


def _relative(filename: str) -> str:
    """``sekai/vector/vec_env.py`` for a file of a source tree (the path from ``src``)."""
    parts = Path(filename).parts
    return "/".join(parts[parts.index("src") + 1 :]) if "src" in parts else filename


# Where CPython handles a pending signal: after a call returns, after a jump back
# (a loop), at the start or resumption of a function (RESUME).
_CHECK_NAMES = (
    *("CALL", "CALL_FUNCTION_EX", "JUMP_BACKWARD", "RESUME"),
    *("CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_METHOD", "JUMP_ABSOLUTE"),  # 3.10
)
_CHECKS = frozenset(dis.opmap[name] for name in _CHECK_NAMES if name in dis.opmap)
_HANDLERS: dict[CodeType, list[tuple[int, int, int]]] = {}


def _handler(code: CodeType, offset: int) -> int | None:
    """The exception handler (its target) covering ``offset`` in ``code``, if any."""
    ranges = _HANDLERS.get(code)
    if ranges is None:
        parse = getattr(dis, "_parse_exception_table", None)  # 3.11+: flat table
        entries = parse(code) if parse is not None else []
        ranges = _HANDLERS[code] = [(entry.start, entry.end, entry.target) for entry in entries]
    for start, end, target in ranges:
        if start <= offset < end:
            return target
    return None


class CtrlC:
    """Raise SIGINT in the main thread at the n-th line of sekai's code run while active.

    With ``function`` (a qualified name, e.g. ``"Channel.send"``), only the
    lines of that function's ``invocation``-th call count: ``n=1`` is its
    first line (each resumption of a coroutine counts as a call). With
    ``text``, only the lines whose source contains it count.

    A real Ctrl-C is handled only where CPython checks for signals: after a
    call returns, at a jump back, at the start of a function; there it is
    raised as if by that instruction. Raised from a tracer at the start of a
    line, it could land where no signal ever does (on the NOP of a ``try:``,
    which the exception table leaves out, or at the start of a ``finally``
    body), skipping handlers a real one meets. So from the n-th line on, the
    tracer follows the instructions and raises the signal at the first one
    right after such a check, when the same exception handler covers both.

    The signal is raised once, from the main thread of the process that made
    the tracer (a worker forked while it is active drops it); the tracer is
    removed when it fires and when the ``with`` block ends.
    """

    _active: CtrlC | None = None

    def __init__(
        self, n: int, *, function: str | None = None, invocation: int = 1, text: str = ""
    ) -> None:
        self.n = n
        self.function = function
        self.text = text
        self.invocation = invocation
        self.invocations = 0
        self.count = 0
        self.armed = False
        self.fired = False
        self.site = ""
        self._roots = sekai_roots()
        self._pid = os.getpid()
        self._ours: dict[CodeType, bool] = {}
        self._last: dict[int, int] = {}  # frame id -> offset of its last instruction (armed)
        self._previous: Any = None

    def _counts(self, code: CodeType) -> bool:
        ours = self._ours.get(code)
        if ours is None:
            ours = _realpath(code.co_filename).startswith(self._roots) and (
                self.function is None or getattr(code, "co_qualname", code.co_name) == self.function
            )
            self._ours[code] = ours
        return ours

    def _call(self, frame: FrameType, event: str, arg: Any) -> TraceFn | None:
        if self.fired:
            return None
        if self.armed:  # every sekai frame, whatever ``function`` says
            if not _realpath(frame.f_code.co_filename).startswith(self._roots):
                return None
            self._follow(frame)
            return self._line
        if not self._counts(frame.f_code):
            return None
        if self.function is not None:
            self.invocations += 1
            if self.invocations != self.invocation:
                return None
        frame.f_trace = self._line
        return self._line

    def _follow(self, frame: FrameType) -> None:
        """Trace ``frame`` instruction by instruction; it is at its last one (a call, RESUME)."""
        frame.f_trace = self._line
        frame.f_trace_opcodes = True
        self._last[id(frame)] = frame.f_lasti

    def _line(self, frame: FrameType, event: str, arg: Any) -> TraceFn | None:
        if self.fired:
            return None
        if self.armed:
            if event == "opcode":
                self._step(frame)
            elif event == "return":
                self._last.pop(id(frame), None)
                caller = frame.f_back
                if caller is not None and caller.f_trace is not None:
                    self._follow(caller)  # it resumes after the call that returned
        elif event == "line":
            if self.text and self.text not in linecache.getline(
                frame.f_code.co_filename, frame.f_lineno
            ):
                return self._line
            self.count += 1
            if self.count == self.n:
                self.armed = True
                frame.f_trace_opcodes = True
        return self._line

    def _step(self, frame: FrameType) -> None:
        """Fire before this instruction if the one before it handles signals, as CPython does."""
        code, offset = frame.f_code, frame.f_lasti
        last = self._last.get(id(frame))
        self._last[id(frame)] = offset
        if last is None or code.co_code[last] not in _CHECKS:
            return
        if _handler(code, last) == _handler(code, offset):
            self._fire(frame)

    def _fire(self, frame: FrameType) -> None:
        self.fired = True
        self._last.clear()
        code = frame.f_code
        name = getattr(code, "co_qualname", code.co_name)
        self.site = f"{_relative(code.co_filename)}:{frame.f_lineno} ({name})"
        sys.settrace(None)
        if os.getpid() == self._pid and threading.current_thread() is threading.main_thread():
            signal.raise_signal(signal.SIGINT)

    def __enter__(self) -> CtrlC:
        assert threading.current_thread() is threading.main_thread()
        self._previous = sys.gettrace()
        CtrlC._active = self
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._previous)
        CtrlC._active = None


def _drop_in_child() -> None:
    """A process forked while a tracer is active does not inherit it."""
    if CtrlC._active is not None:
        CtrlC._active.fired = True
        sys.settrace(None)


os.register_at_fork(after_in_child=_drop_in_child)


def check_handler() -> None:
    """SIGINT must reach the handler a program would have: Python's default, or sekai's.

    The test installs none of its own; building a vector env in the main
    thread puts sekai's in place of the default one.
    """
    handler = signal.getsignal(signal.SIGINT)
    assert handler in (signal.default_int_handler, sekai_sigint_handler), (
        f"SIGINT handler is {handler!r}, not Python's default nor sekai's"
    )


class Hang(BaseException):
    """A run took longer than `HANG` seconds: raised in the main thread by SIGALRM.

    Not an `Exception`, so that no ``except Exception`` of the code under test
    takes it for an error of its own.
    """


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"no answer within {HANG:g} s")


HANG_OUTPUT: Any = None  # where the last-resort watchdog writes (the terminal, not a capture)


@contextlib.contextmanager
def watchdog(seconds: float = HANG) -> Iterator[None]:
    """Raise `Hang` in the block after ``seconds``; end the process if even that is stuck.

    The second guard (`faulthandler`, which dumps every thread's traceback
    and exits) is for a hang that `Hang` cannot break, e.g. a close that
    hangs too.
    """
    output = HANG_OUTPUT if HANG_OUTPUT is not None else sys.__stderr__
    if output is None:  # pragma: no cover - no stderr at all
        output = sys.stderr
    faulthandler.dump_traceback_later(seconds + WATCHDOG, exit=True, file=output)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()


def schedule(stride: int, first: tuple[int, ...] = ALWAYS) -> Iterator[int]:
    """n = ``first``, then 1 + stride, 1 + 2 * stride, ... (every n with stride 1)."""
    stride = STRIDE or stride
    yield from first
    n = 1 + stride
    while first and n <= first[-1]:
        n += stride
    while True:
        yield n
        n += stride


@dataclass
class Failure:
    """One n whose interrupt broke the contract: where it landed and what went wrong."""

    n: int
    site: str
    kind: str
    detail: str = ""

    def __str__(self) -> str:
        return f"n={self.n} at {self.site}: {self.kind}" + (
            f" ({self.detail})" if self.detail else ""
        )


class Broken(Exception):
    """The contract was broken; ``kind`` groups the failures of a sweep."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error)[:200]}"


def kind_of(error: BaseException) -> str:
    """The failure kind of an exception a call should not have raised."""
    if isinstance(error, Hang):
        return "hang"
    if isinstance(error, AsyncCallPending):
        return "AsyncCallPending"
    if isinstance(error, SekaiError):
        return f"unexpected {type(error).__name__}"
    return f"non-sekai {type(error).__name__}"


@dataclass
class Rig:
    """How to build the vector envs of one backend, and what it may leak.

    ``make()`` builds a vector env of ``num_envs`` counting sub-envs;
    ``leaks()`` describes the workers, shared memory or actors left over once
    every vector env is closed or dropped ("" if none); ``reuse`` keeps one
    vector env across the runs of a sweep when it recovered (for backends whose
    construction is slow).
    """

    make: Callable[[], Any]
    leaks: Callable[[], str]
    num_envs: int = 3
    reuse: bool = False
    loops: list[asyncio.AbstractEventLoop] = field(default_factory=list)


def actions(num_envs: int, action: int) -> Any:
    return np.full(num_envs, action, dtype=np.int64)


def rows_of(observations: Any) -> list[Row]:
    return [(float(a), float(b), float(c)) for a, b, c in np.asarray(observations).tolist()]


def stepped(row: Row, action: int) -> Row:
    return (row[0], row[1] + 1, row[2] + action)


class Case:
    """One (backend, call) swept over n: run, interrupt, check the contract, record failures."""

    def __init__(self, rig: Rig, call: str) -> None:
        assert call in CALLS, call
        self.rig = rig
        self.call = call
        self.n_envs = rig.num_envs
        self.failures: list[Failure] = []
        self.runs = 0
        self.lines = 0
        self.hangs = 0
        self._vec: Any = None
        self._phase = ""  # what the run is doing: a hang names it

    # -- the sweep ------------------------------------------------------------------

    def sweep(self, stride: int, first: tuple[int, ...] = ALWAYS) -> list[Failure]:
        """Interrupt the call at every n of `schedule` until it runs without the signal."""
        check_handler()
        # The runs collect garbage between them (see _close_loops); with the heap
        # of a whole test session behind them, each full collection would scan it
        # all again. Frozen, the objects from before the sweep are left out.
        gc.freeze()
        try:
            for n in schedule(stride, first):
                self.runs += 1
                if not self.run(n):
                    break
                if self.hangs >= MAX_HANGS:
                    self.failures.append(
                        Failure(n, "-", "sweep stopped", f"after {self.hangs} hangs")
                    )
                    break
        finally:
            self._discard()
            gc.unfreeze()
        return self.failures

    def summary(self) -> str:
        """The failures grouped by kind, with a few sites each."""
        by_kind: dict[str, list[Failure]] = {}
        for failure in self.failures:
            by_kind.setdefault(failure.kind, []).append(failure)
        lines = [
            f"{self.call}: {len(self.failures)} of {self.runs} interrupts broke the contract "
            f"(the call runs {self.lines or '?'} lines of sekai)"
        ]
        for kind, failures in by_kind.items():
            lines.append(f"  {kind}: {len(failures)}x, e.g.")
            lines.extend(f"    {failure}" for failure in failures[:3])
        return "\n".join(lines)

    def run(self, n: int) -> bool:
        """Interrupt the call at line ``n``; whether the signal fired."""
        ctrl = CtrlC(n)
        try:
            with watchdog():
                if self.call == "init":
                    self._run_init(ctrl)
                elif self.call == "close":
                    self._run_close(ctrl)
                else:
                    self._run_call(ctrl)
        except (Broken, Hang) as error:
            if isinstance(error, Hang):
                self.hangs += 1
                kind, detail = "hang", f"in {self._phase}"
            else:
                kind, detail = error.kind, error.detail
            self.failures.append(Failure(n, ctrl.site or "(not fired)", kind, detail))
            self._discard()
        finally:
            self._close_loops()
        if not ctrl.fired:
            self.lines = ctrl.count
        return ctrl.fired

    def _fail(self, error: BaseException, what: str) -> Broken:
        """The failure of ``what`` raising ``error`` (a hang is named after the phase)."""
        if isinstance(error, Hang):
            return Broken("hang", f"in {self._phase}")
        return Broken(f"{what}{kind_of(error)}", describe(error))

    # -- building and dropping ------------------------------------------------------

    def _build(self) -> Any:
        self._phase = "construction"
        try:
            return self.rig.make()
        except BaseException as error:
            raise self._fail(error, "construction failed: ") from None

    def _vector(self) -> Any:
        if self._vec is None or not self.rig.reuse:
            self._discard()
            self._vec = self._build()
        return self._vec

    def _discard(self) -> None:
        """Close the current vector env, errors ignored (it may be the broken one)."""
        vec, self._vec = self._vec, None
        if vec is not None:
            with contextlib.suppress(BaseException), watchdog():
                vec.close()
            self.rig.leaks()  # remove what it left

    def _close_loops(self) -> None:
        """Close the run's event loops and finalise what they left.

        A coroutine suspended by the interrupt runs its ``finally`` blocks when
        it is garbage collected: that must happen now, not in the middle of
        the next run, where its lines would count.
        """
        loops, self.rig.loops[:] = list(self.rig.loops), []
        for loop in loops:
            loop.close()
        del loops
        gc.collect()

    def _finish(self, vec: Any) -> None:
        """The run recovered: keep the vector env for the next run, or close it cleanly."""
        if self.rig.reuse:
            return
        self._vec = None
        self._phase = "close() after recovery"
        try:
            vec.close()
        except BaseException as error:
            raise self._fail(error, "close() after recovery raised ") from None
        self._check_leaks()

    def _check_leaks(self) -> None:
        gc.collect()
        leaked = self.rig.leaks()
        if leaked:
            raise Broken("leak", leaked)

    def _loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.new_event_loop()
        self.rig.loops.append(loop)
        return loop

    # -- the calls --------------------------------------------------------------------

    def _prepare(self, vec: Any) -> Row:
        """Reset and warm up (a step, a send + recv); the row every sub-env is at."""
        self._phase = "setup (reset, step, send + recv)"
        n = self.n_envs
        try:
            vec.reset(seed=0, options={"start": 0.0})
            vec.step(actions(n, NORMAL))
            vec.send(actions(n, NORMAL))
            rows = rows_of(vec.recv().observations)
        except BaseException as error:
            raise self._fail(error, "setup failed: ") from None
        if rows != [(0.0, 2.0, 2.0)] * n:
            raise Broken("setup failed", f"rows {rows}")
        return rows[0]

    def _run_call(self, ctrl: CtrlC) -> None:
        vec = self._vector()
        before = self._prepare(vec)
        n, call = self.n_envs, self.call
        marks = actions(n, MARK)
        loop = self._loop() if call.startswith("async_") else None
        if call in ("recv", "async_recv"):
            if loop is not None:  # sent from the loop that receives them, as async code does

                async def send() -> None:
                    vec.send(marks)

                loop.run_until_complete(send())
            else:
                vec.send(marks)
        after = (7.0, 0.0, 0.0) if call in ("reset", "async_reset") else stepped(before, MARK)
        result: Any = None
        interrupted = False
        self._phase = f"the interrupted {call}()"
        try:
            with ctrl:
                if call == "step":
                    result = vec.step(marks)
                elif call == "send":
                    vec.send(marks)
                elif call == "recv":
                    result = vec.recv()
                elif call == "reset":
                    result = vec.reset(seed=1, options={"start": 7.0})
                else:
                    assert loop is not None
                    if call == "async_step":
                        coroutine = vec.async_step(marks)
                    elif call == "async_reset":
                        coroutine = vec.async_reset(seed=1, options={"start": 7.0})
                    else:
                        coroutine = vec.async_recv()
                    result = loop.run_until_complete(coroutine)
        except KeyboardInterrupt:
            interrupted = True
        except ResetRequired:
            interrupted = True  # reported at once: the next calls must raise it too, or work
        except BaseException as error:
            what = f"interrupted {call}() raised " if ctrl.fired else f"{call}() raised "
            raise self._fail(error, what) from None
        if not ctrl.fired:
            self._expect(result, [after], call)
            self._finish(vec)
            return
        # Swallowed, the interrupt let the call complete: its result says where it got.
        candidates = {before, after} if interrupted else {self._expect(result, [after], call)}
        receive: Callable[[], Any] | None = None
        if call in ("send", "recv"):
            receive = vec.recv
        elif call == "async_recv":

            def receive() -> Any:
                assert loop is not None
                return loop.run_until_complete(vec.async_recv())

        self._recover(vec, candidates, receive, after)
        self._finish(vec)

    def _expect(self, result: Any, allowed: list[Row], what: str) -> Row:
        """The one row all sub-envs of ``result`` share, which must be among ``allowed``."""
        if result is None:
            return allowed[0]
        if getattr(result, "env_ids", None) is not None:
            ids = sorted(np.asarray(result.env_ids).tolist())
            if ids != list(range(self.n_envs)):
                raise Broken("duplicate ids", f"{what} handed back env_ids {ids}")
        rows = rows_of(result.observations)
        if len(set(rows)) != 1:
            raise Broken("desync", f"{what} returned rows {rows}")
        if rows[0] not in allowed:
            raise Broken("history", f"{what} returned {rows[0]}, expected one of {allowed}")
        return rows[0]

    def _recover(
        self, vec: Any, candidates: set[Row], receive: Callable[[], Any] | None, received: Row
    ) -> None:
        """After the interrupt: everything works in step, or ResetRequired until a reset.

        ``receive`` (after a send or a recv) collects what was sent: each
        sub-env once, with the interrupted call's action applied once
        (``received``), or nothing (NothingInFlight).
        """
        n = self.n_envs
        try:
            if receive is not None:
                self._phase = "recv() after the interrupt"
                try:
                    result = receive()
                except NothingInFlight:
                    pass
                else:
                    candidates = {self._expect(result, [received], "recv()")}
            self._phase = "step() after the interrupt"
            row = self._expect(
                vec.step(actions(n, NORMAL)),
                sorted(stepped(c, NORMAL) for c in candidates),
                "step()",
            )
            self._phase = "send() + recv() after the interrupt"
            vec.send(actions(n, NORMAL))
            row = self._expect(vec.recv(), [stepped(row, NORMAL)], "send() + recv()")
            self._phase = "a second step() after the interrupt"
            self._expect(vec.step(actions(n, NORMAL)), [stepped(row, NORMAL)], "step()")
        except ResetRequired:
            self._reset_works(vec)
        except Broken:
            raise
        except BaseException as error:
            broken = self._fail(error, "")
            if isinstance(error, AsyncCallPending):
                self._phase = "reset() after AsyncCallPending"
                try:
                    vec.reset(seed=3)
                except AsyncCallPending:
                    broken = Broken("wedged gate", describe(error))
                except BaseException:
                    pass
            raise broken from None

    def _reset_works(self, vec: Any) -> None:
        """``reset()`` works after ResetRequired, and so do a step and a send + recv."""
        n = self.n_envs
        try:
            self._phase = "reset() after ResetRequired"
            result = vec.reset(seed=3, options={"start": 5.0})
            row = self._expect(result, [(5.0, 0.0, 0.0)], "reset()")
            self._phase = "step() after the reset"
            row = self._expect(vec.step(actions(n, NORMAL)), [stepped(row, NORMAL)], "step()")
            self._phase = "send() + recv() after the reset"
            vec.send(actions(n, NORMAL))
            self._expect(vec.recv(), [stepped(row, NORMAL)], "send() + recv()")
        except Broken:
            raise
        except AsyncCallPending as error:
            raise Broken("wedged gate", describe(error)) from None
        except BaseException as error:
            raise self._fail(error, "after ResetRequired: ") from None

    # -- construction and close ----------------------------------------------------------

    def _run_init(self, ctrl: CtrlC) -> None:
        self._discard()
        vec: Any = None
        self._phase = "the interrupted construction"
        try:
            with ctrl:
                vec = self.rig.make()
        except KeyboardInterrupt:
            pass
        except BaseException as error:
            what = "interrupted __init__ raised " if ctrl.fired else "construction raised "
            raise self._fail(error, what) from None
        if vec is None:
            self._phase = "the leak check after the interrupted construction"
            self._check_leaks()
            vec = self._build()
        self._vec = vec  # (built even if the interrupt fired: it was swallowed)
        self._prepare(vec)
        self._finish(vec)

    def _run_close(self, ctrl: CtrlC) -> None:
        vec = self._vec = self._build()
        self._prepare(vec)
        self._phase = "the interrupted close()"
        try:
            with ctrl:
                vec.close()
        except KeyboardInterrupt:
            pass
        except BaseException as error:
            raise self._fail(error, "interrupted close() raised ") from None
        self._phase = "the second close()"
        try:
            vec.close()
        except BaseException as error:
            raise self._fail(error, "second close() raised ") from None
        self._vec = None
        if not vec.closed:
            raise Broken("not closed", "closed is False after two close() calls")
        self._phase = "the leak check after close()"
        self._check_leaks()
