"""Lazy imports of the optional peers, with errors that name the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require_gymnasium", "require_pettingzoo"]


def _require(module: str, extra: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"this adapter needs {module!r}, which is not installed; install the "
            f"sekai-compat[{extra}] distribution (or sekai[{extra}], which brings everything), "
            f"or `pip install {module}`"
        ) from error


def require_gymnasium() -> ModuleType:
    """Import and return ``gymnasium``.

    Raises:
        ImportError: Gymnasium is not installed; the message names the
            ``gymnasium`` extra.
    """
    return _require("gymnasium", "gymnasium")


def require_pettingzoo() -> ModuleType:
    """Import and return ``pettingzoo`` (which brings Gymnasium).

    Raises:
        ImportError: PettingZoo is not installed; the message names the
            ``pettingzoo`` extra.
    """
    return _require("pettingzoo", "pettingzoo")
