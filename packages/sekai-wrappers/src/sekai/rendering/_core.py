"""The dashboard's building blocks: sources, history, View, Panel, Row, Column, Series, Stat.

Private: the public names are exported by `sekai.rendering.dashboard`,
and present themselves as defined there.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.rendering._history import History
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    Box,
    LegendItem,
    Plot,
    format_number,
    legend,
    legend_width,
    nice_ticks,
)
from sekai.rendering.text import font_sizes
from sekai.rendering.theme import Color, ColorLike, Theme, rgb

__all__ = [
    "ColorSpec",
    "Column",
    "Item",
    "Panel",
    "Row",
    "Source",
    "View",
    "check_source",
    "read",
    "resolve_color",
    "weight",
]

Source: TypeAlias = str | Callable[[Any], Any]
"""Where a value comes from: an attribute path of the env (``"equity"``,
``"book.mid"``) or a callable that takes the env and returns the value."""

ColorSpec: TypeAlias = ColorLike | int | None
"""A colour for a chart element: a theme role (``"up"``, ``"accent"``, ...), a
series slot (an int), ``None`` (the next series colour), or a colour (``"#1f77b4"``,
``(31, 119, 180)``)."""

_ROLES = frozenset(
    {
        "background",
        "grid",
        "axis",
        "text",
        "text_secondary",
        "text_muted",
        "price",
        "accent",
        "neutral",
        "up",
        "down",
        "highlight",
    }
)


def check_source(source: object, what: str) -> Source:
    """Return ``source`` if it is a source (a non-empty str or a callable), else raise.

    Panels check their sources with it when they are built, so a mistake
    shows at construction rather than at the first frame.

    Args:
        source: The value to check.
        what: Names the argument in the error, e.g. ``"LineChart: shade"``.

    Raises:
        TypeError: ``source`` is neither a non-empty str nor a callable.
    """
    if (isinstance(source, str) and source) or callable(source):
        return source
    raise TypeError(
        f"{what} must be a source: an attribute name of the env (a non-empty str such as "
        f"'equity' or 'book.mid') or a callable taking the env, got {source!r}"
    )


def read(env: Any, source: Source) -> Any:
    """The current value of ``source`` for ``env``.

    A callable is called with ``env``. A str is a dotted path of attributes
    read from ``env`` (wrappers forward reads to the env they wrap); a
    mapping along the path is indexed by key instead, and a bound method at
    the end of the path is called without arguments (``"book.mid"`` gives
    ``env.book.mid()``).

    Raises:
        AttributeError: An attribute of the path does not exist.
        KeyError: A key of the path does not exist.
        TypeError: ``source`` is neither a str nor a callable.
    """
    check_source(source, "source")
    if isinstance(source, str):
        value: Any = env
        for part in source.split("."):
            if isinstance(value, Mapping):
                if part not in value:
                    raise KeyError(
                        f"source {source!r}: no key {part!r} in the mapping "
                        f"(keys: {sorted(map(str, value))[:10]})"
                    )
                value = value[part]
                continue
            try:
                value = getattr(value, part)
            except AttributeError:
                raise AttributeError(
                    f"source {source!r}: {_describe(value)} has no attribute {part!r}"
                ) from None
        if inspect.ismethod(value):
            value = value()
        return value
    return source(env)


def _describe(obj: Any) -> str:
    """``TimeLimit (around Portfolio)`` for a wrapper, the type's name otherwise."""
    name = type(obj).__name__
    try:
        base = object.__getattribute__(obj, "unwrapped")
    except AttributeError:
        return name
    return name if base is obj else f"{name} (around {type(base).__name__})"


def resolve_color(theme: Theme, spec: ColorSpec, slot: int = 0) -> Color:
    """The colour a `ColorSpec` stands for in ``theme``.

    Args:
        theme: The theme that gives roles and series their colours.
        spec: ``None`` (the series colour of ``slot``), an int (that series
            slot), a theme role name (``"up"``, ``"down"``, ``"accent"``,
            ``"price"``, ``"neutral"``, ``"highlight"``, ``"text"``, ...), or
            a colour (hex string or RGB triple).
        slot: The series slot used when ``spec`` is ``None``.

    Raises:
        TypeError: ``theme`` is not a `Theme` (the order is theme, spec,
            slot), or ``spec`` is none of these.
        ValueError: A malformed colour string (neither a role nor hex).
    """
    if not isinstance(theme, Theme):
        raise TypeError(
            f"resolve_color(theme, spec, slot): theme must be a Theme, got {theme!r}"
            + (" (the theme comes first)" if isinstance(spec, Theme) else "")
        )
    if spec is None:
        return theme.color(slot)
    if isinstance(spec, str):
        if spec in _ROLES:
            color: Color = getattr(theme, spec)
            return color
        try:
            return rgb(spec)
        except ValueError:
            raise ValueError(
                f"unknown colour {spec!r}: use a theme role ({', '.join(sorted(_ROLES))}), "
                "a hex colour such as '#1f77b4', an RGB triple or a series slot (an int)"
            ) from None
    if isinstance(spec, (int, np.integer)):
        if isinstance(spec, bool):
            raise TypeError(f"a colour cannot be a bool, got {spec!r}")
        return theme.color(int(spec))
    return rgb(spec)


def weight(value: object, what: str) -> float:
    return check_real(value, what, minimum=0.0, min_open=True)


# -- the view --------------------------------------------------------------------------------


class View:
    """What a panel sees while it draws: its recorded history, the env, the theme and the scale.

    Panels read the values they asked for in `Panel.sources` by the
    same keys (`values`, `latest`, `raw`) and those of
    `Panel.context` with `context`.

    Attributes:
        env: The env being drawn.
        theme: The dashboard's theme.
        scale: Multiplies pixel sizes (text, lines, paddings): the frame's
            size relative to 720 x 450.
        x_domain: ``(first, last)`` step of the shared time axis.
        show_x: Whether this panel labels the time axis (the lowest
            time-series panel of a stack does).
        gutter: Width in pixels left of time-series plots for the value labels.
        steps: The recorded steps (float array), oldest first.
    """

    def __init__(
        self,
        env: Any,
        history: History,
        prefix: str,
        theme: Theme,
        scale: float,
        x_domain: tuple[float, float],
        show_x: bool,
        gutter: float,
    ) -> None:
        self.env = env
        self._history = history
        self._prefix = prefix
        self.theme = theme
        self.scale = scale
        self.x_domain = x_domain
        self.show_x = show_x
        self.gutter = gutter
        self.steps = history.step_array()

    def __repr__(self) -> str:
        return f"View(steps={len(self.steps)}, x_domain={self.x_domain}, scale={self.scale:g})"

    @property
    def step(self) -> float | None:
        """The current (latest recorded) step, ``None`` before the first frame."""
        return float(self.steps[-1]) if len(self.steps) else None

    def _column(self, key: str) -> list[Any]:
        column = self._history.columns.get(self._prefix + key)
        if column is None:
            raise KeyError(f"no source {key!r} was recorded for this panel (see Panel.sources)")
        return column

    def raw(self, key: str) -> list[Any]:
        """The recorded values of source ``key`` as they were read (arrays copied), oldest first."""
        return list(self._column(key))

    def latest(self, key: str) -> Any:
        """The value of source ``key`` at the current step (``None`` if none was recorded)."""
        column = self._column(key)
        return column[-1] if column else None

    def values(self, key: str) -> NDArray[np.float64]:
        """The recorded values of source ``key`` as floats, one row per step.

        Returns:
            ``(T,)`` for numbers, ``(T, n)`` for vectors; NaN where a value
            was missing or not a number.
        """
        self._column(key)  # a clear error for unknown keys
        return self._history.values(self._prefix + key)

    def context(self, key: str) -> Any:
        """The value of context source ``key`` read for this frame (see `Panel.context`)."""
        full = self._prefix + key
        if full not in self._history.context:
            raise KeyError(f"no context source {key!r} was read for this panel")
        return self._history.context[full]

    def color(self, spec: ColorSpec, slot: int = 0) -> Color:
        """The colour ``spec`` stands for in the theme (see `resolve_color`)."""
        return resolve_color(self.theme, spec, slot)

    def size(self, px: float) -> float:
        """``px`` pixels at the dashboard's scale."""
        return px * self.scale


# -- panels and layout ---------------------------------------------------------------------


class Panel:
    """A rectangle of a dashboard that draws something: the base class of every chart.

    A panel declares what it needs from the env with `sources`
    (values recorded at every frame, so that history can be drawn) and
    `context` (values read for the current frame only), and draws
    itself into its box in `draw`. Write your own by overriding those;
    `frame` draws the title and legend and returns the plotting area,
    `time_axis` labels the shared step axis.

    Args:
        title: Shown at the panel's top left; ``None`` for none.
        width: Relative width inside a `Row` (> 0).
        height: Relative height inside a `Column` or the dashboard (> 0).

    Attributes:
        timeseries: Class attribute: whether the panel draws values over
            steps (it shares the dashboard's time axis and value gutter).

    Raises:
        TypeError: ``title`` is not a str or None.
        ValueError: ``width`` or ``height`` is not a number > 0.
    """

    timeseries: ClassVar[bool] = True

    def __init__(self, title: str | None = None, *, width: float = 1.0, height: float = 1.0):
        if title is not None and not isinstance(title, str):
            raise TypeError(f"{type(self).__name__}: title must be a str or None, got {title!r}")
        self.title = title
        self.width = weight(width, f"{type(self).__name__}: width")
        self.height = weight(height, f"{type(self).__name__}: height")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(title={self.title!r})"

    def sources(self) -> Mapping[str, Source]:
        """The values to record at every frame, by key (none by default)."""
        return {}

    def context(self) -> Mapping[str, Source]:
        """The values to read for the current frame only, by key (none by default)."""
        return {}

    def x_start(self, view: View) -> float | None:
        """The first step this panel wants on the time axis (``None``: the first recorded)."""
        return None

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the panel into ``box`` (subclasses implement this).

        Raises:
            NotImplementedError: The subclass does not implement it.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement draw(canvas, box, view)")

    def frame(
        self,
        canvas: Canvas,
        box: Box,
        view: View,
        legend_items: Sequence[LegendItem] = (),
        *,
        gutter: bool | None = None,
    ) -> Box:
        """Draw the title and the legend; return the box left for the plot.

        Args:
            canvas: Where to draw.
            box: The panel's box.
            view: The panel's view.
            legend_items: ``(label, colour, swatch)`` entries, drawn at the top right.
            gutter: Leave `View.gutter` free on the left for value
                labels; by default for time-series panels.

        Returns:
            The plotting area: below the header, right of the gutter, above
            the time-axis labels when the panel shows them.
        """
        theme = view.theme
        if gutter is None:
            gutter = self.timeseries
        title_size = view.size(font_sizes["panel"])
        header = 0.0
        if self.title or legend_items:
            header = title_size * 1.7
            middle = box.top - header / 2
            taken = 0.0
            if self.title:
                taken = canvas.text(
                    box.left,
                    middle,
                    self.title,
                    theme.text,
                    size=title_size,
                    bold=True,
                    valign="middle",
                )
            if legend_items:
                size = view.size(font_sizes["legend"])
                room = box.width - taken - view.size(12)
                shown = list(legend_items)
                while shown and legend_width(shown, size) > room:
                    shown.pop()
                legend(canvas, box.right, middle, shown, theme.text_secondary, size=size)
        bottom = box.bottom + view.size(2)
        if self.timeseries and view.show_x:
            bottom = box.bottom + view.size(font_sizes["tick"]) * 1.9
        left = box.left + (view.gutter if gutter else 0.0)
        return box.inset(left - box.left, bottom - box.bottom, view.size(2), header + view.size(2))

    def time_axis(self, plot: Plot, view: View) -> None:
        """Draw the time axis under ``plot``: its line, and step labels if the view shows them."""
        if not view.show_x:
            box = plot.box
            plot.canvas.line(
                (box.left, box.bottom), (box.right, box.bottom), view.theme.axis, view.size(1)
            )
            return
        low, high = plot.x_domain
        count = max(2, int(plot.box.width / view.size(70)))
        ticks = nice_ticks(low, high, count) if high > low else np.array([low])
        ticks = ticks[(ticks == np.round(ticks)) & (ticks >= low) & (ticks <= high)]
        plot.x_axis(ticks, [format_number(t, 0) for t in ticks])


class Row:
    """Panels (or columns) side by side.

    Args:
        *children: Panels, rows or columns, left to right.
        widths: Their relative widths; by default each child's ``width``.
        height: The row's relative height inside a column or the dashboard.

    Raises:
        TypeError: A child is not a Panel, Row or Column.
        ValueError: ``widths`` does not give one number > 0 per child.
    """

    def __init__(
        self, *children: Any, widths: Sequence[float] | None = None, height: float = 1.0
    ) -> None:
        self.children: tuple[Item, ...] = _children(children, "Row")
        self.widths = _weights(widths, len(self.children), "Row: widths")
        self.height = weight(height, "Row: height")
        self.width = 1.0

    def __repr__(self) -> str:
        return f"Row({', '.join(map(repr, self.children))})"


class Column:
    """Panels (or rows) stacked top to bottom.

    Args:
        *children: Panels, rows or columns, top to bottom.
        heights: Their relative heights; by default each child's ``height``.
        width: The column's relative width inside a row.

    Raises:
        TypeError: A child is not a Panel, Row or Column.
        ValueError: ``heights`` does not give one number > 0 per child.
    """

    def __init__(
        self, *children: Any, heights: Sequence[float] | None = None, width: float = 1.0
    ) -> None:
        self.children: tuple[Item, ...] = _children(children, "Column")
        self.heights = _weights(heights, len(self.children), "Column: heights")
        self.width = weight(width, "Column: width")
        self.height = 1.0

    def __repr__(self) -> str:
        return f"Column({', '.join(map(repr, self.children))})"


Item: TypeAlias = Panel | Row | Column
"""Something a layout holds: a panel, a row or a column."""


def _children(children: tuple[Any, ...], owner: str) -> tuple[Item, ...]:
    for child in children:
        if not isinstance(child, (Panel, Row, Column)):
            raise TypeError(
                f"{owner}: children must be Panels (LineChart, BarChart, ...), Rows or "
                f"Columns, got {child!r}"
            )
    return tuple(children)


def _weights(weights: Sequence[float] | None, n: int, what: str) -> tuple[float, ...] | None:
    if weights is None:
        return None
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
        raise TypeError(f"{what} must be a sequence of numbers > 0, got {weights!r}")
    if len(weights) != n:
        raise ValueError(f"{what} must give one number per child ({n}), got {list(weights)}")
    return tuple(weight(w, what) for w in weights)


def layout(item: Item, box: Box, gap_x: float, gap_y: float) -> list[tuple[Panel, Box]]:
    """Every panel of ``item`` with its box inside ``box``."""
    if isinstance(item, Panel):
        return [(item, box)]
    placed: list[tuple[Panel, Box]] = []
    if isinstance(item, Row):
        widths = item.widths or tuple(child.width for child in item.children)
        boxes = box.columns(widths, gap_x)
    else:
        heights = item.heights or tuple(child.height for child in item.children)
        boxes = box.rows(heights, gap_y)
    for child, child_box in zip(item.children, boxes, strict=True):
        placed.extend(layout(child, child_box, gap_x, gap_y))
    return placed
