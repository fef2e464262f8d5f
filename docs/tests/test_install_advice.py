"""No page, README or message tells users to pip-install a sekai distribution from the index.

The sekai distributions are not on the package index, and the ``sekai`` there is
a different project: ``pip install sekai`` (or ``pip install
"sekai-vector[proc]"``) installs the wrong project or nothing. Advice names the
distribution and its extras and points to the Install section of the README or
of the getting-started guide, which build the wheels from a checkout and
install them by path.

A ``pip install`` (also ``pip3 install``, ``uv pip install``, ``uv add``) is
flagged when one of its arguments is a sekai distribution name, with or without
extras and version (``sekai``, ``'sekai-vector[proc]'``, ``sekai-core>=1``), or a
name computed in an f-string (``'sekai-compat[{extra}]'``, or a field whose
expression says ``distribution`` or ``sekai``: ``'{distribution}'``).
Wheel files and paths (``dist/sekai_core-*.whl``, ``"$(ls dist/...whl)[proc]"``,
``./packages/sekai-core``), ``-e``, and commands with ``--no-index`` or
``--find-links`` are not; nor is a command right after "never" or "do not use",
which is the Install section's warning. Third-party packages (``pip install
cloudpickle``) are fine.

Checked: the markdown of the docs pages, the READMEs (the top-level one, those
of the packages, which are the wheels' long descriptions, and the examples'),
and every string literal (messages and docstrings) of the packages' sources, the
benchmarks, the tools and the examples.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


_DISTRIBUTION = re.compile(
    r"(?:sekai(?:-(?:core|wrappers|vector|finance|envs|compat))?"  # name
    r"|\{[^{}]*(?:distribution|sekai)[^{}]*\})"  # or an f-string field that computes it
    r"(?:\[[^\]]*\])?"  # extras
    r"(?:[<>=!~]=?.*)?",  # version
    re.IGNORECASE,
)
_COMMAND = re.compile(r"\b(?:pip3?\s+install|uv\s+add)\b")
# Where a command ends: a backtick (inline code), a shell separator or comment.
_END = re.compile(r"`|;|&|\||#")
_WARNING = re.compile(r"\b(?:never|do not use|don't use)\s*`*\s*$", re.IGNORECASE)
_LOCAL_OPTIONS = ("--no-index", "--find-links", "-f")
_OPTIONS_WITH_VALUE = {
    "-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i",
    "--index-url", "--extra-index-url", "--python", "-p", "--target", "-t",
}  # fmt: skip
# Prose after a command: "pip install cloudpickle or ..." stops at "or".
_STOP_WORDS = {"or", "and", "then", "to", "which", "with", "for", "from", "in", "the", "if"}
# Quotes and the punctuation prose puts around a package name.
_STRIP = "'\"(),.;:"


@dataclass(frozen=True)
class Advice:
    """A ``pip install`` of a sekai distribution, where it was found."""

    path: str
    line: int
    command: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.command}"


def _names_sekai(arguments: str) -> bool:
    """Whether a command's arguments name a sekai distribution to fetch from the index."""
    tokens = arguments.split()
    if any(token.startswith(_LOCAL_OPTIONS) for token in tokens):
        return False
    skip_value = False
    for token in tokens:
        if skip_value:
            skip_value = False
            continue
        if token.startswith("-"):
            skip_value = token in _OPTIONS_WITH_VALUE
            continue
        if token.lower() in _STOP_WORDS:
            return False
        bare = token.strip(_STRIP)
        if "/" in bare or "$" in bare or "*" in bare or bare.endswith(".whl"):
            continue  # a path or a wheel file
        if _DISTRIBUTION.fullmatch(bare):
            return True
        if token.rstrip("'\"").endswith((",", ".", ")", ":")):
            return False  # the prose goes on after this package
    return False


def find_advice(text: str) -> Iterator[str]:
    """The commands in ``text`` that pip-install a sekai distribution."""
    for match in _COMMAND.finditer(text):
        if _WARNING.search(text[max(0, match.start() - 30) : match.start()]):
            continue
        rest = text[match.end() :]
        end = _END.search(rest)
        arguments = rest[: end.start()] if end else rest
        if _names_sekai(arguments):
            yield " ".join((match.group() + arguments).split())


def _markdown_texts(source: str) -> Iterator[tuple[int, str]]:
    """The commands' contexts of a markdown file, with their first line numbers.

    In a fenced code block each line (with its ``\\`` continuations) is one
    text; outside, each paragraph is one, its lines joined by spaces, since
    inline code may wrap.
    """
    fence: str | None = None
    paragraph: list[str] = []
    start = 0
    pending_code = ""
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.strip()
        if fence is None and stripped.startswith(("```", "~~~")):
            if paragraph:
                yield start, " ".join(paragraph)
                paragraph = []
            fence = stripped[:3]
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            elif line.endswith("\\"):
                pending_code += line[:-1] + " "
            else:
                yield number, pending_code + line
                pending_code = ""
            continue
        if not stripped:
            if paragraph:
                yield start, " ".join(paragraph)
                paragraph = []
            continue
        if not paragraph:
            start = number
        paragraph.append(stripped)
    if paragraph:
        yield start, " ".join(paragraph)


def _string_value(node: ast.AST) -> str | None:
    """The text of a string literal; an f-string's fields as ``{expression}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                assert isinstance(value, ast.FormattedValue)
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    return None


def _python_texts(source: str) -> Iterator[tuple[int, str]]:
    """The string literals of a Python file (each f-string whole), with their lines."""
    nodes = list(ast.walk(ast.parse(source)))
    parts = {id(part) for node in nodes if isinstance(node, ast.JoinedStr) for part in node.values}
    for node in nodes:
        text = None if id(node) in parts else _string_value(node)
        if text is not None:
            # Docstrings and messages wrap inside inline code: newlines are spaces.
            yield getattr(node, "lineno", 0), text.replace("\n", " ")


def _markdown_files() -> list[Path]:
    return sorted(
        {
            *(ROOT / "docs" / "pages").rglob("*.md"),
            ROOT / "README.md",
            *ROOT.glob("packages/*/README.md"),
            *ROOT.glob("examples/**/README.md"),
        }
    )


def _python_files() -> list[Path]:
    roots = [*ROOT.glob("packages/*/src"), ROOT / "benchmarks", ROOT / "tools", ROOT / "examples"]
    return sorted({path for root in roots for path in root.rglob("*.py")})


def _advice_in(path: Path) -> list[Advice]:
    """What ``path`` advises; the line is that of the paragraph or string literal."""
    source = path.read_text(encoding="utf-8")
    texts = _markdown_texts(source) if path.suffix == ".md" else _python_texts(source)
    relative = path.relative_to(ROOT).as_posix()
    found = [
        Advice(relative, line, command) for line, text in texts for command in find_advice(text)
    ]
    return sorted(found, key=lambda advice: advice.line)


def _check(paths: list[Path]) -> None:
    """Fail with every piece of advice in ``paths``."""
    problems = [str(advice) for path in paths for advice in _advice_in(path)]
    assert not problems, (
        "the sekai distributions are not on the package index: name the distribution "
        "and its extras and point to the Install section instead of pip-installing them:\n"
        + "\n".join(problems)
    )


def test_pages_and_readmes_do_not_pip_install_sekai() -> None:
    _check(_markdown_files())


def test_messages_and_docstrings_do_not_pip_install_sekai() -> None:
    _check(_python_files())


@pytest.mark.parametrize(
    "text",
    [
        "pip install sekai",
        "`pip install sekai-core`",
        'pip install "sekai-wrappers[render]"   # Pillow',
        "install it with pip install 'sekai-vector[proc]' or pip install cloudpickle",
        "(`pip install sekai` includes it)",
        "python -m pip install -U sekai-envs",
        "uv pip install 'sekai[gymnasium]'",
        "uv add sekai-core",
        "pip install cloudpickle sekai-vector==1.0",
        "``pip install  'sekai-vector[ray]'``",
        "(pip install '{distribution}')",
        "pip install 'sekai-compat[{extra}]'",
        "pip install sekai-finance.",
    ],
)
def test_flags_installs_from_the_index(text: str) -> None:
    assert list(find_advice(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "python -m pip install dist/*.whl",
        "python -m pip install dist/sekai_core-*.whl",
        'python -m pip install dist/sekai_core-*.whl "$(ls dist/sekai_vector-*.whl)[proc]"',
        'python -m pip install "$(ls dist/sekai-*.whl)[gymnasium]" dist/sekai_*.whl',
        "pip install ./packages/sekai-core",
        "pip install -e packages/sekai-core",
        "pip install --no-index --find-links dist sekai-core",
        "pip install --find-links dist sekai",
        "so never `pip install sekai` from it",
        "Do not use `pip install sekai`",
        "install the sekai-vector[proc] distribution (or `pip install cloudpickle`)",
        "pip install cloudpickle or the sekai-vector[proc] distribution",
        "`pip install torch` next to sekai",
        "pip install gymnasium, or the sekai-compat[gymnasium] distribution",
        "pip install sekai-example-plugin-deps",
        "or `pip install {module}`",
    ],
)
def test_passes_local_installs_and_third_party_packages(text: str) -> None:
    assert not list(find_advice(text)), text


def test_markdown_wraps_inline_code_but_not_code_blocks() -> None:
    source = (
        "Install it (`pip install\n'sekai-vector[proc]'`).\n\n"
        "```bash\npip install numpy\nsekai --help\n```\n"
    )
    assert [text for _, text in _markdown_texts(source)] == [
        "Install it (`pip install 'sekai-vector[proc]'`).",
        "pip install numpy",
        "sekai --help",
    ]
