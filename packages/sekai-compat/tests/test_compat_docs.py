"""The examples of the compatibility page (the Gymnasium / SB3 / PettingZoo guide) run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "pages" / "api" / "compat.md"
RUNNER = ROOT / "docs" / "tests" / "markdown_examples.py"

pytestmark = pytest.mark.skipif(
    not (PAGE.is_file() and RUNNER.is_file()), reason="the docs are not part of this checkout"
)


def test_the_page_covers_every_adapter() -> None:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 6
    code = "\n".join(blocks)
    for name in [
        "to_gymnasium(",
        "from_gymnasium(",
        "to_gymnasium_vector(",
        "to_pettingzoo(",
        "from_pettingzoo(",
        "to_gymnasium_space(",
        "from_gymnasium_space(",
        "stable_baselines3",
        "check_env(",
        "parallel_api_test(",
    ]:
        assert name in code, name
    assert "::: sekai.compat" in text


def test_the_examples_run(tmp_path: Path, top_level_sekai: None) -> None:
    pytest.importorskip("gymnasium", reason="needs the gymnasium extra")
    pytest.importorskip("pettingzoo", reason="needs the pettingzoo extra")
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(PAGE)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    ran = re.search(r"(\d+) block\(s\) ran", completed.stdout)
    assert ran is not None and int(ran.group(1)) >= 6
