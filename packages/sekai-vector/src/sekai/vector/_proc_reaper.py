"""A small process that kills a ProcVecEnv's workers when the process that created them dies.

Each worker also watches its parent from a thread (``_proc_worker``), but a
thread needs the GIL, and a sub-env in a long C loop holds it: until the loop
ends, nothing in the worker runs. Nor can the kernel help in every case:
``PR_SET_PDEATHSIG`` follows the worker's *parent*, which under
``forkserver`` is the fork server (kept alive by its own children), and it
fires when the *thread* that started the worker ends, not the process.

So on Linux a `Reaper` is started beside the workers: a bare interpreter
(``-I -S``, standard library only) in its own session, so a Ctrl-C at the
terminal does not reach it. It is handed pidfds, never pids: one of the
creating process when it starts (so it cannot miss the creator's death,
however early), and one per worker, opened by the creator as soon as the
worker has started and passed over a socket. It acknowledges each pidfd, and
`Reaper.confirm` waits for that, so a vector env is guarded once it is built.
When the creator exits, the reaper sends SIGKILL to every worker and exits.
Once the workers are gone, the fork server and the resource tracker see
their last client go and exit, and the tracker unlinks the shared block.

When the vector env closes, the reaper is killed (after the workers are
joined, so it guards them to the end). Where pidfds do not exist (macOS,
Windows, Linux before 5.3), in a frozen application (whose executable is not
a Python interpreter), or if the reaper cannot start, there is none and the
workers' own watchdogs are all there is.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import warnings
from multiprocessing import spawn

__all__ = ["Reaper", "start_reaper"]

# Runs in the reaper process. It knows nothing of sekai: argv holds the fd of
# the creator's pidfd and of its end of the socket the workers' pidfds come on.
_SCRIPT = """
import os, select, signal, socket, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
creator = int(sys.argv[1])
channel = socket.socket(fileno=int(sys.argv[2]))
channel.setblocking(False)
workers = []

def take():
    # Every pidfd waiting on the channel; False once the creator closed it.
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(channel, 1, 1)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        if not data and not fds:
            return False
        workers.extend(fds)
        try:
            channel.send(b"k")
        except OSError:
            pass

poller = select.poll()
poller.register(creator, select.POLLIN)
poller.register(channel, select.POLLIN)
while True:
    ready = dict(poller.poll())
    if creator in ready:
        break
    if not take():
        poller.unregister(channel)
take()
for fd in workers:
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass
"""


class Reaper:
    """The reaper process of one vector env, seen from the creating process.

    Args:
        creator: A pidfd of this process, handed to the reaper (and closed here).
    """

    def __init__(self, creator: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [
                    spawn.get_executable(),
                    "-I",
                    "-S",
                    "-c",
                    _SCRIPT,
                    str(creator),
                    str(theirs.fileno()),
                ],
                pass_fds=(creator, theirs.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._channel = ours
        self._sent = 0

    def guard(self, pid: int) -> None:
        """Have the reaper kill process ``pid`` if this process dies first."""
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:  # gone already: nothing to guard
            return
        try:
            socket.send_fds(self._channel, [b"p"], [pidfd])
            self._sent += 1
        except OSError:  # a reaper someone killed: the workers' watchdogs remain
            pass
        finally:
            os.close(pidfd)

    def confirm(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until the reaper holds every pidfd sent."""
        self._channel.settimeout(timeout)
        try:
            while self._sent:
                answer = self._channel.recv(64)
                if not answer:
                    return False
                self._sent -= len(answer)
        except OSError:  # timed out, or the reaper is gone
            return False
        return True

    def stop(self) -> None:
        """End the reaper without touching the workers (they are closed already)."""
        self._process.kill()
        self._process.wait()
        self._channel.close()


def start_reaper() -> Reaper | None:
    """A reaper for this process's next workers, or None where there can be none."""
    if not hasattr(os, "pidfd_open") or getattr(sys, "frozen", False):
        return None
    try:
        creator = os.pidfd_open(os.getpid())
    except OSError:  # no pidfds in this kernel or sandbox
        return None
    try:
        return Reaper(creator)
    except OSError as error:
        warnings.warn(
            f"ProcVecEnv: could not start the process that ends the workers if this "
            f"process dies ({error}); they still end when it exits while they run Python",
            RuntimeWarning,
            stacklevel=4,
        )
        return None
    finally:
        os.close(creator)
