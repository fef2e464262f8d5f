"""Plot: data to pixels in a box, and drawing in data coordinates (private; see ``charts``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_choice
from sekai.rendering._geometry import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.text import font_sizes, text_width
from sekai.rendering.theme import ColorLike, Theme, rgb

__all__ = ["MarkerShape", "Plot"]

MarkerShape: TypeAlias = Literal["circle", "up", "down"]
"""The shape of a `Plot.marker`: a disc, or a triangle pointing up (a buy) or down (a sell)."""

_SHAPES: tuple[str, ...] = ("circle", "up", "down")


class Plot:
    """Maps data coordinates to pixels inside a box, and draws in data coordinates.

    Lines, areas, markers, shaded spans and reference lines take data values;
    grid lines, axis labels and value tags are placed from data values too.
    Widths, dashes, radii and text sizes are given at scale 1 and multiplied
    by ``scale``.

    Args:
        canvas: Where to draw.
        box: The plotting area, in pixels.
        x_domain: ``(x_min, x_max)`` of the data shown, mapped to the box's
            left and right edges.
        y_domain: ``(y_min, y_max)`` mapped to the box's bottom and top edges.
        theme: The colours of grid, axes and labels.
        scale: Multiplies text sizes, line widths and paddings.

    Attributes:
        canvas: The canvas.
        box: The plotting area.
        x_domain: The data range along x.
        y_domain: The data range along y.
        theme: The theme.
        scale: The size multiplier.
    """

    def __init__(
        self,
        canvas: Canvas,
        box: Box,
        x_domain: tuple[float, float],
        y_domain: tuple[float, float],
        theme: Theme,
        scale: float = 1.0,
    ) -> None:
        self.canvas = canvas
        self.box = box
        self.x_domain = (float(x_domain[0]), float(x_domain[1]))
        self.y_domain = (float(y_domain[0]), float(y_domain[1]))
        self.theme = theme
        self.scale = float(scale)
        x0, x1 = self.x_domain
        y0, y1 = self.y_domain
        self._x_factor = box.width / (x1 - x0) if x1 != x0 else 0.0
        self._y_factor = box.height / (y1 - y0) if y1 != y0 else 0.0

    # -- coordinates ------------------------------------------------------------------------

    def size(self, px: float) -> float:
        """``px`` times the plot's scale."""
        return px * self.scale

    def x(self, values: ArrayLike) -> NDArray[np.float64]:
        """Pixel x of data x values (an array of the same shape)."""
        array = np.asarray(values, dtype=np.float64)
        if self._x_factor == 0.0:
            return np.full(array.shape, self.box.center[0])
        result: NDArray[np.float64] = self.box.left + (array - self.x_domain[0]) * self._x_factor
        return result

    def y(self, values: ArrayLike) -> NDArray[np.float64]:
        """Pixel y of data y values (an array of the same shape)."""
        array = np.asarray(values, dtype=np.float64)
        if self._y_factor == 0.0:
            return np.full(array.shape, self.box.center[1])
        result: NDArray[np.float64] = self.box.bottom + (array - self.y_domain[0]) * self._y_factor
        return result

    def points(self, xs: ArrayLike, ys: ArrayLike) -> NDArray[np.float64]:
        """Pixel points ``(n, 2)`` of data points given as two arrays."""
        return np.column_stack((self.x(xs).ravel(), self.y(ys).ravel()))

    def _dash(self, dash: tuple[float, float] | None) -> tuple[float, float] | None:
        return None if dash is None else (self.size(dash[0]), self.size(dash[1]))

    # -- data ----------------------------------------------------------------------------------

    def line(
        self,
        xs: ArrayLike,
        ys: ArrayLike,
        color: ColorLike,
        *,
        width: float = 1.5,
        dash: tuple[float, float] | None = None,
        alpha: float = 1.0,
        step: bool = False,
    ) -> None:
        """A line through the data points ``(xs, ys)``; a NaN leaves a gap.

        Args:
            xs: The x values.
            ys: The y values, as many as ``xs``.
            color: The line's colour.
            width: Its width in pixels (at scale 1).
            dash: ``(on, off)`` lengths in pixels (at scale 1) of a dashed
                line; ``None`` draws it solid.
            alpha: Opacity in ``[0, 1]``.
            step: Hold each value until the next x (a step line).
        """
        xs_, ys_ = self._series(xs, ys, step)
        self.canvas.polyline(
            self.points(xs_, ys_),
            rgb(color),
            self.size(width),
            alpha=alpha,
            dash=self._dash(dash),
        )

    def area(
        self,
        xs: ArrayLike,
        ys: ArrayLike,
        color: ColorLike,
        *,
        base: float | None = None,
        alpha: float = 0.18,
        step: bool = False,
    ) -> None:
        """Fill between the data points ``(xs, ys)`` and the level ``base``; a NaN leaves a gap.

        Args:
            xs: The x values.
            ys: The y values, as many as ``xs``.
            color: The fill colour.
            base: The data y the area reaches down (or up) to; by default the
                bottom of the y domain.
            alpha: Opacity in ``[0, 1]``.
            step: Hold each value until the next x (a step area).
        """
        xs_, ys_ = self._series(xs, ys, step)
        level = self.y_domain[0] if base is None else float(base)
        self.canvas.fill_between(
            self.x(xs_), float(self.y(level)), self.y(ys_), rgb(color), alpha=alpha
        )

    @staticmethod
    def _series(
        xs: ArrayLike, ys: ArrayLike, step: bool
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        x = np.asarray(xs, dtype=np.float64).ravel()
        y = np.asarray(ys, dtype=np.float64).ravel()
        if x.shape != y.shape:
            raise ValueError(f"Plot: xs and ys must have as many values, got {x.size} and {y.size}")
        if step and len(x) >= 2:
            return np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
        return x, y

    def marker(
        self,
        x: float,
        y: float,
        color: ColorLike,
        *,
        shape: MarkerShape = "circle",
        radius: float = 3.0,
        ring: ColorLike | bool | None = None,
    ) -> None:
        """A marker at the data point ``(x, y)`` (nothing when either is NaN).

        Args:
            x: The data x.
            y: The data y.
            color: The marker's colour.
            shape: ``"circle"``, or a triangle pointing ``"up"`` or ``"down"``.
            radius: Its radius in pixels (at scale 1); a triangle is
                ``2 * radius`` wide.
            ring: A colour to outline the marker with (1.5 pixels wide at
                scale 1), so it stands out on a line; ``True`` uses the
                theme's background; ``None`` or ``False`` draws none.

        Raises:
            ValueError: ``shape`` is none of the three.
        """
        check_choice(shape, "Plot.marker: shape", _SHAPES)
        px, py = float(self.x(x)), float(self.y(y))
        if not (math.isfinite(px) and math.isfinite(py)):
            return
        r = self.size(radius)
        if ring is not None and ring is not False:
            outline = rgb(self.theme.background if ring is True else ring)
            self._mark(px, py, r + self.size(1.5), outline, shape)
        self._mark(px, py, r, rgb(color), shape)

    def _mark(
        self, px: float, py: float, r: float, color: tuple[int, int, int], shape: str
    ) -> None:
        if shape == "circle":
            self.canvas.circle(px, py, r, color)
        else:
            self.canvas.polygon(_triangle_points(px, py, 2 * r, up=shape == "up"), color)

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
        self.canvas.line(
            (self.box.left, y),
            (self.box.right, y),
            rgb(color),
            self.size(width),
            alpha=alpha,
            dash=self._dash(dash),
        )

    def vline(
        self,
        value: float,
        color: ColorLike,
        *,
        width: float = 1.0,
        alpha: float = 1.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """A vertical line across the box at data x ``value`` (width and dashes scaled)."""
        x = float(self.x(value))
        if not math.isfinite(x):
            return
        self.canvas.line(
            (x, self.box.bottom),
            (x, self.box.top),
            rgb(color),
            self.size(width),
            alpha=alpha,
            dash=self._dash(dash),
        )

    def shade(self, x0: float, x1: float, color: ColorLike, *, alpha: float = 0.15) -> None:
        """Shade the box's full height between data x ``x0`` and ``x1``."""
        left, right = float(self.x(x0)), float(self.x(x1))
        self.canvas.rect(left, self.box.bottom, right, self.box.top, rgb(color), alpha=alpha)

    band = shade

    # -- axes and labels ------------------------------------------------------------------------

    def grid(
        self,
        ticks: ArrayLike,
        labels: Sequence[str] | None = None,
        *,
        size: float | None = None,
        avoid: Iterable[float] = (),
    ) -> None:
        """Horizontal grid lines at the data y ``ticks``, labelled left of the box.

        Args:
            ticks: The data y values.
            labels: One label per tick; ``None`` draws the lines alone.
            size: The labels' text size in pixels (at scale 1); by default
                the dashboard's tick size.
            avoid: Data y values where something else is written (a value
                tag, say): a label closer to one than its own height is left
                out (its grid line stays).

        Raises:
            ValueError: ``labels`` is not as long as ``ticks``.
        """
        self._y_ticks(ticks, labels, lines=True, size=size, avoid=avoid)

    def y_axis(self, ticks: ArrayLike, labels: Sequence[str], *, grid: bool = True) -> None:
        """Labels left of the box at the data y ``ticks``, with grid lines unless ``grid=False``."""
        self._y_ticks(ticks, labels, lines=grid, size=None, avoid=())

    def _y_ticks(
        self,
        ticks: ArrayLike,
        labels: Sequence[str] | None,
        *,
        lines: bool,
        size: float | None,
        avoid: Iterable[float],
    ) -> None:
        canvas, box, theme = self.canvas, self.box, self.theme
        values = np.asarray(ticks, dtype=np.float64).ravel()
        if labels is not None and len(labels) != len(values):
            raise ValueError(
                f"Plot: give one label per tick, got {len(labels)} labels for {len(values)} ticks"
            )
        text_size = self.size(font_sizes["tick"] if size is None else size)
        taken = self.y(np.asarray(list(avoid), dtype=np.float64))
        pad = self.size(5)
        for i, tick in enumerate(values):
            y = float(self.y(tick))
            if lines:
                canvas.line((box.left, y), (box.right, y), theme.grid, self.size(1))
            if labels is None or bool(np.any(np.abs(taken - y) < text_size)):
                continue
            canvas.text(
                box.left - pad,
                y,
                labels[i],
                theme.text_secondary,
                size=text_size,
                align="right",
                valign="middle",
            )

    def x_ticks(
        self, ticks: ArrayLike, labels: Sequence[str], *, size: float | None = None
    ) -> None:
        """Tick marks under the box at the data x ``ticks``, and their ``labels`` below them.

        A label near an end of the box is shifted inwards to stay (almost) within it.

        Raises:
            ValueError: ``labels`` is not as long as ``ticks``.
        """
        canvas, box, theme = self.canvas, self.box, self.theme
        values = np.asarray(ticks, dtype=np.float64).ravel()
        if len(labels) != len(values):
            raise ValueError(
                f"Plot: give one label per tick, got {len(labels)} labels for {len(values)} ticks"
            )
        text_size = self.size(font_sizes["tick"] if size is None else size)
        slack = self.size(2)  # how far a label may reach past the box's ends
        for tick, label in zip(values, labels, strict=True):
            x = float(self.x(tick))
            canvas.line((x, box.bottom), (x, box.bottom - self.size(3)), theme.axis, self.size(1))
            half = text_width(label, text_size) / 2
            anchor = min(max(x, box.left - slack + half), box.right + slack - half)
            canvas.text(
                anchor,
                box.bottom - self.size(4),
                label,
                theme.text_secondary,
                size=text_size,
                align="center",
                valign="top",
            )

    def x_axis(self, ticks: ArrayLike, labels: Sequence[str], *, grid: bool = False) -> None:
        """The x axis line along the box's bottom, with `x_ticks` (and vertical grid lines)."""
        canvas, box, theme = self.canvas, self.box, self.theme
        canvas.line((box.left, box.bottom), (box.right, box.bottom), theme.axis, self.size(1))
        if grid:
            for tick in np.asarray(ticks, dtype=np.float64).ravel():
                x = float(self.x(tick))
                canvas.line((x, box.bottom), (x, box.top), theme.grid, self.size(1))
        self.x_ticks(ticks, labels)

    def tag_width(self, text: str, *, size: float | None = None) -> float:
        """The width `tag` needs for ``text`` (to reserve room right of the box)."""
        text_size = self.size(font_sizes["tag"] if size is None else size)
        return text_width(text, text_size) + self.size(8)

    def tag(self, y: float, text: str, color: ColorLike, *, size: float | None = None) -> None:
        """A value tag (``text`` on a ``color`` label) right of the box, at data y ``y``.

        ``size`` is the text size in pixels (at scale 1; by default the
        dashboard's tag size).
        """
        py = float(self.y(y))
        if not math.isfinite(py):
            return
        fill = rgb(color)
        text_size = self.size(font_sizes["tag"] if size is None else size)
        half = text_size * 0.75
        py = min(max(py, self.box.bottom + half), self.box.top - half)
        left = self.box.right + self.size(2)
        right = left + self.tag_width(text, size=size) - self.size(2)
        self.canvas.rect(left, py - half, right, py + half, fill, radius=self.size(2))
        self.canvas.text(
            left + self.size(3),
            py,
            text,
            self.theme.ink_on(fill),
            size=text_size,
            valign="middle",
        )


def _triangle_points(x: float, y: float, size: float, *, up: bool = True) -> NDArray[np.float64]:
    """The corners, a ``(3, 2)`` array, of a triangle ``size`` pixels wide centred on ``(x, y)``."""
    half = size / 2
    h = size * 0.9 / 2
    if up:
        return np.array([[x - half, y - h], [x + half, y - h], [x, y + h]])
    return np.array([[x - half, y + h], [x + half, y + h], [x, y - h]])
