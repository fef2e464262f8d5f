"""Writing recorded frames to disk: GIF and MP4 files, PNG folders and npz archives.

`save_gif` and `save_video` are public (exported by
`sekai.rendering.recorder`); the rest serves ``RecordFrames``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.rendering._pillow import pillow

__all__ = [
    "VIDEO_SUFFIXES",
    "FrameFormat",
    "image_module",
    "save_gif",
    "save_npz",
    "save_video",
    "writer_for",
]

FrameFormat = Literal["gif", "png", "npz"]
"""How an episode's frames are written: an animated GIF, one PNG per frame, or a numpy archive."""

VIDEO_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")
"""File suffixes `save_video` writes (the container follows the suffix)."""

_Writer = Callable[[Path, Sequence[Any], float], Path]


def image_module(owner: str, fmt: str) -> ModuleType:
    """Import ``imageio.v3``, or raise an ImportError naming the extra to install."""
    try:
        return importlib.import_module("imageio.v3")
    except ImportError as error:
        raise ImportError(
            f"{owner}: writing {fmt!r} frames needs imageio; install the "
            "sekai-wrappers[images] distribution (or `pip install imageio`), or use "
            "format='npz', which needs numpy only"
        ) from error


def _rgb_frames(frames: object, owner: str) -> list[NDArray[np.uint8]]:
    """The frames as ``(H, W, 3)`` uint8 arrays of one shape (grey frames are expanded)."""
    if isinstance(frames, np.ndarray) and frames.ndim in (3, 4):
        frames = list(frames)
    if not isinstance(frames, Sequence) or isinstance(frames, (str, bytes)):
        raise TypeError(f"{owner}: frames must be a sequence of images, got {frames!r}")
    if len(frames) == 0:
        raise ValueError(f"{owner}: no frames to write")
    out: list[NDArray[np.uint8]] = []
    shape: tuple[int, ...] | None = None
    for i, frame in enumerate(frames):
        array = np.asarray(frame)
        if array.ndim == 2:
            array = np.repeat(array[:, :, None], 3, axis=2)
        if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
            raise ValueError(
                f"{owner}: frame {i} must be an (H, W, 3) uint8 RGB array, got shape "
                f"{np.shape(frame)} and dtype {array.dtype}"
            )
        if shape is None:
            shape = array.shape
        elif array.shape != shape:
            raise ValueError(
                f"{owner}: every frame must have the shape of the first, {shape}; frame {i} "
                f"has {array.shape}"
            )
        out.append(array)
    return out


def _rate(fps: float, owner: str) -> float:
    return check_real(fps, f"{owner}: fps", minimum=0.0, min_open=True, type_error=ValueError)


def save_gif(frames: Sequence[NDArray[np.uint8]], path: str | Path, fps: float = 30) -> Path:
    """Write frames as an animated GIF that loops forever.

    Each frame gets its own 256-colour palette (Pillow's adaptive palette).
    GIF timing has a resolution of 10 ms, and identical consecutive frames
    are merged into one longer frame, so the animation's timing is kept
    while the file may hold fewer frames. Needs Pillow
    (the ``sekai-wrappers[render]`` distribution brings it).

    Args:
        frames: ``(H, W, 3)`` uint8 RGB arrays (or ``(H, W)`` grey), all of one shape.
        path: The file to write (its folder must exist).
        fps: Frames per second (> 0).

    Returns:
        ``path`` as a `Path`.

    Raises:
        ValueError: No frames, frames of different shapes or not uint8 RGB, or
            a bad ``fps``.
        ImportError: Pillow is not installed.
    """
    images = _rgb_frames(frames, "save_gif")
    rate = _rate(fps, "save_gif")
    pil_image = pillow("save_gif").Image
    target = Path(path)
    first, *rest = (pil_image.fromarray(image, "RGB") for image in images)
    first.save(
        target,
        format="GIF",
        save_all=True,
        append_images=rest,
        duration=1000.0 / rate,
        loop=0,
    )
    return target


def save_video(frames: Sequence[NDArray[np.uint8]], path: str | Path, fps: float = 30) -> Path:
    """Write frames as a video (H.264 in an MP4 file, or the container of the suffix).

    Videos are encoded by FFmpeg through imageio and imageio-ffmpeg (whose
    wheel carries the FFmpeg binary): the ``video`` extra of sekai-wrappers
    installs both.
    Frames with an odd width or height get one more column or row (a copy
    of the last), as the H.264 encoder needs even sizes.

    Args:
        frames: ``(H, W, 3)`` uint8 RGB arrays (or ``(H, W)`` grey), all of one shape.
        path: The file to write: ``.mp4`` (or ``.m4v``, ``.mov``, ``.mkv``,
            ``.avi``, ``.webm``).
        fps: Frames per second (> 0).

    Returns:
        ``path`` as a `Path`.

    Raises:
        ValueError: No frames, malformed frames, a bad ``fps`` or an unknown suffix.
        ImportError: imageio or imageio-ffmpeg is not installed; the message
            says what to install.
    """
    images = _rgb_frames(frames, "save_video")
    rate = _rate(fps, "save_video")
    target = Path(path)
    if target.suffix.lower() not in VIDEO_SUFFIXES:
        raise ValueError(
            f"save_video: the file must end with one of {', '.join(VIDEO_SUFFIXES)}, "
            f"got {str(path)!r} (use save_gif for GIF files)"
        )
    try:
        iio = importlib.import_module("imageio.v2")
        importlib.import_module("imageio_ffmpeg")
    except ImportError as error:
        raise ImportError(
            "save_video encodes videos with FFmpeg through imageio and imageio-ffmpeg; "
            "install the sekai-wrappers[video] distribution (or "
            "`pip install imageio imageio-ffmpeg`), or write a GIF with save_gif"
        ) from error
    height, width = images[0].shape[:2]
    pad = ((0, height % 2), (0, width % 2), (0, 0))
    codec = "libvpx-vp9" if target.suffix.lower() == ".webm" else "libx264"
    writer = iio.get_writer(
        target,
        format="FFMPEG",
        mode="I",
        fps=rate,
        codec=codec,
        pixelformat="yuv420p",
        macro_block_size=1,
    )
    try:
        for image in images:
            writer.append_data(np.pad(image, pad, mode="edge") if any(p[1] for p in pad) else image)
    finally:
        writer.close()
    return target


def save_npz(frames: Sequence[Any], path: Path, fps: float) -> Path:
    """Write the stacked frames and ``fps`` to a compressed numpy archive at ``path``."""
    np.savez_compressed(path, frames=np.stack([np.asarray(f) for f in frames]), fps=fps)
    return path


def _write_npz(stem: Path, frames: Sequence[Any], fps: float) -> Path:
    return save_npz(frames, stem.with_suffix(".npz"), fps)


def _write_gif(stem: Path, frames: Sequence[Any], fps: float) -> Path:
    return save_gif(frames, stem.with_suffix(".gif"), fps)


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
