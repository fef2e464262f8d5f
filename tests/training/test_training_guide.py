"""The training guide (docs/pages/guides/training.md) runs, and its CleanRL-style loop learns.

The docs session has no PyTorch, so the guide's PyTorch blocks carry
``<!-- skip -->`` there; this session runs every block, skipped or not, with
the docs' own runner (``docs/tests/markdown_examples.py``) in a fresh
interpreter, as the docs tests run a page.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "pages" / "guides" / "training.md"
RUNNER = ROOT / "docs" / "tests" / "markdown_examples.py"


def _load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("markdown_examples", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("markdown_examples", module)
    spec.loader.exec_module(module)
    return module


markdown_examples = _load_runner()


def _blocks() -> list[Any]:
    return list(markdown_examples.extract_blocks(PAGE.read_text(encoding="utf-8")))


def test_the_docs_session_skips_exactly_the_blocks_that_need_pytorch() -> None:
    needs_torch = ("torch", "stable_baselines3", "sb3_contrib")
    blocks = _blocks()
    assert len(blocks) >= 4
    for block in blocks:
        assert block.skip == any(name in block.code for name in needs_torch), block.line


def test_every_block_of_the_guide_runs(tmp_path: Path) -> None:
    # The same page with the skip markers blanked (line numbers unchanged, so
    # tracebacks point at the guide's lines).
    text = PAGE.read_text(encoding="utf-8")
    lines = [
        "" if line.strip() == markdown_examples.SKIP_MARKER else line for line in text.split("\n")
    ]
    page = tmp_path / PAGE.name
    page.write_text("\n".join(lines), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(page)],
        cwd=tmp_path,  # the SB3 example saves its model there
        env={**os.environ, "OMP_NUM_THREADS": "1"},  # tiny networks; see conftest.py
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, f"{completed.stderr}\n{completed.stdout}"
    assert f"{len(_blocks())} block(s) ran" in completed.stdout
    assert (tmp_path / "ppo-acrobot.zip").is_file()


@pytest.fixture(scope="module")
def cleanrl() -> dict[str, Any]:
    """The namespace of the guide's CleanRL-style block, run as a module (not ``__main__``)."""
    (block,) = [block for block in _blocks() if "def train(" in block.code]
    namespace: dict[str, Any] = {"__name__": "training_guide"}
    exec(compile("\n" * (block.line - 1) + block.code, str(PAGE), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("max_episode_steps", [None, 100], ids=["limit-500", "limit-100"])
def test_the_cleanrl_loop_learns_cartpole(cleanrl: dict[str, Any], max_episode_steps: Any) -> None:
    # With a 100-step limit, the episodes of a balancing policy end truncated:
    # the final_observation bootstrap runs at every one of them (the guide's
    # own 2048-step run never reaches it). Evaluation runs the full 500 steps.
    agent = cleanrl["train"](total_steps=40_960, seed=0, max_episode_steps=max_episode_steps)
    learned = cleanrl["evaluate"](agent, episodes=5, seed=1000)
    assert learned >= 200  # a random policy gets about 22
