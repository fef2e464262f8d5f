"""`HookedVecEnv`: the lifecycle every backend inherits, written once over batch hooks.

Every call (``step``, ``reset``, ``send``, ``recv`` and their async forms)
runs the same rules, here and nowhere else:

* It takes the vector env's call gate, a lock taken without waiting: a second
  call while one runs (from another thread, from inside a sub-env, or after
  an ``async_step()`` not awaited to the end) raises
  [`AsyncCallPending`][sekai.error.AsyncCallPending] at once. A vector env belongs to one
  thread at a time. An async call that a Ctrl-C stopped while it waited, on
  an event loop nothing runs any more, is finished first instead.
* It finishes first what an interrupted call left running (the backend's
  ``_finish_interrupted``), then checks the state: closed, never reset, or
  sub-envs still in flight between ``send`` and ``recv``.
* It runs the hook. A ``KeyboardInterrupt`` or a cancellation inside it
  (any exception that is not an `Exception`) calls the backend's
  ``_on_interrupt(call)``; an exception in ``recv`` abandons what is in
  flight, one in ``reset`` (or a hook's `ResetRequired`) leaves the vector
  env needing a reset.

The lifecycle's own code is protected (see `sekai.vector._interrupts`): a
Ctrl-C that lands in it is raised when the call ends, so the gate and the
bookkeeping are never left half-done. Hooks run exposed: a Ctrl-C stops
them where they are and the backend's ``_on_interrupt`` decides what follows.

The fast path of a step costs the gate, one test of four flags and two
plain calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, ObsType
from sekai.error import AsyncCallPending, ResetRequired, VecEnvClosed
from sekai.utils.seeding import SeedType
from sekai.vector import _interrupts
from sekai.vector._arguments import NOT_GIVEN, actions_argument, per_env_options, per_env_seeds
from sekai.vector._interrupts import deliver_held, expose, exposed, exposed_await, protect
from sekai.vector._sub_envs import count_sub_envs
from sekai.vector.results import with_env_ids
from sekai.vector.vec_env import VecEnv

if TYPE_CHECKING:
    from sekai.vector.results import VecResetResult, VecStepResult

__all__ = ["HookedVecEnv", "abandon", "busy_error"]

_get_ident = threading.get_ident
_held = _interrupts.held  # the list itself: its truth is the one test on the fast path
_R = TypeVar("_R")
_V = TypeVar("_V", bound="HookedVecEnv[Any, Any]")


def busy_error(vec: VecEnv[Any, Any], call: str | None) -> AsyncCallPending:
    """The error for ``call`` (``None``: any method) made while another call of ``vec`` runs."""
    owner = getattr(vec, "_owner", 0)
    if owner and owner != _get_ident():
        name = next((t.name for t in threading.enumerate() if t.ident == owner), str(owner))
        where = (
            f"thread {name!r} is running a call of it; a vector env belongs to one thread "
            "at a time (hand it over only between calls)"
        )
    else:
        where = (
            "an earlier call is still running: an async_step(), async_reset() or "
            "async_recv() not awaited to the end, or a call from inside a sub-env"
        )
    called = f"{call}() was called" if call else "called"
    return AsyncCallPending(f"{vec!r}: {called} while {where}")


def _current_task() -> asyncio.Task[Any] | None:
    """The task running this coroutine (``None`` when it is driven by hand, off a loop)."""
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


def _ended_interrupted(task: asyncio.Task[Any]) -> bool:
    return not task.cancelled() and isinstance(task.exception(), KeyboardInterrupt)


def abandon(vec: HookedVecEnv[Any, Any], reason: str) -> None:
    """Drop what is in flight; the vector env needs a reset (``reason`` says why)."""
    try:
        if vec._flying:
            vec._drop_in_flight()
    finally:
        vec._clear_in_flight()
        vec._needs_reset = True
        vec._reset_reason = reason


class HookedVecEnv(VecEnv[ObsType, ActType]):
    """The base of a backend that implements the batch hooks; see `VecEnv`.

    ``step``, ``reset``, ``send``, ``recv`` and their async forms are this
    class's methods, the same for every backend: the call gate, the state
    checks, the action check, the per-env seeds and options, the sub-envs in
    flight and what an exception or an interrupt leaves. A backend
    implements ``_step_batch`` and ``_reset_batch`` (and, optionally, their
    async forms, the partial-batch hooks and the interrupt hooks below).
    """

    # Lifecycle state (see the module docstring).
    _needs_reset: bool = True
    _reset_reason: str = ""  # why a reset is needed, when it is not the first one
    _unfinished: bool = False  # an interrupted call left work the next call finishes first
    _owner: int = 0  # the thread that started the last call
    _holder: asyncio.Task[Any] | None = None  # the task of the async call holding the gate
    _holder_call = ""  # which call it is
    _gate: threading.Lock  # held while a call runs; made for every instance by __new__
    _check_actions: Callable[[Any], Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step_batch = cls.__dict__.get("_step_batch")
        if step_batch is not None:
            expose(step_batch)  # step() calls it straight from protected code

    def __new__(cls: type[_V], *args: Any, **kwargs: Any) -> _V:
        """Create the instance with its call gate (whatever the subclass's ``__init__`` does)."""
        _interrupts.install_handler()
        vec = super().__new__(cls)
        vec._gate = threading.Lock()
        return vec

    # -- the call context ------------------------------------------------------------

    def _enter(self, call: str) -> None:
        """Take the gate for ``call`` and make sure it may run (else release and raise)."""
        if not self._gate.acquire(False):
            self._take_over(call)
        self._owner = _get_ident()
        if self._needs_reset or self._flying or self._unfinished or self.closed:
            try:
                self._make_ready(call)
            except BaseException:
                self._leave()
                raise

    async def _async_enter(self, call: str) -> None:
        if not self._gate.acquire(False):
            self._take_over(f"async_{call}")
        self._owner = _get_ident()
        self._holder = _current_task()
        self._holder_call = call
        if self._needs_reset or self._flying or self._unfinished or self.closed:
            try:
                if self.closed:
                    raise VecEnvClosed(f"{self!r} is closed")
                if self._unfinished and call == "reset":
                    await exposed_await(self._async_drop_interrupted)
                elif self._unfinished:
                    await exposed_await(self._async_finish_interrupted)
                self._check_state(call)
            except BaseException:
                self._leave()
                raise

    def _leave(self) -> None:
        """Give the gate back; a Ctrl-C held back during the call goes off now."""
        self._holder = None
        self._gate.release()
        if _held:
            deliver_held(None)

    def _take_over(self, call: str) -> None:
        """The gate is taken: wait for nothing, but finish an orphaned async call first.

        An ``async_step()`` (or another async call) of this thread that a
        Ctrl-C stopped while it awaited stays suspended on an event loop that
        no longer runs; nobody will resume it, so the interrupted call is
        run to its end here, as the guide promises, before ``call``.
        """
        holder = self._holder
        if (
            holder is not None
            and self._owner == _get_ident()
            and not holder.done()
            and asyncio._get_running_loop() is None
        ):
            loop = holder.get_loop()
            if not loop.is_running() and not loop.is_closed():
                try:
                    exposed(loop.run_until_complete, asyncio.wait([holder]))
                except KeyboardInterrupt:
                    # The loop re-raises a KeyboardInterrupt the task ends with:
                    # that one is the interrupted call's, already seen by the caller.
                    if not (holder.done() and _ended_interrupted(holder)):
                        raise
                finished = not holder.cancelled() and holder.exception() is None
                if finished and self._holder_call == "recv" and self._gate.acquire(False):
                    # Its rows go nowhere: those sub-envs stepped unseen.
                    abandon(self, "an interrupted async_recv() finished with no one to read it")
                    return
                if self._gate.acquire(False):
                    return
        if _held:  # a Ctrl-C held back before this call found the gate taken
            deliver_held(None)
        raise busy_error(self, call)

    def _make_ready(self, call: str) -> None:
        """Finish an interrupted call, then raise unless ``call`` may run now (the slow path)."""
        if self.closed:
            raise VecEnvClosed(f"{self!r} is closed")
        if self._unfinished:
            exposed(self._drop_interrupted if call == "reset" else self._finish_interrupted)
        self._check_state(call)

    def _check_state(self, call: str) -> None:
        if call == "reset":
            return
        if self._needs_reset:
            why = f" ({self._reset_reason})" if self._reset_reason else ""
            raise ResetRequired(f"{self!r}: call reset() before {call}(){why}")
        if call == "step" and self._flying:
            raise AsyncCallPending(
                f"{self!r}: {count_sub_envs(self._flying)} sent actions with send() "
                f"{'was' if self._flying == 1 else 'were'} not received; call recv() (or "
                "reset()) before step()"
            )

    def _call_hook(self, call: str, hook: Callable[..., _R], *args: Any) -> _R:
        """Run ``hook(*args)`` exposed; what an exception or an interrupt in it leaves."""
        if _held:  # a Ctrl-C held back so far goes off before the hook starts
            deliver_held(None)
        try:
            return exposed(hook, *args)
        except Exception as error:
            self._after_failure(call, error)
            raise
        except BaseException:
            self._on_interrupt(call)
            raise

    async def _call_async_hook(
        self, call: str, hook: Callable[..., Awaitable[_R]], *args: Any
    ) -> _R:
        if _held:
            deliver_held(None)
        try:
            result: _R = await exposed_await(hook, *args)
            return result
        except Exception as error:
            self._after_failure(call, error)
            raise
        except BaseException:
            self._on_interrupt(call)
            raise

    def _after_failure(self, call: str, error: Exception) -> None:
        if call == "reset":
            # Some sub-envs may be reset and others not: only a reset that
            # succeeds puts them back in step.
            self._needs_reset = True
            self._reset_reason = "the last reset() raised"
        elif call == "recv":
            abandon(self, "the last recv() raised")
        elif isinstance(error, ResetRequired):
            abandon(self, str(error))

    def _reset_arguments(
        self, seed: object, options: object
    ) -> tuple[list[SeedType], list[dict[str, Any] | None]]:
        """The per-env seeds and options of a reset; drops what is in flight."""
        seeds = self._per_env_seeds(seed)
        per_env = per_env_options(options, self.num_envs)
        # Until this reset succeeds, the sub-envs are out of step: an interrupt
        # from here on must leave the vector env asking for a reset.
        self._needs_reset = True
        self._reset_reason = "the last reset() was interrupted"
        if self._flying:
            self._drop_in_flight()
            self._clear_in_flight()
        return seeds, per_env

    def _received(self, result: VecStepResult[Any]) -> None:
        """Record what a recv handed back; with a Ctrl-C held, drop it and ask for a reset.

        The interrupt goes off as the call ends, so the rows never reach the
        caller: the sub-envs they belong to stepped without anyone seeing it.
        """
        if _held:
            abandon(self, "the last recv() was interrupted after its sub-envs answered")
            return
        self._clear_in_flight(result.env_ids)

    def _reset_done(self) -> None:
        self._needs_reset = False
        self._reset_reason = ""

    # -- the env API -------------------------------------------------------------------

    def step(self, actions: Any) -> VecStepResult[Any]:
        # The hot path, written out: _enter, _call_hook and _leave in one frame
        # (the hook's code is exposed by __init_subclass__, so no trampoline).
        gate = self._gate
        if not gate.acquire(False):
            self._take_over("step")
        try:
            self._owner = _get_ident()
            if self._needs_reset or self._flying or self._unfinished or self.closed:
                self._make_ready("step")
            batch = self._check_actions(actions)
            if _held:
                deliver_held(None)
            try:
                return self._step_batch(batch)
            except Exception as error:
                self._after_failure("step", error)
                raise
            except BaseException:
                self._on_interrupt("step")
                raise
        finally:
            gate.release()
            if _held:
                deliver_held(None)

    async def async_step(
        self, actions: Any = NOT_GIVEN, *, action: Any = NOT_GIVEN
    ) -> VecStepResult[Any]:
        if action is not NOT_GIVEN or actions is NOT_GIVEN:
            actions = actions_argument(actions, action, "async_step")
        await self._async_enter("step")
        try:
            return await self._call_async_hook(
                "step", self._async_step_batch, self._check_actions(actions)
            )
        finally:
            self._leave()

    def reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        self._enter("reset")
        try:
            result = self._call_hook(
                "reset", self._reset_batch, *self._reset_arguments(seed, options)
            )
            self._reset_done()
            return result
        finally:
            self._leave()

    async def async_reset(
        self,
        *,
        seed: list[SeedType] | SeedType = None,
        options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
    ) -> VecResetResult[Any]:
        await self._async_enter("reset")
        try:
            seeds, per_env = self._reset_arguments(seed, options)
            result = await self._call_async_hook("reset", self._async_reset_batch, seeds, per_env)
            self._reset_done()
            return result
        finally:
            self._leave()

    def send(self, actions: Any, env_ids: Any = None) -> None:
        self._enter("send")
        try:
            ids = self._ids_to_send(env_ids)
            if type(self)._send_batch is HookedVecEnv._send_batch:  # a step in two halves
                self._check_full_batch(ids)
                self._parked = self._check_actions(actions)
            else:
                self._call_hook(
                    "send", self._send_batch, ids, self._splitter_for(len(ids))(actions)
                )
            self._mark_in_flight(ids)
        finally:
            self._leave()

    def recv(self) -> VecStepResult[Any]:
        self._enter("recv")
        try:
            self._check_receivable()
            result = self._call_hook("recv", self._recv_batch, self.batch_size)
            self._received(result)
            return result
        finally:
            self._leave()

    async def async_recv(self) -> VecStepResult[Any]:
        await self._async_enter("recv")
        try:
            self._check_receivable()
            result = await self._call_async_hook("recv", self._async_recv_batch, self.batch_size)
            self._received(result)
            return result
        finally:
            self._leave()

    step.__doc__ = VecEnv.step.__doc__
    async_step.__doc__ = VecEnv.async_step.__doc__
    reset.__doc__ = VecEnv.reset.__doc__
    async_reset.__doc__ = VecEnv.async_reset.__doc__
    send.__doc__ = VecEnv.send.__doc__
    recv.__doc__ = VecEnv.recv.__doc__
    async_recv.__doc__ = VecEnv.async_recv.__doc__

    # -- calls a backend runs itself (attributes, close) ----------------------------

    @contextlib.contextmanager
    def _attribute_call(self, call: str) -> Iterator[None]:
        """Hold the call gate while ``call`` (``call``, ``get_attr``, ``set_attr``) runs.

        Raises, before the call runs, if the vector env is closed or another
        call runs; an interrupted call is finished first.
        """
        if not self._gate.acquire(False):
            raise busy_error(self, call)
        try:
            self._owner = _get_ident()
            if self.closed:
                raise VecEnvClosed(f"{self!r} is closed")
            if self._unfinished:
                exposed(self._finish_interrupted)
            yield
        finally:
            self._gate.release()
            if _held:
                deliver_held(None)

    def _closing(self) -> _Closing:
        """Hold the call gate while ``close()`` runs.

        From the thread that runs the current call (an ``async_step()`` left
        suspended, or a sub-env closing its own vector env) ``close()`` goes
        ahead; from another thread while a call runs it raises
        [`AsyncCallPending`][sekai.error.AsyncCallPending]: a vector env belongs to one
        thread at a time.
        """
        return _Closing(self)

    # -- the hooks -----------------------------------------------------------------------

    def _step_batch(self, batch: Any) -> VecStepResult[Any]:
        """Hook: step every sub-env with a checked batch of actions (see `VecEnv`)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _step_batch()")

    def _reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        """Hook: reset every sub-env with its own seed and options (see `VecEnv`)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _reset_batch()")

    def _per_env_seeds(self, seed: object) -> list[SeedType]:
        """One seed per sub-env from the ``seed`` of `reset` (the vector seeding rule)."""
        return per_env_seeds(seed, self.num_envs)

    async def _async_step_batch(self, batch: Any) -> VecStepResult[Any]:
        """Hook: the async form of `_step_batch`; the default runs it."""
        return self._step_batch(batch)

    async def _async_reset_batch(
        self, seeds: list[SeedType], options: list[dict[str, Any] | None]
    ) -> VecResetResult[Any]:
        """Hook: the async form of `_reset_batch`; the default runs it."""
        return self._reset_batch(seeds, options)

    def _send_batch(self, env_ids: NDArray[np.int64], actions: list[Any]) -> None:
        """Hook: start stepping ``env_ids``, one action each (see `VecEnv`)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _send_batch()")

    def _recv_batch(self, count: int) -> VecStepResult[Any]:
        """Hook: ``count`` sent sub-envs that are done; the default steps the kept full batch."""
        batch, self._parked = self._parked, None
        return with_env_ids(self._step_batch(batch), np.arange(self.num_envs))

    async def _async_recv_batch(self, count: int) -> VecStepResult[Any]:
        """Hook: the async form of `_recv_batch`; the default runs it."""
        return self._recv_batch(count)

    def _drop_in_flight(self) -> None:
        """Hook: forget the sub-envs sent and not received (a reset is coming)."""
        self._parked = None

    def _on_interrupt(self, call: str) -> None:
        """Hook: ``call`` (``"step"``, ``"reset"``, ``"send"`` or ``"recv"``) was interrupted.

        Called when a ``KeyboardInterrupt``, a cancellation
        (``asyncio.CancelledError``) or another exception that is not an
        `Exception` stops a hook half-way. The default cannot tell how
        far the sub-envs got: it drops what is in flight and the next call
        raises [`ResetRequired`][sekai.error.ResetRequired] until `reset`. A
        backend whose interrupted work goes on by itself (worker processes,
        tasks on an event loop) overrides it, sets ``_unfinished`` and
        implements `_finish_interrupted`, so that the interrupted call
        completes for every sub-env before the next call runs.
        """
        abandon(self, f"the last {call}() was interrupted")

    def _finish_interrupted(self) -> None:
        """Hook: complete (or drop) what an interrupted call left; clear ``_unfinished``."""
        self._unfinished = False

    async def _async_finish_interrupted(self) -> None:
        """Hook: the async form of `_finish_interrupted`; the default runs it."""
        self._finish_interrupted()

    def _drop_interrupted(self) -> None:
        """Hook: a reset comes next: end what an interrupted call left, as soon as possible.

        The default finishes it (`_finish_interrupted`); a backend that can
        stop the interrupted work (tasks on an event loop) stops it instead,
        so a reset is never held up by a sub-env that hangs.
        """
        self._finish_interrupted()

    async def _async_drop_interrupted(self) -> None:
        """Hook: the async form of `_drop_interrupted`; the default runs it."""
        self._drop_interrupted()


class _Closing:
    """The gate held by ``close()``: see `HookedVecEnv._closing`."""

    __slots__ = ("_held", "_vec")

    def __init__(self, vec: HookedVecEnv[Any, Any]) -> None:
        self._vec = vec
        self._held = False

    def __enter__(self) -> None:
        vec = self._vec
        self._held = vec._gate.acquire(False)
        if not self._held and vec._owner != _get_ident():
            raise busy_error(vec, "close")

    def __exit__(self, *exc: object) -> None:
        if self._held:
            self._vec._gate.release()
        if _held:  # a Ctrl-C held back while the gate was taken or given back
            deliver_held(sys._getframe(1))


for _method in (
    HookedVecEnv._enter,
    HookedVecEnv._async_enter,
    HookedVecEnv._leave,
    HookedVecEnv._take_over,
    HookedVecEnv._make_ready,
    HookedVecEnv._call_hook,
    HookedVecEnv._call_async_hook,
    HookedVecEnv.step,
    HookedVecEnv.async_step,
    HookedVecEnv.reset,
    HookedVecEnv.async_reset,
    HookedVecEnv.send,
    HookedVecEnv.recv,
    HookedVecEnv.async_recv,
    _Closing.__enter__,
    _Closing.__exit__,
    HookedVecEnv._attribute_call.__wrapped__,  # type: ignore[attr-defined]
):
    protect(_method)
