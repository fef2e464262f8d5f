"""Dashboards: a renderer that records an env's values step by step and draws them as panels.

A `Dashboard` is a [`BaseRenderer`][sekai.rendering.BaseRenderer]. Each call
to ``render(env)`` reads the values its panels ask for (their *sources*:
attribute names of the env such as ``"equity"``, or callables taking the env),
appends them to a history, and draws the layout of panels into an RGB frame::

    dashboard = Dashboard(
        LineChart(Series("equity", label="Equity"), baseline=1.0, title="Equity"),
        Row(BarChart("weights", title="Weights"), StackedArea("weights", title="Allocation")),
        title="Portfolio", stats=[Stat("Equity", "equity", delta="relative")],
    )
    frame = dashboard.render(env)  # (450, 720, 3) uint8

The history belongs to the current episode: it starts afresh when the step
(``env.elapsed_steps``, kept by ``TimeLimit``) goes back, or on
`Dashboard.reset`. Panels: `LineChart`, `BarChart`,
`StackedArea`, the market charts of ``sekai.finance.rendering``, or
your own `Panel` subclass. Drawing needs Pillow, which the
``sekai-wrappers[render]`` distribution brings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real, is_real
from sekai.rendering._charts import BarChart, LineChart, StackedArea
from sekai.rendering._core import (
    ColorSpec,
    Column,
    Panel,
    Row,
    Source,
    View,
    check_source,
    layout,
    read,
    resolve_color,
)
from sekai.rendering._history import History, snapshot
from sekai.rendering._series import Series, Stat
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import Box, triangle
from sekai.rendering.renderer import BaseRenderer
from sekai.rendering.text import font_sizes, text_width
from sekai.rendering.theme import Theme, get_theme

__all__ = [
    "BarChart",
    "ColorSpec",
    "Column",
    "Dashboard",
    "LineChart",
    "Panel",
    "Row",
    "Series",
    "Source",
    "StackedArea",
    "Stat",
    "View",
    "check_source",
    "read",
    "resolve_color",
]

# The public classes live in private modules; they present themselves (reprs,
# docs) under the module users import them from.
for _obj in (BarChart, Column, LineChart, Panel, Row, Series, StackedArea, Stat, View):
    _obj.__module__ = __name__
for _function in (check_source, read, resolve_color):
    _function.__module__ = __name__

_BASE_WIDTH, _BASE_HEIGHT = 720, 450
_AUTO = "auto"


def _label(value: object, what: str) -> str | Callable[[Any], Any] | None:
    if value is None or isinstance(value, str) or callable(value):
        return value
    raise TypeError(f"{what} must be a str, a callable taking the env, or None, got {value!r}")


class Dashboard(BaseRenderer):
    """Panels of an env's values over the episode, drawn into RGB frames.

    Args:
        *items: The layout, top to bottom: panels, `Row` and `Column`.
        title: The frame's title: a str, or a callable taking the env (read
            every frame); ``None`` for none.
        subtitle: A smaller line under the title (same kinds).
        stats: Figures shown at the top right (`Stat`).
        heights: Relative heights of ``items`` (default: each item's ``height``).
        width: Frame width in pixels (64 to 8192).
        height: Frame height in pixels (64 to 8192).
        theme: A [`Theme`][sekai.rendering.Theme] or a built-in theme's name.
        step: The source of the step number that the time axis shows and that
            tells episodes apart (a step below the last one starts a new
            history). The default, ``"elapsed_steps"``, is kept by
            ``TimeLimit``; when the env has no such attribute, frames are
            counted instead (call `reset` between episodes, or record
            with [`RecordFrames`][sekai.rendering.RecordFrames], which does).
            ``None`` always counts frames.
        horizon: Where the time axis ends: ``"auto"`` (the env's
            ``max_episode_steps`` (from ``TimeLimit``), else its
            ``episode_length`` (the market envs), else its spec's
            ``max_episode_steps``, else the latest step), a number, a source,
            or ``None`` (the latest step).
        window: Show (and keep) only the last ``window`` steps: a scrolling
            chart for long episodes. ``None`` keeps the whole episode.

    Raises:
        TypeError: An item is not a Panel, Row or Column; a stat is not a
            Stat; a wrong argument type.
        ValueError: A size out of range, an unknown theme name, the same
            panel twice in the layout.

    Attributes:
        antialias: Draw at twice the size and downscale, for smooth lines and
            edges (the default, a class attribute). Set it to ``False`` on a
            dashboard (or the class) for frames about twice as fast.
        panels: Every panel of the layout, in drawing order.
        root: The layout: a `Column` of ``items``.
        scale: Pixel sizes (text, lines) are multiplied by this:
            ``min(width / 720, height / 450)``.
    """

    antialias: bool = True

    def __init__(
        self,
        *items: Any,
        title: str | Source | None = None,
        subtitle: str | Source | None = None,
        stats: Sequence[Stat] = (),
        heights: Sequence[float] | None = None,
        width: int = 720,
        height: int = 450,
        theme: Theme | str = "light",
        step: Source | None = "elapsed_steps",
        horizon: float | Source | None = _AUTO,
        window: int | None = None,
    ) -> None:
        self.width = check_int(width, "Dashboard: width", minimum=64, maximum=8192)
        self.height = check_int(height, "Dashboard: height", minimum=64, maximum=8192)
        self.theme = get_theme(theme)
        self.title = _label(title, "Dashboard: title")
        self.subtitle = _label(subtitle, "Dashboard: subtitle")
        if isinstance(stats, (str, Stat)) or not isinstance(stats, Sequence):
            raise TypeError(f"Dashboard: stats must be a sequence of Stat, got {stats!r}")
        for stat in stats:
            if not isinstance(stat, Stat):
                raise TypeError(f"Dashboard: stats must hold Stat objects, got {stat!r}")
        self.stats = tuple(stats)
        self.step = None if step is None else check_source(step, "Dashboard: step")
        if horizon is None or horizon == _AUTO:
            self.horizon: float | Source | None = horizon
        elif is_real(horizon):
            self.horizon = check_real(horizon, "Dashboard: horizon", minimum=0.0, min_open=True)
        else:
            self.horizon = check_source(horizon, "Dashboard: horizon")
        self.window = None if window is None else check_int(window, "Dashboard: window", minimum=1)
        self.scale = min(self.width / _BASE_WIDTH, self.height / _BASE_HEIGHT)
        self._history = History()
        self._counter = -1
        self.root = Column()
        self.panels: list[Panel] = []
        self._prefixes: list[str] = []
        self.set_layout(*items, heights=heights)

    def __repr__(self) -> str:
        return (
            f"Dashboard({len(self.panels)} panels, {self.width}x{self.height}, "
            f"theme={self.theme.name!r})"
        )

    # -- configuration -------------------------------------------------------------------

    def set_layout(self, *items: Any, heights: Sequence[float] | None = None) -> None:
        """Replace the layout (and forget the history).

        Raises:
            TypeError: An item is not a Panel, Row or Column.
            ValueError: The same panel object appears twice.
        """
        root = Column(*items, heights=heights)
        panels = [panel for panel, _ in layout(root, Box(0, 0, 1, 1), 0, 0)]
        if len({id(panel) for panel in panels}) != len(panels):
            raise ValueError(
                "Dashboard: the same panel object appears twice in the layout; create one "
                "panel per place"
            )
        self.root = root
        self.panels = panels
        self._prefixes = [f"p{i}:" for i in range(len(panels))]
        self.reset()

    def reset(self, env: Any = None) -> None:
        """Forget the recorded history (a new episode starts with the next frame).

        Args:
            env: Ignored; accepted so that recorders can pass the env they reset.
        """
        self._history.clear()
        self._counter = -1

    def check(self, env: Any) -> None:
        """Read every source once from ``env`` (nothing is recorded) to catch mistakes early.

        Raises:
            AttributeError: A source names an attribute the env does not have.
            KeyError: A source names a missing key.
            Exception: Whatever a callable source raises.
        """
        if self.step is not None and self.step != "elapsed_steps":
            self._read(env, self.step, "step")
        self._horizon(env)
        for panel in self.panels:
            for source in {**panel.sources(), **panel.context()}.values():
                self._read(env, source, repr(panel))
        for stat in self.stats:
            self._read(env, stat.source, f"Stat {stat.label!r}")
        for text in (self.title, self.subtitle):
            if callable(text):
                text(env)

    # -- recording -----------------------------------------------------------------------

    @staticmethod
    def _read(env: Any, source: Source, owner: str) -> Any:
        try:
            return read(env, source)
        except (AttributeError, KeyError) as error:
            message = error.args[0] if error.args else repr(error)
            raise type(error)(f"Dashboard: {owner}: {message}") from error

    def _current_step(self, env: Any) -> float:
        if self.step is not None:
            try:
                value = read(env, self.step)
            except AttributeError:
                if self.step != "elapsed_steps":
                    raise AttributeError(
                        f"Dashboard: the step source {self.step!r} cannot be read from "
                        f"{env!r} (pass step=None to count frames instead)"
                    ) from None
            else:
                return float(value)
        self._counter += 1
        return float(self._counter)

    def render(self, env: Any) -> NDArray[np.uint8]:
        """Record the env's current values and draw the dashboard.

        Returns:
            An ``(height, width, 3)`` uint8 RGB frame.

        Raises:
            AttributeError: A source names an attribute the env does not have.
            ImportError: Pillow is not installed.
        """
        step = self._current_step(env)
        row: dict[str, Any] = {}
        for prefix, panel in zip(self._prefixes, self.panels, strict=True):
            for key, source in panel.sources().items():
                row[prefix + key] = snapshot(self._read(env, source, repr(panel)))
        for i, stat in enumerate(self.stats):
            row[f"stat{i}"] = snapshot(self._read(env, stat.source, f"Stat {stat.label!r}"))
        history = self._history
        history.record(step, row)
        if self.window is not None:
            history.trim(self.window)
        history.context = {
            prefix + key: self._read(env, source, repr(panel))
            for prefix, panel in zip(self._prefixes, self.panels, strict=True)
            for key, source in panel.context().items()
        }
        return self._draw(env)

    # -- drawing -------------------------------------------------------------------------

    def _horizon(self, env: Any) -> float | None:
        horizon = self.horizon
        if horizon is None:
            return None
        if horizon == _AUTO:
            value = getattr(env, "max_episode_steps", None)  # TimeLimit's
            if value is None:
                value = getattr(env, "episode_length", None)  # the market envs'
            if value is None:
                value = getattr(getattr(env, "spec", None), "max_episode_steps", None)
        elif isinstance(horizon, float):
            value = horizon
        else:
            value = self._read(env, horizon, "horizon")
        return float(value) if is_real(value) else None

    def _x_domain(self, env: Any, starts: list[float]) -> tuple[float, float]:
        steps = self._history.steps
        if not steps:
            return (0.0, 1.0)
        first, last = steps[0], steps[-1]
        x0 = min([first, *starts])
        if self.window is not None:
            x0 = max(x0, last - self.window)
            x1 = max(last, x0 + self.window)
        else:
            horizon = self._horizon(env)
            x1 = last if horizon is None else max(last, horizon)
        return (x0, x1 if x1 > x0 else x0 + 1.0)

    def _draw(self, env: Any) -> NDArray[np.uint8]:
        theme, s = self.theme, self.scale
        canvas = Canvas(self.width, self.height, theme.background, antialias=self.antialias)
        margin = 10 * s
        body_top = self._draw_header(canvas, env, margin)
        body = Box(margin, margin, self.width - margin, body_top)
        placed = layout(self.root, body, 18 * s, 12 * s)
        gutter = text_width("\u22120,000.00", font_sizes["tick"] * s) + 8 * s
        series_boxes = [box for panel, box in placed if panel.timeseries]
        views = []
        for prefix, (panel, box) in zip(self._prefixes, placed, strict=True):
            # A time-series panel right below, just as wide, labels the shared axis instead.
            below = panel.timeseries and any(
                other is not box
                and other.top <= box.bottom + 1e-6
                and abs(other.left - box.left) < 1
                and abs(other.right - box.right) < 1
                for other in series_boxes
            )
            views.append(View(env, self._history, prefix, theme, s, (0.0, 1.0), not below, gutter))
        starts = [
            start
            for (panel, _), view in zip(placed, views, strict=True)
            if panel.timeseries and (start := panel.x_start(view)) is not None
        ]
        x_domain = self._x_domain(env, starts)
        for (panel, box), view in zip(placed, views, strict=True):
            view.x_domain = x_domain
            with canvas.clip(box.left - s, box.bottom - s, box.right + s, box.top + s):
                panel.draw(canvas, box, view)
        return canvas.to_array()

    def _draw_header(self, canvas: Canvas, env: Any, margin: float) -> float:
        """Draw the title, subtitle and stats; return the top of the body."""
        theme, s = self.theme, self.scale
        top = self.height - margin
        title = self.title(env) if callable(self.title) else self.title
        subtitle = self.subtitle(env) if callable(self.subtitle) else self.subtitle
        title_size, subtitle_size = font_sizes["title"] * s, font_sizes["subtitle"] * s
        label_size, value_size = font_sizes["stat_label"] * s, font_sizes["stat_value"] * s
        text_height = (title_size * 1.35 if title else 0.0) + (
            subtitle_size * 1.45 if subtitle else 0.0
        )
        stats_height = (label_size * 1.4 + value_size * 1.2) if self.stats else 0.0
        header = max(text_height, stats_height)
        if header == 0:
            return top
        right = self._draw_stats(canvas, top, label_size, value_size)
        with canvas.clip(margin, top - header, right - 12 * s, top):
            y = top
            if title:
                canvas.text(
                    margin, y, str(title), theme.text, size=title_size, bold=True, valign="top"
                )
                y -= title_size * 1.35
            if subtitle:
                canvas.text(
                    margin, y, str(subtitle), theme.text_secondary, size=subtitle_size, valign="top"
                )
        return top - header - 10 * s

    def _draw_stats(
        self, canvas: Canvas, top: float, label_size: float, value_size: float
    ) -> float:
        """Draw the stats right-aligned at the top; return the left end of what was drawn."""
        theme, s = self.theme, self.scale
        history = self._history
        x = self.width - 10 * s
        for i in reversed(range(len(self.stats))):
            stat = self.stats[i]
            column = history.columns.get(f"stat{i}", [])
            value = column[-1] if column else None
            first = history.first.get(f"stat{i}")
            text = stat.text(value)
            change = stat.change(value, first)
            delta_size = label_size
            delta_width = 0.0
            if change is not None:
                delta_width = text_width(change[0], delta_size) + delta_size * 1.3
            value_width = text_width(text, value_size, bold=True)
            width = max(text_width(stat.label, label_size), value_width + delta_width)
            left = x - width
            canvas.text(left, top, stat.label, theme.text_secondary, size=label_size, valign="top")
            baseline = top - label_size * 1.4 - value_size * 0.95
            canvas.text(left, baseline, text, theme.text, size=value_size, bold=True)
            if change is not None:
                delta_text, amount = change
                good = (amount > 0) == stat.higher_is_better
                color = theme.text_muted if amount == 0 else theme.up if good else theme.down
                cx = left + value_width + delta_size * 0.75
                if amount != 0:
                    canvas.polygon(
                        triangle(cx, baseline + delta_size * 0.35, delta_size * 0.7, up=amount > 0),
                        color,
                    )
                canvas.text(cx + delta_size * 0.55, baseline, delta_text, color, size=delta_size)
            x = left - 20 * s
        return x + 20 * s
