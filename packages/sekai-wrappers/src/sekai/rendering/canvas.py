"""Canvas: an RGB image to draw shapes and text on, in pixels with the y axis pointing up.

The canvas is a thin layer over Pillow's ``ImageDraw``: it takes coordinates
from the bottom-left corner (as charts think), blends colours with an
``alpha``, clips drawing to a box, draws dashed and NaN-broken lines, and
returns the image as a numpy array. With ``antialias=True`` it draws at twice
the size and halves the result, which smooths lines and edges for about four
times the drawing work.

Drawing needs Pillow, which the ``sekai-wrappers[render]`` distribution brings.
It is imported when a canvas is created; without it that raises an
``ImportError`` naming the extra.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.rendering._pillow import pillow
from sekai.rendering._raster import dashes, finite_runs, text_mask
from sekai.rendering.text import face
from sekai.rendering.theme import Color, rgb

__all__ = ["Canvas", "HAlign", "VAlign", "rotate"]

HAlign: TypeAlias = Literal["left", "center", "right"]
"""Where text sits horizontally relative to its anchor point."""

VAlign: TypeAlias = Literal["baseline", "top", "middle", "bottom"]
"""Where text sits vertically relative to its anchor point (``top`` is the ascender line)."""

_H_ANCHOR = {"left": "l", "center": "m", "right": "r"}
_V_ANCHOR = {"baseline": "s", "top": "a", "middle": "m", "bottom": "d"}
_MAX_SIDE = 16384
_SPAN_FILL = 64  # areas over more points than this are filled column by column
_RGBA = tuple[int, int, int, int]


def rotate(
    points: ArrayLike, angle: float, origin: Sequence[float] = (0.0, 0.0)
) -> NDArray[np.float64]:
    """Turn points counterclockwise (y up) by ``angle`` radians about ``origin``.

    Args:
        points: One point ``(x, y)`` or an array of shape ``(n, 2)``.
        angle: The angle in radians; positive turns counterclockwise.
        origin: The fixed point of the rotation.

    Returns:
        The turned points, float64, shape ``(n, 2)`` (``(2,)`` for one point).

    Raises:
        ValueError: ``points`` is not one point or an ``(n, 2)`` array.

    Examples:
        >>> rotate([1.0, 0.0], math.pi / 2).round(12).tolist()
        [0.0, 1.0]
    """
    array = np.asarray(points, dtype=np.float64)
    if array.shape[-1:] != (2,) or array.ndim > 2:
        raise ValueError(f"rotate: points must have shape (2,) or (n, 2), got {array.shape}")
    center = np.asarray(origin, dtype=np.float64)
    if center.shape != (2,):
        raise ValueError(f"rotate: origin must be a point (x, y), got {origin!r}")
    cos, sin = math.cos(angle), math.sin(angle)
    matrix = np.array([[cos, sin], [-sin, cos]])  # row vectors: p @ matrix
    result: NDArray[np.float64] = (array - center) @ matrix + center
    return result


class Canvas:
    """An RGB image of ``width`` x ``height`` pixels to draw on, origin at the bottom left.

    Coordinates are floats in pixels: ``x`` grows to the right, ``y`` grows
    upwards, ``(0, 0)`` is the bottom-left corner and ``(width, height)`` the
    top-right one. A rectangle from ``left`` to ``right`` covers the pixels
    whose centres lie between them. Colours are ``(r, g, b)`` tuples (hex
    strings work too); ``alpha`` in ``[0, 1]`` blends a shape over what is
    already drawn. Line widths and text sizes are in pixels.

    Args:
        width: Width in pixels, an int in ``[1, 16384]``.
        height: Height in pixels, an int in ``[1, 16384]``.
        background: The initial colour of every pixel.
        antialias: Draw at twice the size and downscale: smooth edges, about
            four times the drawing work.

    Raises:
        TypeError: ``width`` or ``height`` is not an int, ``antialias`` not a bool.
        ValueError: A size out of range or a malformed ``background``.
        ImportError: Pillow is not installed.

    Attributes:
        width: Width in pixels.
        height: Height in pixels.
        antialias: Whether drawing is supersampled.

    Examples:
        >>> canvas = Canvas(40, 20)
        >>> canvas.rect(0, 0, 20, 20, (255, 0, 0))  # the left half
        >>> frame = canvas.to_array()
        >>> frame.shape, frame[10, 5].tolist(), frame[10, 30].tolist()
        ((20, 40, 3), [255, 0, 0], [255, 255, 255])
    """

    def __init__(
        self,
        width: int,
        height: int,
        background: Color = (255, 255, 255),
        *,
        antialias: bool = False,
    ) -> None:
        self.width = check_int(width, "Canvas: width", minimum=1, maximum=_MAX_SIDE)
        self.height = check_int(height, "Canvas: height", minimum=1, maximum=_MAX_SIDE)
        self.antialias = check_bool(antialias, "Canvas: antialias")
        self._background = rgb(background)
        modules = pillow("Canvas")
        self._pil_image: Any = modules.Image
        self._pil_draw: Any = modules.ImageDraw
        s = 2 if self.antialias else 1
        self._s = s
        self._image: Any = modules.Image.new(
            "RGB", (self.width * s, self.height * s), self._background
        )
        self._draw: Any = modules.ImageDraw.Draw(self._image, "RGBA")
        # The clip: the image drawn on (a copy of the clipped region while a
        # clip is active), its offset in the full image, and the clip box in
        # full-image pixels (x0, y0, x1, y1), y down.
        self._offset = (0, 0)
        self._clip = (0, 0, self.width * s, self.height * s)
        self._regions: list[tuple[Any, int, int]] = []

    def __repr__(self) -> str:
        return f"Canvas(width={self.width}, height={self.height}, antialias={self.antialias})"

    # -- coordinates ---------------------------------------------------------------------

    def _xy(self, x: float, y: float) -> tuple[float, float]:
        s = self._s
        return (x * s - self._offset[0], (self.height - y) * s - self._offset[1])

    def _points(self, points: ArrayLike) -> NDArray[np.float64]:
        """``(n, 2)`` canvas points as pixel coordinates of the current drawing target."""
        array = np.asarray(points, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != 2:
            array = array.reshape(-1, 2) if array.size % 2 == 0 and array.ndim <= 2 else array
            if array.ndim != 2 or array.shape[1] != 2:
                raise ValueError(f"points must have shape (n, 2), got {np.shape(points)}")
        s = self._s
        pixels = np.empty_like(array)
        pixels[:, 0] = array[:, 0] * s - self._offset[0]
        pixels[:, 1] = (self.height - array[:, 1]) * s - self._offset[1]
        return pixels

    @staticmethod
    def _fill(color: Color, alpha: float) -> _RGBA:
        if type(color) is not tuple or len(color) != 3:
            color = rgb(color)
        if alpha == 1.0:
            return (color[0], color[1], color[2], 255)
        if not 0.0 <= alpha <= 1.0:
            alpha = check_real(alpha, "alpha", minimum=0.0, maximum=1.0)
        return (color[0], color[1], color[2], round(alpha * 255))

    def _line_width(self, width: float) -> int:
        if not width > 0:
            check_real(width, "line width", minimum=0.0, min_open=True)
        return max(1, round(width * self._s))

    # -- state ---------------------------------------------------------------------------

    @property
    def pixels(self) -> NDArray[np.uint8]:
        """The frame as an ``(height, width, 3)`` uint8 array: a copy, as `to_array`."""
        return self.to_array()

    def clear(self, color: Color = (255, 255, 255)) -> None:
        """Paint every pixel (inside the current clip, if any) with ``color``."""
        fill = self._fill(color, 1.0)
        target = self._draw.im
        self._draw.rectangle((0, 0, target.size[0], target.size[1]), fill=fill)

    @contextmanager
    def clip(self, left: float, bottom: float, right: float, top: float) -> Iterator[None]:
        """Restrict drawing to a box while the ``with`` block runs.

        Clips nest: inside another clip, drawing is restricted to the
        intersection of both boxes.

        Examples:
            >>> canvas = Canvas(10, 10)
            >>> with canvas.clip(0, 0, 5, 10):
            ...     canvas.rect(0, 0, 10, 10, (0, 0, 0))  # only the left half is painted
            >>> canvas.to_array()[5, [2, 7], 0].tolist()
            [0, 255]
        """
        s = self._s
        x0 = max(self._clip[0], math.floor(min(left, right) * s))
        x1 = min(self._clip[2], math.ceil(max(left, right) * s))
        y0 = max(self._clip[1], math.floor((self.height - max(bottom, top)) * s))
        y1 = min(self._clip[3], math.ceil((self.height - min(bottom, top)) * s))
        saved = (self._draw, self._offset, self._clip)
        empty = x1 <= x0 or y1 <= y0
        if empty:  # nothing can be drawn: draw on a scrap pixel, paste nothing back
            region = self._pil_image.new("RGB", (1, 1))
            x1, y1 = x0, y0
        else:
            ox, oy = self._offset
            region = self._target().crop((x0 - ox, y0 - oy, x1 - ox, y1 - oy))
        self._draw = self._pil_draw.Draw(region, "RGBA")
        self._offset = (x0, y0)
        self._clip = (x0, y0, x1, y1)
        self._regions.append((region, x0, y0))
        try:
            yield
        finally:
            self._regions.pop()
            self._draw, self._offset, self._clip = saved
            if not empty:
                ox, oy = self._offset
                self._target().paste(region, (x0 - ox, y0 - oy))

    def _target(self) -> Any:
        return self._regions[-1][0] if self._regions else self._image

    def to_array(self) -> NDArray[np.uint8]:
        """The frame as a new ``(height, width, 3)`` uint8 RGB array (row 0 is the top).

        Inside a clip, the drawing done so far in the clipped box is included.
        """
        image = self._image
        if self._regions:
            image = image.copy()
            for region, x, y in self._regions:
                image.paste(region, (x, y))
        if self._s != 1:
            image = image.reduce(self._s)
        frame: NDArray[np.uint8] = np.array(image, dtype=np.uint8)
        return frame

    # -- shapes --------------------------------------------------------------------------

    def rect(
        self,
        left: float,
        bottom: float,
        right: float,
        top: float,
        color: Color,
        *,
        alpha: float = 1.0,
        radius: float = 0.0,
    ) -> None:
        """Fill a rectangle (corners rounded by ``radius`` pixels if > 0).

        The sides may come in either order; a rectangle thinner than a pixel
        still paints one pixel row or column.
        """
        fill = self._fill(color, alpha)
        s = self._s
        ox, oy = self._offset
        if right < left:
            left, right = right, left
        if top < bottom:
            bottom, top = top, bottom
        x0 = round(left * s) - ox
        x1 = round(right * s) - ox - 1
        y0 = round((self.height - top) * s) - oy
        y1 = round((self.height - bottom) * s) - oy - 1
        if x1 < x0:
            if right <= left:
                return
            x1 = x0
        if y1 < y0:
            if top <= bottom:
                return
            y1 = y0
        if radius > 0:
            r = min(radius * s, (x1 - x0) / 2, (y1 - y0) / 2)
            if r >= 1:
                self._draw.rounded_rectangle((x0, y0, x1, y1), radius=r, fill=fill)
                return
        self._draw.rectangle((x0, y0, x1, y1), fill=fill)

    def circle(
        self, cx: float, cy: float, radius: float, color: Color, *, alpha: float = 1.0
    ) -> None:
        """Fill a disc of ``radius`` pixels centred on ``(cx, cy)``."""
        fill = self._fill(color, alpha)
        x, y = self._xy(cx, cy)
        r = radius * self._s
        if r <= 0:
            return
        self._draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def polygon(self, points: ArrayLike, color: Color, *, alpha: float = 1.0) -> None:
        """Fill the polygon through ``points`` (shape ``(n, 2)``; points with NaN are skipped)."""
        fill = self._fill(color, alpha)
        pixels = self._points(points)
        pixels = pixels[np.isfinite(pixels).all(axis=1)]
        if len(pixels) >= 3:
            self._draw.polygon(pixels.ravel().tolist(), fill=fill)

    def line(
        self,
        start: Sequence[float],
        end: Sequence[float],
        color: Color,
        width: float = 1.0,
        *,
        alpha: float = 1.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """Draw a straight line from ``start`` to ``end`` (``dash``: see `polyline`)."""
        self.polyline((start, end), color, width, alpha=alpha, dash=dash)

    def polyline(
        self,
        points: ArrayLike,
        color: Color,
        width: float = 1.0,
        *,
        alpha: float = 1.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """Draw a line through ``points`` (shape ``(n, 2)``).

        A point with a NaN coordinate breaks the line: the runs before and
        after it are drawn separately, so missing values leave gaps.

        Args:
            points: The points, in order.
            color: The line's colour.
            width: The line's width in pixels.
            alpha: Opacity in ``[0, 1]``.
            dash: ``(on, off)``: dashes ``on`` pixels long separated by gaps
                ``off`` pixels long; ``None`` draws a solid line.
        """
        fill = self._fill(color, alpha)
        pixels = self._points(points)
        size = self._line_width(width)
        draw = self._draw
        for run in finite_runs(pixels):
            if len(run) == 1:
                x, y = run[0]
                r = size / 2
                draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)
                continue
            if dash is None:
                draw.line(run.ravel().tolist(), fill=fill, width=size, joint="curve")
                continue
            on, off = dash
            if not (on > 0 and off >= 0):
                raise ValueError(f"dash must be (on > 0, off >= 0) pixels, got {dash!r}")
            for piece in dashes(run, on * self._s, off * self._s):
                draw.line(piece.ravel().tolist(), fill=fill, width=size)

    def fill_between(
        self,
        x: ArrayLike,
        y1: ArrayLike,
        y2: ArrayLike,
        color: Color,
        *,
        alpha: float = 1.0,
    ) -> None:
        """Fill the area between two curves over the same ``x`` values.

        ``y1`` and ``y2`` are arrays as long as ``x``, or numbers (a flat
        line). Where any of the three is NaN the area is interrupted.
        """
        xs = np.asarray(x, dtype=np.float64).ravel()
        lower = np.broadcast_to(np.asarray(y1, dtype=np.float64), xs.shape)
        upper = np.broadcast_to(np.asarray(y2, dtype=np.float64), xs.shape)
        stacked = np.column_stack((xs, lower, upper))
        for run in finite_runs(stacked):
            if len(run) < 2:
                continue
            if len(run) > _SPAN_FILL and bool(np.all(np.diff(run[:, 0]) >= 0)):
                self._fill_columns(run, color, alpha)
                continue
            outline = np.concatenate((run[:, [0, 1]], run[::-1, [0, 2]]))
            self.polygon(outline, color, alpha=alpha)

    def _fill_columns(self, run: NDArray[np.float64], color: Color, alpha: float) -> None:
        """Fill between two curves over increasing x, one pixel column at a time.

        Long areas (a whole episode) make polygons with thousands of edges,
        which Pillow fills slowly; sampling both curves at each pixel
        column's centre and painting the spans through one mask is linear
        in the pixels instead.
        """
        fill = self._fill(color, alpha)
        target = self._target()
        width, height = target.size
        s = self._s
        ox, oy = self._offset
        px = run[:, 0] * s - ox
        first = max(0, math.ceil(px[0] - 0.5))
        last = min(width - 1, math.floor(px[-1] - 0.5))
        if last < first:
            return
        centres = np.arange(first, last + 1) + 0.5
        a = (self.height - np.interp(centres, px, run[:, 1])) * s - oy
        b = (self.height - np.interp(centres, px, run[:, 2])) * s - oy
        top, bottom = np.minimum(a, b), np.maximum(a, b)
        row0 = max(0, math.floor(float(top.min())))
        row1 = min(height, math.ceil(float(bottom.max())) + 1)
        if row1 <= row0:
            return
        rows = np.arange(row0, row1)[:, None] + 0.5
        inside = (rows >= top[None, :]) & (rows <= bottom[None, :])
        mask = self._pil_image.fromarray((inside * np.uint8(fill[3])).astype(np.uint8), "L")
        target.paste(fill[:3], (first, row0), mask)

    def image(
        self,
        image: ArrayLike,
        left: float,
        bottom: float,
        right: float,
        top: float,
        *,
        alpha: float = 1.0,
    ) -> None:
        """Draw an image (``(h, w)`` grey, ``(h, w, 3)`` RGB or ``(h, w, 4)`` RGBA) into a box.

        The image is resized to the box (pixels are repeated when it grows,
        averaged when it shrinks); its row 0 is drawn at the top.
        """
        array = np.asarray(image)
        if array.dtype != np.uint8:
            if not np.issubdtype(array.dtype, np.number):
                raise TypeError(f"Canvas.image: expected a numeric array, got {array.dtype}")
            array = np.clip(np.nan_to_num(array), 0, 255).astype(np.uint8)
        if array.ndim == 2:
            array = np.repeat(array[:, :, None], 3, axis=2)
        if array.ndim != 3 or array.shape[2] not in (3, 4) or 0 in array.shape:
            raise ValueError(
                f"Canvas.image: expected an (h, w), (h, w, 3) or (h, w, 4) array, got {array.shape}"
            )
        fill = self._fill((0, 0, 0), alpha)
        s = self._s
        ox, oy = self._offset
        left, right = min(left, right), max(left, right)
        bottom, top = min(bottom, top), max(bottom, top)
        x0, x1 = round(left * s) - ox, round(right * s) - ox
        y0, y1 = round((self.height - top) * s) - oy, round((self.height - bottom) * s) - oy
        if x1 <= x0 or y1 <= y0:
            return
        mode = "RGBA" if array.shape[2] == 4 else "RGB"
        picture = self._pil_image.fromarray(np.ascontiguousarray(array), mode)
        grows = (x1 - x0) >= picture.size[0] and (y1 - y0) >= picture.size[1]
        resample = (
            self._pil_image.Resampling.NEAREST if grows else self._pil_image.Resampling.BILINEAR
        )
        picture = picture.resize((x1 - x0, y1 - y0), resample)
        mask = None
        if mode == "RGBA" or fill[3] != 255:
            opacity = np.full((y1 - y0, x1 - x0), fill[3], dtype=np.uint16)
            if mode == "RGBA":
                opacity = opacity * np.asarray(picture)[:, :, 3] // 255
            mask = self._pil_image.fromarray(opacity.astype(np.uint8), "L")
        self._target().paste(picture.convert("RGB"), (x0, y0), mask)

    # -- text ----------------------------------------------------------------------------

    def text(
        self,
        x: float,
        y: float,
        text: str,
        color: Color,
        *,
        size: float = 12,
        bold: bool = False,
        align: HAlign = "left",
        valign: VAlign = "baseline",
        alpha: float = 1.0,
    ) -> float:
        """Draw one line of text anchored at ``(x, y)``; return its width in pixels.

        Args:
            x: The anchor's x: the text's left end, centre or right end (``align``).
            y: The anchor's y: the text's baseline, top, middle or bottom (``valign``).
            text: The text (one line).
            color: Its colour.
            size: Its size in pixels.
            bold: Faux bold.
            align: ``"left"``, ``"center"`` or ``"right"``.
            valign: ``"baseline"``, ``"top"``, ``"middle"`` or ``"bottom"``.
            alpha: Opacity in ``[0, 1]``.

        Returns:
            The width of the text, as [`text_width`][sekai.rendering.text_width] measures it.

        Raises:
            ValueError: An unknown ``align`` or ``valign``.
        """
        anchor_x = _H_ANCHOR.get(align)
        anchor_y = _V_ANCHOR.get(valign)
        if anchor_x is None or anchor_y is None:
            raise ValueError(
                f"Canvas.text: align must be one of {sorted(_H_ANCHOR)} and valign one of "
                f"{sorted(_V_ANCHOR)}, got align={align!r}, valign={valign!r}"
            )
        if not isinstance(text, str):
            raise TypeError(f"Canvas.text: text must be a str, got {text!r}")
        fill = self._fill(color, alpha)
        measure = face(size, bold)
        if not text:
            return 0.0
        s = self._s
        mask, left, top = text_mask(measure, text, anchor_x + anchor_y, fill[3], s)
        # Text is rendered at the canvas's own size (and enlarged when
        # supersampling), on whole pixels: it looks the same with or without
        # antialiasing and is exactly as wide as text_width says.
        column, row = round(x), round(self.height - y)
        position = (column * s + left - self._offset[0], row * s + top - self._offset[1])
        self._target().paste(fill[:3], position, mask)
        return measure.width(text)
