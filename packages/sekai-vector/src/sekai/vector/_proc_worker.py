"""The loop a [`ProcVecEnv`][sekai.vector.ProcVecEnv] worker process runs.

A worker owns a contiguous group of sub-envs (a
`sekai.vector._env_group.SubEnvGroup`, which a RayVecEnv actor runs too): it
builds them, reports `Started`, then answers commands (see
`sekai.vector._proc_protocol`) until CLOSE or until the parent is gone.
Steps follow the per-sub-env rule of every vector env (`end_episode`); with
shared memory, observations, rewards and flags are written straight into the
block and only the infos travel back; when no sub-env froze, the answer is
the fixed binary `STEPPED`, followed by the pickled infos only when one is
not empty. A sub-env that raises does not stop the others of the worker: they
take their step too, and the first failure is reported with the index of the
sub-env that raised it.

A worker dies with the process that created the vector env: a watchdog
thread sees the parent's end of the pipe close (the parent exited, however)
and ends the worker. A thread needs the GIL, so on Linux a reaper process
(`sekai.vector._proc_reaper`) also kills the workers when their creator
dies, even while a sub-env holds the GIL in C code.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from typing import Any

from sekai.vector._autoreset import rewards_array
from sekai.vector._env_group import (
    SubEnvFailure,
    SubEnvGroup,
    build_group,
    failure_reply,
    started,
)
from sekai.vector._obs_batch import make_obs_batcher
from sekai.vector._proc_channel import Channel
from sekai.vector._proc_protocol import HEADER, STEPPED, STEPPED_TAG, Command
from sekai.vector._proc_shm import BlockLayout, BlockViews
from sekai.vector._replies import Status

__all__ = ["worker_main"]

_HIGHEST = pickle.HIGHEST_PROTOCOL
_OK = Status.OK.value
_dumps = pickle.dumps
_loads = pickle.loads
_pack_stepped = STEPPED.pack
_STEPPED: Any = object()  # what a step returns when its answer is STEPPED


class _Worker(SubEnvGroup):
    """The sub-envs of one worker process, its shared-memory views and its command handlers."""

    def __init__(self, envs: list[Any], first: int, autoreset: bool, cloudpickle: Any) -> None:
        super().__init__(envs, first, autoreset, cloudpickle)
        self.views: BlockViews | None = None
        self.shm: Any = None
        self.block_actions: Any = None  # this worker's rows of the actions in the block
        self.stepped_infos: list[Any] = []  # the infos of a step that answers STEPPED
        self.handlers: dict[int, Any] = {
            Command.STEP: self.step,
            Command.STEP_IN_BLOCK: lambda _: self.step(self.block_actions),
            Command.STEP_SOME: self.step_some,
            Command.RESET: self.reset,
            Command.CALL: self.call,
            Command.GET_ATTR: self.get_attr,
            Command.SET_ATTR: self.set_attr,
            Command.ATTACH: self.attach,
            Command.PING: lambda _: None,
            Command.CLOSE: self.close,
        }

    # -- shared memory ------------------------------------------------------------------

    def attach(self, payload: tuple[str, BlockLayout]) -> None:
        name, layout = payload
        self.shm = shm = _open_block(name)
        self.views = views = BlockViews(layout, shm.buf)
        if views.actions is not None:
            self.block_actions = views.actions[self.first : self.first + self.count]
        self.obs_block = views.observations
        self.write_obs = make_obs_batcher(self.envs[0].observation_space, layout.num_envs).write

    def detach(self) -> None:
        self.block_actions = None
        self.write_obs = None
        self.obs_block = None
        if self.views is not None:
            self.views.release()
            self.views = None
        if self.shm is not None:
            # A view that escaped keeps the mapping until the process ends.
            with contextlib.suppress(BufferError):
                self.shm.close()
            self.shm = None

    # -- commands ------------------------------------------------------------------------

    def step(self, actions: Any) -> Any:
        """Step the sub-envs; the `Batch` goes back as a plain tuple (cheaper to pickle).

        With shared memory, when no sub-env froze, returns `_STEPPED` and
        keeps the infos in ``stepped_infos``: the rest is in the block.
        """
        infos, observations, rewards, terminated, truncated, frozen_now = self.step_rows(
            self.all_rows, self.split(actions)
        )
        views = self.views
        if views is None:
            return (infos, observations, rewards, terminated, truncated, frozen_now)
        first = self.first
        if self.count == 1:  # scalar writes are cheaper than converting lists
            reward = rewards[0]
            if reward.__class__ is not float:  # checked as every backend checks rewards
                reward = rewards_array(rewards, (first,))[0]
            views.rewards[first] = reward
            views.terminated[first] = terminated[0]
            views.truncated[first] = truncated[0]
        else:
            end = first + self.count
            views.rewards[first:end] = rewards_array(rewards, range(first, end))
            views.terminated[first:end] = terminated
            views.truncated[first:end] = truncated
        if not frozen_now:
            self.stepped_infos = infos
            return _STEPPED
        return (infos, None, None, None, None, frozen_now)

    def close(self, _: object = None) -> None:
        """Close every sub-env and unmap the block; raise the first failure afterwards."""
        try:
            super().close()
        finally:
            self.detach()


def _open_block(name: str) -> Any:
    """Map the parent's shared block without registering it with a resource tracker.

    The parent created the block and alone unlinks it (its resource tracker
    does so if it is killed); a worker registering it too would make a
    tracker report it as leaked, or unlink it, when the worker exits.
    """
    from multiprocessing import resource_tracker, shared_memory

    if sys.version_info >= (3, 13):
        return shared_memory.SharedMemory(name, track=False)  # type: ignore[call-arg, unused-ignore]
    register = resource_tracker.register
    resource_tracker.register = _register_nothing  # type: ignore[assignment]
    try:
        return shared_memory.SharedMemory(name)
    finally:
        resource_tracker.register = register


def _register_nothing(name: str, rtype: str) -> None:
    return None


def worker_main(
    conn: Any,
    env_fns_blob: bytes | list[Any],
    first: int,
    autoreset: bool,
    inherited: list[Any],
) -> None:
    """Run one worker: build the sub-envs, then serve commands until CLOSE or EOF.

    Args:
        conn: This worker's end of its pipe.
        env_fns_blob: The cloudpickled list of this worker's env factories
            (or, for a forked worker, which inherits them, the list itself).
        first: Index (in the vector env) of the worker's first sub-env.
        autoreset: The vector env's autoreset flag.
        inherited: Parent-side connections this process inherited through
            ``fork``; closed at once so only the parent holds them.
    """
    # Ctrl-C is the parent's to handle: it decides what happens to the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # the parent blocks it while starting workers
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    for other in inherited:
        other.close()
    _die_with_parent(conn)
    import cloudpickle

    channel = Channel(conn)
    try:
        try:
            env_fns = env_fns_blob if isinstance(env_fns_blob, list) else _loads(env_fns_blob)
            envs = build_group(env_fns, first, "ProcVecEnv")
            ready = cloudpickle.dumps((0, _OK, started(envs, first)), _HIGHEST)
        except BaseException as error:
            status, payload = failure_reply(error, None, first, cloudpickle)
            channel.send(_dumps((0, status, payload), _HIGHEST))
            return
        channel.send(ready)
    except OSError:  # the parent is gone already (e.g. Ctrl-C while it was starting workers)
        conn.close()
        return
    worker = _Worker(envs, first, autoreset, cloudpickle)
    try:
        _serve(worker, channel)
    finally:
        worker.detach()
        conn.close()


def _die_with_parent(conn: Any) -> None:
    """End this worker as soon as the process that created the vector env is gone.

    A daemon thread waits for the parent's end of the pipe to close (only the
    parent holds it, so it closes when the parent exits, however it exits)
    and ends the process at once, even while a sub-env hangs outside the GIL;
    the reaper covers a sub-env that holds it.
    """
    threading.Thread(
        target=_watch_parent, args=(conn,), name="sekai-parent-watchdog", daemon=True
    ).start()


def _watch_parent(conn: Any) -> None:
    """Wait until the parent's end of ``conn`` closes, then end this process."""
    import select

    poll = getattr(select, "poll", None)
    if poll is not None:
        poller = poll()
        poller.register(conn.fileno(), 0)  # hang-up and errors only: data is the worker's
        gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
        while not any(event & gone for _, event in poller.poll()):
            pass
    else:  # pragma: no cover - Windows: wait on the parent process itself
        import multiprocessing

        parent = multiprocessing.parent_process()
        if parent is None:
            return
        parent.join()
    os._exit(1)


def _serve(worker: _Worker, channel: Channel) -> None:
    recv, send = channel.recv, channel.send
    handlers = worker.handlers
    header_size = HEADER.size
    while True:
        try:
            message = recv()
        except (EOFError, OSError):  # the parent is gone
            with contextlib.suppress(BaseException):
                worker.close()
            return
        command, seq = HEADER.unpack_from(message)
        worker.current = 0
        worker.rows = worker.all_rows
        try:
            payload = _loads(message[header_size:]) if len(message) > header_size else None
            result = handlers[command](payload)
        except BaseException as error:
            reply = _failure(seq, error, worker)
        else:
            reply = _stepped(seq, worker) if result is _STEPPED else _pack(seq, result, worker)
        try:
            send(reply)
        except OSError:  # the parent is gone
            with contextlib.suppress(BaseException):
                worker.close()
            return
        if command == Command.CLOSE:
            return


def _stepped(seq: int, worker: _Worker) -> bytes:
    """The `STEPPED` answer, with the pickled infos unless all are empty dicts."""
    infos = worker.stepped_infos
    worker.stepped_infos = []
    head = _pack_stepped(STEPPED_TAG, seq)
    for info in infos:
        if info or info.__class__ is not dict:
            break
    else:
        return head
    with contextlib.suppress(Exception):
        return head + _dumps(infos, _HIGHEST)
    return _pack(seq, (infos, None, None, None, None, ()), worker)  # cloudpickle, or a failure


def _failure(seq: int, error: BaseException, worker: _Worker) -> bytes:
    status, payload = failure_reply(error, worker, worker.first, worker.cloudpickle)
    return _dumps((seq, status, payload), _HIGHEST)


def _pack(seq: int, result: Any, worker: _Worker) -> bytes:
    """Pickle an OK reply; cloudpickle when plain pickle cannot (lambdas in infos, ...)."""
    with contextlib.suppress(Exception):
        return _dumps((seq, _OK, result), _HIGHEST)
    try:
        blob: bytes = worker.cloudpickle.dumps((seq, _OK, result), _HIGHEST)
    except Exception as error:
        return _failure(seq, SubEnvFailure(worker.blame_unpicklable(result), error), worker)
    return blob
