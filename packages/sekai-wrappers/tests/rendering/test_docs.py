"""The examples in the docstrings of sekai.rendering run."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("PIL", reason="sekai.rendering draws with Pillow (sekai-wrappers[render])")

MODULES = [
    "sekai.rendering.canvas",
    "sekai.rendering.charts",
    "sekai.rendering.renderer",
    "sekai.rendering.text",
    "sekai.rendering.theme",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    assert tests, f"{name} has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
