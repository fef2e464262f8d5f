"""A reader finds the way: the home page leads to every guide, each env has one section.

- "Where to go next" on the home page links every guide of the site.
- The reference-environments guide gives each environment of its overview
  table one section (the classic-control tasks share theirs), in the table's
  order.
"""

from __future__ import annotations

import re
from pathlib import Path

PAGES = Path(__file__).resolve().parents[1] / "pages"
_LINK = re.compile(r"\]\((?P<target>[^)#\s]+)(?:#[^)]*)?\)")
_FENCE = re.compile(r"^(`{3,}|~{3,})")


def linked_pages(markdown: str) -> set[str]:
    """The targets of the Markdown links of ``markdown``, without their anchors."""
    return {match["target"] for match in _LINK.finditer(markdown)}


def headings(markdown: str) -> list[str]:
    """The text of the headings of ``markdown``, outside code blocks, in order."""
    found = []
    fence = None
    for line in markdown.splitlines():
        match = _FENCE.match(line.strip())
        if match and (fence is None or match.group(1).startswith(fence)):
            fence = None if fence else match.group(1)[:3]
            continue
        if fence is None and (heading := re.match(r"#{1,6}\s+(.*)", line)):
            found.append(heading.group(1).strip())
    return found


def overview_ids(markdown: str) -> list[tuple[str, str]]:
    """``(id, kind)`` of each row of the first table, whose first two columns they are."""
    rows = []
    for line in markdown.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0].startswith("`"):
            rows.append((cells[0].split("`")[1], cells[1]))
    return rows


def test_home_page_links_every_guide() -> None:
    home = (PAGES / "index.md").read_text(encoding="utf-8")
    where = home[home.index("## Where to go next") :]
    guides = {f"guides/{path.name}" for path in (PAGES / "guides").glob("*.md")}
    missing = sorted(guides - linked_pages(where))
    assert not missing, f'"Where to go next" of docs/pages/index.md does not link {missing}'


def test_each_reference_env_has_one_section_in_table_order() -> None:
    page = (PAGES / "guides" / "reference-envs.md").read_text(encoding="utf-8")
    titles = headings(page)
    positions = []
    for env_id, kind in overview_ids(page):
        title = "Classic control" if kind == "classic control" else env_id
        found = [i for i, heading in enumerate(titles) if heading == title]
        assert len(found) == 1, f"reference-envs.md: {len(found)} sections titled {title!r}"
        positions.append(found[0])
    assert len(positions) > 10, "the overview table was not read"
    assert positions == sorted(positions), "reference-envs.md: sections not in the table's order"


def test_helpers() -> None:
    text = (
        "# Title\n\n| id | kind |\n|---|---|\n| `A-v0` | x |\n| `B-v0` | y |\n\n"
        "```python\n# not a heading\n```\n\n## A-v0\n\nSee [B](b.md#part) and [C](c.md).\n"
    )
    assert headings(text) == ["Title", "A-v0"]
    assert overview_ids(text) == [("A-v0", "x"), ("B-v0", "y")]
    assert linked_pages(text) == {"b.md", "c.md"}
