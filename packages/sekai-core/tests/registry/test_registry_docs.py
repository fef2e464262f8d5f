"""The examples in sekai.registry's docstrings run."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module", ["sekai.registry", "sekai.registry.env_registry", "sekai.registry.env_spec"]
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0


def test_the_package_docstring_has_an_example() -> None:
    finder = doctest.DocTestFinder()
    tests = finder.find(importlib.import_module("sekai.registry"))
    assert sum(len(test.examples) for test in tests) > 0
