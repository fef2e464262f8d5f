"""Every public name of every public module appears on its API reference page.

A name counts as documented when a mkdocstrings directive (``::: path``) on
the module's page renders the object it refers to: a directive naming the
object itself, or a directive naming a module whose rendered members include
it (all of the module's ``__all__`` by default, the names under ``members:``
when the directive lists them, none with ``members: false``). The top-level
``sekai`` page, which the site cannot render (see ``docs/mkdocs.yml``), lists
its names explicitly instead, in backquotes.

A new public name without documentation therefore fails this test.
"""

from __future__ import annotations

import importlib
import re
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

PAGES = Path(__file__).resolve().parents[1] / "pages"

# The API reference of a large package is a folder: an overview (index.md)
# and a page per module or per environment.
FINANCE_MODULES = (
    "data",
    "sampling",
    "features",
    "universe",
    "simulators",
    "lob",
    "costs",
    "rewards",
    "account",
    "metrics",
    "rendering",
)


def pages_under(folder: str) -> tuple[str, ...]:
    """Every page of an API folder (``api/envs``), relative to docs/pages."""
    return tuple(sorted(str(path.relative_to(PAGES)) for path in (PAGES / folder).rglob("*.md")))


# Public module -> the API pages that document it.
RENDERED_PAGES: dict[str, tuple[str, ...]] = {
    "sekai.core": ("api/core.md",),
    "sekai.error": ("api/error.md",),
    "sekai.spaces": ("api/spaces.md",),
    "sekai.registry": ("api/registry.md",),
    "sekai.stats": ("api/stats.md",),
    "sekai.utils": ("api/utils.md",),
    "sekai.utils.seeding": ("api/utils.md",),
    "sekai.utils.running_stats": ("api/utils.md",),
    "sekai.utils.masking": ("api/utils.md",),
    "sekai.utils.checker": ("api/utils.md",),
    "sekai.wrappers": ("api/wrappers.md",),
    "sekai.rendering": pages_under("api/rendering"),
    "sekai.vector": ("api/vector.md", "api/proc.md"),
    "sekai.envs": pages_under("api/envs"),
    # sekai.finance re-exports the main names of its modules: rendered on
    # their modules' pages.
    "sekai.finance": pages_under("api/finance"),
    **{f"sekai.finance.{name}": (f"api/finance/{name}.md",) for name in FINANCE_MODULES},
    "sekai.compat": ("api/compat.md",),
}
LISTING_PAGES: dict[str, tuple[str, ...]] = {"sekai": ("api/sekai.md",)}

_DIRECTIVE = re.compile(r"^:::\s+(?P<path>[\w.]+)\s*$")


@dataclass
class Directive:
    """One ``::: path`` directive and the ``members`` option under it, if any."""

    path: str
    line: int
    members: bool | list[str] | None = None
    options: list[str] = field(default_factory=list)


def parse_directives(text: str) -> list[Directive]:
    """The mkdocstrings directives of a Markdown page, with their ``members`` option."""
    directives: list[Directive] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        i += 1
        if match is None:
            continue
        directive = Directive(match["path"], i)
        block: list[str] = []
        while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
            if lines[i].strip():
                block.append(lines[i])
            i += 1
        directive.options = block
        directive.members = _members_option(block)
        directives.append(directive)
    return directives


def _members_option(block: list[str]) -> bool | list[str] | None:
    for index, line in enumerate(block):
        stripped = line.strip()
        if not stripped.startswith("members:"):
            continue
        value = stripped.removeprefix("members:").strip()
        if value in ("false", "False", "no"):
            return False
        if value in ("true", "True", "yes"):
            return True
        if value.startswith("["):
            return [name.strip().strip("'\"") for name in value.strip("[]").split(",") if name]
        indent = len(line) - len(line.lstrip())
        names: list[str] = []
        for item in block[index + 1 :]:
            if len(item) - len(item.lstrip()) <= indent and not item.strip().startswith("-"):
                break
            entry = item.strip()
            if not entry.startswith("-"):
                break
            names.append(entry.removeprefix("-").strip().strip("'\""))
        return names
    return None


def resolve(path: str) -> Any:
    """Import the object a dotted directive path names (a module or an attribute)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(f"cannot import anything named {path!r}")


def public_names(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        return [name for name in vars(module) if not name.startswith("_")]
    return list(names)


def rendered_objects(directives: list[Directive]) -> list[Any]:
    """Every object that the page's directives render (by identity)."""
    objects: list[Any] = []
    for directive in directives:
        target = resolve(directive.path)
        objects.append(target)
        if isinstance(target, types.ModuleType):
            members = directive.members
            if members is False:
                continue
            names = public_names(target) if members in (None, True) else members
            assert isinstance(names, list)
            objects.extend(getattr(target, name) for name in names)
    return objects


def _read(page: str) -> str:
    path = PAGES / page
    assert path.is_file(), f"missing API page docs/pages/{page}"
    return path.read_text(encoding="utf-8")


def _listed(name: str, text: str) -> bool:
    """Whether ``name`` is written in backquotes (``Name``, ``pkg.Name``, ``name()``)."""
    return re.search(rf"`(?:[\w.]+\.)?{re.escape(name)}(?:\(\))?`", text) is not None


def _all_rendered() -> list[Any]:
    objects: list[Any] = []
    for page in sorted((PAGES / "api").rglob("*.md")):
        objects.extend(rendered_objects(parse_directives(page.read_text(encoding="utf-8"))))
    return objects


def _contains(objects: list[Any], obj: Any) -> bool:
    return any(candidate is obj for candidate in objects)


@pytest.mark.parametrize("module_name", sorted(RENDERED_PAGES))
def test_every_public_name_is_on_its_page(module_name: str) -> None:
    """Rendered on the module's page, or listed there and rendered on another API page."""
    module = importlib.import_module(module_name)
    pages = RENDERED_PAGES[module_name]
    text = "\n".join(_read(page) for page in pages)
    here = rendered_objects(parse_directives(text))
    everywhere = _all_rendered()
    missing = []
    for name in public_names(module):
        obj = getattr(module, name)
        if _contains(here, obj) or (_listed(name, text) and _contains(everywhere, obj)):
            continue
        missing.append(name)
    assert not missing, (
        f"{module_name}: public names not documented on {', '.join(pages)}: {missing} "
        "(add a '::: path' directive or the name to a directive's members, or list the "
        "name in backquotes when another API page renders it)"
    )


@pytest.mark.parametrize("module_name", sorted(LISTING_PAGES))
def test_every_top_level_name_is_listed(module_name: str) -> None:
    """Listed on the page, and (unless a module or the version) rendered on an API page."""
    module = importlib.import_module(module_name)
    text = "\n".join(_read(page) for page in LISTING_PAGES[module_name])
    everywhere = _all_rendered()
    unlisted = [name for name in public_names(module) if not _listed(name, text)]
    pages = LISTING_PAGES[module_name]
    assert not unlisted, f"{module_name}: names not listed on {pages}: {unlisted}"
    unrendered = [
        name
        for name in public_names(module)
        if not name.startswith("__")
        and not isinstance(getattr(module, name), types.ModuleType)
        and not _contains(everywhere, getattr(module, name))
    ]
    assert not unrendered, f"{module_name}: names no API page renders: {unrendered}"


def test_every_public_module_has_a_page() -> None:
    import sekai

    submodules = [
        f"sekai.{name}"
        for name in sekai.__all__
        if isinstance(getattr(sekai, name), types.ModuleType)
    ]
    assert "sekai.core" in submodules
    missing = [name for name in submodules if name not in RENDERED_PAGES]
    assert not missing, f"public modules without an API page: {missing}"


def test_every_api_page_is_in_the_nav() -> None:
    nav = (PAGES.parent / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(str(path.relative_to(PAGES)) for path in (PAGES / "api").rglob("*.md"))
    missing = [page for page in pages if page not in nav]
    assert not missing, f"API pages missing from the nav of docs/mkdocs.yml: {missing}"


def test_directive_parser_reads_members() -> None:
    text = (
        "# Page\n\n::: sekai.spaces\n    options:\n      members: false\n\n"
        "::: sekai.utils.seeding\n    options:\n      members:\n        - np_random\n"
        "        - SeedType\n      show_source: false\n\n::: sekai.error\n"
    )
    directives = parse_directives(text)
    assert [d.path for d in directives] == ["sekai.spaces", "sekai.utils.seeding", "sekai.error"]
    assert [d.members for d in directives] == [False, ["np_random", "SeedType"], None]
    objects = rendered_objects(directives)
    from sekai.error import SekaiError
    from sekai.spaces import Box
    from sekai.utils.seeding import make_seed_sequence, np_random

    assert any(obj is np_random for obj in objects)
    assert any(obj is SekaiError for obj in objects)
    assert not any(obj is Box for obj in objects)
    assert not any(obj is make_seed_sequence for obj in objects)


def test_no_directive_names_a_private_module() -> None:
    """Headings and anchors show each directive's path: never a private module's."""
    private = [
        f"docs/pages/{page.relative_to(PAGES)}:{directive.line}: {directive.path}"
        for page in sorted((PAGES / "api").rglob("*.md"))
        for directive in parse_directives(page.read_text(encoding="utf-8"))
        if any(part.startswith("_") for part in directive.path.split("."))
    ]
    assert not private, f"directives under a private path (use the public one): {private}"
