"""Plot: data to pixels in a box, grid lines, axes and value tags (private; see ``charts``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.rendering._geometry import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.text import font_sizes, text_width
from sekai.rendering.theme import ColorLike, Theme, rgb

__all__ = ["Plot"]


class Plot:
    """Maps data coordinates to pixels inside a box, and draws grid lines, axes and tags.

    Args:
        canvas: Where to draw.
        box: The plotting area, in pixels.
        x_range: ``(x_min, x_max)`` of the data shown, mapped to the box's
            left and right edges.
        y_range: ``(y_min, y_max)`` mapped to the box's bottom and top edges.
        theme: The colours of grid, axes and labels.
        scale: Multiplies text sizes, line widths and paddings.

    Attributes:
        canvas: The canvas.
        box: The plotting area.
        x_range: The data range along x.
        y_range: The data range along y.
        theme: The theme.
        scale: The size multiplier.
    """

    def __init__(
        self,
        canvas: Canvas,
        box: Box,
        x_range: tuple[float, float],
        y_range: tuple[float, float],
        theme: Theme,
        *,
        scale: float = 1.0,
    ) -> None:
        self.canvas = canvas
        self.box = box
        self.x_range = (float(x_range[0]), float(x_range[1]))
        self.y_range = (float(y_range[0]), float(y_range[1]))
        self.theme = theme
        self.scale = float(scale)
        x0, x1 = self.x_range
        y0, y1 = self.y_range
        self._x_factor = box.width / (x1 - x0) if x1 != x0 else 0.0
        self._y_factor = box.height / (y1 - y0) if y1 != y0 else 0.0

    def size(self, px: float) -> float:
        """``px`` times the plot's scale."""
        return px * self.scale

    def x(self, values: ArrayLike) -> NDArray[np.float64]:
        """Pixel x of data x values (an array of the same shape)."""
        array = np.asarray(values, dtype=np.float64)
        if self._x_factor == 0.0:
            return np.full(array.shape, self.box.center[0])
        result: NDArray[np.float64] = self.box.left + (array - self.x_range[0]) * self._x_factor
        return result

    def y(self, values: ArrayLike) -> NDArray[np.float64]:
        """Pixel y of data y values (an array of the same shape)."""
        array = np.asarray(values, dtype=np.float64)
        if self._y_factor == 0.0:
            return np.full(array.shape, self.box.center[1])
        result: NDArray[np.float64] = self.box.bottom + (array - self.y_range[0]) * self._y_factor
        return result

    def points(self, xs: ArrayLike, ys: ArrayLike) -> NDArray[np.float64]:
        """Pixel points ``(n, 2)`` of data points given as two arrays."""
        return np.column_stack((self.x(xs).ravel(), self.y(ys).ravel()))

    def y_axis(self, ticks: ArrayLike, labels: Sequence[str], *, grid: bool = True) -> None:
        """Draw horizontal grid lines at ``ticks`` and their labels left of the box."""
        canvas, box, theme = self.canvas, self.box, self.theme
        size = self.size(font_sizes["tick"])
        pad = self.size(5)
        for tick, label in zip(np.asarray(ticks, dtype=np.float64), labels, strict=True):
            y = float(self.y(tick))
            if grid:
                canvas.line((box.left, y), (box.right, y), theme.grid, self.size(1))
            canvas.text(
                box.left - pad,
                y,
                label,
                theme.text_secondary,
                size=size,
                align="right",
                valign="middle",
            )

    def x_axis(self, ticks: ArrayLike, labels: Sequence[str], *, grid: bool = False) -> None:
        """Draw the x axis line, and ``labels`` under the box at ``ticks``."""
        canvas, box, theme = self.canvas, self.box, self.theme
        size = self.size(font_sizes["tick"])
        canvas.line((box.left, box.bottom), (box.right, box.bottom), theme.axis, self.size(1))
        slack = self.size(2)  # how far a label may reach past the box's ends
        for tick, label in zip(np.asarray(ticks, dtype=np.float64), labels, strict=True):
            x = float(self.x(tick))
            if grid:
                canvas.line((x, box.bottom), (x, box.top), theme.grid, self.size(1))
            canvas.line((x, box.bottom), (x, box.bottom - self.size(3)), theme.axis, self.size(1))
            half = text_width(label, size) / 2
            anchor = min(max(x, box.left - slack + half), box.right + slack - half)
            canvas.text(
                anchor,
                box.bottom - self.size(4),
                label,
                theme.text_secondary,
                size=size,
                align="center",
                valign="top",
            )

    def hline(
        self,
        value: float,
        color: ColorLike,
        *,
        width: float = 1.0,
        dash: tuple[float, float] | None = None,
        alpha: float = 1.0,
    ) -> None:
        """A horizontal line across the box at data y ``value`` (width and dashes scaled)."""
        y = float(self.y(value))
        if not math.isfinite(y):
            return
        scaled = None if dash is None else (self.size(dash[0]), self.size(dash[1]))
        self.canvas.line(
            (self.box.left, y),
            (self.box.right, y),
            rgb(color),
            self.size(width),
            alpha=alpha,
            dash=scaled,
        )

    def band(self, x0: float, x1: float, color: ColorLike, *, alpha: float = 0.15) -> None:
        """Shade the box's full height between data x ``x0`` and ``x1``."""
        left, right = float(self.x(x0)), float(self.x(x1))
        self.canvas.rect(left, self.box.bottom, right, self.box.top, rgb(color), alpha=alpha)

    def tag_width(self, text: str) -> float:
        """The width `tag` needs for ``text`` (to reserve room right of the box)."""
        size = self.size(font_sizes["tag"])
        return text_width(text, size) + self.size(8)

    def tag(self, value: float, text: str, color: ColorLike) -> None:
        """A value tag (``text`` on a ``color`` label) right of the box, at data y ``value``."""
        y = float(self.y(value))
        if not math.isfinite(y):
            return
        fill = rgb(color)
        size = self.size(font_sizes["tag"])
        half = size * 0.75
        y = min(max(y, self.box.bottom + half), self.box.top - half)
        left = self.box.right + self.size(2)
        right = left + self.tag_width(text) - self.size(2)
        self.canvas.rect(left, y - half, right, y + half, fill, radius=self.size(2))
        self.canvas.text(
            left + self.size(3), y, text, self.theme.ink_on(fill), size=size, valign="middle"
        )
