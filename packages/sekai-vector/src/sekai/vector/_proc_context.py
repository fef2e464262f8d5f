"""Choosing the start method of [`ProcVecEnv`][sekai.vector.ProcVecEnv] workers.

The default is ``"forkserver"`` (``"spawn"`` on Windows). numpy, cloudpickle
and sekai are preloaded into the fork server, and so is the main module (see
`_ensure_forkserver`), so that each worker forks with them loaded
instead of importing them again. The server also lists the plugin entry points
of the global registry once (`sekai.vector._proc_preload`), so that a factory
calling ``sekai.make`` in a worker does not scan the installed distributions
again; with ``"fork"``, the creating process lists them before forking, for
the same reason.

A fork server that stopped answering (killed, or reaped by code that waits
for any child) is replaced by `start_process` instead of failing every later
start.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["PRELOAD_VARIABLE", "default_context", "get_context", "start_process"]

#: The environment variable through which a starting fork server learns the
#: modules `get_context` was asked to preload (comma-separated); the server
#: removes it, so its workers never see it.
PRELOAD_VARIABLE = "_SEKAI_PROC_PRELOAD"

_PRELOAD = (
    "__main__",
    "numpy",
    "cloudpickle",
    "sekai.core",
    "sekai.core.order_enforcing",
    "sekai.spaces",
    "sekai.vector",
    "sekai.vector._proc_worker",
    # What a worker's first ``sekai.make(id)`` needs: the registry with the
    # plugin entry points listed (not loaded), and more (see the module).
    "sekai.registry",
    "sekai.vector._proc_preload",
)


def default_context() -> str:
    """The default start method: ``"forkserver"``, or ``"spawn"`` where it does not exist."""
    return "spawn" if sys.platform == "win32" else "forkserver"


def get_context(
    method: str | None, preload: Iterable[str] = ()
) -> multiprocessing.context.BaseContext:
    """The multiprocessing context for ``method``, with sekai preloaded into a forkserver.

    ``preload`` names further modules the workers will import (e.g. the module
    of a registered env's entry point): a fork server started by this call
    imports them once, as `sekai.vector._proc_preload` describes; one already
    running is left as it is.

    Raises:
        ValueError: ``method`` is not a start method of this platform.
    """
    if method is None:
        method = default_context()
    available = multiprocessing.get_all_start_methods()
    if not isinstance(method, str) or method not in available:
        raise ValueError(
            f"ProcVecEnv: context must be None or one of {available!r}, got {method!r}"
        )
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        # Loaded once in the server instead of once per worker; only effective
        # before the server starts, which is when it matters.
        from multiprocessing import forkserver

        server = getattr(forkserver, "_forkserver", None)
        current = list(getattr(server, "_preload_modules", None) or [])
        wanted = current + [name for name in _PRELOAD if name not in current]
        if wanted != current:
            context.set_forkserver_preload(wanted)
        _ensure_forkserver(tuple(preload))
    elif method == "fork":
        _list_plugins_before_forking()
    return context


def _list_plugins_before_forking() -> None:
    """List the global registry's plugin entry points here, if it has not, for forked workers.

    A forked worker starts with this process's memory: a factory calling
    ``sekai.make`` in it then finds the listing made here (as workers of the
    fork server find the server's) instead of importing `importlib.metadata`
    and scanning every installed distribution again, once per worker. A
    registry that listed them already passes its own listing on. Nothing of a
    plugin is imported; a failure to read the metadata is left for the
    worker's lookup to meet and report, as before. This process's own first
    lookup then uses the same listing, read when the first such vector env
    was built.
    """
    from sekai.registry import _plugins
    from sekai.registry.env_registry import default_registry

    group = default_registry._entry_point_group
    if (
        group is None
        or default_registry._pending_entry_points is not None
        or group in _plugins._PRELOADED  # listed for an earlier vector env, not yet used
    ):
        return
    with contextlib.suppress(Exception):
        _plugins.preload_entry_points(group)


def _ensure_forkserver(modules: tuple[str, ...] = ()) -> None:
    """Start the forkserver so that it really preloads the main module.

    Up to Python 3.12 the forkserver is handed the main script's path under a
    key it does not read, so instead of importing ``__main__`` once, every
    worker imports it again (with everything it imports). Handing it the path
    under the name it reads makes workers fork with the main module loaded,
    as the forkserver intends.

    ``modules`` reach the new server through `PRELOAD_VARIABLE`, set only
    while it starts.
    """
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    if server is None or getattr(server, "_forkserver_pid", None) is not None:
        return  # running already (or an unknown implementation): leave it alone
    with _preload_variable(modules):
        _start_forkserver()


@contextlib.contextmanager
def _preload_variable(modules: tuple[str, ...]) -> Any:
    """Hand ``modules`` to a fork server started inside the block (it inherits the environment)."""
    if not modules:
        yield
        return
    previous = os.environ.get(PRELOAD_VARIABLE)
    try:
        os.environ[PRELOAD_VARIABLE] = ",".join(modules)
        yield
    finally:
        if previous is None:
            os.environ.pop(PRELOAD_VARIABLE, None)
        else:
            os.environ[PRELOAD_VARIABLE] = previous


def _start_forkserver() -> None:
    import inspect
    from multiprocessing import forkserver, spawn

    try:
        reads_main_path = "main_path" in inspect.signature(forkserver.main).parameters
    except (AttributeError, TypeError, ValueError):  # pragma: no cover
        reads_main_path = False
    original = spawn.get_preparation_data
    if not reads_main_path:  # pragma: no cover - other Python versions
        forkserver.ensure_running()
        return

    def preparation_data(name: str) -> dict[str, Any]:
        data: dict[str, Any] = original(name)
        if "init_main_from_path" in data and "main_path" not in data:
            data["main_path"] = data["init_main_from_path"]
        return data

    spawn.get_preparation_data = preparation_data
    try:
        forkserver.ensure_running()
    finally:
        spawn.get_preparation_data = original


# How a dead or unreachable fork server shows when a process is started: its
# pid was reaped elsewhere (ChildProcessError), its socket is closed or gone.
_SERVER_GONE = (ChildProcessError, ConnectionRefusedError, FileNotFoundError)


def start_process(process: Any, context: multiprocessing.context.BaseContext) -> None:
    """Start ``process``; under ``forkserver``, replace a server that no longer answers.

    Raises:
        ChildProcessError, ConnectionRefusedError, FileNotFoundError: The new
            fork server could not start the process either.
    """
    try:
        process.start()
    except _SERVER_GONE:
        if context.get_start_method() != "forkserver" or not _forget_forkserver():
            raise
        get_context("forkserver")  # starts it, with sekai and the main module preloaded
        process.start()


def _forget_forkserver() -> bool:
    """Drop this process's record of its fork server, so that the next start makes a new one.

    A server that still runs is left running: the workers it started report
    their exit through it, so ending it would make every live vector env's
    workers look dead. Without this process's end of its liveness pipe it
    exits once its last worker has. Returns False for a fork server
    implementation this code does not know.
    """
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    if server is None or not hasattr(server, "_forkserver_pid"):  # pragma: no cover
        return False
    pid = server._forkserver_pid
    if pid is not None:
        with contextlib.suppress(ChildProcessError):  # reaped elsewhere already
            os.waitpid(pid, os.WNOHANG)  # a dead one is reaped; a live one stays
    alive_fd = getattr(server, "_forkserver_alive_fd", None)
    if alive_fd is not None:
        with contextlib.suppress(OSError):
            os.close(alive_fd)
    server._forkserver_address = None
    server._forkserver_alive_fd = None
    server._forkserver_pid = None
    return True
