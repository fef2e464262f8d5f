"""The parent side of `RayVecEnv`: its actors, the calls to them, their replacements.

An `ActorPool` is RayVecEnv's `sekai.vector._remote.Transport`: it creates
one actor per group of sub-envs (`ActorSlot`), sends each command once per
actor as a remote call (`ActorCall`, kept so it can be sent again to a
replacement), and reads the replies. An actor that died is replaced when the
vector env allows it (``restart_failed``) and its call sent again; otherwise
its death is raised as a [`VecEnvWorkerError`][sekai.error.VecEnvWorkerError], and
every later call raises it too. With a timeout (``RayVecEnv(step_timeout=...)``)
an actor that has not answered a call within it is killed and reported the
same way, never replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayError

from sekai.error import VecEnvWorkerError
from sekai.vector._interrupts import protected
from sekai.vector._ray_actor import Restart, remote_group
from sekai.vector._replies import Reply, Status, raise_failures, worker_error
from sekai.vector._sub_envs import name_sub_envs

__all__ = ["ActorCall", "ActorPool", "ActorSlot"]

_OK = Status.OK.value
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colours in Ray's error messages
_BACKEND = "RayVecEnv"
_ACTOR = "an actor"
_CALLED = {
    "start": "start-up",
    "step": "step()",
    "step_some": "a step sent by send()",
    "reset": "reset()",
    "call": "call()",
    "get_attr": "get_attr()",
    "set_attr": "set_attr()",
}


class ActorSlot:
    """The parent's view of one actor: its sub-envs, its handle, its restarts."""

    __slots__ = (
        "count",
        "dead",
        "fate",
        "first",
        "handle",
        "hint",
        "index",
        "restarts",
        "strategy",
    )

    def __init__(self, index: int, first: int, count: int, strategy: Any) -> None:
        self.index = index
        self.first = first
        self.count = count
        self.strategy = strategy
        self.handle: Any = None
        self.restarts = 0
        self.dead = False
        self.hint = ""  # what the error of a call after its death advises
        self.fate: str | None = None  # why the parent killed it (a timeout), else None

    @property
    def end(self) -> int:
        """One past the index of its last sub-env."""
        return self.first + self.count

    @property
    def sub_envs(self) -> str:
        """Its sub-envs, as messages name them (``"sub-env 3"``, ``"sub-envs 0 and 1"``)."""
        return name_sub_envs(range(self.first, self.end))

    def death_error(
        self, cause: BaseException | None, *, hint: str, earlier: bool = False
    ) -> VecEnvWorkerError:
        """The error reporting this actor's death (``cause``: Ray's error, quoted)."""
        if self.fate is not None:
            what = (
                f"was killed earlier: it {self.fate}" if earlier else f"{self.fate} and was killed"
            )
        else:
            when = "died earlier" if earlier else "died unexpectedly"
            reason = (
                "" if cause is None else " (" + " ".join(_ANSI.sub("", str(cause)).split()) + ")"
            )
            what = f"{when}{reason}"
        return VecEnvWorkerError(
            f"RayVecEnv: actor {self.index} ({self.sub_envs}) {what}; {hint}",
            self.first,
            None,
        )


class ActorCall:
    """One remote call to an actor, kept so it can be sent again to a replacement.

    Attributes:
        deadline: When its answer is late (`time.monotonic`), ``None``: never.
        error: The error that reports its actor killed for being late.
    """

    __slots__ = ("args", "deadline", "error", "method", "ref", "slot", "timeout")

    def __init__(
        self, slot: ActorSlot, method: str, args: tuple[Any, ...], timeout: float | None = None
    ) -> None:
        self.slot = slot
        self.method = method
        self.args = args
        self.timeout = timeout
        self.ref: Any = None
        self.deadline: float | None = None
        self.error: VecEnvWorkerError | None = None
        self.send()

    def send(self) -> None:
        """Send the call to the slot's current actor (again, after a replacement)."""
        self.ref = getattr(self.slot.handle, self.method).remote(*self.args)
        if self.timeout is not None:
            self.deadline = time.monotonic() + self.timeout

    def remaining(self) -> float | None:
        """Seconds until the deadline (at least 0), ``None`` without one."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())


class ActorPool:
    """The actors of a RayVecEnv, one per group of sub-envs, and the calls in flight.

    Args:
        slots: One per actor, in sub-env order.
        blob: The object-store reference of the cloudpickled env factories.
        options: The Ray options of every actor.
        autoreset: The vector env's autoreset flag.
        restart_of: How a replacement of a slot's actor starts.
        restart_failed: Whether dead actors are replaced.
        max_restarts: How many times each actor may be replaced.
        restart_delay: Seconds to wait before each replacement.
        timeout: Seconds an actor may take to answer a call (``None``: no limit).
    """

    def __init__(
        self,
        slots: list[ActorSlot],
        blob: Any,
        options: Mapping[str, Any],
        autoreset: bool,
        restart_of: Callable[[ActorSlot], Restart],
        *,
        restart_failed: bool,
        max_restarts: int,
        restart_delay: float,
        timeout: float | None,
    ) -> None:
        self.slots = slots
        self.blob = blob
        self.options = dict(options)
        self.autoreset = autoreset
        self.restart_of = restart_of
        self.restart_failed = restart_failed
        self.max_restarts = max_restarts
        self.restart_delay = restart_delay
        self.timeout = timeout
        self.broken = False
        # The command sent to every actor last (an interrupted one is waited for).
        self.running: tuple[str, list[ActorCall]] | None = None
        self.in_flight: dict[int, ActorCall] = {}  # partial batches: the call of each actor

    # -- start-up --------------------------------------------------------------------

    def start(self) -> list[Reply]:
        """Create every actor and build its sub-envs; the start-up replies (no restarts)."""
        for slot in self.slots:
            slot.handle = self._create(slot)
        calls = [ActorCall(slot, "start", (None,)) for slot in self.slots]
        return self.gather_calls(calls, "its env factory", restart=False)

    def _create(self, slot: ActorSlot) -> Any:
        options = dict(self.options)
        if slot.strategy is not None:
            options["scheduling_strategy"] = slot.strategy
        group = remote_group().options(**options)
        return group.remote(self.blob, slot.first, slot.count, self.autoreset)

    # -- commands (the Transport) ------------------------------------------------------

    @protected
    def send_all(self, command: str, payloads: Sequence[Any]) -> None:
        """Call ``command`` on every actor, ``payloads[k]`` to actor ``k``.

        Protected from Ctrl-C: the command reaches every actor or none.
        """
        self.running = None
        self.check_alive()
        calls = [
            ActorCall(slot, command, (payload,), self.timeout)
            for slot, payload in zip(self.slots, payloads, strict=True)
        ]
        self.running = (command, calls)

    def _sent_calls(self) -> list[ActorCall]:
        if self.running is None:
            raise RuntimeError("internal: the actors' replies were read before send_all()")
        return self.running[1]

    def gather(self, what: str) -> list[Reply]:
        """Every actor's reply to the last `send_all`."""
        return self.gather_calls(self._sent_calls(), what)

    async def wait_all(self) -> None:
        """Wait, without blocking the event loop, until every call of `send_all` answered."""
        calls = self._sent_calls()
        refs = [call.ref for call in calls]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        if len(ready) < len(refs):
            timeout = _earliest_remaining(calls)
            await asyncio.to_thread(ray.wait, refs, num_returns=len(refs), timeout=timeout)

    def send_some(self, command: str, payloads: Mapping[int, Any]) -> None:
        """Call ``command`` on some idle actors, ``payloads`` by actor."""
        self.check_alive()
        for k, payload in payloads.items():
            self.in_flight[k] = ActorCall(self.slots[k], command, (payload,), self.timeout)

    def ready_among(self, keys: Sequence[int]) -> list[int]:
        """Wait until one of these actors answered; all that have (late ones are killed)."""
        ready = self._ready(keys, 0)
        if ready:
            return ready
        calls = [self.in_flight[k] for k in keys]
        timeout = _earliest_remaining(calls)
        ready = self._ready(keys, timeout)
        return ready or self._time_out_late(keys)

    async def ready_among_async(self, keys: Sequence[int]) -> list[int]:
        """`ready_among` without blocking the event loop."""
        ready = self._ready(keys, 0)
        if ready:
            return ready
        calls = [self.in_flight[k] for k in keys]
        refs = [call.ref for call in calls]
        await asyncio.to_thread(ray.wait, refs, num_returns=1, timeout=_earliest_remaining(calls))
        return self.ready_among(keys)

    def _ready(self, keys: Sequence[int], timeout: float | None) -> list[int]:
        """The actors of ``keys`` that answered, waiting up to ``timeout`` for the first one."""
        refs = [self.in_flight[k].ref for k in keys]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
        if not ready and timeout != 0:
            ready, _ = ray.wait(refs, num_returns=1, timeout=timeout)
        done = set(ready)
        return [k for k, ref in zip(keys, refs, strict=True) if ref in done]

    def _time_out_late(self, keys: Sequence[int]) -> list[int]:
        """Kill the actors of ``keys`` whose answer is late; their keys."""
        now = time.monotonic()
        late = []
        for k in keys:
            call = self.in_flight[k]
            if call.deadline is not None and call.deadline <= now:
                self._time_out(call)
                late.append(k)
        return late

    def reply_of(self, worker: int, what: str) -> Reply:
        """The reply of actor ``worker`` to the call `send_some` sent it."""
        return self.settle(self.in_flight.pop(worker), what)

    def check_alive(self) -> None:
        """Raise for an actor already known to be dead."""
        if self.broken:
            slot = next(slot for slot in self.slots if slot.dead)
            raise slot.death_error(None, earlier=True, hint=slot.hint)

    # -- replies ---------------------------------------------------------------------

    def gather_calls(self, calls: list[ActorCall], what: str, restart: bool = True) -> list[Reply]:
        """Every call's reply; every actor answers (or is replaced) before anything is raised."""
        try:
            return ray.get([call.ref for call in calls], timeout=_earliest_remaining(calls))
        except RayError:
            pass
        replies: list[Reply] = []
        first: VecEnvWorkerError | None = None
        for call in calls:
            try:
                replies.append(self.settle(call, what, restart))
            except VecEnvWorkerError as error:
                first = first or error
        if first is not None:
            raise first
        return replies

    def settle(self, call: ActorCall, what: str, restart: bool = True) -> Reply:
        """The reply of ``call``; a dead actor is replaced (and the call sent again) or raised."""
        while True:
            if call.error is not None:  # killed for being late
                raise call.error
            try:
                reply: Reply = ray.get(call.ref, timeout=call.remaining())
            except GetTimeoutError:
                self._time_out(call)
            except RayActorError as error:
                self._replace(call.slot, error, restart)
                call.send()
            except RayError as error:  # e.g. a result Ray could not serialise
                slot = call.slot
                raise VecEnvWorkerError(
                    f"RayVecEnv: actor {slot.index} ({slot.sub_envs}) failed in {what}: {error}",
                    slot.first,
                    str(error),
                ) from error
            else:
                return reply

    def _time_out(self, call: ActorCall) -> None:
        """Kill the actor of ``call``, which did not answer in time: dead from now on."""
        slot = call.slot
        slot.fate = (
            f"did not answer {_CALLED.get(call.method, call.method)} within "
            f"step_timeout={self.timeout:g} s"
        )
        with contextlib.suppress(Exception):
            ray.kill(slot.handle, no_restart=True)
        self._break(slot, "close this vector env and create a new one")
        call.error = slot.death_error(None, hint=slot.hint)

    def _replace(self, slot: ActorSlot, error: RayActorError, restart: bool) -> None:
        """Replace the dead actor of ``slot`` (within its budget), or raise its death."""
        allowed = restart and self.restart_failed
        while allowed and slot.restarts < self.max_restarts:
            slot.restarts += 1
            with contextlib.suppress(Exception):
                ray.kill(slot.handle, no_restart=True)
            if self.restart_delay:
                time.sleep(self.restart_delay)
            slot.handle = self._create(slot)
            try:
                reply = ray.get(slot.handle.start.remote(self.restart_of(slot)))
            except RayActorError as again:
                error = again
                continue
            if reply.status != _OK:  # its sub-envs could not be rebuilt or reset
                self._break(slot, "its replacement failed to start; close this vector env")
                raise_failures([reply], f"restarting actor {slot.index}", _BACKEND, _ACTOR)
            return
        hint = self._death_hint(allowed)
        self._break(slot, hint)
        raise slot.death_error(error, hint=hint) from error

    def _death_hint(self, restarting: bool) -> str:
        if not restarting:
            return (
                "close this vector env and create a new one, or build it with "
                "restart_failed=True to replace dead actors"
            )
        return (
            f"its max_restarts={self.max_restarts} replacements are used up; close this vector "
            "env and create a new one"
        )

    def _break(self, slot: ActorSlot, hint: str) -> None:
        """Mark ``slot``'s actor as dead for good; ``hint`` ends the error of every later call."""
        slot.dead = True
        slot.hint = hint
        self.broken = True

    # -- shutdown ----------------------------------------------------------------------

    def close(self, timeout: float) -> BaseException | None:
        """Close the sub-envs and end every actor; the first failure (see Transport)."""
        self.running = None
        self.in_flight.clear()
        failure: BaseException | None = None
        late: list[ActorSlot] = []
        live = [slot for slot in self.slots if slot.handle is not None and not slot.dead]
        if not ray.is_initialized():  # the session was shut down: its actors went with it
            live = []
        exits: list[Any] = []
        try:
            closing = [slot.handle.close.remote() for slot in live]
            # Queued behind the close: the actor exits, and the ref resolves (as an
            # error) once it is gone.
            exits = [slot.handle.__ray_terminate__.remote() for slot in live]
            ready = set(ray.wait(closing, num_returns=len(closing), timeout=timeout)[0])
            for slot, ref in zip(live, closing, strict=True):
                if ref not in ready:
                    late.append(slot)
                    continue
                try:
                    reply = ray.get(ref)
                except RayError as error:
                    hint = "its sub-envs were not closed"
                    failure = failure or slot.death_error(error, hint=hint)
                else:
                    if reply.status != _OK and failure is None:
                        failure = worker_error(reply.payload, "close()", _BACKEND, _ACTOR)
        finally:
            for slot in late:
                with contextlib.suppress(Exception):
                    ray.kill(slot.handle, no_restart=True)
            if exits:
                with contextlib.suppress(Exception):
                    ray.wait(exits, num_returns=len(exits), timeout=max(timeout, 5.0))
            for slot in self.slots:  # those that did not exit, and earlier replaced ones
                if slot.handle is not None:
                    with contextlib.suppress(Exception):
                        ray.kill(slot.handle, no_restart=True)
            self.blob = None
        if late:
            names = ", ".join(f"actor {s.index} ({s.sub_envs})" for s in late)
            warnings.warn(
                f"RayVecEnv.close(): {names} did not finish closing in time and was killed",
                RuntimeWarning,
                stacklevel=4,
            )
        return failure


def _earliest_remaining(calls: Sequence[ActorCall]) -> float | None:
    """Seconds until the earliest deadline among ``calls`` (``None``: no timeout)."""
    remaining = [r for r in (call.remaining() for call in calls) if r is not None]
    return min(remaining) if remaining else None
