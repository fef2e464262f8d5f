"""The examples in the docstrings of the Gymnasium adapters run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "sekai.compat.gymnasium_env",
    "sekai.compat.gymnasium_spaces",
    "sekai.compat.gymnasium_vector",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module: str, top_level_sekai: None) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
    assert result.attempted > 0
