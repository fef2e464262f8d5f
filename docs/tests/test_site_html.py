"""The built site as a reader sees it: no raw Sphinx role, examples as code, public paths.

What mkdocstrings cannot read in a docstring shows on the page as text: a
Sphinx role (``:class:`Env```) as ``:class:`` before the name, an ``Example:``
section as an admonition with its ``>>>`` lines in nested quotes. And every
name must show under its public path: the headings, the table-of-contents
entries, the anchors and the "Bases:" line of the class pages name no path with
a private segment (``sekai.vector._in_process``), nor a name under a module that
is not public when a public module exports it (``sekai.vector.vec_env.VecEnv``,
exported as ``sekai.vector.VecEnv``). A helper that no public module exports is
shown under the module that defines it (``sekai.utils.pickle.CloudpickleWrapper``).
The public modules are ``sekai``, those of ``test_api_pages.RENDERED_PAGES``,
and the submodules that a public module exports in its ``__all__``.

These tests read the HTML of a built site, in the directory that the
``SEKAI_DOCS_SITE`` environment variable names. The ``docs`` nox session builds
the site (``mkdocs build --strict``) and sets the variable for the docs tests::

    uv run --locked nox -s docs

To run them alone against a site of your own, build it in the environment that
session leaves behind (the project's own environment cannot build the site, see
the README), then point them at it::

    .nox/docs/bin/mkdocs build -f docs/mkdocs.yml -d /tmp/sekai-site
    SEKAI_DOCS_SITE=/tmp/sekai-site uv run --locked pytest docs/tests/test_site_html.py

Without ``SEKAI_DOCS_SITE`` the tests of the site are skipped, with this advice;
the tests of the checks themselves, on small HTML samples, always run.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import os
import re
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "_sekai_docs_api_pages", Path(__file__).with_name("test_api_pages.py")
)
assert _spec is not None and _spec.loader is not None
api_pages = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("_sekai_docs_api_pages", api_pages)
_spec.loader.exec_module(api_pages)

SITE_VARIABLE = "SEKAI_DOCS_SITE"

# The roles of Sphinx's Python domain and its standard ones, as the page shows
# them: ":meth:" before the name (which Markdown turns into code).
SPHINX_ROLE = re.compile(
    r"(?<![\w:]):(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const|ref|term|doc|any):(?!\w)"
)
SEKAI_PATH = re.compile(r"(?<![\w.])sekai(?:\.\w+)+")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_NOT_TEXT = frozenset({"script", "style", "code", "pre", "kbd", "samp"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(eq=False)
class Element:
    """One HTML element: its tag, attributes, parent and children (elements and text)."""

    tag: str
    attrs: dict[str, str]
    parent: Element | None = None
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def iter(self) -> Iterator[Element]:
        """This element and all the elements under it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text() for child in self.children)

    def texts(self, skip: frozenset[str] = frozenset()) -> Iterator[str]:
        """The text nodes under this element, except under the ``skip`` tags."""
        for child in self.children:
            if isinstance(child, str):
                yield child
            elif child.tag not in skip:
                yield from child.texts(skip)

    def has_ancestor(self, tag: str) -> bool:
        node = self.parent
        while node is not None:
            if node.tag == tag:
                return True
            node = node.parent
        return False


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self._current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs}, self._current)
        self._current.children.append(element)
        if tag not in _VOID:
            self._current = element

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self._current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:  # an end tag without a start: ignored
            self._current = node.parent

    def handle_data(self, data: str) -> None:
        self._current.children.append(data)


def parse(html: str) -> Element:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


# --- what a name under a public path is ---------------------------------------------


def _private(segment: str) -> bool:
    return segment.startswith("_") and not (segment.startswith("__") and segment.endswith("__"))


@functools.cache
def _module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _attribute(module: types.ModuleType, name: str) -> object:
    """``module.name``, or None (also when loading it needs an extra that is missing)."""
    try:
        return getattr(module, name, None)
    except ImportError:
        return None


@functools.cache
def public_modules() -> tuple[types.ModuleType, ...]:
    """``sekai``, the modules of ``RENDERED_PAGES`` and the submodules they export."""
    names = ["sekai", *api_pages.RENDERED_PAGES]
    modules = []
    for name in names:  # grows as exported submodules are found
        module = _module(name)
        if module is None:
            continue
        modules.append(module)
        for attribute in api_pages.public_names(module):
            value = _attribute(module, attribute)
            submodule = f"{name}.{attribute}"
            if isinstance(value, types.ModuleType) and value.__name__ == submodule:
                names += [] if submodule in names else [submodule]
    return tuple(modules)


def is_public_module(name: str) -> bool:
    return any(module.__name__ == name for module in public_modules())


@functools.cache
def _exported_by_public_modules() -> frozenset[int]:
    """The ids of the classes and functions that public modules export."""
    return frozenset(
        id(obj)
        for module in public_modules()
        for attribute in api_pages.public_names(module)
        if inspect.isclass(obj := _attribute(module, attribute)) or inspect.isroutine(obj)
    )


def is_public_path(path: str) -> bool:
    """Whether ``path`` is a path under which its object is public.

    No segment is private, and either its module is public or the object is not
    exported by a public module (a helper documented under the submodule that
    defines it, ``sekai.utils.pickle.CloudpickleWrapper``): ``sekai.vector.vec_env.VecEnv``
    is not, as ``sekai.vector`` exports ``VecEnv``.
    """
    parts = path.split(".")
    if any(_private(part) for part in parts):
        return False
    for cut in range(len(parts), 0, -1):
        module = _module(".".join(parts[:cut]))
        if module is None:
            continue
        if cut == len(parts) or is_public_module(module.__name__):
            return True
        obj = _attribute(module, parts[cut])
        return id(obj) not in _exported_by_public_modules()
    return False


# --- the checks: each returns what it finds wrong on one page -----------------------


def raw_roles(page: Element) -> list[str]:
    """The Sphinx roles shown as text (outside code)."""
    return [
        f"{match.group()} in {text.strip()[:80]!r}"
        for text in page.texts(_NOT_TEXT)
        for match in SPHINX_ROLE.finditer(text)
    ]


def examples_as_text(page: Element) -> list[str]:
    """Examples that are not code: ``>>>`` as text or quotes, sections without code."""
    found = [
        f"'>>>' shown as text: {text.strip()[:80]!r}"
        for text in page.texts(_NOT_TEXT)
        if ">>>" in text
    ]
    found += [
        f"'>>>' lines shown as nested quotes: {element.text().strip()[:80]!r}"
        for element in page.iter()
        if element.tag == "blockquote"
        and element.parent is not None
        and element.parent.tag == "blockquote"
        and not element.parent.has_ancestor("blockquote")
    ]
    for element in page.iter():
        admonition = element.tag in ("details", "div") and "example" in element.classes
        section = "doc-section-title" in element.classes and element.text().startswith("Example")
        body = element.iter() if admonition else _section_body(element) if section else None
        if body is not None and not any(node.tag == "pre" for node in body):
            found.append(f"an example without code: {element.text().strip()[:80]!r}")
    return found


def _section_body(title: Element) -> Iterator[Element]:
    """The elements of a docstring section: after its title, up to the next one."""
    paragraph = title.parent
    if paragraph is None or paragraph.parent is None:
        return
    siblings = [child for child in paragraph.parent.children if isinstance(child, Element)]
    for sibling in siblings[siblings.index(paragraph) + 1 :]:
        if any("doc-section-title" in node.classes for node in sibling.iter()):
            return
        if sibling.tag in _HEADINGS or "doc-children" in sibling.classes:
            return
        yield from sibling.iter()


def private_paths(page: Element) -> list[str]:
    """Private paths in the anchors, the headings and the table of contents."""
    found = [
        f"anchor id={element.attrs['id']!r}"
        for element in page.iter()
        if element.attrs.get("id", "").startswith("sekai.")
        and not is_public_path(element.attrs["id"])
    ]
    for element in page.iter():
        if element.tag in _HEADINGS:
            where = "heading"
        elif element.tag == "a" and "md-nav__link" in element.classes:
            where = "table-of-contents entry"
        else:
            continue
        shown = [*SEKAI_PATH.findall(element.text()), _fragment(element.attrs.get("href", ""))]
        found += [f"{where} {path!r}" for path in shown if path and not is_public_path(path)]
    return found


def private_bases(page: Element) -> list[str]:
    """The "Bases:" lines that show a private name or a private path."""
    found: list[str] = []
    for line in page.iter():
        if "doc-class-bases" not in line.classes:
            continue
        text = " ".join(line.text().split())
        shown = SEKAI_PATH.findall(text)
        for element in line.iter():
            shown += SEKAI_PATH.findall(element.attrs.get("title", ""))
            shown.append(_fragment(element.attrs.get("href", "")))
        bad = [path for path in shown if path and not is_public_path(path)]
        names = [base.text().strip() for base in line.children if isinstance(base, Element)]
        bad += [name for name in names if _private(name.split("[", 1)[0].rpartition(".")[2])]
        if bad:
            found.append(f"{text!r} shows {sorted(set(bad))}")
    return found


def _fragment(href: str) -> str:
    fragment = href.partition("#")[2]
    return fragment if fragment.startswith("sekai.") else ""


# --- the site ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site() -> dict[str, Element]:
    """Every page of the built site, parsed, by path (``api/vector/index.html``)."""
    directory = os.environ.get(SITE_VARIABLE)
    if not directory:
        pytest.skip(
            f"no built site: run `uv run --locked nox -s docs`, or set {SITE_VARIABLE} to the "
            "directory of `.nox/docs/bin/mkdocs build -f docs/mkdocs.yml -d DIR` (see the "
            "module docstring)"
        )
    root = Path(directory)
    # api/vector.md is built as api/vector/index.html, api/finance/index.md as
    # api/finance/index.html.
    api = sorted(
        path.relative_to(api_pages.PAGES).with_suffix("")
        for path in (api_pages.PAGES / "api").rglob("*.md")
    )
    built = [page.parent if page.name == "index" else page for page in api]
    missing = [str(page) for page in built if not (root / page / "index.html").is_file()]
    assert (root / "index.html").is_file() and not missing, (
        f"{SITE_VARIABLE}={directory} is not a complete build of the site (missing API pages: "
        f"{missing})"
    )
    return {
        str(path.relative_to(root)): parse(path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*.html"))
    }


def _problems(site: dict[str, Element], check: Callable[[Element], list[str]]) -> list[str]:
    return [f"{name}: {problem}" for name, page in site.items() for problem in check(page)]


def test_no_sphinx_role_shows_as_text(site: dict[str, Element]) -> None:
    problems = _problems(site, raw_roles)
    assert not problems, (
        "Sphinx roles shown as raw text (mkdocstrings does not read them: write "
        "[`Name`][public.path] or `name`, see tools/convert_sphinx_roles.py):\n"
        + "\n".join(problems)
    )


def test_examples_render_as_code(site: dict[str, Element]) -> None:
    problems = _problems(site, examples_as_text)
    assert not problems, (
        "examples not rendered as code (put '>>>' examples under an 'Examples:' "
        "section of the docstring, not 'Example:'):\n" + "\n".join(problems)
    )


def test_headings_toc_and_anchors_show_public_paths(site: dict[str, Element]) -> None:
    problems = _problems(site, private_paths)
    assert not problems, (
        "private paths in headings, the table of contents or anchors (document each name "
        "under its public path, '::: sekai.vector.VecEnv'):\n" + "\n".join(problems)
    )


def test_bases_show_public_names(site: dict[str, Element]) -> None:
    problems = _problems(site, private_bases)
    assert not problems, (
        "private bases (docs/public_bases.py shows each base under its public path, and a "
        "private base's nearest public ancestors instead of it):\n" + "\n".join(problems)
    )


# --- the checks, on samples -----------------------------------------------------------

_GOOD = """
<h2 id="sekai.vector.SyncVecEnv"><code>sekai.vector.SyncVecEnv</code>
<a class="headerlink" href="#sekai.vector.SyncVecEnv">&para;</a></h2>
<p class="doc doc-class-bases">Bases: <code><a title="sekai.vector.VecEnv"
href="../vector/#sekai.vector.VecEnv">VecEnv</a>[ObsType, ActType]</code></p>
<p>See <code>reset</code>, a ratio of 1:2.</p>
<p><span class="doc-section-title">Examples:</span></p>
<div class="highlight"><pre><code>&gt;&gt;&gt; 1 + 1
2</code></pre></div>
<div class="doc doc-children"></div>
<nav><a class="md-nav__link" href="#sekai.core.Env.__init__">__init__</a></nav>
"""

_BAD = """
<h2 id="sekai.vector.sync_vec_env.SyncVecEnv"><code>sekai.vector._in_process</code></h2>
<p class="doc doc-class-bases">Bases: <code><span
title="sekai.vector._in_process.EnvListVecEnv">EnvListVecEnv</span></code>, <code>_Model</code></p>
<p>See :meth:<code>Space.seed</code> and :py:class:<code>Box</code>.</p>
<details class="example" open><summary>Example</summary>
<blockquote><blockquote><blockquote><p>box = Box(0.0, 1.0)</p></blockquote></blockquote>
</blockquote></details>
<p><span class="doc-section-title">Examples:</span></p><p>&gt;&gt;&gt; x</p>
<nav><a class="md-nav__link" href="#sekai.core.env.Env">Env</a></nav>
"""


def test_the_checks_pass_a_clean_page() -> None:
    page = parse(_GOOD)
    assert raw_roles(page) == []
    assert examples_as_text(page) == []
    assert private_paths(page) == []
    assert private_bases(page) == []


def test_the_checks_find_each_problem() -> None:
    page = parse(_BAD)
    assert [problem.split(" ", 1)[0] for problem in raw_roles(page)] == [":meth:", ":py:class:"]
    examples = examples_as_text(page)
    assert len(examples) == 4, examples  # '>>>' as text, nested quotes, admonition, section
    assert sorted(private_paths(page)) == [
        "anchor id='sekai.vector.sync_vec_env.SyncVecEnv'",
        "heading 'sekai.vector._in_process'",
        "table-of-contents entry 'sekai.core.env.Env'",
    ]
    [bases] = private_bases(page)
    assert "sekai.vector._in_process.EnvListVecEnv" in bases and "_Model" in bases


def test_public_paths() -> None:
    assert is_public_path("sekai.vector.VecEnv.reset")
    assert is_public_path("sekai.finance.costs.CostModel.__call__")
    assert is_public_path("sekai.utils.seeding.SeededRNG")
    assert not is_public_path("sekai.vector.vec_env.VecEnv")
    assert not is_public_path("sekai.vector._in_process.EnvListVecEnv")
    assert not is_public_path("sekai.finance.rewards._Stateful")
