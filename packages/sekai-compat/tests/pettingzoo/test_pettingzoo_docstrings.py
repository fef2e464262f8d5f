"""The examples in the docstrings of the PettingZoo adapters run."""

from __future__ import annotations

import doctest
import importlib


def test_docstring_examples(top_level_sekai: None) -> None:
    result = doctest.testmod(importlib.import_module("sekai.compat.pettingzoo_env"))
    assert result.failed == 0
    assert result.attempted > 0
