"""Docstrings render on the API pages: no Sphinx role, examples as code.

mkdocstrings does not read Sphinx roles (``:class:`~sekai.core.Env```): the API
pages would show them as raw text. Write a cross-reference instead,
``[`Env`][sekai.core.Env]`` (for an object an API page renders, under its public
path), or plain backquotes (```step```); ``tools/convert_sphinx_roles.py``
rewrites roles that way.

Examples (``>>>`` lines) go under an ``Examples:`` section, which mkdocstrings
renders as a highlighted code block (under ``Example:`` they render as text in
nested quotes); every docstring example of every sekai module runs here too.

The public names are those ``docs/tests/test_api_pages.py`` checks: every name
of the ``__all__`` of every public module, and the members that a class defines
itself (methods, properties, nested classes), with the modules' own docstrings.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import pkgutil
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_spec = importlib.util.spec_from_file_location(
    "_sekai_docs_api_pages", Path(__file__).with_name("test_api_pages.py")
)
assert _spec is not None and _spec.loader is not None
api_pages = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("_sekai_docs_api_pages", api_pages)
_spec.loader.exec_module(api_pages)

PUBLIC_MODULES = sorted({"sekai", *api_pages.RENDERED_PAGES})


def _all_modules() -> list[str]:
    import sekai

    return sorted(
        info.name
        for info in pkgutil.walk_packages(sekai.__path__, "sekai.")
        if not info.name.endswith("__main__")
    )


ALL_MODULES = _all_modules()

# :class:`X`, :py:meth:`X`, :func:`~a.b`, ... (the roles of Sphinx's Python domain
# and its standard ones).
SPHINX_ROLE = re.compile(
    r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const|ref|term|doc|any):`[^`]*`"
)


def _docstring(obj: Any) -> str | None:
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    doc = getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else None


def _defined_in_sekai(obj: Any) -> bool:
    module = getattr(obj, "__module__", None)
    return isinstance(module, str) and (module == "sekai" or module.startswith("sekai."))


def _documented(module_name: str) -> Iterator[tuple[str, str]]:
    """``(public path, docstring)`` of the module, its public names and their members."""
    module = importlib.import_module(module_name)
    yield module_name, module.__doc__ or ""
    for name in api_pages.public_names(module):
        obj = getattr(module, name)
        if isinstance(obj, types.ModuleType) or not _defined_in_sekai(obj):
            continue  # a NumPy dtype or a type alias has NumPy's docstring
        path = f"{module_name}.{name}"
        doc = _docstring(obj) if not inspect.isclass(obj) else obj.__doc__
        if doc:
            yield path, doc
        if not inspect.isclass(obj):
            continue
        for member_name, member in vars(obj).items():
            if member_name.startswith("_") and member_name != "__init__":
                continue
            kinds = (property, type, staticmethod, classmethod)
            member_doc = _docstring(member)
            if member_doc and (inspect.isroutine(member) or isinstance(member, kinds)):
                yield f"{path}.{member_name}", member_doc


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_no_sphinx_role_in_public_docstrings(module_name: str) -> None:
    found = {
        path: sorted(set(SPHINX_ROLE.findall(doc)))
        for path, doc in _documented(module_name)
        if SPHINX_ROLE.search(doc)
    }
    assert not found, (
        f"Sphinx roles in docstrings of {module_name} (mkdocstrings shows them as raw "
        "text; write [`Name`][public.path] or `name`, see tools/convert_sphinx_roles.py): "
        + "; ".join(f"{path}: {', '.join(roles)}" for path, roles in sorted(found.items()))
    )


def test_the_pattern_finds_roles() -> None:
    assert SPHINX_ROLE.search("See :class:`~sekai.vector.AsyncVecEnv`.")
    assert SPHINX_ROLE.search(":meth:`VecEnv.reset <sekai.vector.VecEnv.reset>`")
    assert SPHINX_ROLE.search(":py:func:`batch_space`")
    assert not SPHINX_ROLE.search("[`AsyncVecEnv`][sekai.vector.AsyncVecEnv] and `step`")
    assert not SPHINX_ROLE.search("a ratio of 1:2 and ``code``")


def _examples(module_name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(module_name)
    tests = doctest.DocTestFinder().find(module, module_name, globs={**vars(module)})
    return [test for test in tests if test.examples]


_RUN_EXAMPLES = """
import doctest, importlib, sys
failed = []
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(module, name, globs={**vars(module)}):
        runner.run(test)
    if runner.summarize(verbose=False).failed:
        failed.append(name)
sys.exit(f"docstring examples failed in {failed}" if failed else 0)
"""


def test_docstring_examples_run() -> None:
    """Every example of every module, in a fresh interpreter (they register spaces, envs)."""
    result = subprocess.run(
        [sys.executable, "-c", _RUN_EXAMPLES, *ALL_MODULES], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]


def misplaced_examples(docstring: str) -> list[str]:
    """The ``>>>`` lines of a docstring that are not in an ``Examples:`` section."""
    misplaced: list[str] = []
    lines = docstring.expandtabs().splitlines()
    for index, line in enumerate(lines):
        if not line.lstrip().startswith(">>>"):
            continue
        indent = len(line) - len(line.lstrip())
        heading = next(
            (
                above.strip()
                for above in reversed(lines[:index])
                if above.strip() and len(above) - len(above.lstrip()) < indent
            ),
            None,
        )
        if heading != "Examples:":
            misplaced.append(line.strip())
    return misplaced


@pytest.mark.parametrize("module_name", ALL_MODULES)
def test_docstring_examples_are_code_blocks(module_name: str) -> None:
    misplaced = {
        test.name: lines
        for test in _examples(module_name)
        if (lines := misplaced_examples(test.docstring or ""))
    }
    assert not misplaced, (
        f"examples outside an 'Examples:' section in {module_name} (mkdocstrings renders "
        f"them as quoted text, not code): {misplaced}"
    )


def test_misplaced_examples() -> None:
    good = "Do.\n\nExamples:\n    >>> 1 + 1\n    2\n"
    bad = "Do.\n\nExample:\n    >>> 1 + 1\n    2\n"
    indented = "Do.\n\n    Examples:\n        >>> x = 1\n        >>> x\n        1\n"
    assert misplaced_examples(good) == misplaced_examples(indented) == []
    assert misplaced_examples(bad) == [">>> 1 + 1"]
