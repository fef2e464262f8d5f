"""The examples in the docstrings of sekai.finance.lob (and its private modules) run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "sekai.finance.lob",
    "sekai.finance._lob_book",
    "sekai.finance._lob_flow",
    "sekai.finance._lob_types",
    "sekai.finance._lobster",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={**vars(module)}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


def test_the_public_classes_examples_are_found() -> None:
    # The classes present themselves under sekai.finance.lob, so their examples are run there.
    module = importlib.import_module("sekai.finance.lob")
    names = {test.name for test in doctest.DocTestFinder().find(module) if test.examples}
    assert {
        "sekai.finance.lob",
        "sekai.finance.lob.OrderBook",
        "sekai.finance.lob.ZeroIntelligenceFlow",
        "sekai.finance.lob.LobsterReplay",
    } <= names
