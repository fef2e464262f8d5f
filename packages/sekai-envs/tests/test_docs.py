"""The examples of the reference-environments page run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "pages" / "api" / "envs.md"


def _blocks() -> list[str]:
    if not PAGE.is_file():
        return []
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.skipif(not PAGE.is_file(), reason="the docs are not part of this checkout")
def test_the_page_has_examples() -> None:
    assert len(_blocks()) >= 3


@pytest.mark.parametrize("code", _blocks())
def test_example_runs(code: str) -> None:
    exec(compile(code, str(PAGE), "exec"), {})
