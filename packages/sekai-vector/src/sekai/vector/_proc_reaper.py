"""A small process that kills a ProcVecEnv's workers when the process that created them dies.

Each worker also watches its parent from a thread (``_proc_worker``), but a
thread needs the GIL, and a sub-env in a long C loop holds it: until the loop
ends, nothing in the worker runs. Nor can the kernel help in every case:
``PR_SET_PDEATHSIG`` follows the worker's *parent*, which under
``forkserver`` is the fork server (kept alive by its own children), and it
fires when the *thread* that started the worker ends, not the process.

So on Linux a `Reaper` is started beside the workers: a bare interpreter
(``-I -S``, standard library only) in its own session, so a Ctrl-C at the
terminal does not reach it. It holds a pidfd of the creating process and one
per worker (told over its stdin as workers start), waits for the creator to
exit, then sends SIGKILL to every worker. Pidfds make this safe against pid
reuse: a worker that exited long ago is never confused with a newer process.
Once the workers are gone, the fork server and the resource tracker see
their last client go and exit, and the tracker unlinks the shared block.

When the vector env closes, the reaper is killed (after the workers are
joined, so it guards them to the end).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from multiprocessing import spawn
from typing import IO, cast

__all__ = ["SUPPORTED", "Reaper"]

SUPPORTED = hasattr(os, "pidfd_open")
"""Whether this platform has pidfds (Linux 5.3+), which the reaper needs."""

# Runs in the reaper process. It knows nothing of sekai: it reads worker pids,
# one per line, and waits for the creating process to exit.
_SCRIPT = """
import os, select, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
creator = int(sys.argv[1])
try:
    watched = os.pidfd_open(creator)
except ProcessLookupError:
    watched = None
workers = []
poller = select.poll()
if watched is not None and os.getppid() == creator:
    poller.register(watched, select.POLLIN)
    poller.register(0, select.POLLIN)
    pending = b""
    while True:
        ready = dict(poller.poll())
        if watched in ready:
            break
        if 0 in ready:
            chunk = os.read(0, 4096)
            if not chunk:
                poller.unregister(0)
                continue
            *lines, pending = (pending + chunk).split(b"\\n")
            for line in lines:
                try:
                    workers.append(os.pidfd_open(int(line)))
                except ProcessLookupError:
                    pass
for fd in workers:
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except ProcessLookupError:
        pass
"""


class Reaper:
    """The reaper process of one vector env, from the creating side."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [spawn.get_executable(), "-I", "-S", "-c", _SCRIPT, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._stdin = cast("IO[bytes]", self._process.stdin)  # stdin=PIPE

    def guard(self, pid: int) -> None:
        """Have the reaper kill process ``pid`` if this process dies first."""
        # A reaper someone killed leaves the workers' own watchdogs in charge.
        with contextlib.suppress(BrokenPipeError):
            self._stdin.write(b"%d\n" % pid)
            self._stdin.flush()

    def stop(self) -> None:
        """End the reaper without touching the workers (they are closed already)."""
        self._process.kill()
        self._process.wait()
        with contextlib.suppress(BrokenPipeError):
            self._stdin.close()
