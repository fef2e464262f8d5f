"""The parent side of `ProcVecEnv`: worker processes, pipes, shared memory.

A `WorkerPool` starts the workers, sends each command once per worker,
gathers the replies and turns failures into
[`VecEnvWorkerError`][sekai.error.VecEnvWorkerError]. It is ProcVecEnv's
`sekai.vector._remote.Transport`. It never blocks on a dead worker:
every wait watches the worker's pipe *and* its process sentinel, so a worker
that dies is noticed at once. Replies are matched to commands by a sequence
number; replies to a command the parent stopped waiting for (Ctrl-C, a
cancelled ``await``) are read and dropped before the next command is sent.
With a ``timeout`` (``ProcVecEnv(step_timeout=...)``), a worker that has not
answered a command within it (or, at start-up, not built its sub-envs within
it) is killed and reported as dead, with the reason.

The pool holds no reference to the vector env, so a finaliser can release it
when the vector env is garbage collected or the interpreter exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import pickle
import signal
import struct
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sekai.error import VecEnvWorkerError
from sekai.vector._interrupts import protected
from sekai.vector._proc_channel import Channel
from sekai.vector._proc_context import start_process
from sekai.vector._proc_protocol import HEADER, STEPPED, STEPPED_TAG, Command
from sekai.vector._proc_reaper import Reaper, start_reaper
from sekai.vector._proc_shm import BlockLayout, BlockViews
from sekai.vector._proc_worker import worker_main
from sekai.vector._replies import Reply, Status, make_reply, worker_error

if TYPE_CHECKING:
    from multiprocessing.shared_memory import SharedMemory

__all__ = ["SHM_PREFIX", "WorkerHandle", "WorkerPool", "close_quietly"]

SHM_PREFIX = "sekai_"
"""Shared-memory blocks are named ``sekai_<parent pid>_<random hex>``."""

_HIGHEST = pickle.HIGHEST_PROTOCOL
_dumps = pickle.dumps
_loads = pickle.loads
_POLL = getattr(__import__("select"), "poll", None)
_SIGMASK = getattr(signal, "pthread_sigmask", None)
_DEAD: Any = object()  # what _recv returns for a worker that died
_unpack_stepped = STEPPED.unpack_from
_OK = Status.OK.value
# The step signal and the STEPPED answer with their channel framing (length prefix first).
_FRAME_SIZE = 8
_STEP_IN_BLOCK = Command.STEP_IN_BLOCK.value
_pack_step = HEADER.pack
_unpack_framed_stepped = struct.Struct("<QBq").unpack_from
_STEPPED_FRAMED = _FRAME_SIZE + STEPPED.size
_READ_CHUNK = 1 << 16
_read = os.read
_REAPER_CONFIRM_TIMEOUT = 30.0  # it answers in milliseconds; this is for a machine under load


def _main_module_hint() -> str:
    """Why a fork server or spawned process could not run the main module, and what to do.

    Such a process imports the main script again from its file: a script
    without an entry-point guard creates a ProcVecEnv in there too, and a
    script read from standard input (``python - < script.py``) has no file
    to import.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is None and path is not None and not os.path.isfile(path):
        return (
            f"The main module was not read from a file (its __file__ is {path!r}, e.g. a "
            "script piped to 'python -'), so a 'forkserver' or 'spawn' process cannot "
            "import it again: save the script to a file and run that, or pass "
            "context='fork' where it exists"
        )
    return (
        "With 'forkserver' or 'spawn', the script that creates a ProcVecEnv must guard "
        "its entry point with 'if __name__ == \"__main__\":'"
    )


def _current_sigmask() -> Any:
    """This thread's signal mask, unchanged (None where masks do not exist)."""
    if _SIGMASK is None:  # pragma: no cover - Windows
        return None
    return _SIGMASK(signal.SIG_BLOCK, set())


def _block_sigint() -> None:
    if _SIGMASK is not None:
        _SIGMASK(signal.SIG_BLOCK, {signal.SIGINT})


def _restore_sigmask(mask: Any) -> None:
    if _SIGMASK is not None and mask is not None:
        _SIGMASK(signal.SIG_SETMASK, mask)


def _exit_text(exitcode: int | None) -> str:
    if exitcode is None:
        return "exit code unknown"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


class WorkerHandle:
    """The parent's view of one worker process.

    Attributes:
        index: Worker number.
        first: Index of its first sub-env.
        count: Number of its sub-envs.
        process: The process.
        conn: The parent's end of its pipe.
        expect: Sequence number of the last command sent to it.
        received: Whether the reply to that command was read.
        uncertain: A send to it was interrupted: it may or may not have the command.
        alive: False once it is known to have exited.
        reported: Its death was already raised to the user.
        deadline: When its answer to the last command (or its start-up
            reply) is late (``None``: never), under a timeout.
        command: The last command sent to it (``None``: none yet, it is
            starting).
        fate: Why the parent ended it (a timeout), else ``None``.
    """

    __slots__ = (
        "alive",
        "channel",
        "command",
        "conn",
        "count",
        "deadline",
        "expect",
        "fate",
        "first",
        "freed",
        "index",
        "poller",
        "process",
        "received",
        "reported",
        "started",
        "uncertain",
    )

    def __init__(self, index: int, first: int, count: int, process: Any, conn: Any) -> None:
        self.index = index
        self.first = first
        self.count = count
        self.process = process
        self.conn = conn
        self.channel = Channel(conn)
        self.expect = 0
        self.received = False
        self.uncertain = False
        self.alive = True
        self.reported = False
        self.started = False
        self.freed = False  # its pipe and process object are released
        self.poller: Any = None
        self.deadline: float | None = None
        self.command: Command | None = None
        self.fate: str | None = None

    @property
    def name(self) -> str:
        """``"worker 1 (sub-env 2)"`` / ``"worker 0 (sub-envs 0, 1)"``."""
        indices = ", ".join(str(i) for i in range(self.first, self.first + self.count))
        return f"worker {self.index} (sub-env{'s' if self.count > 1 else ''} {indices})"

    def death_error(self, earlier: bool = False) -> VecEnvWorkerError:
        """The error reporting this worker's death (or that it was ended for a timeout)."""
        if self.fate is not None:
            what = f"was terminated earlier: it {self.fate}" if earlier else f"{self.fate}"
        else:
            when = "died earlier" if earlier else "died unexpectedly"
            what = f"{when} ({_exit_text(self.process.exitcode)})"
        return VecEnvWorkerError(
            f"ProcVecEnv: {self.name} {what}; close this vector env and create a new one",
            self.first,
            None,
        )


class WorkerPool:
    """Worker processes, their pipes and the optional shared-memory block."""

    def __init__(
        self,
        context: multiprocessing.context.BaseContext,
        cloudpickle: Any,
        timeout: float | None = None,
    ) -> None:
        self.context = context
        self.cloudpickle = cloudpickle
        self.timeout = timeout
        self.broken = False
        self.workers: list[WorkerHandle] = []
        self.shm: SharedMemory | None = None
        self.views: BlockViews | None = None
        self.seq = 0
        self.dirty = False
        self.closed = False  # close() began
        self.released = False  # every process, pipe and the shared block are gone
        self.reaper: Reaper | None = None

    # -- start-up --------------------------------------------------------------------

    def start(
        self,
        blobs: Sequence[bytes | list[Any]],
        firsts: Sequence[int],
        counts: Sequence[int],
        autoreset: bool,
    ) -> list[Reply]:
        """Start one worker per blob (its pickled env factories); return their start-up replies.

        A forked worker inherits its factories, so ``fork`` passes the lists as they are.

        Under a timeout, a worker whose start-up reply is late is killed.

        Raises:
            VecEnvWorkerError: A worker died during start-up, or did not
                start in time.
        """
        fork = self.context.get_start_method() == "fork"
        self._start_reaper()
        for i, (blob, first, count) in enumerate(zip(blobs, firsts, counts, strict=True)):
            parent_conn, child_conn = self.context.Pipe(duplex=True)
            inherited = [w.conn for w in self.workers] + [parent_conn] if fork else []
            process = self.context.Process(  # type: ignore[attr-defined]
                target=worker_main,
                args=(child_conn, blob, first, autoreset, inherited),
                name=f"ProcVecEnv-worker-{i}",
                daemon=True,
            )
            handle = WorkerHandle(i, first, count, process, parent_conn)
            self.workers.append(handle)
            # Ctrl-C is held back while a process starts: an interrupt inside
            # start() could leave a running child that nothing tracks. The mask
            # is read before and blocked inside the try: an interrupt handled
            # right after the block (between two bytecodes) must still unblock.
            mask = _current_sigmask()
            try:
                _block_sigint()
                start_process(process, self.context)
                handle.started = True
                if self.timeout is not None:
                    handle.deadline = time.monotonic() + self.timeout
            except EOFError as error:  # the fork server died: usually an unguarded script
                handle.alive = False
                raise RuntimeError(
                    f"ProcVecEnv: could not start worker {i} with the "
                    f"{self.context.get_start_method()!r} start method (its server process "
                    f"exited). {_main_module_hint()}"
                ) from error
            except BaseException:
                handle.alive = False
                raise
            finally:
                child_conn.close()
                _restore_sigmask(mask)
            if self.reaper is not None:
                self.reaper.guard(process.pid)
            if _POLL is not None:
                poller = _POLL()
                poller.register(parent_conn.fileno(), 1)  # POLLIN (errors always reported)
                poller.register(process.sentinel, 1)
                handle.poller = poller
        replies = self._gather_replies()
        if self.reaper is not None and not self.reaper.confirm(_REAPER_CONFIRM_TIMEOUT):
            warnings.warn(
                "ProcVecEnv: the process that ends the workers if this process dies did not "
                f"answer within {_REAPER_CONFIRM_TIMEOUT:g} s; the workers still end when "
                "this process exits while they run Python",
                RuntimeWarning,
                stacklevel=4,
            )
        return replies

    @protected
    def _start_reaper(self) -> None:
        # Protected: once started, the reaper is recorded, so release() ends it.
        mask = _current_sigmask()
        try:
            _block_sigint()  # no KeyboardInterrupt inside Popen: it would leave a reaper untracked
            self.reaper = start_reaper()
        finally:
            _restore_sigmask(mask)

    def attach(self, layout: BlockLayout) -> BlockViews:
        """Create the shared block, have every worker map it, and return the parent's views."""
        shm, views = self._create_block(layout)
        self.send(Command.ATTACH, [(shm.name, layout)] * len(self.workers))
        for reply in self.gather():
            if reply.status != Status.OK:
                raise worker_error(
                    reply.payload, "attaching the shared memory", "ProcVecEnv", "a worker"
                )
        return views

    @protected
    def _create_block(self, layout: BlockLayout) -> tuple[SharedMemory, BlockViews]:
        # Protected: the block is recorded as soon as it exists, so whatever
        # stops the construction frees it.
        from multiprocessing.shared_memory import SharedMemory

        while True:
            name = f"{SHM_PREFIX}{os.getpid()}_{os.urandom(4).hex()}"
            try:
                self.shm = SharedMemory(name=name, create=True, size=layout.size)
                break
            except FileExistsError:  # pragma: no cover - 32 random bits collided
                continue
        self.views = views = BlockViews(layout, self.shm.buf)
        return self.shm, views

    # -- commands --------------------------------------------------------------------

    def check_alive(self) -> None:
        """Raise for a worker already known to be dead."""
        if not self.broken:
            return
        for w in self.workers:
            if not w.alive:
                w.reported = True
                raise w.death_error(earlier=True)

    def prepare(self) -> None:
        """Make the workers idle and in step before a command.

        Drops the replies of an interrupted command (waiting for the workers
        still busy with it).

        Raises:
            VecEnvWorkerError: A worker is already known to be dead.
        """
        if self.dirty:
            self.drain()
        self.check_alive()

    def send(self, command: Command, payloads: Sequence[Any]) -> None:
        """Send one message per worker (``payloads[i]`` to worker ``i``).

        Payloads are pickled, with cloudpickle when plain pickle cannot.

        Raises:
            VecEnvWorkerError: A worker is already known to be dead.
        """
        self.prepare()
        seq = self.seq + 1
        self._send_all(seq, self._messages(command, seq, payloads), command)

    def send_all(self, command: str, payloads: Sequence[Any]) -> None:
        """`send` a command named as `sekai.vector._remote.Transport` names it."""
        self.send(_COMMANDS[command], payloads)

    def _messages(self, command: Command, seq: int, payloads: Sequence[Any]) -> list[bytes]:
        """The messages of a command: header, then each payload pickled (cloudpickle if needed)."""
        header = HEADER.pack(command, seq)
        messages = []
        for payload in payloads:
            try:
                messages.append(header + _dumps(payload, _HIGHEST))
            except Exception:
                messages.append(header + self.cloudpickle.dumps(payload, _HIGHEST))
        return messages

    def send_some(self, command: str, payloads: Mapping[int, Any]) -> None:
        """Send a command to some idle workers only (``payloads`` by worker index).

        The others may still be busy with an earlier one (partial batches):
        each worker has at most one command in flight.

        Raises:
            VecEnvWorkerError: A worker is already known to be dead.
        """
        self.check_alive()
        seq = self.seq + 1
        code = _COMMANDS[command]
        workers = [self.workers[i] for i in payloads]
        self._send_all(seq, self._messages(code, seq, list(payloads.values())), code, workers)

    def ready_among(self, indices: Sequence[int]) -> list[int]:
        """Wait until one of these workers has answered (or died); the indices of all that have.

        Under a timeout, the workers whose answer is late when no other
        answered are killed and returned (their reply reports them dead).
        """
        workers = [self.workers[i] for i in indices]
        ready = [i for i, w in zip(indices, workers, strict=True) if self._answered(w)]
        if ready:
            return ready
        from multiprocessing.connection import wait

        owners: dict[Any, int] = {}
        for i, w in zip(indices, workers, strict=True):
            owners[w.conn] = owners[w.process.sentinel] = i
        deadline = _earliest(workers)
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        answered = wait(list(owners), timeout)
        if answered:
            return sorted({owners[handle] for handle in answered})
        return self._time_out_late(indices)

    async def ready_among_async(self, indices: Sequence[int]) -> list[int]:
        """`ready_among` without blocking the event loop."""
        ready = [i for i in indices if self._answered(self.workers[i])]
        if ready:
            return ready
        await self._readable([self.workers[i] for i in indices])
        return self.ready_among(indices)

    async def _readable(self, workers: Sequence[WorkerHandle]) -> None:
        """Wait, without blocking the loop, until one of ``workers`` answers, dies or is late."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        fds = [fd for w in workers for fd in (w.conn.fileno(), w.process.sentinel)]
        deadline = _earliest(workers)
        try:
            for fd in fds:
                loop.add_reader(fd, wake)
        except NotImplementedError:  # pragma: no cover - e.g. the Windows proactor loop
            for fd in fds:
                loop.remove_reader(fd)
            from multiprocessing.connection import wait

            handles = [h for w in workers for h in (w.conn, w.process.sentinel)]
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            await loop.run_in_executor(None, wait, handles, timeout)
            return
        timer = None if deadline is None else loop.call_at(_loop_time(loop, deadline), wake)
        try:
            await future
        finally:
            if timer is not None:
                timer.cancel()
            for fd in fds:
                loop.remove_reader(fd)

    def _time_out_late(self, indices: Sequence[int]) -> list[int]:
        """Kill the workers of ``indices`` whose answer is late; their indices."""
        now = time.monotonic()
        late = []
        for i in indices:
            w = self.workers[i]
            if w.alive and w.deadline is not None and w.deadline <= now:
                self._time_out(w)
                late.append(i)
        return late

    def _time_out(self, w: WorkerHandle) -> None:
        """End ``w``, which did not answer in time: it is dead from now on."""
        what = "start (build its sub-envs)" if w.command is None else f"answer {_CALLED[w.command]}"
        w.fate = f"did not {what} within step_timeout={self.timeout:g} s and was terminated"
        with contextlib.suppress(Exception):
            w.process.kill()
        self._mark_dead(w)

    def _answered(self, w: WorkerHandle) -> bool:
        return not w.alive or w.received or w.channel.has_message() or bool(w.conn.poll())

    def reply_of(self, index: int, what: str = "") -> Reply:
        """Read worker ``index``'s reply to its last command.

        Raises:
            VecEnvWorkerError: The worker died.
        """
        w = self.workers[index]
        reply = self._recv(w, w.deadline)
        if reply is _DEAD:
            w.reported = True
            raise w.death_error()
        return reply  # type: ignore[no-any-return]

    def send_step_signal(self) -> None:
        """Send a step whose actions are in the shared block (call `prepare` first)."""
        seq = self.seq + 1
        message = _pack_step(_STEP_IN_BLOCK, seq)
        self._send_all(seq, [message] * len(self.workers), Command.STEP_IN_BLOCK)

    def gather_step(self) -> tuple[list[Any] | None, list[Reply] | None]:
        """`gather` for a step sent by `send_step_signal`: ``(infos, None)`` or ``(None, replies)``.

        When every worker answers `STEPPED` (all its results are in the
        shared block and no sub-env froze), the infos of every sub-env, in
        order. Otherwise the replies, as `gather` returns them (and raising
        as it does).
        """
        workers = self.workers
        infos: list[Any] = []
        for k, w in enumerate(workers):
            part = self._stepped(w)
            if part is None:
                replies: list[Reply] = []
                for v in workers[:k]:
                    replies.append(make_reply(_OK, (infos[: v.count], None, None, None, None, ())))
                    del infos[: v.count]
                replies += self._gather_replies(workers[k:])
                self.dirty = False
                return None, replies
            infos += part
        self.dirty = False
        return infos, None

    def _stepped(self, w: WorkerHandle) -> list[Any] | None:
        """``w``'s infos if it answers its last command with `STEPPED`; None: left to `_recv`.

        The common case in few system calls: wait for its pipe (or its death),
        read once. Anything else (a late, dead or pickled answer, a timeout)
        is left to `_recv`: what was read stays in the channel's buffer.
        """
        channel = w.channel
        fd = channel.fd
        poller = w.poller
        if fd is None or poller is None or channel.buffer or w.deadline is not None:
            return None
        if not w.alive:
            return None
        events = poller.poll()  # exposed: a Ctrl-C while waiting acts at once
        if len(events) != 1 or events[0][0] != fd:
            return None  # the sentinel fired too: _recv tells death from a last answer
        return self._take_stepped(w, fd)

    @protected
    def _take_stepped(self, w: WorkerHandle, fd: int) -> list[Any] | None:
        """`_stepped`'s read, protected: bytes read from the pipe are always kept.

        A Ctrl-C between the read and keeping the bytes (as the reply, or in
        the channel's buffer) would lose part of the stream and break its
        framing for every later message.
        """
        channel = w.channel
        try:
            data = _read(fd, _READ_CHUNK)
        except OSError:  # a worker killed mid-answer (ECONNRESET): _recv reports its death
            return None
        if len(data) >= _STEPPED_FRAMED:
            size, tag, seq = _unpack_framed_stepped(data)
            if tag == STEPPED_TAG and seq == w.expect and len(data) == _FRAME_SIZE + size:
                w.received = True
                return _stepped_infos(data, _STEPPED_FRAMED, w.count)
        channel.buffer = data  # empty at EOF: _recv reads the EOF again and reports it
        return None

    @protected
    def _send_all(
        self,
        seq: int,
        messages: list[bytes],
        command: Command,
        workers: list[WorkerHandle] | None = None,
    ) -> None:
        """Send ``messages[i]`` to ``workers[i]`` (default: every worker) as command ``seq``.

        Protected from Ctrl-C: a command reaches every worker it is for, or
        none (one that reached only some would put the sub-envs out of step).
        """
        self.seq = seq
        self.dirty = True
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        for w, message in zip(self.workers if workers is None else workers, messages, strict=True):
            w.expect = seq
            w.received = False
            w.deadline = deadline
            w.command = command
            try:
                w.channel.send(message)
            except OSError:  # broken pipe: the worker is gone; its reply reports it
                pass
            except BaseException:
                w.uncertain = True
                raise

    def gather(self, what: str = "") -> list[Reply]:
        """Wait for every worker's reply to the last command (``what``: unused, see Transport).

        Every reply is read before anything is raised, so the workers are idle
        and in step with the parent afterwards.

        Raises:
            VecEnvWorkerError: A worker died (the first such worker is named).
        """
        replies = self._gather_replies()
        self.dirty = False
        return replies

    def _gather_replies(self, workers: list[WorkerHandle] | None = None) -> list[Reply]:
        """The replies of ``workers`` (default: all) to the last command; see `gather`."""
        replies: list[Reply] = []
        dead: WorkerHandle | None = None
        for w in self.workers if workers is None else workers:
            reply = self._recv(w, w.deadline)
            if reply is None:  # late: ended, and reported as dead
                self._time_out(w)
                reply = _DEAD
            if reply is _DEAD:
                if dead is None:
                    dead = w
                replies.append(make_reply(Status.ERROR, None))
            else:
                replies.append(reply)
        if dead is not None:
            self.dirty = False
            dead.reported = True
            raise dead.death_error()
        return replies

    def _recv(self, w: WorkerHandle, deadline: float | None) -> Any:
        """The reply of ``w`` to its last command, ``_DEAD``, or ``None`` after ``deadline``."""
        if not w.alive:
            return _DEAD
        channel = w.channel
        while True:
            if channel.has_message():
                ready: Any = True
            elif deadline is None:
                ready = self._wait(w, None)
            else:
                ready = self._wait(w, max(0.0, deadline - time.monotonic()))
                if not ready:
                    return None
            if ready is _DEAD:
                self._mark_dead(w)
                return _DEAD
            try:
                data = channel.recv()
            except (EOFError, OSError):
                self._mark_dead(w)
                return _DEAD
            if data[0] == STEPPED_TAG:  # the fixed answer of a step: all in the shared block
                if _unpack_stepped(data, 0)[1] == w.expect:
                    w.received = True
                    infos = _stepped_infos(data, STEPPED.size, w.count)
                    return make_reply(_OK, (infos, None, None, None, None, ()))
                continue
            seq, status, payload = _loads(data)
            if seq == w.expect:
                w.received = True
                return make_reply(status, payload)
            # An answer to a command the parent stopped waiting for: dropped.

    def _wait(self, w: WorkerHandle, timeout: float | None) -> Any:
        """Wait until ``w`` has data (True), died (``_DEAD``) or ``timeout`` passed (False)."""
        poller = w.poller
        if poller is not None:
            events = poller.poll(None if timeout is None else int(timeout * 1000 + 0.999))
            if not events:
                return False
            fd = w.conn.fileno()
            for event_fd, _ in events:
                if event_fd == fd:
                    return True
        else:  # pragma: no cover - platforms without select.poll
            from multiprocessing.connection import wait

            ready = wait([w.conn, w.process.sentinel], timeout)
            if not ready:
                return False
            if w.conn in ready:
                return True
        # Only the sentinel fired: the process exited. A reply it sent first still counts.
        return True if w.channel.has_message() or w.conn.poll() else _DEAD

    def _mark_dead(self, w: WorkerHandle) -> None:
        w.alive = False
        self.broken = True
        w.received = True
        w.process.join(1.0)  # reap it, so its exit code is known

    def drain(self) -> None:
        """Read and drop the replies of an interrupted command; wait for busy workers."""
        stale = [w for w in self.workers if w.alive and (w.uncertain or not w.received)]
        if stale:
            # An interrupt can land between any two bytecodes: before a command
            # was sent, or after its reply was read but before it was counted.
            # So whether a reply is still to come is unknown; a PING with a new
            # number gives one that is certain to come, and the replies read on
            # the way to it are dropped.
            # Under a timeout, a worker keeps the deadline of the command it runs.
            self._ping(stale)
            for w in stale:
                if self._recv(w, w.deadline) is None:
                    self._time_out(w)
        self.dirty = False

    @protected
    def _ping(self, workers: list[WorkerHandle]) -> None:
        seq = self.seq = self.seq + 1
        for w in workers:
            w.uncertain = False
            w.received = False
            w.expect = seq
            with contextlib.suppress(OSError):
                w.channel.send(HEADER.pack(Command.PING, seq))

    async def wait_all(self) -> None:
        """Wait, without blocking the loop, until every worker has answered, died or is late."""
        for w in self.workers:
            if self._answered(w):
                continue
            if w.deadline is not None and w.deadline <= time.monotonic():
                continue  # late already: gather() ends it
            await self._readable([w])  # an answer, its death, or its deadline

    # -- shutdown ----------------------------------------------------------------------

    def close(self, timeout: float) -> BaseException | None:
        """Close every worker's sub-envs, stop the workers and free every resource.

        Waits up to ``timeout`` seconds in total for the workers to close their
        sub-envs and exit, then terminates those still running (with a warning).

        Returns:
            The first failure (a sub-env's ``close()`` raising, or a worker
            whose death was never reported), as a VecEnvWorkerError, or None.
        """
        if self.released:
            return None
        if self.closed:  # an interrupted close: release what it left, without waiting
            self._stop(time.monotonic(), [])
            return None
        self.closed = True
        failure: BaseException | None = None
        late: list[WorkerHandle] = []
        deadline = None if math.isinf(timeout) else time.monotonic() + timeout
        try:
            seq = self.seq = self.seq + 1
            message = HEADER.pack(Command.CLOSE, seq)
            for w in self.workers:
                if not w.alive:
                    continue
                w.expect = seq
                w.received = False
                with contextlib.suppress(OSError):
                    w.channel.send(message)
            for w in self.workers:
                was_alive = w.alive
                reply = self._recv(w, deadline)
                if reply is None:
                    late.append(w)
                elif reply is _DEAD:
                    if failure is None and was_alive and not w.reported:
                        w.reported = True
                        failure = w.death_error()
                elif reply.status == Status.ERROR and failure is None:
                    failure = worker_error(reply.payload, "close()", "ProcVecEnv", "a worker")
        except BaseException as error:
            if not isinstance(error, Exception):  # Ctrl-C: stop the workers now
                deadline = time.monotonic()
            raise
        finally:
            self._stop(deadline, late)
        return failure

    def _stop(self, deadline: float | None, late: list[WorkerHandle]) -> None:
        """Join, then terminate, then kill; close pipes; free the shared block.

        Interrupted (Ctrl-C), it terminates the workers at once and still
        frees everything; what a second interrupt leaves, the next call frees.
        """
        started = [w for w in self.workers if w.started and not w.freed]
        try:
            for w in started:
                w.process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            for w in started:
                if w.process.is_alive():
                    if w not in late:
                        late.append(w)
                    w.process.terminate()
            for w in started:
                w.process.join(1.0)
                if w.process.is_alive():  # pragma: no cover - ignores SIGTERM
                    w.process.kill()
                    w.process.join()
            if late:
                names = ", ".join(w.name for w in late)
                warnings.warn(
                    f"ProcVecEnv.close(): {names} did not finish closing in time and "
                    "was terminated",
                    RuntimeWarning,
                    stacklevel=4,
                )
        except BaseException:
            for w in started:
                with contextlib.suppress(ValueError):  # closed already
                    if w.process.is_alive():
                        w.process.terminate()
            raise
        finally:
            self._release()

    @protected
    def _release(self) -> None:
        """Close the pipes and process objects, free the shared block (protected: all or none)."""
        for w in self.workers:
            if w.freed:
                continue
            w.alive = False
            w.channel.close()
            try:
                w.process.close()
            except ValueError:  # still running (terminated, not yet gone): the next close ends it
                continue
            w.freed = True
        self._free_block()
        self.released = all(w.freed or not w.started for w in self.workers)
        if self.released and self.reaper is not None:
            self.reaper.stop()
            self.reaper = None

    def _free_block(self) -> None:
        if self.views is not None:
            self.views.release()
            self.views = None
        shm, self.shm = self.shm, None
        if shm is not None:
            # A view that escaped keeps the mapping alive; unlinking still frees the block.
            with contextlib.suppress(BufferError):
                shm.close()
            shm.unlink()


_COMMANDS = {
    "step": Command.STEP,
    "step_some": Command.STEP_SOME,
    "reset": Command.RESET,
    "call": Command.CALL,
    "get_attr": Command.GET_ATTR,
    "set_attr": Command.SET_ATTR,
}

_CALLED = {
    Command.STEP: "step()",
    Command.STEP_IN_BLOCK: "step()",
    Command.STEP_SOME: "a step sent by send()",
    Command.RESET: "reset()",
    Command.CALL: "call()",
    Command.GET_ATTR: "get_attr()",
    Command.SET_ATTR: "set_attr()",
    Command.ATTACH: "the shared-memory set-up",
    Command.PING: "a ping",
    Command.CLOSE: "close()",
}


def _stepped_infos(data: bytes, start: int, count: int) -> list[Any]:
    """The infos of a `STEPPED` answer whose fixed part ends at ``start``."""
    if len(data) == start:  # every info is an empty dict
        return [{} for _ in range(count)]
    infos: list[Any] = _loads(data[start:])
    return infos


def _earliest(workers: Sequence[WorkerHandle]) -> float | None:
    """The earliest deadline among ``workers`` (``None``: no timeout)."""
    deadlines = [w.deadline for w in workers if w.deadline is not None]
    return min(deadlines) if deadlines else None


def _loop_time(loop: asyncio.AbstractEventLoop, deadline: float) -> float:
    """``deadline`` (on `time.monotonic`) on ``loop``'s clock."""
    return loop.time() + (deadline - time.monotonic())


def close_quietly(pool: WorkerPool, timeout: float) -> None:
    """Close ``pool`` from a finaliser: nothing is raised."""
    with contextlib.suppress(BaseException):  # pragma: no cover - best effort at interpreter exit
        pool.close(timeout)
