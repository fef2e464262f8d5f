"""sekai-finance is a portion of the sekai namespace next to sekai-core."""

from __future__ import annotations

import importlib
from pathlib import Path


def test_portion_imports_next_to_core() -> None:
    module = importlib.import_module("sekai.finance")
    core = importlib.import_module("sekai.core")
    assert module.__file__ is not None and core.__file__ is not None
    assert Path(module.__file__).parents[1] != Path(core.__file__).parents[1]
    assert (Path(module.__file__).parent / "py.typed").is_file()
