"""Fixtures for the ProcVecEnv tests.

The VecEnv contract kit runs against the ProcVecEnv configurations of
:data:`PROC_BACKENDS` (in ``test_proc_contract.py``): shared memory or pickled
observations, one worker per sub-env or several sub-envs per worker, ``fork``
(fast to start) and the default ``forkserver``.

Test modules and conftests are not importable by name in a worker process,
so they are registered with cloudpickle to travel by value.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace
from typing import Any

import cloudpickle
import pytest

from sekai.vector import ProcVecEnv

# name -> ProcVecEnv keyword arguments
PROC_BACKENDS: dict[str, dict[str, Any]] = {
    "proc-shm": {"context": "fork"},
    "proc-pickle": {"context": "fork", "shared_memory": False},
    "proc-grouped": {"context": "fork", "num_workers": 2},
    "proc-forkserver": {"context": None, "num_workers": 1},
}
FORK = "fork" in multiprocessing.get_all_start_methods()

if not FORK:  # pragma: no cover - Windows
    for _kwargs in PROC_BACKENDS.values():
        _kwargs["context"] = None


def pickle_by_value(*objects: Any) -> None:
    """Ship the modules defining ``objects`` by value to worker processes."""
    for obj in objects:
        module = sys.modules.get(getattr(obj, "__module__", ""))
        if module is not None and module.__name__ not in ("__main__", "builtins"):
            with contextlib.suppress(ValueError):  # not a registrable module
                cloudpickle.register_pickle_by_value(module)


def shm_segments() -> set[str]:
    """Shared-memory segments this process's vector envs created (by name prefix)."""
    prefix = f"sekai_{os.getpid()}_"
    try:
        return {name for name in os.listdir("/dev/shm") if name.startswith(prefix)}
    except FileNotFoundError:  # pragma: no cover - no /dev/shm on this platform
        return set()


def assert_released(pids: Sequence[int] = ()) -> None:
    """No child process of this test process is alive and no segment remains."""
    assert multiprocessing.active_children() == []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:  # pragma: no cover - pid reused by another user
            continue
        raise AssertionError(f"worker process {pid} is still alive")
    assert shm_segments() == set()


def worker_pids(vec: ProcVecEnv[Any, Any]) -> list[int]:
    """The pids of a ProcVecEnv's workers."""
    return [w.process.pid for w in vec._pool.workers]


@pytest.fixture
def leaks() -> SimpleNamespace:
    """``assert_released(pids=())`` and ``worker_pids(vec)`` (test modules cannot import them)."""
    return SimpleNamespace(assert_released=assert_released, worker_pids=worker_pids)


@pytest.fixture(autouse=True)
def _by_value(kit: Any, request: pytest.FixtureRequest) -> None:
    pickle_by_value(kit.CountingEnv, request.function)


@pytest.fixture(autouse=True)
def _no_leaks() -> Iterator[None]:
    """Every test leaves no worker process and no shared-memory segment behind."""
    yield
    assert_released()


@pytest.fixture
def proc() -> Iterator[Callable[..., ProcVecEnv[Any, Any]]]:
    """Build ProcVecEnvs (``fork`` by default, for speed); all closed after the test."""
    built: list[ProcVecEnv[Any, Any]] = []

    def make(env_fns: Sequence[Callable[[], Any]], **kwargs: Any) -> ProcVecEnv[Any, Any]:
        kwargs.setdefault("context", "fork" if FORK else None)
        vec: ProcVecEnv[Any, Any] = ProcVecEnv(env_fns, **kwargs)
        built.append(vec)
        return vec

    yield make
    for vec in built:
        vec.close()
