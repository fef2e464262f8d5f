"""Constructing a ProcVecEnv whose factories call ``sekai.make``: plugins without rescans.

A worker forked from the fork server starts with the plugin entry points of the
global registry already listed there, so a factory that looks up an id does not
read every installed distribution's metadata again. The script runs in a
subprocess, with a real plugin distribution (an ``entry_points.txt`` on
``sys.path``), so that the fork server, the spawned and the forked workers all
see the installed metadata as a user's would.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = """
import sekai.registry

def register():
    sekai.registry.register("PreloadProbe-v0", entry_point="probe_envs:ProbeEnv")
"""

ENVS = """
import os
import numpy as np
import sekai.registry
from sekai.core import Env, ResetResult, StepResult
from sekai.registry import _plugins
from sekai.spaces import Box, Discrete

LOG = os.environ["PROBE_LOG"]

class ProbeEnv(Env):
    observation_space = Box(0, 1, (2,), np.float32)
    action_space = Discrete(2)

    def reset(self, *, seed=None, options=None):
        return ResetResult(np.zeros(2, np.float32), {})

    def step(self, action):
        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {})

def make_probe():
    # Counts this worker's reads of the installed metadata while it looks the id up.
    read = _plugins._read_entry_points
    reads = []
    def counting(group):
        reads.append(group)
        return read(group)
    _plugins._read_entry_points = counting
    try:
        env = sekai.registry.make("PreloadProbe-v0")
    finally:
        _plugins._read_entry_points = read
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} {len(reads)} {env.spec.id}\\n")
    return env
"""

MAIN = """
import sys
from sekai.vector import ProcVecEnv
import probe_envs

if __name__ == "__main__":
    with ProcVecEnv([probe_envs.make_probe] * 2, context=sys.argv[1]) as vec:
        vec.reset(seed=0)
        print(vec.num_workers)
"""


def _run(tmp_path: Path, method: str) -> list[tuple[str, int, str]]:
    dist = tmp_path / "probe_plugin-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sekai.envs]\nprobe = probe_plugin:register\n")
    (tmp_path / "probe_plugin.py").write_text(PLUGIN)
    (tmp_path / "probe_envs.py").write_text(ENVS)
    (tmp_path / "main.py").write_text(MAIN)
    log = tmp_path / f"{method}.log"
    paths = [str(tmp_path), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PROBE_LOG": str(log)}
    done = subprocess.run(
        [sys.executable, "main.py", method],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2"]
    rows = [line.split() for line in log.read_text().splitlines()]
    return [(pid, int(reads), env_id) for pid, reads, env_id in rows]


@pytest.mark.parametrize(
    "method",
    [m for m in ("forkserver", "fork") if m in multiprocessing.get_all_start_methods()],
)
def test_forked_workers_make_plugin_envs_without_reading_the_metadata_again(
    tmp_path: Path, method: str
) -> None:
    # forkserver: the server listed the entry points; fork: the creating
    # process did, just before forking (its registry had not yet).
    rows = _run(tmp_path, method)
    assert len({pid for pid, _, _ in rows}) == 2  # one row per worker
    assert [(reads, env_id) for _, reads, env_id in rows] == [(0, "PreloadProbe-v0")] * 2


@pytest.mark.skipif("spawn" not in multiprocessing.get_all_start_methods(), reason="no spawn")
def test_spawned_workers_still_find_plugin_envs(tmp_path: Path) -> None:
    # A spawned worker starts a new interpreter: it reads the metadata itself,
    # once, and finds the plugin as before.
    rows = _run(tmp_path, "spawn")
    assert len({pid for pid, _, _ in rows}) == 2
    assert [(reads, env_id) for _, reads, env_id in rows] == [(1, "PreloadProbe-v0")] * 2


ENTRY_MODULE = """
import os
import numpy as np
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete

with open(os.environ["PROBE_LOG"], "a") as f:
    f.write(f"{os.getpid()}\\n")

class E(Env):
    observation_space = Box(0, 1, (2,), np.float32)
    action_space = Discrete(2)

    def pid(self):
        return os.getpid()

    def reset(self, *, seed=None, options=None):
        return ResetResult(np.zeros(2, np.float32), {})

    def step(self, action):
        return StepResult(np.zeros(2, np.float32), 0.0, False, False, {})
"""

MAKE_VEC_MAIN = """
import os
import sekai.registry
from sekai.error import VecEnvWorkerError

sekai.registry.register("Broken-v0", entry_point="broken_module:E")
sekai.registry.register("Logged-v0", entry_point="logged_module:E")

if __name__ == "__main__":
    # The first vector env starts the fork server: a module that fails to import
    # there is skipped, and each worker still reports the error itself.
    try:
        sekai.registry.make_vec("Broken-v0", 2, vectorization_mode="proc")
    except VecEnvWorkerError as error:
        cause = type(error.__cause__).__name__
        print("error:", error.index, cause, "broken at import" in str(error))
    # The server runs on; a later vector env imports its module in each worker.
    vec = sekai.registry.make_vec("Logged-v0", 2, vectorization_mode="proc")
    with vec:
        vec.reset(seed=0)
        print("workers:", *vec.call("pid"))
    print("main:", os.getpid(), "logged_module" in __import__("sys").modules)
"""

FIRST_MAIN = """
import os
import sekai.registry

sekai.registry.register("Logged-v0", entry_point="logged_module:E")

if __name__ == "__main__":
    with sekai.registry.make_vec("Logged-v0", 2, vectorization_mode="proc") as vec:
        vec.reset(seed=0)
        print("workers:", *vec.call("pid"))
    print("main:", os.getpid(), "logged_module" in __import__("sys").modules)
"""


def _run_make_vec(tmp_path: Path, main: str) -> tuple[dict[str, list[str]], list[str]]:
    log = tmp_path / "imports.log"
    (tmp_path / "logged_module.py").write_text(ENTRY_MODULE)
    (tmp_path / "broken_module.py").write_text("raise RuntimeError('broken at import')\n")
    (tmp_path / "main.py").write_text(main)
    done = subprocess.run(
        [sys.executable, "main.py"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PROBE_LOG": str(log)},
    )
    assert done.returncode == 0, done.stderr
    lines = {line.split(":")[0]: line.split()[1:] for line in done.stdout.splitlines()}
    return lines, log.read_text().split()


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs the fork server"
)
def test_the_fork_server_imports_the_entry_point_module_of_the_first_make_vec(
    tmp_path: Path,
) -> None:
    lines, importers = _run_make_vec(tmp_path, FIRST_MAIN)
    workers = set(lines["workers"])
    assert len(workers) == 2
    assert lines["main"][1] == "False"  # the parent does not import it
    assert len(importers) == 1  # the fork server alone
    assert not workers & set(importers)


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs the fork server"
)
def test_a_module_failing_in_the_fork_server_is_reported_by_the_worker(tmp_path: Path) -> None:
    lines, importers = _run_make_vec(tmp_path, MAKE_VEC_MAIN)
    assert lines["error"] == ["0", "RuntimeError", "True"]
    workers = set(lines["workers"])
    assert len(workers) == 2
    # The server started for Broken-v0 did not preload logged_module: each worker imported it.
    assert sorted(importers) == sorted(workers)
