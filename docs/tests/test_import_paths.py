"""The guides teach one import path per environment: ``sekai.envs``.

``sekai.envs`` exports every reference environment, its native vector env and
its helpers; they live in submodules (``sekai.envs.finance.market_making_vector``)
whose sekai 0.2 paths still work. The guides' examples import each name that
``sekai.envs`` exports from ``sekai.envs``, so a reader meets one path for one
class; the prose names the submodules only where compatibility is the topic.
Names that ``sekai.envs`` does not export (the renderers, ``default_market``)
are imported from the submodule that does (``sekai.envs.finance``).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

import sekai.envs

GUIDES = Path(__file__).resolve().parents[1] / "pages" / "guides"

_spec = importlib.util.spec_from_file_location(
    "markdown_examples", Path(__file__).with_name("markdown_examples.py")
)
assert _spec is not None and _spec.loader is not None
markdown_examples = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("markdown_examples", markdown_examples)
_spec.loader.exec_module(markdown_examples)


def deep_imports(code: str, exported: set[str]) -> list[str]:
    """The ``from sekai.envs.<submodule> import Name`` of ``code`` that ``sekai.envs`` exports."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sekai.envs."):
            found += [
                f"from {node.module} import {alias.name}"
                for alias in node.names
                if alias.name in exported
            ]
    return found


@pytest.mark.parametrize("guide", sorted(GUIDES.glob("*.md")), ids=lambda path: path.name)
def test_guides_import_environments_from_sekai_envs(guide: Path) -> None:
    exported = set(sekai.envs.__all__)
    found = [
        f"line {block.line}: {statement}"
        for block in markdown_examples.extract_blocks(guide.read_text(encoding="utf-8"))
        for statement in deep_imports(block.code, exported)
    ]
    assert not found, (
        f"{guide.name} imports names that sekai.envs exports from a submodule (write "
        f"`from sekai.envs import Name`): {found}"
    )


def test_deep_imports() -> None:
    code = (
        "from sekai.envs import TradingEnv\n"
        "from sekai.envs.finance import MarketMakingRenderer, TradingEnv\n"
        "from sekai.envs.finance.market_making_vector import MarketMakingVecEnv\n"
    )
    assert deep_imports(code, {"TradingEnv", "MarketMakingVecEnv"}) == [
        "from sekai.envs.finance import TradingEnv",
        "from sekai.envs.finance.market_making_vector import MarketMakingVecEnv",
    ]
