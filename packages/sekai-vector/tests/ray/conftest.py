"""Fixtures for the RayVecEnv tests: one local Ray cluster for the whole test session.

The cluster (2 CPUs, no dashboard) starts with the first test of this
directory and is shut down when the session ends; the shutdown must leave no
Ray process behind. RayVecEnvs built here reserve no CPU per actor
(``num_cpus=0``), so tests holding several of them never wait for CPUs.

The VecEnv contract kit runs against RayVecEnv in ``test_ray_contract.py``
(with the ``ray_vec`` fixture). Test modules and conftests are not importable by name in
a Ray worker, so they are registered with cloudpickle to travel by value, as
for ProcVecEnv.

Ray is imported inside the fixtures only: without Ray, the modules of this
directory skip themselves (``pytest.importorskip("ray")``).
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

# Ray (>= 2.47) runs workers through `uv run` when an ancestor of the driver is
# `uv run` (as under `uv run nox` or `uv run pytest`): it uploads the project and
# syncs an environment for every worker process, which takes minutes here. The
# workers use this interpreter instead. Read when Ray is imported: set it first.
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")


def pickle_by_value(*objects: Any) -> None:
    """Ship the modules defining ``objects`` by value to Ray workers."""
    import cloudpickle

    for obj in objects:
        module = sys.modules.get(getattr(obj, "__module__", ""))
        if module is not None and module.__name__ not in ("__main__", "builtins"):
            with contextlib.suppress(ValueError):  # not a registrable module
                cloudpickle.register_pickle_by_value(module)


def _descendants(pid: int) -> set[int]:
    """The pids of every process descending from ``pid`` (Linux: read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process exited meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _wait_gone(pids: set[int], timeout: float) -> set[int]:
    """Wait up to ``timeout`` seconds for ``pids`` to exit; return those still running.

    Waits on pidfds (readable once the process has exited), so a slow exit
    under load is waited for exactly as long as it takes.
    """
    fds: dict[int, int] = {}
    for pid in _alive(pids):
        with contextlib.suppress(ProcessLookupError):
            fds[os.pidfd_open(pid)] = pid
    try:
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        left = set(fds)
        deadline = time.monotonic() + timeout
        while left and (remaining := deadline - time.monotonic()) > 0:
            for fd, _ in poller.poll(remaining * 1000):
                poller.unregister(fd)
                left.discard(fd)
        return _alive({fds[fd] for fd in left})
    finally:
        for fd in fds:
            os.close(fd)


def _describe(pids: set[int]) -> str:
    lines = []
    for pid in sorted(pids):
        with contextlib.suppress(OSError):
            command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ")
            lines.append(f"{pid}: {command.decode(errors='replace')[:120]}")
    return "\n".join(lines)


@pytest.fixture(scope="session", autouse=True)
def ray_cluster() -> Iterator[Any]:
    """A local Ray cluster for the session; no Ray process may survive its shutdown."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("cloudpickle")
    from ray._private import ray_constants

    # Read by ray.init; the environment variable above works only if Ray was not
    # imported before this conftest.
    ray_constants.RAY_ENABLE_UV_RUN_RUNTIME_ENV = False
    if ray.is_initialized():  # pragma: no cover - a session started elsewhere is left alone
        yield ray
        return
    linux = Path("/proc/self/stat").exists()
    before = _descendants(os.getpid()) if linux else set()
    # A custom resource lets tests check that actors get the resources they ask for.
    ray.init(num_cpus=2, resources={"sekai_test": 4}, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        started = (_descendants(os.getpid()) - before) if linux else set()
        ray.shutdown()
        # ray.shutdown() signals its processes and returns; under load some take
        # seconds to exit. Only one still running after the grace period is a leak.
        left = _wait_gone(started, timeout=60.0) if started else set()
        assert not left, f"Ray processes outlived ray.shutdown() by 60 s:\n{_describe(left)}"


@pytest.fixture(autouse=True)
def _by_value(kit: Any, request: pytest.FixtureRequest) -> None:
    pickle_by_value(kit.CountingEnv, request.function)


@pytest.fixture
def ray_vec() -> Iterator[Callable[..., Any]]:
    """Build RayVecEnvs (``num_cpus=0``); after the test, all are closed and their actors dead."""
    from ray.exceptions import RayActorError

    from sekai.vector import RayVecEnv

    built: list[Any] = []

    def make(env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> Any:
        kwargs.setdefault("num_cpus", 0)
        vec = RayVecEnv(env_fns, **kwargs)
        built.append(vec)
        return vec

    yield make
    import ray

    for vec in built:
        handles = vec.actors
        with contextlib.suppress(Exception):  # a test may leave a vector env that fails to close
            vec.close()
        for handle in handles:
            with pytest.raises(RayActorError):
                ray.get(handle.ping.remote())


@pytest.fixture
def leaks() -> SimpleNamespace:
    """``assert_dead(handles)``: every actor handle answers with RayActorError (it was killed)."""

    def assert_dead(handles: Sequence[Any]) -> None:
        import ray
        from ray.exceptions import RayActorError

        for handle in handles:
            with pytest.raises(RayActorError):
                ray.get(handle.ping.remote())

    return SimpleNamespace(assert_dead=assert_dead)
