"""Text: the typeface dashboards draw with, and measuring text before drawing it.

sekai draws text with Pillow's built-in scalable typeface (Aileron Regular,
embedded in Pillow itself), so frames look the same on every machine and no
font file is looked up on disk. Bold is a faux bold (the glyphs struck twice,
a fraction of a pixel apart). The typeface covers ASCII and most of Latin-1;
a few typographic characters it lacks are drawn as their ASCII equivalents
(``"\u2212"`` as ``"-"``, ``"\u2264"`` as ``"<="``, ...), see `Face.fallbacks`.

Everything here needs Pillow, which the ``sekai-wrappers[render]`` distribution
brings. It is imported the first time a face is loaded; without it that raises
an ``ImportError`` naming the extra.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_bool, check_real
from sekai.rendering._pillow import EXTRA, pillow

__all__ = ["Face", "FontSizes", "Glyph", "face", "font_sizes", "text_width"]


class FontSizes(Mapping[str, float]):
    """The text sizes of a dashboard in pixels, by role: a read-only mapping, also callable.

    ``font_sizes["tick"]`` reads one size; ``font_sizes()`` (sekai 0.2 code
    calls it as a function) returns them all as a new dict.
    """

    def __init__(self, sizes: Mapping[str, float]) -> None:
        self._sizes = MappingProxyType(dict(sizes))

    def __getitem__(self, role: str) -> float:
        return self._sizes[role]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sizes)

    def __len__(self) -> int:
        return len(self._sizes)

    def __call__(self) -> dict[str, float]:
        """Every role and its size, as a new dict."""
        return dict(self._sizes)

    def __repr__(self) -> str:
        return f"font_sizes({dict(self._sizes)!r})"


font_sizes = FontSizes(
    {
        "title": 15.0,
        "subtitle": 10.5,
        "panel": 11.0,
        "stat_label": 9.5,
        "stat_value": 15.0,
        "legend": 9.5,
        "tick": 9.0,
        "tag": 9.0,
        "label": 9.5,
    }
)
"""The text sizes of a dashboard in pixels, by role, at scale 1 (a 720 x 450 frame).

``title`` and ``subtitle`` head the frame, ``panel`` titles a panel,
``stat_label`` / ``stat_value`` make the stats strip, ``legend``, ``tick``
(axis labels), ``tag`` (the latest-value tags) and ``label`` (bar and cell
labels) fill the charts. Dashboards multiply them by their scale. Read one
with ``font_sizes["tick"]``; ``font_sizes()`` gives them all as a dict.
"""

# Characters the built-in typeface lacks, drawn as what they stand for.
_FALLBACKS: Mapping[str, str] = MappingProxyType(
    {
        "\u2212": "-",  # minus sign
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2022": "\u00b7",  # bullet -> middle dot
        "\u00d7": "x",
        "\u00f7": "/",
        "\u2248": "~",
        "\u2264": "<=",
        "\u2265": ">=",
        "\u2192": "->",
        "\u2190": "<-",
        "\u2191": "^",
        "\u2193": "v",
        "\u25b2": "^",
        "\u25bc": "v",
        "\u0394": "d",
        "\u20ac": "EUR",
        "\u00a3": "GBP",
        "\u00a5": "JPY",
    }
)

_BOLD_OFFSET = 1 / 22  # faux bold: the second strike, as a fraction of the size
_MIN_SIZE, _MAX_SIZE = 1.0, 1000.0
_WIDTH_CACHE = 4096  # text widths remembered per face


@dataclass(frozen=True, eq=False)
class Glyph:
    """How one character of a face is drawn: its ink as a coverage mask, placed by the pen.

    Attributes:
        mask: The ink, a read-only ``uint8`` array of shape ``(height, width)``:
            0 is no ink, 255 full ink.
        left: Pixels from the pen position to the mask's left edge.
        top: Pixels from the baseline up to the mask's top row (negative when
            the ink starts below the baseline).
        advance: How far the pen moves, in pixels.
        char: The character asked for (keyword only; ``""`` when unknown).
        text: What is drawn for it: ``char`` itself, or its ASCII stand-in
            when the typeface lacks it (keyword only).
    """

    mask: NDArray[np.uint8] = field(repr=False)
    left: int
    top: int
    advance: float
    char: str = field(default="", kw_only=True)
    text: str = field(default="", kw_only=True)

    @property
    def bbox(self) -> tuple[int, int, int, int]:
        """The ink's box ``(left, top, right, bottom)`` relative to the pen on the baseline.

        y grows downwards here, as in Pillow: ``top`` is negative for ink
        above the baseline.
        """
        height, width = self.mask.shape
        return (self.left, -self.top, self.left + width, height - self.top)

    @property
    def present(self) -> bool:
        """Whether the typeface has this character (else its stand-in is drawn)."""
        return self.text == self.char


class Face:
    """The typeface at one size and weight: measures text and hands Pillow its font.

    Get faces from `face`, which caches them. Sizes are pixels (the
    height of the em square).

    Attributes:
        size: The size in pixels.
        bold: Whether text is drawn in faux bold.
        font: The Pillow font (a ``PIL.ImageFont.FreeTypeFont``).
        ascent: Pixels from the baseline to the top of the tallest glyphs.
        descent: Pixels from the baseline to the bottom of the lowest glyphs.
        fallbacks: Characters the typeface lacks and what is drawn instead.
    """

    fallbacks: Mapping[str, str] = _FALLBACKS

    def __init__(self, size: float, bold: bool = False) -> None:
        self.size = float(size)
        self.bold = bool(bold)
        image_font = pillow("sekai.rendering.text").ImageFont
        font = image_font.load_default(size=self.size)
        if not isinstance(font, image_font.FreeTypeFont):
            raise ImportError(
                "sekai.rendering draws text with FreeType, but this Pillow was built without "
                f"it; install a Pillow wheel (`pip install pillow`, or {EXTRA})"
            )
        self.font: Any = font
        ascent, descent = font.getmetrics()
        self.ascent = float(ascent)
        self.descent = float(descent)
        self._widths: dict[str, float] = {}
        self._glyphs: dict[str, Glyph] = {}
        self._notdef = bytes(font.getmask("\uffff"))
        self._missing: dict[str, str] = {}  # chars of the fallback table the font lacks
        for char, stand_in in _FALLBACKS.items():
            if bytes(font.getmask(char)) == self._notdef:
                self._missing[char] = stand_in
        self._table = str.maketrans(self._missing) if self._missing else None

    def __repr__(self) -> str:
        return f"Face(size={self.size:g}, bold={self.bold})"

    @property
    def bold_offset(self) -> float:
        """How far apart (pixels) the two strikes of faux bold are; 0 for regular text."""
        return self.size * _BOLD_OFFSET if self.bold else 0.0

    @property
    def line_height(self) -> float:
        """Pixels from one baseline to the next: ascent plus descent."""
        return self.ascent + self.descent

    def drawable(self, text: str) -> str:
        """``text`` with the characters the typeface lacks replaced by their stand-ins."""
        table = self._table
        return text if table is None else text.translate(table)

    def glyph(self, ch: str) -> Glyph:
        """How ``ch`` (one character) is drawn: its ink, placement, advance and stand-in.

        Raises:
            ValueError: ``ch`` is not a single character.
        """
        found = self._glyphs.get(ch)
        if found is not None:
            return found
        if not isinstance(ch, str) or len(ch) != 1:
            raise ValueError(f"Face.glyph: expected one character, got {ch!r}")
        text = self.drawable(ch)
        ink, (left, top) = self.font.getmask2(text, mode="L", anchor="ls")
        width, height = ink.size
        mask = np.frombuffer(bytes(ink), dtype=np.uint8).reshape(height, width).copy()
        mask.flags.writeable = False
        advance = float(self.font.getlength(text))
        found = Glyph(mask, int(left), -int(top), advance, char=ch, text=text)
        self._glyphs[ch] = found
        return found

    def layout(self, text: str) -> list[tuple[float, Glyph]]:
        """Where each character of ``text`` goes on one line: ``(pen x, glyph)`` pairs.

        The pen x of a character is the width of the text before it (kerning
        included), so ``layout(text)[i][0] == width(text[:i])``.

        Raises:
            TypeError: ``text`` is not a str.
        """
        if not isinstance(text, str):
            raise TypeError(f"Face.layout: text must be a str, got {text!r}")
        return [(self.width(text[:i]), self.glyph(ch)) for i, ch in enumerate(text)]

    def width(self, text: str) -> float:
        """The width of ``text`` on one line, in pixels (the pen's advance, kerning included)."""
        width = self._widths.get(text)
        if width is None:
            drawn = self.drawable(text)
            width = float(self.font.getlength(drawn)) if drawn else 0.0
            if width and self.bold:
                width += self.bold_offset
            if len(self._widths) >= _WIDTH_CACHE:
                self._widths.clear()
            self._widths[text] = width
        return width


@functools.lru_cache(maxsize=128)
def _face(size: float, bold: bool) -> Face:
    return Face(size, bold)


def face(size: float = 12, bold: bool = False) -> Face:
    """The (cached) face of the given size and weight.

    Args:
        size: Pixels, rounded to a quarter pixel, in ``[1, 1000]``.
        bold: Faux bold.

    Raises:
        TypeError: ``size`` is not a number or ``bold`` not a bool.
        ValueError: ``size`` is out of range.
        ImportError: Pillow is not installed.
    """
    if type(size) is not float or not (_MIN_SIZE <= size <= _MAX_SIZE):
        size = check_real(size, "text size", minimum=_MIN_SIZE, maximum=_MAX_SIZE)
    bold = check_bool(bold, "bold")
    return _face(math.floor(size * 4 + 0.5) / 4, bold)


def text_width(text: str, size: float = 12, bold: bool = False) -> float:
    """The width in pixels of ``text`` drawn on one line at ``size`` (and ``bold``).

    What [`Canvas.text`][sekai.rendering.canvas.Canvas.text] returns after
    drawing the same text, so layouts can be measured before drawing.

    Raises:
        TypeError: ``text`` is not a str.
        ImportError: Pillow is not installed.

    Examples:
        >>> text_width("") == 0.0 and text_width("Equity") < text_width("Equity curve")
        True
    """
    if not isinstance(text, str):
        raise TypeError(f"text_width: text must be a str, got {text!r}")
    return face(size, bold).width(text)
