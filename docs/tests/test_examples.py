"""Every fenced Python example of the docs and of the README runs.

Each Markdown file runs in a fresh interpreter (so registrations, warnings
filters and worker processes of one page cannot affect another), its blocks
in order in one namespace. A block opts out with a ``<!-- skip -->`` comment
on the line before its fence; keep that for code that cannot run here (a GPU,
a remote service).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
RUNNER = Path(__file__).with_name("markdown_examples.py")

_spec = importlib.util.spec_from_file_location("markdown_examples", RUNNER)
assert _spec is not None and _spec.loader is not None
markdown_examples = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("markdown_examples", markdown_examples)
_spec.loader.exec_module(markdown_examples)

MARKDOWN_FILES = sorted(
    [ROOT / "README.md", *(DOCS / "pages").rglob("*.md")],
    key=lambda path: str(path.relative_to(ROOT)),
)
WITH_EXAMPLES = [
    path
    for path in MARKDOWN_FILES
    if markdown_examples.extract_blocks(path.read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("path", WITH_EXAMPLES, ids=lambda path: str(path.relative_to(ROOT)))
def test_examples_run(path: Path, tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(RUNNER), str(path)],
        cwd=tmp_path,  # examples that write files write them here
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, (
        f"an example in {path.relative_to(ROOT)} failed:\n{completed.stderr}\n{completed.stdout}"
    )


def test_every_guide_has_examples() -> None:
    guides = sorted((DOCS / "pages" / "guides").glob("*.md"))
    assert guides, "no guides found"
    without = [path.name for path in guides if path not in WITH_EXAMPLES]
    # The performance page shows commands and a results table, not Python.
    assert without in ([], ["performance.md"]), f"guides without a Python example: {without}"


def test_extract_blocks() -> None:
    text = (
        "Intro\n\n```python\nx = 1\n```\n\n```bash\nls\n```\n\n<!-- skip -->\n"
        '```python\nraise SystemExit(1)\n```\n\n=== "Tab"\n\n    ```python\n'
        "    y = x + 1\n    if y:\n        z = y\n    ```\n"
    )
    blocks = markdown_examples.extract_blocks(text)
    assert [(block.line, block.skip) for block in blocks] == [(4, False), (13, True), (19, False)]
    assert blocks[0].code == "x = 1"
    assert blocks[2].code == "y = x + 1\nif y:\n    z = y"


def test_run_file_reports_markdown_lines(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n```python\nvalue = 1\n```\n\n```python\nassert value == 2\n```\n")
    with pytest.raises(AssertionError) as info:
        markdown_examples.run_file(page)
    assert info.traceback[-1].lineno + 1 == 8  # pytest's line numbers are 0-based
