"""Raster helpers of the canvas: NaN-broken runs, dashes, cached text masks (private)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.rendering._pillow import pillow
from sekai.rendering.text import Face

__all__ = ["dashes", "finite_runs", "text_mask"]


def finite_runs(array: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    """The runs of consecutive points whose coordinates are all finite."""
    finite = np.isfinite(array).all(axis=1)
    if finite.all():
        return [array]
    runs: list[NDArray[np.float64]] = []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], finite.view(np.int8), [0]))))
    for start, stop in zip(edges[::2], edges[1::2], strict=True):
        runs.append(array[start:stop])
    return runs


def dashes(points: NDArray[np.float64], on: float, off: float) -> list[NDArray[np.float64]]:
    """Cut a polyline (pixel coordinates) into dashes ``on`` long with gaps ``off`` long."""
    segments = np.diff(points, axis=0)
    distance = np.concatenate(([0.0], np.cumsum(np.hypot(segments[:, 0], segments[:, 1]))))
    total = float(distance[-1])
    if total <= 0:
        return []
    starts = np.arange(0.0, total, on + off)
    stops = np.minimum(starts + on, total)
    start_points = np.column_stack(
        (np.interp(starts, distance, points[:, 0]), np.interp(starts, distance, points[:, 1]))
    )
    stop_points = np.column_stack(
        (np.interp(stops, distance, points[:, 0]), np.interp(stops, distance, points[:, 1]))
    )
    first = np.searchsorted(distance, starts, side="right")  # interior vertices of each dash
    last = np.searchsorted(distance, stops, side="left")
    pieces: list[NDArray[np.float64]] = []
    for i in range(len(starts)):
        inner = points[first[i] : last[i]]
        if len(inner):
            pieces.append(np.concatenate((start_points[i : i + 1], inner, stop_points[i : i + 1])))
        else:
            pieces.append(np.stack((start_points[i], stop_points[i])))
    return pieces


_MASKS: dict[tuple[Face, str, str, int, int], tuple[Any, int, int]] = {}
_MASK_CACHE = 2048


def text_mask(
    drawn: Face, text: str, anchor: str, opacity: int, scale: int
) -> tuple[Any, int, int]:
    """The coverage mask of ``text`` and its offset from the anchor point (cached).

    Dashboards draw the same labels every frame; rendering each once and
    pasting the mask afterwards makes text several times cheaper. The mask
    is enlarged ``scale`` times (pixels repeated) for supersampled canvases.
    """
    key = (drawn, text, anchor, opacity, scale)
    found = _MASKS.get(key)
    if found is not None:
        return found
    modules = pillow("Canvas.text")
    if scale != 1:
        mask, left, top = text_mask(drawn, text, anchor, opacity, 1)
        width, height = mask.size
        mask = mask.resize((width * scale, height * scale), modules.Image.Resampling.NEAREST)
        found = (mask, left * scale, top * scale)
        if len(_MASKS) >= _MASK_CACHE:
            _MASKS.clear()
        _MASKS[key] = found
        return found
    content = drawn.drawable(text)
    font = drawn.font
    offset = drawn.bold_offset  # faux bold: a second strike this far right
    shift = {"l": 0.0, "m": -offset / 2, "r": -offset}[anchor[0]]  # keeps the anchor centred
    left, top, right, bottom = font.getbbox(content, anchor=anchor)
    if offset:
        left, right = math.floor(left + shift), math.ceil(right + shift + offset)
    mask = modules.Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    draw = modules.ImageDraw.Draw(mask)
    origin = (shift - left, float(-top))
    draw.text(origin, content, fill=opacity, font=font, anchor=anchor)
    if offset:
        draw.text((origin[0] + offset, origin[1]), content, fill=opacity, font=font, anchor=anchor)
    if len(_MASKS) >= _MASK_CACHE:
        _MASKS.clear()
    found = (mask, int(left), int(top))
    _MASKS[key] = found
    return found
