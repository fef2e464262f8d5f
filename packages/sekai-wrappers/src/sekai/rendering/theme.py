"""Themes: the colours a dashboard draws with (`LIGHT`, `DARK`, your own).

A `Theme` names every colour a chart needs by its role (background,
grid, text, rising and falling values, ...) plus a cycle of series colours, so
that panels never hard-code a colour and the same dashboard can be drawn light
or dark. Colours are ``(r, g, b)`` tuples of ints in ``0..255``; wherever a
colour is accepted, a hex string (``"#1f77b4"`` or ``"#18b"``) or any sequence
of three numbers in ``0..255`` works too (see `rgb`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeAlias

__all__ = ["DARK", "LIGHT", "THEMES", "Color", "ColorLike", "Theme", "get_theme", "mix", "rgb"]

Color: TypeAlias = tuple[int, int, int]
"""An RGB colour: three ints in ``0..255``."""

ColorLike: TypeAlias = Color | Sequence[float] | str
"""Anything `rgb` turns into a colour: an RGB triple or a hex string."""


def rgb(color: ColorLike) -> Color:
    """Convert a colour given as a triple or a hex string to an ``(r, g, b)`` tuple of ints.

    Args:
        color: Three numbers in ``0..255`` (a tuple, list or array), or a hex
            string ``"#rrggbb"`` or ``"#rgb"`` (the ``#`` is optional).

    Returns:
        The colour as a tuple of three ints (numbers are rounded).

    Raises:
        TypeError: ``color`` is neither a string nor a sequence of three numbers.
        ValueError: A malformed hex string, or a component outside ``0..255``.

    Examples:
        >>> rgb("#1f77b4"), rgb("#fff"), rgb((10, 20.4, 30))
        ((31, 119, 180), (255, 255, 255), (10, 20, 30))
    """
    if type(color) is tuple and len(color) == 3:
        r, g, b = color
        if type(r) is int and type(g) is int and type(b) is int:  # the fast path
            if 0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255:
                return (r, g, b)
            raise ValueError(f"colour components must be in 0..255, got {color!r}")
    if isinstance(color, str):
        return _from_hex(color)
    try:
        parts: list[Any] = list(color)
    except TypeError:
        raise TypeError(
            f"a colour must be an (r, g, b) triple or a hex string such as '#1f77b4', got {color!r}"
        ) from None
    if len(parts) != 3 or not all(
        isinstance(c, numbers.Real) and not isinstance(c, bool) for c in parts
    ):
        raise TypeError(f"a colour must be three numbers in 0..255, got {color!r}")
    values = [float(c) for c in parts]
    if not all(math.isfinite(c) and 0.0 <= c <= 255.0 for c in values):
        raise ValueError(f"colour components must be in 0..255, got {color!r}")
    return (round(values[0]), round(values[1]), round(values[2]))


def _from_hex(text: str) -> Color:
    digits = text[1:] if text.startswith("#") else text
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    try:
        if len(digits) != 6:
            raise ValueError
        value = int(digits, 16)
    except ValueError:
        raise ValueError(f"a hex colour must look like '#1f77b4' or '#18b', got {text!r}") from None
    return ((value >> 16) & 255, (value >> 8) & 255, value & 255)


def mix(color: ColorLike, other: ColorLike, amount: float) -> Color:
    """The colour ``amount`` of the way from ``color`` to ``other``.

    ``amount=0`` gives ``color``, ``amount=1`` gives ``other``; it is clipped
    to ``[0, 1]``.

    Examples:
        >>> mix((0, 0, 0), (255, 255, 255), 0.5)
        (128, 128, 128)
    """
    ca, cb = rgb(color), rgb(other)
    t = min(1.0, max(0.0, float(amount)))
    return (
        round(ca[0] + (cb[0] - ca[0]) * t),
        round(ca[1] + (cb[1] - ca[1]) * t),
        round(ca[2] + (cb[2] - ca[2]) * t),
    )


def _luminance(color: Color) -> float:
    """WCAG relative luminance of an sRGB colour, in ``[0, 1]``."""

    def linear(c: int) -> float:
        v = c / 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = color
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def _contrast(a: Color, b: Color) -> float:
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


@dataclass(frozen=True)
class Theme:
    """The colours of a dashboard, each named by its role.

    Build one from scratch, or derive one from `LIGHT` or `DARK`
    with `with_colors`. Every field holds an ``(r, g, b)`` tuple;
    ``series`` holds the cycle of colours that series, bars and areas take
    in turn (see `color`).

    Attributes:
        name: The theme's name (what `get_theme` looks up).
        background: The frame's background.
        grid: Grid lines.
        axis: Axis lines, reference lines and outlines.
        text: Titles and values.
        text_secondary: Axis labels and legends.
        text_muted: Hints and missing values.
        price: The price line of market charts.
        accent: The default colour of a single series or bar.
        neutral: Things that are neither up nor down (unavailable slots, flat positions).
        up: Rising values, gains, bids, buys.
        down: Falling values, losses, asks, sells.
        highlight: Markers that must stand out (the latest value, limits).
        series: The colour cycle for series, at least one colour.
    """

    name: str
    background: Color
    grid: Color
    axis: Color
    text: Color
    text_secondary: Color
    text_muted: Color
    price: Color
    accent: Color
    neutral: Color
    up: Color
    down: Color
    highlight: Color
    series: tuple[Color, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Theme: name must be a non-empty str, got {self.name!r}")
        for field in dataclasses.fields(self):
            if field.name in ("name", "series"):
                continue
            object.__setattr__(self, field.name, rgb(getattr(self, field.name)))
        given: object = self.series
        if isinstance(given, str):
            raise TypeError(f"Theme: series must be a sequence of colours, got {self.series!r}")
        series = tuple(rgb(c) for c in self.series)
        if not series:
            raise ValueError("Theme: series needs at least one colour")
        object.__setattr__(self, "series", series)

    def color(self, slot: int) -> Color:
        """The series colour of ``slot`` (the cycle repeats: slot ``len(series)`` is slot 0)."""
        return self.series[int(slot) % len(self.series)]

    def ink_on(self, fill: ColorLike) -> Color:
        """The text colour that reads best on ``fill``: the theme's text or background colour.

        Whichever of the two has the higher contrast with ``fill`` wins, so a
        label on a coloured tag stays readable in light and dark themes.
        """
        fill = rgb(fill)
        text, background = self.text, self.background
        return text if _contrast(text, fill) >= _contrast(background, fill) else background

    def with_colors(
        self, *, series: Sequence[ColorLike] | None = None, **colors: ColorLike
    ) -> Theme:
        """A copy of this theme with some colours replaced.

        Args:
            series: A new colour cycle (keeps the current one when ``None``).
            **colors: New colours by field name, e.g. ``up="#00a000"``.

        Returns:
            The new theme. It keeps this theme's name (rename it with
            `dataclasses.replace`).

        Raises:
            TypeError: An unknown colour name.
            ValueError: A malformed colour.
        """
        names = {f.name for f in dataclasses.fields(self)} - {"name", "series"}
        unknown = sorted(set(colors) - names)
        if unknown:
            raise TypeError(
                f"Theme.with_colors: unknown colour name(s) {unknown}; the colours are "
                f"{sorted(names)} and series"
            )
        changes: dict[str, Any] = {key: rgb(value) for key, value in colors.items()}
        if series is not None:
            changes["series"] = tuple(rgb(c) for c in series)
        return dataclasses.replace(self, **changes)


LIGHT = Theme(
    name="light",
    background=(255, 255, 255),
    grid=(234, 236, 240),
    axis=(196, 201, 209),
    text=(29, 33, 41),
    text_secondary=(87, 96, 110),
    text_muted=(145, 152, 163),
    price=(29, 33, 41),
    accent=(37, 99, 235),
    neutral=(160, 167, 178),
    up=(22, 150, 76),
    down=(214, 48, 49),
    highlight=(230, 140, 0),
    series=(
        (37, 99, 235),
        (230, 120, 20),
        (22, 150, 76),
        (214, 48, 49),
        (132, 84, 200),
        (0, 150, 170),
        (200, 70, 160),
        (120, 120, 120),
    ),
)
"""The default theme: dark ink on white."""

DARK = Theme(
    name="dark",
    background=(18, 21, 27),
    grid=(38, 43, 52),
    axis=(72, 79, 91),
    text=(231, 234, 239),
    text_secondary=(168, 176, 188),
    text_muted=(112, 121, 135),
    price=(231, 234, 239),
    accent=(96, 160, 250),
    neutral=(105, 114, 128),
    up=(70, 205, 120),
    down=(245, 105, 105),
    highlight=(250, 190, 50),
    series=(
        (96, 160, 250),
        (250, 160, 70),
        (70, 205, 120),
        (245, 105, 105),
        (180, 140, 250),
        (60, 200, 210),
        (240, 120, 200),
        (170, 170, 170),
    ),
)
"""Light ink on a near-black background."""

THEMES: Mapping[str, Theme] = MappingProxyType({LIGHT.name: LIGHT, DARK.name: DARK})
"""The built-in themes by name (read-only)."""


def get_theme(theme: Theme | str) -> Theme:
    """The theme ``theme`` names, or ``theme`` itself when it is a `Theme`.

    Args:
        theme: A `Theme`, or the name of a built-in one (``"light"``,
            ``"dark"``; case does not matter).

    Raises:
        TypeError: ``theme`` is neither a Theme nor a str.
        ValueError: No built-in theme has that name.
    """
    if isinstance(theme, Theme):
        return theme
    if not isinstance(theme, str):
        raise TypeError(f"theme must be a Theme or the name of one, got {theme!r}")
    found = THEMES.get(theme.lower())
    if found is None:
        raise ValueError(f"unknown theme {theme!r}; the built-in themes are {sorted(THEMES)}")
    return found
