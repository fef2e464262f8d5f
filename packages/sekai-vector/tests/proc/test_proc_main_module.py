"""ProcVecEnv's hint when a fork server cannot import the main module again.

A script piped to ``python -`` has no file: a ``forkserver`` or ``spawn``
process cannot re-import it, whatever guard it has. The error says so (and
what to do) instead of asking for the ``__main__`` guard the script already
has.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="needs forkserver"
)

SCRIPT = """
import numpy as np
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector import ProcVecEnv


class Still(Env):
    def __init__(self):
        self.observation_space = Box(-1.0, 1.0, shape=(2,))
        self.action_space = Discrete(2)

    def reset(self, *, seed=None, options=None):
        return ResetResult(np.zeros(2, dtype=np.float32), {})

    def step(self, action):
        return StepResult(np.zeros(2, dtype=np.float32), 0.0, False, False, {})


if __name__ == "__main__":
    with ProcVecEnv([Still, Still], context=CONTEXT) as vec:
        print("shape", vec.reset(seed=0).observations.shape)
"""


def _run(script: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


def test_a_script_piped_to_python_is_told_it_has_no_file(tmp_path: Path) -> None:
    run = _run(SCRIPT.replace("CONTEXT", "None"), tmp_path, "-")
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert "The main module was not read from a file" in last
    assert "'<stdin>'" in last
    assert "context='fork'" in last
    assert "guard its entry point" not in last


def test_the_same_script_runs_from_a_file_or_with_fork(tmp_path: Path) -> None:
    script = tmp_path / "main.py"
    script.write_text(SCRIPT.replace("CONTEXT", "None"))
    assert "shape (2, 2)" in _run("", tmp_path, str(script)).stdout
    if "fork" in multiprocessing.get_all_start_methods():
        assert "shape (2, 2)" in _run(SCRIPT.replace("CONTEXT", "'fork'"), tmp_path, "-").stdout
