"""Chart helpers shared by the dashboard panels: boxes, scales, ticks, number formats, legends.

Write a panel of your own with these: `Box` for layout, `Plot`
to map data to pixels and draw the grid and axes, `nice_ticks` and
`tick_labels` for axis labels, `format_number` for values,
`value_range` for a padded data range, `legend` for a legend.
Numbers are written with a true minus sign (`MINUS`) and thousands
separators.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeAlias, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.rendering._geometry import Box
from sekai.rendering._plot import MarkerShape, Plot, _triangle_points
from sekai.rendering.canvas import Canvas
from sekai.rendering.text import font_sizes, text_width
from sekai.rendering.theme import Color, ColorLike, Theme, rgb

__all__ = [
    "MINUS",
    "MISSING",
    "Box",
    "LegendItem",
    "MarkerShape",
    "Plot",
    "Swatch",
    "decimals_for",
    "format_number",
    "legend",
    "legend_width",
    "nice_step",
    "nice_ticks",
    "step_points",
    "tick_labels",
    "triangle",
    "triangle_points",
    "value_axis",
    "value_range",
]

MINUS = "\u2212"
"""The minus sign numbers are written with (U+2212, as wide as ``+``)."""

MISSING = "\u2013"
"""What a missing value (None or NaN) is written as: an en dash."""

Swatch: TypeAlias = Literal["line", "dash", "area", "band", "marker"]
"""How a legend item is drawn: a line, a dashed line, a filled area, a faint band, a triangle."""

LegendItem: TypeAlias = tuple[str, ColorLike, Swatch]
"""One legend entry: its label, colour and swatch."""

# Box and Plot live in private modules; they present themselves under this one.
Box.__module__ = __name__
Plot.__module__ = __name__

_COMPACT = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


# -- numbers ----------------------------------------------------------------------------


def nice_step(span: float, count: int = 5, *, integer: bool = False) -> float:
    """A round tick spacing (1, 2, 2.5 or 5 times a power of ten) giving about ``count`` ticks.

    The spacing is the round number nearest (on a log scale) to ``span / count``.

    Args:
        span: The length of the axis, in data units (> 0).
        count: About how many ticks.
        integer: Keep to whole-number spacings (1, 2, 5, 10, 20, 25, 50, ...;
            never below 1), for counts such as steps or shares.

    Raises:
        ValueError: ``span`` is not a finite number > 0, or ``count`` < 1.

    Examples:
        >>> nice_step(10, 5), nice_step(0.7, 5), nice_step(1234, 4)
        (2.0, 0.1, 250.0)
        >>> nice_step(0.7, 5, integer=True), nice_step(25, 10, integer=True)
        (1.0, 2.0)
    """
    span = check_real(span, "nice_step: span", minimum=0.0, min_open=True)
    count = check_int(count, "nice_step: count", minimum=1)
    integer = check_bool(integer, "nice_step: integer")
    raw = span / count
    magnitude = 10.0 ** math.floor(math.log10(raw))
    ratio = raw / magnitude
    multiples = (1.0, 2.0, 5.0, 10.0) if integer and magnitude < 10 else (1.0, 2.0, 2.5, 5.0, 10.0)
    multiple = min(multiples, key=lambda m: abs(math.log(m / ratio)))
    step = float(f"{multiple * magnitude:.12g}")
    return max(1.0, float(round(step))) if integer else step


def decimals_for(step: float) -> int:
    """How many decimals show values spaced ``step`` apart without losing a digit.

    Examples:
        >>> decimals_for(5), decimals_for(0.25), decimals_for(0.1)
        (0, 2, 1)
    """
    step = abs(float(step))
    if not math.isfinite(step) or step == 0:
        return 0
    for decimals in range(12):
        if abs(round(step, decimals) - step) <= step * 1e-6:
            return decimals
    return 12


def nice_ticks(
    low: float, high: float, count: int = 5, *, integer: bool = False
) -> NDArray[np.float64]:
    """Round values between ``low`` and ``high`` to label an axis with (about ``count``).

    ``integer=True`` keeps to whole numbers (see `nice_step`).

    Raises:
        ValueError: ``low`` or ``high`` is not finite, or ``count`` < 1.

    Examples:
        >>> nice_ticks(0.0, 9.3).tolist()
        [0.0, 2.0, 4.0, 6.0, 8.0]
        >>> nice_ticks(0.0, 3.0, 10, integer=True).tolist()
        [0.0, 1.0, 2.0, 3.0]
    """
    low = check_real(low, "nice_ticks: low")
    high = check_real(high, "nice_ticks: high")
    if high < low:
        low, high = high, low
    if high == low:
        return np.array([low])
    step = nice_step(high - low, count, integer=integer)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = np.arange(first, last + 1, dtype=np.float64) * step
    ticks = np.round(ticks, decimals_for(step) + 2)
    ticks[ticks == 0] = 0.0  # no -0.0
    return ticks


def format_number(
    value: Any,
    decimals: int = 2,
    *,
    percent: bool = False,
    sign: bool = False,
    compact: bool = False,
) -> str:
    """Write a number for a chart: thousands separators, a true minus sign.

    Args:
        value: A number; ``None`` and NaN give an en dash.
        decimals: Digits after the point.
        percent: Show ``value * 100`` followed by ``%``.
        sign: Write ``+`` in front of positive values.
        compact: Write large values with a suffix (``12.3k``, ``4.5M``, ``1.2B``).

    Examples:
        >>> format_number(-1234.5), format_number(0.0123, 1, percent=True, sign=True)
        ('\u22121,234.50', '+1.2%')
        >>> format_number(2_500_000, 1, compact=True), format_number(None)
        ('2.5M', '\u2013')
    """
    if value is None:
        return MISSING
    number = float(value)
    if math.isnan(number):
        return MISSING
    if math.isinf(number):
        return ("+" if sign else "") + "\u221e" if number > 0 else MINUS + "\u221e"
    suffix = ""
    if percent:
        number *= 100.0
        suffix = "%"
    elif compact:
        for threshold, letter in _COMPACT:
            if abs(number) >= threshold:
                number /= threshold
                suffix = letter
                break
    text = f"{abs(number):,.{max(0, int(decimals))}f}"
    if number < 0 and any(d not in "0.," for d in text):
        return MINUS + text + suffix
    if sign and number > 0 and any(d not in "0.," for d in text):
        return "+" + text + suffix
    return text + suffix


def tick_labels(
    ticks: ArrayLike, *, percent: bool = False, compact: bool | None = None
) -> list[str]:
    """Labels for axis ticks, all with the same number of decimals.

    Args:
        ticks: The tick values (evenly spaced, as `nice_ticks` makes them).
        percent: Label ``tick * 100`` with ``%``.
        compact: Use one suffix for all (``k``, ``M``, ...; zero is written
            ``0``); by default when the largest tick is at least 100,000.

    Examples:
        >>> tick_labels([0.0, 0.5, 1.0]), tick_labels([0.0, 0.05, 0.1], percent=True)
        (['0.0', '0.5', '1.0'], ['0%', '5%', '10%'])
    """
    values = np.asarray(ticks, dtype=np.float64).ravel()
    if values.size == 0:
        return []
    scale = 100.0 if percent else 1.0
    biggest = float(np.nanmax(np.abs(values))) * scale
    if compact is None:
        compact = not percent and biggest >= 1e5
    step = float(np.min(np.diff(values))) * scale if values.size > 1 else biggest
    divisor, suffix = 1.0, ""
    if compact and not percent:
        for threshold, letter in _COMPACT:
            if biggest >= threshold:
                divisor, suffix = threshold, letter
                break
    decimals = decimals_for(step / divisor) if step > 0 else 0
    if divisor == 1.0:
        return [format_number(v, decimals, percent=percent) for v in values]
    return ["0" if v == 0 else format_number(v / divisor, decimals) + suffix for v in values]


def value_range(
    *values: ArrayLike,
    include: Iterable[float] = (),
    pad: float = 0.05,
    symmetric: bool = False,
) -> tuple[float, float]:
    """The range covering every finite value given, widened by ``pad`` of its span on each side.

    Args:
        *values: Arrays (or numbers) of data; NaN and infinities are ignored.
        include: Values the range must contain (a baseline, zero).
        pad: Margin on each side, as a fraction of the span.
        symmetric: Centre the range on zero.

    Returns:
        ``(low, high)`` with ``low < high``: ``(0, 1)`` (``(-1, 1)`` if
        symmetric) when nothing is finite, a small interval around a single value.

    Examples:
        >>> value_range([1.0, 3.0], pad=0.0), value_range([np.nan]), value_range([2.0], pad=0.0)
        ((1.0, 3.0), (0.0, 1.0), (1.9, 2.1))
    """
    low, high = math.inf, -math.inf
    for value in (*values, np.asarray(list(include), dtype=np.float64)):
        array = np.asarray(value, dtype=np.float64)
        finite = array[np.isfinite(array)]
        if finite.size:
            low = min(low, float(finite.min()))
            high = max(high, float(finite.max()))
    if low > high:
        return (-1.0, 1.0) if symmetric else (0.0, 1.0)
    if symmetric:
        high = max(abs(low), abs(high))
        low = -high
    if high == low:
        half = abs(low) * 0.05 or 1.0
        return (low - half, high + half)
    margin = (high - low) * max(0.0, float(pad))
    return (low - margin, high + margin)


def value_axis(
    box: Box, low: float, high: float, *, scale: float = 1.0, percent: bool = False
) -> tuple[NDArray[np.float64], list[str], int]:
    """Ticks for a value axis over ``[low, high]`` drawn ``box.height`` pixels tall.

    About one tick per 34 pixels (at ``scale``), at least two.

    Returns:
        ``(ticks, labels, decimals)``: the tick values inside the range, their
        labels, and the decimals the labels use (a value written with one more
        decimal reads finer than the axis).
    """
    count = max(2, round(box.height / (34 * scale)))
    ticks = nice_ticks(low, high, count)
    ticks = ticks[(ticks >= low) & (ticks <= high)]
    labels = tick_labels(ticks, percent=percent)
    step = float(np.min(np.diff(ticks))) if len(ticks) > 1 else abs(high - low) / 2
    return ticks, labels, decimals_for(step * (100 if percent else 1))


def step_points(
    xs: NDArray[np.float64], ys: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The corners of a step line through ``(xs, ys)``: each value holds until the next x.

    Examples:
        >>> xs, ys = step_points(np.array([0.0, 1.0, 2.0]), np.array([5.0, 6.0, 7.0]))
        >>> xs.tolist()
        [0.0, 1.0, 1.0, 2.0, 2.0]
        >>> ys.tolist()
        [5.0, 5.0, 6.0, 6.0, 7.0]
    """
    if len(xs) < 2:
        return xs, ys
    return np.repeat(xs, 2)[1:], np.repeat(ys, 2)[:-1]


def triangle_points(x: float, y: float, size: float, *, up: bool = True) -> NDArray[np.float64]:
    """The corners of a trade marker: a triangle ``size`` pixels wide centred on ``(x, y)``.

    Returns:
        A ``(3, 2)`` array, pointing up (``up=True``, a buy) or down (a sell).
    """
    return _triangle_points(float(x), float(y), float(size), up=bool(up))


@overload
def triangle(
    canvas: Canvas, x: float, y: float, r: float, color: ColorLike, up: bool = True
) -> NDArray[np.float64]: ...
@overload
def triangle(canvas: float, x: float, y: float, *, up: bool = True) -> NDArray[np.float64]: ...
def triangle(
    canvas: Canvas | float,
    x: float,
    y: float,
    r: float | None = None,
    color: ColorLike | None = None,
    up: bool = True,
) -> NDArray[np.float64]:
    """Draw a trade marker: a triangle centred on ``(x, y)``, ``2 * r`` pixels wide.

    ``triangle(canvas, x, y, r, color, up)`` (sekai 0.2's form) fills it on
    ``canvas``, pointing up (``up=True``, a buy) or down (a sell), and
    returns its corners. Called without a canvas, ``triangle(x, y, size, *,
    up=True)`` (this version's earlier form), it only returns the corners of a
    triangle ``size`` pixels wide: prefer `triangle_points` for that.

    Returns:
        The corners, a ``(3, 2)`` array.

    Raises:
        TypeError: A canvas is given without ``r`` and ``color``, or ``r``
            and ``color`` without a canvas.
    """
    if isinstance(canvas, Canvas):
        if r is None or color is None:
            raise TypeError(
                "triangle(canvas, x, y, r, color, up): give the radius r and the color, got "
                f"r={r!r}, color={color!r}"
            )
        corners = _triangle_points(float(x), float(y), 2.0 * float(r), up=bool(up))
        canvas.polygon(corners, rgb(color))
        return corners
    if r is not None or color is not None:
        raise TypeError(
            f"triangle: the first argument must be a Canvas to draw on, got {canvas!r}; "
            "for the corners alone call triangle_points(x, y, size, up=...)"
        )
    return _triangle_points(float(canvas), float(x), float(y), up=bool(up))


# -- legends ------------------------------------------------------------------------------


def _swatch_width(size: float) -> float:
    return size * 1.6


def legend_width(
    items: Sequence[LegendItem], size: float | None = None, *, scale: float = 1.0
) -> float:
    """The width `legend` needs for ``items`` at text ``size`` (by default the legend size).

    ``scale`` multiplies the size, as for `legend`.
    """
    size = (font_sizes["legend"] if size is None else size) * scale
    if not items:
        return 0.0
    gap = size * 0.4
    spacing = size * 1.1
    total = sum(_swatch_width(size) + gap + text_width(label, size) for label, _, _ in items)
    return total + spacing * (len(items) - 1)


def legend(
    canvas: Canvas,
    x: float,
    y: float,
    items: Sequence[LegendItem],
    theme: Theme | ColorLike,
    *,
    scale: float = 1.0,
    size: float | None = None,
    align: Literal["left", "right"] = "right",
) -> float:
    """Draw a one-line legend whose text is vertically centred on ``y``.

    Args:
        canvas: Where to draw.
        x: The legend's right end (``align="right"``) or left end.
        y: The middle of the line.
        items: ``(label, colour, swatch)`` entries, drawn in order.
        theme: The theme, whose secondary text colour the labels take; or
            the labels' colour itself.
        scale: Multiplies the text size (a dashboard's scale).
        size: Text size in pixels at scale 1 (by default the legend size).
        align: Which end ``x`` is.

    Returns:
        The width drawn (as `legend_width`).
    """
    size = (font_sizes["legend"] if size is None else size) * scale
    width = legend_width(items, size)
    position = x - width if align == "right" else x
    gap = size * 0.4
    spacing = size * 1.1
    ink = theme.text_secondary if isinstance(theme, Theme) else rgb(theme)
    for label, color, swatch in items:
        swatch_width = _swatch_width(size)
        _draw_swatch(canvas, position, y, swatch_width, size, rgb(color), swatch)
        position += swatch_width + gap
        position += canvas.text(position, y, label, ink, size=size, valign="middle")
        position += spacing
    return width


def _draw_swatch(
    canvas: Canvas, x: float, y: float, width: float, size: float, color: Color, swatch: Swatch
) -> None:
    thick = max(1.0, size / 6)
    if swatch == "line":
        canvas.line((x, y), (x + width, y), color, thick)
    elif swatch == "dash":
        canvas.line((x, y), (x + width, y), color, thick, dash=(size / 3, size / 5))
    elif swatch == "area":
        canvas.rect(x, y - size / 3, x + width, y + size / 3, color, alpha=0.45)
        canvas.line((x, y + size / 3), (x + width, y + size / 3), color, thick)
    elif swatch == "band":
        canvas.rect(x, y - size / 3, x + width, y + size / 3, color, alpha=0.2)
    elif swatch == "marker":
        canvas.polygon(_triangle_points(x + width / 2, y, size * 0.7), color)
    else:
        raise ValueError(
            f"unknown legend swatch {swatch!r}; use 'line', 'dash', 'area', 'band' or 'marker'"
        )
