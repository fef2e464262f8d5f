"""sekai.utils re-exports its submodules' names, loading them on first use."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import sekai.utils


@pytest.mark.parametrize("name", sekai.utils.__all__)
def test_every_name_resolves_to_its_submodule_object(name: str) -> None:
    value = getattr(sekai.utils, name)
    owner = sekai.utils._LAZY.get(name, "sekai.utils.seeding")
    assert getattr(importlib.import_module(owner), name) is value


def test_unknown_name_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = sekai.utils.no_such_name  # type: ignore[attr-defined]


def test_importing_sekai_utils_loads_no_heavy_submodule() -> None:
    code = (
        "import sys, sekai.utils; "
        "print(sorted(m for m in ('sekai.utils.checker', 'sekai.utils.masking', "
        "'sekai.spaces', 'sekai.core') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_dir_lists_the_lazy_names_before_they_are_loaded() -> None:
    code = "import sekai.utils as u; print('check_env' in dir(u), 'RunningMeanStd' in dir(u))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
