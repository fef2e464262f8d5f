"""Writing recorded frames to disk: npz with numpy alone, images through imageio."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np

__all__ = ["FrameFormat", "image_module", "writer_for"]

FrameFormat = Literal["gif", "png", "npz"]
"""How an episode's frames are written: an animated GIF, one PNG per frame, or a numpy archive."""

_Writer = Callable[[Path, Sequence[Any], float], Path]


def image_module(owner: str, fmt: str) -> ModuleType:
    """Import ``imageio.v3``, or raise an ImportError naming the extra to install."""
    try:
        return importlib.import_module("imageio.v3")
    except ImportError as error:
        raise ImportError(
            f"{owner}: writing {fmt!r} frames needs imageio; install it with "
            "`pip install \"sekai-wrappers[images]\"` (or use format='npz', which needs "
            "numpy only)"
        ) from error


def _write_npz(stem: Path, frames: Sequence[Any], fps: float) -> Path:
    path = stem.with_suffix(".npz")
    np.savez_compressed(path, frames=np.stack([np.asarray(f) for f in frames]), fps=fps)
    return path


def _write_gif(stem: Path, frames: Sequence[Any], fps: float) -> Path:
    iio = image_module("RecordFrames", "gif")
    path = stem.with_suffix(".gif")
    iio.imwrite(path, np.stack([np.asarray(f) for f in frames]), duration=1000.0 / fps, loop=0)
    return path


def _write_png(stem: Path, frames: Sequence[Any], fps: float) -> Path:
    iio = image_module("RecordFrames", "png")
    stem.mkdir(parents=True, exist_ok=True)
    for i, frame in enumerate(frames):
        iio.imwrite(stem / f"frame-{i:06d}.png", np.asarray(frame))
    return stem


_WRITERS: dict[str, _Writer] = {"npz": _write_npz, "gif": _write_gif, "png": _write_png}


def writer_for(fmt: str) -> _Writer:
    """The writer function of a format (checked by the caller)."""
    return _WRITERS[fmt]
