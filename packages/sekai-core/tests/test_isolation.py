"""sekai-core works with no other sekai distribution installed."""

from __future__ import annotations

import importlib
import os

import pytest

isolated = pytest.mark.skipif(
    os.environ.get("SEKAI_TEST_ISOLATED") != "sekai-core",
    reason="only meaningful in the `tests-sekai-core` nox session",
)


@isolated
@pytest.mark.parametrize("name", ["sekai.vector", "sekai.wrappers", "sekai.envs"])
def test_other_distributions_are_absent(name: str) -> None:
    with pytest.raises(ImportError):
        importlib.import_module(name)


@isolated
def test_sekai_is_a_namespace_package_without_the_meta() -> None:
    import sekai

    assert getattr(sekai, "__file__", None) is None


@pytest.mark.parametrize(
    "name", ["sekai.core", "sekai.error", "sekai.spaces", "sekai.registry", "sekai.stats",
             "sekai.utils"],
)  # fmt: skip
def test_core_modules_import(name: str) -> None:
    module = importlib.import_module(name)
    assert isinstance(module.__all__, list)
