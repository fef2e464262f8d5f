"""Rewrite Sphinx roles in Python sources as mkdocstrings cross-references.

mkdocstrings does not read Sphinx roles (``:class:`~sekai.core.Env```): they show
as raw text on the API pages. This script rewrites each one:

- a dotted target that names an object rendered on an API page becomes a
  cross-reference under the object's public path:
  ``:class:`~sekai.vector.AsyncVecEnv``` -> ``[`AsyncVecEnv`][sekai.vector.AsyncVecEnv]``,
  ``:meth:`VecEnv.reset <sekai.vector.VecEnv.reset>``` ->
  ``[`VecEnv.reset`][sekai.vector.VecEnv.reset]``;
- any other role (no dotted target, a module, an object no page renders, a
  name outside sekai) becomes plain backquotes: ``:meth:`step``` -> ```step```.

"Rendered on an API page" is read from the ``::: path`` directives of
``docs/pages/api/*.md``, as ``docs/tests/test_api_pages.py`` reads them, so run
it where every distribution is installed::

    uv run --locked python tools/convert_sphinx_roles.py packages/sekai-core/src ...

It rewrites the files in place and prints each replacement; review the output.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
API_PAGES = ROOT / "docs" / "pages" / "api"

ROLE = re.compile(r":(?:py:)?(?P<role>[a-z]+):`(?P<body>[^`]+)`")
_DIRECTIVE = re.compile(r"^:::\s+(?P<path>[\w.]+)\s*$", re.MULTILINE)


def resolve(path: str) -> Any:
    """Import the object a dotted path names, or raise ``LookupError``."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except AttributeError as error:
            raise LookupError(path) from error
        return obj
    raise LookupError(path)


def public_paths() -> tuple[dict[int, str], dict[int, str]]:
    """The public and the rendered path of every object a page's directive renders.

    Both map ``id(object)`` to a dotted path. The rendered path is the one a
    directive renders the object under (its members' anchors hang from it); the
    public path is the shortest of it and the paths under which a public module
    (one a directive names, or a parent package of one) exports the object in
    its ``__all__``: autorefs finds an object by such an alias, not its members.
    """
    rendered: dict[int, list[str]] = {}
    modules: set[str] = set()
    aliases: list[tuple[int, str]] = []
    for page in sorted(API_PAGES.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in _DIRECTIVE.finditer(text):
            path = match["path"]
            options = re.match(r"(?:\n[ \t]+.*)*", text[match.end() :])
            hidden = options is not None and "members: false" in options[0]
            try:
                target = resolve(path)
            except LookupError:
                continue
            rendered.setdefault(id(target), []).append(path)
            if isinstance(target, types.ModuleType):
                parts = path.split(".")
                modules.update(".".join(parts[:cut]) for cut in range(2, len(parts) + 1))
                for name in getattr(target, "__all__", ()):
                    member = getattr(target, name, None)
                    if member is not None and not isinstance(member, types.ModuleType):
                        alias = f"{path}.{name}"
                        if hidden:
                            aliases.append((id(member), alias))
                        else:
                            rendered.setdefault(id(member), []).append(alias)
    for key, alias in aliases:
        if key in rendered:
            rendered[key].append(alias)
    for module_name in sorted(modules):
        if any(part.startswith("_") for part in module_name.split(".")):
            continue
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            member = getattr(module, name, None)
            if id(member) in rendered:
                rendered[id(member)].append(f"{module_name}.{name}")
    shortest = {
        key: min(paths, key=lambda path: (path.count("."), "._" in path, path))
        for key, paths in rendered.items()
    }
    return shortest, {key: paths[0] for key, paths in rendered.items()}


def _member_path(owner: Any, owner_path: str, name: str, paths: dict[int, str]) -> str | None:
    """The public path of ``owner.name`` when a page renders it, else ``None``."""
    if name.startswith("_") or not inspect.isclass(owner):
        return None
    for klass in inspect.getmro(owner):
        if name in vars(klass) or name in getattr(klass, "__annotations__", {}):
            base_path = owner_path if klass is owner else paths.get(id(klass))
            return None if base_path is None else f"{base_path}.{name}"
    return None


def public_target(target: str, paths: tuple[dict[int, str], dict[int, str]]) -> str | None:
    """The public path of a rendered object named by ``target``, or ``None``."""
    if not target.startswith("sekai."):
        return None
    parts = target.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            obj = resolve(".".join(parts[:cut]))
        except LookupError:
            continue
        public, rendered = paths
        if id(obj) not in public:
            continue
        path = public[id(obj)] if cut == len(parts) else rendered[id(obj)]
        for name in parts[cut:]:
            member_path = _member_path(obj, path, name, rendered)
            if member_path is None:
                return None
            obj, path = getattr(obj, name, None), member_path
        return path
    return None


def convert_role(match: re.Match[str], paths: tuple[dict[int, str], dict[int, str]]) -> str:
    """The replacement of one Sphinx role."""
    body = match["body"].strip()
    titled = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", body)
    if titled is not None:
        title, target = titled["title"], titled["target"]
    else:
        target = body.removeprefix("~").removeprefix("!")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
    if match["role"] != "mod" and "." in target:
        path = public_target(target, paths)
        if path is not None:
            return f"[`{title}`][{path}]"
    return f"`{title}`"


def convert_text(
    text: str, paths: tuple[dict[int, str], dict[int, str]]
) -> tuple[str, list[tuple[str, str]]]:
    """The text with every role rewritten, and the ``(old, new)`` replacements."""
    replacements: list[tuple[str, str]] = []

    def replace(match: re.Match[str]) -> str:
        new = convert_role(match, paths)
        replacements.append((match[0], new))
        return new

    return ROLE.sub(replace, text), replacements


def python_files(roots: Iterable[Path]) -> list[Path]:
    """Every ``.py`` file under the given files and directories."""
    files: list[Path] = []
    for root in roots:
        files.extend(sorted(root.rglob("*.py")) if root.is_dir() else [root])
    return files


def main(argv: list[str] | None = None) -> int:
    """Convert the files under the given paths; print each replacement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories to rewrite")
    parser.add_argument("--check", action="store_true", help="only report, exit 1 if any")
    args = parser.parse_args(argv)
    paths = public_paths()
    total = 0
    for file in python_files(args.paths):
        text = file.read_text(encoding="utf-8")
        new, replacements = convert_text(text, paths)
        for old, replacement in replacements:
            print(f"{file}: {old} -> {replacement}")
        total += len(replacements)
        if replacements and not args.check:
            file.write_text(new, encoding="utf-8")
    print(f"{total} roles {'found' if args.check else 'rewritten'}", file=sys.stderr)
    return 1 if args.check and total else 0


if __name__ == "__main__":
    sys.exit(main())
