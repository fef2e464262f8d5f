"""The examples in the docstrings of sekai.spaces run and give what they show."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import sekai.spaces

MODULES = sorted(
    ["sekai.spaces"]
    + [f"sekai.spaces.{info.name}" for info in pkgutil.iter_modules(sekai.spaces.__path__)]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={**vars(module)}):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


def test_every_public_name_is_exported_and_documented() -> None:
    assert set(sekai.spaces.__all__) >= {
        "Space", "Box", "Discrete", "MultiDiscrete", "MultiBinary", "Dict", "Tuple",
        "Sequence", "MaskedBox", "flatdim", "flatten", "unflatten", "flatten_space",
        "batch_space", "concatenate", "iterate", "zero_sample", "space_from_jsonable",
        "register_space_type",
    }  # fmt: skip
    for name in sekai.spaces.__all__:
        assert getattr(sekai.spaces, name).__doc__, name


def test_importing_spaces_loads_no_module_that_depends_on_it() -> None:
    code = (
        "import sys, sekai.spaces; print(sorted(m for m in sys.modules if m.startswith('sekai.')))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(ast.literal_eval(output))
    forbidden = {"sekai.core", "sekai.registry", "sekai.utils.masking", "sekai.utils.checker"}
    assert not loaded & forbidden
    assert "sekai.spaces.box" in loaded
