"""Series (a line of a LineChart) and Stat (a figure of the stats strip) (private)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sekai._internal.validation import check_bool, check_real
from sekai.rendering._core import ColorSpec, Source, check_source, weight
from sekai.rendering.charts import MINUS, MISSING, format_number

__all__ = ["Series", "Stat"]


@dataclass(frozen=True)
class Series:
    """One line of a `LineChart`.

    Args:
        source: Where the values come from (an attribute name or a callable).
        label: The legend's text; ``None`` leaves the series out of the legend.
        color: Its colour (a `ColorSpec`; ``None``: the series slot's colour).
        fill: Shade the area between the line and the chart's baseline (or its bottom).
        signed: Shade above the baseline in the theme's ``up`` colour and below in ``down``.
        step: Draw a step line (the value holds until the next step).
        dashed: Draw a dashed line.
        width: The line's width in pixels (at scale 1).
        rebase: Rescale the series so that its first value becomes ``rebase``
            (``100`` draws an index), so series of different levels compare.

    Raises:
        TypeError: ``source`` is not a source, or a flag is not a bool.
        ValueError: ``width`` is not > 0 or ``rebase`` is not a finite number.
    """

    source: Source
    label: str | None = None
    color: ColorSpec = None
    fill: bool = False
    signed: bool = False
    step: bool = False
    dashed: bool = False
    width: float = 2.0
    rebase: float | None = None

    def __post_init__(self) -> None:
        check_source(self.source, "Series: source")
        if self.label is not None and not isinstance(self.label, str):
            raise TypeError(f"Series: label must be a str or None, got {self.label!r}")
        for flag in ("fill", "signed", "step", "dashed"):
            check_bool(getattr(self, flag), f"Series: {flag}")
        object.__setattr__(self, "width", weight(self.width, "Series: width"))
        if self.rebase is not None:
            object.__setattr__(self, "rebase", check_real(self.rebase, "Series: rebase"))


@dataclass(frozen=True)
class Stat:
    """A figure of the dashboard's stats strip: a label, the current value and its change.

    Args:
        label: The small text above the value.
        source: Where the value comes from.
        format: A ``str.format`` pattern (``"{:,.2f}"``, ``"{:.1%}"``) or a
            callable turning the value into text.
        delta: Also show the change since the episode's first frame:
            ``"relative"`` (in percent) or ``"absolute"``; ``None`` for none.
        higher_is_better: Whether a rise is shown in the theme's ``up``
            colour (else in ``down``).

    Raises:
        TypeError: A wrong type (label, source, format, higher_is_better).
        ValueError: An unknown ``delta``.
    """

    label: str
    source: Source
    format: str | Callable[[Any], str] = "{:,.2f}"
    delta: Literal["relative", "absolute"] | None = None
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.label, str):
            raise TypeError(f"Stat: label must be a str, got {self.label!r}")
        check_source(self.source, "Stat: source")
        if not (isinstance(self.format, str) or callable(self.format)):
            raise TypeError(
                f"Stat: format must be a format string or a callable, got {self.format!r}"
            )
        if self.delta not in (None, "relative", "absolute"):
            raise ValueError(
                f"Stat: delta must be 'relative', 'absolute' or None, got {self.delta!r}"
            )
        check_bool(self.higher_is_better, "Stat: higher_is_better")

    def text(self, value: Any) -> str:
        """``value`` written with `format` (an en dash for None or NaN)."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return MISSING
        if callable(self.format):
            return str(self.format(value))
        text = self.format.format(value)
        return MINUS + text[1:] if text.startswith("-") else text

    def change(self, value: Any, first: Any) -> tuple[str, float] | None:
        """The delta's text and signed size, or ``None`` (no delta, or no numbers to compare)."""
        if self.delta is None:
            return None
        try:
            now, then = float(value), float(first)
        except (TypeError, ValueError):
            return None
        if not (math.isfinite(now) and math.isfinite(then)):
            return None
        if self.delta == "relative":
            if then == 0:
                return None
            change = now / then - 1.0
            return format_number(change, 2, percent=True, sign=True), change
        change = now - then
        return (MINUS if change < 0 else "+") + self.text(abs(change)), change
