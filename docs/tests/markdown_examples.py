"""Extract the fenced Python examples of a Markdown file and run them.

Used by ``test_examples.py``; also runnable by hand to debug one page::

    python docs/tests/markdown_examples.py docs/pages/guides/vector.md

The blocks of one file run in order in one namespace (whose ``__name__`` is
``"__main__"``, so ``if __name__ == "__main__":`` guards run, as in a script).
A block preceded by ``<!-- skip -->`` is not run. Tracebacks point at the
lines of the Markdown file.
"""

from __future__ import annotations

import re
import sys
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "extract_blocks", "run_file"]

SKIP_MARKER = "<!-- skip -->"
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its first code line (1-based), its code, and whether to skip it."""

    line: int
    code: str
    skip: bool


def extract_blocks(text: str, language: str = "python") -> list[Block]:
    """The fenced ``language`` blocks of ``text``, in order (other blocks are passed over)."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        indent, fence, lang = match["indent"], match["fence"], match["lang"]
        start = i + 1
        end = start
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        if lang == language:
            body = [line.removeprefix(indent) for line in lines[start:end]]
            before = [line.strip() for line in lines[:i] if line.strip()]
            skip = bool(before) and before[-1] == SKIP_MARKER
            blocks.append(Block(start + 1, textwrap.dedent("\n".join(body)), skip))
        i = end + 1
    return blocks


def run_file(path: Path) -> int:
    """Run every non-skipped Python block of ``path``; return how many ran."""
    namespace: dict[str, object] = {"__name__": "__main__", "__file__": str(path)}
    count = 0
    for block in extract_blocks(path.read_text(encoding="utf-8")):
        if block.skip:
            continue
        # Leading newlines keep the Markdown line numbers in tracebacks.
        source = "\n" * (block.line - 1) + block.code
        exec(compile(source, str(path), "exec"), namespace)
        count += 1
    return count


def main(argv: list[str]) -> int:
    # An example that triggers a deprecation in sekai is out of date.
    warnings.filterwarnings("error", category=DeprecationWarning, module=r"sekai(\..*)?$")
    for name in argv:
        ran = run_file(Path(name).resolve())
        print(f"{name}: {ran} block(s) ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
