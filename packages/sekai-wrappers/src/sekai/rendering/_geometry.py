"""Boxes: the rectangles that layouts split and panels draw into (private; see ``charts``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Box"]


@dataclass(frozen=True)
class Box:
    """A rectangle on the canvas, in pixels, y up: what a panel draws into.

    Attributes:
        left: The left edge.
        bottom: The bottom edge.
        right: The right edge (>= left).
        top: The top edge (>= bottom).
    """

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        """``right - left``."""
        return self.right - self.left

    @property
    def height(self) -> float:
        """``top - bottom``."""
        return self.top - self.bottom

    @property
    def center(self) -> tuple[float, float]:
        """The centre point ``(x, y)``."""
        return ((self.left + self.right) / 2, (self.bottom + self.top) / 2)

    def inset(
        self,
        left: float = 0.0,
        bottom: float | None = None,
        right: float | None = None,
        top: float | None = None,
    ) -> Box:
        """The box shrunk by the given margins (one value shrinks every side alike).

        A side that would cross its opposite stops at the middle, so the
        result never has a negative size.
        """
        b = left if bottom is None else bottom
        r = left if right is None else right
        t = left if top is None else top
        x0, x1 = self.left + left, self.right - r
        y0, y1 = self.bottom + b, self.top - t
        if x1 < x0:
            x0 = x1 = (x0 + x1) / 2
        if y1 < y0:
            y0 = y1 = (y0 + y1) / 2
        return Box(x0, y0, x1, y1)

    def rows(self, weights: Sequence[float], gap: float = 0.0) -> list[Box]:
        """Split the box into rows, top first, as tall as their ``weights`` share."""
        return [
            Box(self.left, self.top - end, self.right, self.top - start)
            for start, end in _split(self.height, weights, gap)
        ]

    def columns(self, weights: Sequence[float], gap: float = 0.0) -> list[Box]:
        """Split the box into columns, left first, as wide as their ``weights`` share."""
        return [
            Box(self.left + start, self.bottom, self.left + end, self.top)
            for start, end in _split(self.width, weights, gap)
        ]

    def snapped(self) -> Box:
        """The box with every edge rounded to the nearest whole pixel (crisp lines and fills).

        Examples:
            >>> Box(0.4, 10.6, 99.5, 50.2).snapped()
            Box(left=0.0, bottom=11.0, right=100.0, top=50.0)
        """
        return Box(
            float(math.floor(self.left + 0.5)),
            float(math.floor(self.bottom + 0.5)),
            float(math.floor(self.right + 0.5)),
            float(math.floor(self.top + 0.5)),
        )

    def contains(self, other: Box, tolerance: float = 1e-6) -> bool:
        """Whether ``other`` lies inside this box (edges may touch)."""
        return (
            other.left >= self.left - tolerance
            and other.right <= self.right + tolerance
            and other.bottom >= self.bottom - tolerance
            and other.top <= self.top + tolerance
        )


def _split(length: float, weights: Sequence[float], gap: float) -> list[tuple[float, float]]:
    total = float(sum(weights))
    if not weights or total <= 0:
        return []
    free = max(0.0, length - gap * (len(weights) - 1))
    spans: list[tuple[float, float]] = []
    position = 0.0
    for weight in weights:
        size = free * float(weight) / total
        spans.append((position, position + size))
        position += size + gap
    return spans
