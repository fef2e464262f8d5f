"""The examples of the reference-environments pages (docs/pages/api/envs/) run.

The blocks of a page run in order in one namespace, as a reader would run
them. A page whose examples draw frames says so with ``(Pillow)`` in a
comment of its code (``# needs sekai-envs[render] (Pillow)``): without
Pillow (the ``render`` extra) that page is skipped, not failed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGES = Path(__file__).resolve().parents[3] / "docs" / "pages" / "api" / "envs"
IN_CHECKOUT = PAGES.is_dir()  # an sdist of sekai-envs ships its tests, not the docs


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)


def _pages_with_examples() -> list[Path]:
    if not IN_CHECKOUT:
        return []
    return [page for page in sorted(PAGES.glob("*.md")) if _blocks(page)]


@pytest.mark.skipif(not IN_CHECKOUT, reason="the docs are not part of this checkout")
def test_the_pages_have_examples() -> None:
    pages = [page.name for page in _pages_with_examples()]
    assert len(pages) >= 5, pages
    assert {"index.md", "trading.md", "classic-control.md"} <= set(pages)


@pytest.mark.parametrize("page", _pages_with_examples(), ids=lambda page: page.name)
def test_examples_run(page: Path) -> None:
    blocks = _blocks(page)
    if any("(Pillow)" in code for code in blocks):
        pytest.importorskip("PIL", reason="the page draws frames: needs sekai-envs[render]")
    namespace: dict[str, object] = {"__name__": "__main__"}
    for code in blocks:
        exec(compile(code, str(page), "exec"), namespace)
