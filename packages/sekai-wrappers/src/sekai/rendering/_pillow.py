"""Importing Pillow on first use, with an error that names the extra to install (private)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple

__all__ = ["EXTRA", "Pillow", "pillow"]

EXTRA = "the sekai-wrappers[render] distribution"
"""What to install for what sekai.rendering draws with (not on the package index)."""


class Pillow(NamedTuple):
    """The Pillow modules sekai.rendering uses."""

    Image: ModuleType
    ImageDraw: ModuleType
    ImageFont: ModuleType


def pillow(owner: str) -> Pillow:
    """Import Pillow's ``Image``, ``ImageDraw`` and ``ImageFont``.

    Args:
        owner: Who needs Pillow, named in the error.

    Raises:
        ImportError: Pillow is not installed; the message names the
            ``sekai-wrappers[render]`` extra.
    """
    try:
        return Pillow(
            importlib.import_module("PIL.Image"),
            importlib.import_module("PIL.ImageDraw"),
            importlib.import_module("PIL.ImageFont"),
        )
    except ImportError as error:
        raise ImportError(
            f"{owner} draws with Pillow; install {EXTRA} (or `pip install pillow`)"
        ) from error
