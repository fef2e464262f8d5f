"""The meta-package's top-level API and the shared ``sekai`` namespace."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import sekai

# Names the spec keeps out of the top level.
MODULE_ONLY = {"sekai.vector": {"shared"}}
PACKAGES = Path(__file__).resolve().parents[2]
PORTIONS = {
    "core": "sekai-core",
    "spaces": "sekai-core",
    "registry": "sekai-core",
    "stats": "sekai-core",
    "utils": "sekai-core",
    "wrappers": "sekai-wrappers",
    "rendering": "sekai-wrappers",
    "vector": "sekai-vector",
    "envs": "sekai-envs",
    "compat": "sekai-compat",
}


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.parametrize(("name", "distribution"), sorted(PORTIONS.items()))
def test_subpackages_resolve_from_their_own_distribution(name: str, distribution: str) -> None:
    module = getattr(sekai, name)
    assert module is importlib.import_module(f"sekai.{name}")
    assert module.__file__ is not None
    # The tests run against the editable workspace: each portion lives in its
    # own distribution's src/ directory.
    assert Path(module.__file__).is_relative_to(PACKAGES / distribution / "src")


def test_import_sekai_does_not_load_subpackages() -> None:
    loaded = _run(
        "import sys, sekai; print(sorted(m for m in sys.modules if m.startswith('sekai.')))"
    )
    assert loaded.strip() == "[]"


@pytest.mark.parametrize("module_name", ["sekai.error", *(f"sekai.{name}" for name in PORTIONS)])
def test_every_public_name_of_every_module_is_exported(module_name: str) -> None:
    # When this fails, run `python tools/sync_exports.py`.
    module = importlib.import_module(module_name)
    for name in module.__all__:
        if name in MODULE_ONLY.get(module_name, ()):
            assert name not in sekai.__all__
            continue
        assert name in sekai.__all__, f"{module_name}.{name} missing from sekai.__all__"
        assert getattr(sekai, name) is getattr(module, name)


def test_all_and_dir_list_every_export() -> None:
    assert len(sekai.__all__) == len(set(sekai.__all__))
    assert set(sekai.__all__) <= set(dir(sekai))
    for name in sekai.__all__:
        getattr(sekai, name)


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        sekai.NoSuchThing  # noqa: B018


def test_only_the_meta_package_has_an_init() -> None:
    inits = sorted(p.relative_to(PACKAGES) for p in PACKAGES.glob("*/src/sekai/__init__.py"))
    assert inits == [Path("sekai/src/sekai/__init__.py")]


def test_shared_stays_in_sekai_vector() -> None:
    # spec/vector.md: everything is exported from sekai and sekai.vector, except
    # `shared`, which only sekai.vector exports.
    import sekai.vector

    assert sekai.vector.shared is not None
    assert not hasattr(sekai, "shared")
