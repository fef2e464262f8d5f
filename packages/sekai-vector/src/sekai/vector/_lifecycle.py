"""The lifecycle [`VecEnv`][sekai.vector.VecEnv] gives a backend that implements the batch hooks.

Every call (``step``, ``reset``, ``send``, ``recv`` and their async forms) runs
the same rules, here and nowhere else:

* It takes the vector env's call gate, a lock taken without waiting: a second
  call while one runs (from another thread, from inside a sub-env, or after
  an ``async_step()`` not awaited to the end) raises
  [`AsyncCallPending`][sekai.error.AsyncCallPending] at once. A vector env belongs to one
  thread at a time.
* It finishes first what an interrupted call left running (the backend's
  ``_finish_interrupted``), then checks the state: closed, never reset, or
  sub-envs still in flight between ``send`` and ``recv``.
* It runs the hook. A ``KeyboardInterrupt`` or a cancellation inside it
  (any exception that is not an `Exception`) calls the backend's
  ``_on_interrupt(call)``; an exception in ``recv`` abandons what is in
  flight, and one in ``reset`` leaves the vector env needing a reset.

The fast path of a step costs the gate and one test of four flags.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sekai.error import AsyncCallPending, ResetRequired, VecEnvClosed
from sekai.utils.seeding import SeedType
from sekai.vector._arguments import NOT_GIVEN, actions_argument, per_env_options

if TYPE_CHECKING:
    from sekai.vector.results import VecResetResult, VecStepResult
    from sekai.vector.vec_env import VecEnv

__all__ = ["abandon", "busy_error", "install_lifecycle", "make_ready"]

_get_ident = threading.get_ident
_base_send_batch: list[Callable[..., Any]] = [lambda *_: None]  # VecEnv._send_batch, once known


def busy_error(vec: VecEnv[Any, Any], call: str | None) -> AsyncCallPending:
    """The error for ``call`` (``None``: any method) made while another call of ``vec`` runs."""
    owner = vec._owner
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


def make_ready(vec: VecEnv[Any, Any], call: str) -> None:
    """Finish an interrupted call, then raise unless ``call`` may run now (the slow path)."""
    if vec.closed:
        raise VecEnvClosed(f"{vec!r} is closed")
    if vec._unfinished:
        vec._finish_interrupted()
    _check_state(vec, call)


async def async_make_ready(vec: VecEnv[Any, Any], call: str) -> None:
    """`make_ready` for the async calls: the interrupted call is finished with ``await``."""
    if vec.closed:
        raise VecEnvClosed(f"{vec!r} is closed")
    if vec._unfinished:
        await vec._async_finish_interrupted()
    _check_state(vec, call)


def _check_state(vec: VecEnv[Any, Any], call: str) -> None:
    if call == "reset":
        return
    if vec._needs_reset:
        why = f" ({vec._reset_reason})" if vec._reset_reason else ""
        raise ResetRequired(f"{vec!r}: call reset() before {call}(){why}")
    if call == "step" and vec._flying:
        raise AsyncCallPending(
            f"{vec!r}: {vec._flying} sub-envs were sent actions with send() and not "
            "received; call recv() (or reset()) before step()"
        )


def abandon(vec: VecEnv[Any, Any], reason: str) -> None:
    """Drop what is in flight; the vector env needs a reset (``reason`` says why)."""
    try:
        if vec._flying:
            vec._drop_in_flight()
    finally:
        vec._clear_in_flight()
        vec._needs_reset = True
        vec._reset_reason = reason


# -- the methods installed on backends ------------------------------------------------------


def _step(self: VecEnv[Any, Any], actions: Any) -> VecStepResult[Any]:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "step")
    try:
        self._owner = _get_ident()
        if self._needs_reset or self._flying or self._unfinished or self.closed:
            make_ready(self, "step")
        batch = self._check_actions(actions)
        try:
            return self._step_batch(batch)
        except Exception:
            raise
        except BaseException:
            self._on_interrupt("step")
            raise
    finally:
        gate.release()


async def _async_step(
    self: VecEnv[Any, Any], actions: Any = NOT_GIVEN, *, action: Any = NOT_GIVEN
) -> VecStepResult[Any]:
    if action is not NOT_GIVEN or actions is NOT_GIVEN:
        actions = actions_argument(actions, action, "async_step")
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "async_step")
    try:
        self._owner = _get_ident()
        if self._needs_reset or self._flying or self._unfinished or self.closed:
            await async_make_ready(self, "step")
        batch = self._check_actions(actions)
        try:
            return await self._async_step_batch(batch)
        except Exception:
            raise
        except BaseException:  # cancelled, or KeyboardInterrupt
            self._on_interrupt("step")
            raise
    finally:
        gate.release()


def _reset(
    self: VecEnv[Any, Any],
    *,
    seed: list[SeedType] | SeedType = None,
    options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
) -> VecResetResult[Any]:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "reset")
    try:
        self._owner = _get_ident()
        if self._unfinished or self.closed:
            make_ready(self, "reset")
        seeds, per_env = _reset_arguments(self, seed, options)
        try:
            result = self._reset_batch(seeds, per_env)
        except Exception:
            _reset_failed(self)
            raise
        except BaseException:
            self._on_interrupt("reset")
            raise
        self._needs_reset = False
        self._reset_reason = ""
        return result
    finally:
        gate.release()


async def _async_reset(
    self: VecEnv[Any, Any],
    *,
    seed: list[SeedType] | SeedType = None,
    options: list[dict[str, Any] | None] | dict[str, Any] | None = None,
) -> VecResetResult[Any]:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "async_reset")
    try:
        self._owner = _get_ident()
        if self._unfinished or self.closed:
            await async_make_ready(self, "reset")
        seeds, per_env = _reset_arguments(self, seed, options)
        try:
            result = await self._async_reset_batch(seeds, per_env)
        except Exception:
            _reset_failed(self)
            raise
        except BaseException:
            self._on_interrupt("reset")
            raise
        self._needs_reset = False
        self._reset_reason = ""
        return result
    finally:
        gate.release()


def _reset_arguments(
    self: VecEnv[Any, Any], seed: object, options: object
) -> tuple[list[SeedType], list[dict[str, Any] | None]]:
    """The per-env seeds and options of a reset; drops what is in flight."""
    seeds = self._per_env_seeds(seed)
    per_env = per_env_options(options, self.num_envs)
    if self._flying:
        self._drop_in_flight()
        self._clear_in_flight()
    return seeds, per_env


def _reset_failed(self: VecEnv[Any, Any]) -> None:
    # Some sub-envs may be reset and others not: only a reset that succeeds
    # puts them back in step.
    self._needs_reset = True
    self._reset_reason = "the last reset() raised"


def _send(self: VecEnv[Any, Any], actions: Any, env_ids: Any = None) -> None:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "send")
    try:
        self._owner = _get_ident()
        if self._needs_reset or self._unfinished or self.closed:
            make_ready(self, "send")
        ids = self._ids_to_send(env_ids)
        if type(self)._send_batch is _base_send_batch[0]:  # no partial batches: two halves
            self._check_full_batch(ids)
            self._parked = self._check_actions(actions)
        else:
            per_env = self._splitter_for(len(ids))(actions)
            try:
                self._send_batch(ids, per_env)
            except Exception:
                raise
            except BaseException:
                self._on_interrupt("send")
                raise
        self._mark_in_flight(ids)
    finally:
        gate.release()


def _recv(self: VecEnv[Any, Any]) -> VecStepResult[Any]:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "recv")
    try:
        self._owner = _get_ident()
        if self._needs_reset or self._unfinished or self.closed:
            make_ready(self, "recv")
        self._check_receivable()
        try:
            result = self._recv_batch(self.batch_size)
        except Exception:
            abandon(self, "the last recv() raised")
            raise
        except BaseException:
            self._on_interrupt("recv")
            raise
        self._clear_in_flight(result.env_ids)
        return result
    finally:
        gate.release()


async def _async_recv(self: VecEnv[Any, Any]) -> VecStepResult[Any]:
    gate = self._gate
    if not gate.acquire(False):
        raise busy_error(self, "async_recv")
    try:
        self._owner = _get_ident()
        if self._needs_reset or self._unfinished or self.closed:
            await async_make_ready(self, "recv")
        self._check_receivable()
        try:
            result = await self._async_recv_batch(self.batch_size)
        except Exception:
            abandon(self, "the last recv() raised")
            raise
        except BaseException:
            self._on_interrupt("recv")
            raise
        self._clear_in_flight(result.env_ids)
        return result
    finally:
        gate.release()


_LIFECYCLE: tuple[tuple[str, Callable[..., Any]], ...] = (
    ("step", _step),
    ("send", _send),
    ("recv", _recv),
    ("async_recv", _async_recv),
    ("async_step", _async_step),
    ("reset", _reset),
    ("async_reset", _async_reset),
)


def install_lifecycle(cls: type, base: type) -> None:
    """Give ``cls`` the lifecycle methods it does not define (``base`` is VecEnv)."""
    _base_send_batch[0] = base._send_batch  # type: ignore[attr-defined]
    for name, function in _LIFECYCLE:
        owner = next(klass for klass in cls.__mro__ if name in klass.__dict__)
        if owner is not base:
            continue  # the backend (or a base between it and VecEnv) defines its own
        setattr(cls, name, _named_copy(function, name, cls, base))


def _named_copy(
    function: Callable[..., Any], name: str, cls: type, base: type
) -> Callable[..., Any]:
    """``function`` under the name, docstring and owner of ``VecEnv.<name>`` on ``cls``."""
    copy = types.FunctionType(
        function.__code__, function.__globals__, name, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__qualname__ = f"{cls.__qualname__}.{name}"
    copy.__module__ = cls.__module__
    copy.__doc__ = getattr(base, name).__doc__
    copy.__annotations__ = dict(function.__annotations__)
    return copy
