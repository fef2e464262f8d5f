"""The generic dashboard panels: LineChart, BarChart, StackedArea.

Private: the public names are exported by `sekai.rendering.dashboard`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_bool, check_real
from sekai.rendering._core import (
    ColorSpec,
    Panel,
    Source,
    View,
    check_source,
    resolve_color,
)
from sekai.rendering._series import Series
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    MISSING,
    Box,
    LegendItem,
    Plot,
    Swatch,
    format_number,
    step_points,
    value_axis,
    value_range,
)
from sekai.rendering.text import font_sizes, text_width

__all__ = ["BarChart", "LineChart", "StackedArea", "runs"]


def runs(mask: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """``(start, stop)`` index pairs of the runs of True in ``mask``."""
    padded = np.concatenate(([0], mask.astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(padded))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _check_limits(limits: Sequence[float], owner: str) -> tuple[float, ...]:
    if isinstance(limits, (str, bytes)) or not isinstance(limits, Sequence):
        raise TypeError(f"{owner}: limits must be a sequence of numbers, got {limits!r}")
    return tuple(check_real(v, f"{owner}: limits") for v in limits)


class LineChart(Panel):
    """Values over steps: one or more lines, with a baseline, limits, shading and value tags.

    Args:
        *series: `Series`, or sources (each becomes ``Series(source)``).
        title: The panel's title.
        baseline: A value drawn as a reference line; filled series are filled
            down (or up) to it.
        percent: Label values as percentages (``0.05`` is ``5%``).
        tag: Show each series' latest value in a tag right of the plot.
        limits: Values drawn as dashed lines (position limits, thresholds).
        shade: A source of booleans: the steps where it is true are shaded
            (drawdowns, halts, a regime).
        shade_label: The shading's legend text.
        shade_color: The shading's colour.
        width: Relative width in a row.
        height: Relative height in a column.

    Raises:
        ValueError: No series.
        TypeError: A series is neither a Series nor a source.
    """

    def __init__(
        self,
        *series: Series | Source,
        title: str | None = None,
        baseline: float | None = None,
        percent: bool = False,
        tag: bool = True,
        limits: Sequence[float] = (),
        shade: Source | None = None,
        shade_label: str | None = None,
        shade_color: ColorSpec = "down",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        if not series:
            raise ValueError("LineChart needs at least one series (a Series or a source)")
        self.series = tuple(
            s if isinstance(s, Series) else Series(check_source(s, "LineChart: series"))
            for s in series
        )
        self.baseline = None if baseline is None else check_real(baseline, "LineChart: baseline")
        self.percent = check_bool(percent, "LineChart: percent")
        self.tag = check_bool(tag, "LineChart: tag")
        self.limits = _check_limits(limits, "LineChart")
        self.shade = None if shade is None else check_source(shade, "LineChart: shade")
        self.shade_label = shade_label
        self.shade_color = shade_color

    def sources(self) -> Mapping[str, Source]:
        """One key per series (``"s0"``, ``"s1"``, ...) and ``"shade"``."""
        keys: dict[str, Source] = {f"s{i}": s.source for i, s in enumerate(self.series)}
        if self.shade is not None:
            keys["shade"] = self.shade
        return keys

    def _lines(self, view: View) -> list[tuple[Series, int, NDArray[np.float64]]]:
        """Each line to draw: its series, colour slot and values (vectors give one line each)."""
        lines: list[tuple[Series, int, NDArray[np.float64]]] = []
        slot = 0
        for i, series in enumerate(self.series):
            values = view.values(f"s{i}")
            columns = (
                [values] if values.ndim == 1 else [values[:, j] for j in range(values.shape[1])]
            )
            for column in columns:
                if series.rebase is not None:
                    finite = column[np.isfinite(column)]
                    first = float(finite[0]) if finite.size else np.nan
                    column = column / first * series.rebase if first else column * np.nan
                lines.append((series, slot, column))
                slot += 1
        return lines

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the lines over the shared time axis."""
        theme = view.theme
        lines = self._lines(view)
        items: list[LegendItem] = []
        for series, slot, _ in lines:
            if series.label:
                swatch: Swatch = "area" if series.fill else "dash" if series.dashed else "line"
                items.append((series.label, resolve_color(theme, series.color, slot), swatch))
        if self.shade is not None and self.shade_label:
            items.append((self.shade_label, view.color(self.shade_color), "band"))
        plot_box = self.frame(canvas, box, view, items)
        include = [*self.limits] + ([] if self.baseline is None else [self.baseline])
        low, high = value_range(*(values for _, _, values in lines), include=include)
        ticks, labels, decimals = value_axis(
            plot_box, low, high, scale=view.scale, percent=self.percent
        )
        latest = [(series, slot, _last_finite(values)) for series, slot, values in lines]
        tags = [
            format_number(value, decimals + 1, percent=self.percent, compact=abs(value) >= 1e5)
            for _, _, value in latest
            if value is not None
        ]
        if self.tag and tags:
            reserve = max(text_width(t, view.size(font_sizes["tag"])) for t in tags)
            plot_box = plot_box.inset(0, 0, reserve + view.size(10), 0)
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), theme, scale=view.scale)
        plot.y_axis(ticks, labels)
        steps = view.steps
        if self.shade is not None:
            shade_color = view.color(self.shade_color)
            shaded = np.nan_to_num(view.values("shade")) != 0
            for start, stop in runs(shaded):
                plot.band(steps[start] - 0.5, steps[stop - 1] + 0.5, shade_color, alpha=0.14)
        if self.baseline is not None:
            plot.hline(self.baseline, theme.axis, width=1.2)
        for limit in self.limits:
            plot.hline(limit, theme.highlight, width=1.2, dash=(5, 4))
        base = self.baseline if self.baseline is not None else low
        for series, slot, values in lines:
            self._draw_line(plot, view, series, slot, steps, values, base)
        self.time_axis(plot, view)
        if self.tag:
            for series, slot, value in latest:
                if value is not None:
                    text = format_number(
                        value, decimals + 1, percent=self.percent, compact=abs(value) >= 1e5
                    )
                    plot.tag(value, text, resolve_color(theme, series.color, slot))

    def _draw_line(
        self,
        plot: Plot,
        view: View,
        series: Series,
        slot: int,
        steps: NDArray[np.float64],
        values: NDArray[np.float64],
        base: float,
    ) -> None:
        canvas, theme = plot.canvas, view.theme
        color = resolve_color(theme, series.color, slot)
        xs, ys = step_points(steps, values) if series.step else (steps, values)
        px, py = plot.x(xs), plot.y(ys)
        base_y = float(plot.y(base))
        if series.signed:
            canvas.fill_between(px, base_y, np.maximum(py, base_y), theme.up, alpha=0.22)
            canvas.fill_between(px, np.minimum(py, base_y), base_y, theme.down, alpha=0.22)
        elif series.fill:
            canvas.fill_between(px, base_y, py, color, alpha=0.18)
        dash = (view.size(6), view.size(4)) if series.dashed else None
        canvas.polyline(np.column_stack((px, py)), color, view.size(series.width), dash=dash)
        finite = np.flatnonzero(np.isfinite(py))
        if finite.size:
            i = finite[-1]
            canvas.circle(px[i], py[i], view.size(series.width * 1.4), color)


def _last_finite(values: NDArray[np.float64]) -> float | None:
    finite = values[np.isfinite(values)]
    return float(finite[-1]) if finite.size else None


def _labels(value: Any, n: int) -> list[str]:
    if value is None:
        return [str(i) for i in range(n)]
    labels = [str(v) for v in list(value)[:n]]
    return labels + [str(i) for i in range(len(labels), n)]


class BarChart(Panel):
    """The current values of a vector as bars (weights, positions, per-asset PnL).

    Args:
        source: A source of a vector of numbers.
        labels: A label per bar: a sequence of str, or a source of one;
            by default the bar's index.
        colors: A colour per bar (positive and negative alike).
        color: The colour of the bars when ``colors`` is not given (default:
            the theme's accent).
        negative_color: The colour of negative bars when ``colors`` is not given.
        available: A source of booleans: bars whose entry is false are drawn
            hollow (an unlisted asset, a halted market).
        percent: Label values as percentages.
        limit: Fix the value axis to ``[-limit, limit]`` (``[0, limit]``
            when no value is negative); by default it follows the data.
        title: The panel's title.
        width: Relative width in a row.
        height: Relative height in a column.
    """

    timeseries = False

    def __init__(
        self,
        source: Source,
        *,
        labels: Sequence[str] | Source | None = None,
        colors: Sequence[ColorSpec] | None = None,
        color: ColorSpec = None,
        negative_color: ColorSpec = "down",
        available: Source | None = None,
        percent: bool = True,
        limit: float | None = None,
        title: str | None = None,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self.source = check_source(source, "BarChart: source")
        if labels is not None and not callable(labels) and not isinstance(labels, str):
            labels = [str(label) for label in labels]
        self.labels = labels
        self.colors = None if colors is None else tuple(colors)
        self.color = color
        self.negative_color = negative_color
        self.available = (
            None if available is None else check_source(available, "BarChart: available")
        )
        self.percent = check_bool(percent, "BarChart: percent")
        self.limit = (
            None
            if limit is None
            else check_real(limit, "BarChart: limit", minimum=0.0, min_open=True)
        )

    def sources(self) -> Mapping[str, Source]:
        """``"values"``, and ``"available"`` / ``"labels"`` when they are sources."""
        keys: dict[str, Source] = {"values": self.source}
        if self.available is not None:
            keys["available"] = self.available
        if isinstance(self.labels, str) or callable(self.labels):
            keys["labels"] = self.labels
        return keys

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw one bar per entry of the latest vector."""
        theme = view.theme
        latest = view.latest("values")
        values = np.atleast_1d(np.asarray(latest if latest is not None else [], dtype=np.float64))
        values = values.ravel()
        n = values.size
        label_size = view.size(font_sizes["label"])
        plot_box = self.frame(canvas, box, view, gutter=True)
        plot_box = plot_box.inset(0, label_size * 1.8, 0, 0)
        if n == 0:
            canvas.text(
                *plot_box.center,
                "no data",
                theme.text_muted,
                size=label_size,
                align="center",
                valign="middle",
            )
            return
        available = np.ones(n, dtype=bool)
        if self.available is not None:
            mask = view.latest("available")
            if mask is not None:
                flat = np.asarray(mask).ravel().astype(bool)
                available[: min(n, flat.size)] = flat[:n]
        names = _labels(view.latest("labels") if "labels" in self.sources() else self.labels, n)
        if self.limit is not None:
            low = -self.limit if (values < 0).any() else 0.0
            low, high = low, self.limit
        else:
            low, high = value_range(values, include=[0.0], pad=0.08)
        ticks, labels, decimals = value_axis(
            plot_box, low, high, scale=view.scale, percent=self.percent
        )
        plot = Plot(canvas, plot_box, (-0.5, n - 0.5), (low, high), theme, scale=view.scale)
        plot.y_axis(ticks, labels)
        zero = float(plot.y(min(max(0.0, low), high)))
        slot_width = plot_box.width / n
        half = slot_width * 0.36
        for i, value in enumerate(values):
            x = float(plot.x(i))
            if self.colors is not None:
                fill = resolve_color(theme, self.colors[i % len(self.colors)], i)
            elif value < 0:
                fill = resolve_color(theme, self.negative_color, i)
            else:
                fill = resolve_color(theme, self.color if self.color is not None else "accent", i)
            top = float(plot.y(np.clip(value, low, high))) if np.isfinite(value) else zero
            if available[i]:
                canvas.rect(x - half, zero, x + half, top, fill)
            else:
                outline = theme.neutral
                canvas.rect(x - half, zero, x + half, top, outline, alpha=0.25)
                canvas.polyline(
                    [(x - half, zero), (x - half, top), (x + half, top), (x + half, zero)],
                    outline,
                    view.size(1),
                )
        canvas.line((plot_box.left, zero), (plot_box.right, zero), theme.axis, view.size(1))
        self._label_bars(canvas, plot, view, values, names, available, decimals, slot_width)

    def _label_bars(
        self,
        canvas: Canvas,
        plot: Plot,
        view: View,
        values: NDArray[np.float64],
        names: list[str],
        available: NDArray[np.bool_],
        decimals: int,
        slot_width: float,
    ) -> None:
        theme = view.theme
        size = view.size(font_sizes["label"])
        widest = max(text_width(name, size) for name in names)
        every = max(1, int(np.ceil((widest + view.size(4)) / slot_width)))
        y = plot.box.bottom - view.size(4)
        for i, name in enumerate(names):
            if i % every:
                continue
            ink = theme.text_secondary if available[i] else theme.text_muted
            canvas.text(float(plot.x(i)), y, name, ink, size=size, align="center", valign="top")
        texts = [
            format_number(v, decimals, percent=self.percent) if np.isfinite(v) else MISSING
            for v in values
        ]
        if max(text_width(t, size) for t in texts) + view.size(2) > slot_width:
            return
        low, high = plot.y_domain
        for i, (value, text) in enumerate(zip(values, texts, strict=True)):
            if not available[i]:
                continue
            end = float(plot.y(np.clip(np.nan_to_num(value), low, high)))
            if value >= 0:
                canvas.text(
                    float(plot.x(i)),
                    end + view.size(3),
                    text,
                    theme.text,
                    size=size,
                    align="center",
                    valign="bottom",
                )
            else:
                canvas.text(
                    float(plot.x(i)),
                    end - view.size(3),
                    text,
                    theme.text,
                    size=size,
                    align="center",
                    valign="top",
                )


class StackedArea(Panel):
    """A vector over steps as stacked areas (portfolio weights, inventory by venue).

    Positive entries stack upwards from zero, negative ones downwards.

    Args:
        source: A source of a vector of numbers.
        labels: A name per entry, for the legend.
        colors: A colour per entry (default: the series colours in turn).
        percent: Label values as percentages.
        legend: Show a legend of the entries.
        title: The panel's title.
        width: Relative width in a row.
        height: Relative height in a column.
    """

    def __init__(
        self,
        source: Source,
        *,
        labels: Sequence[str] | None = None,
        colors: Sequence[ColorSpec] | None = None,
        percent: bool = True,
        legend: bool = False,
        title: str | None = None,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self.source = check_source(source, "StackedArea: source")
        if labels is not None and isinstance(labels, str):
            raise TypeError(f"StackedArea: labels must be a sequence of str, got {labels!r}")
        self.labels = None if labels is None else [str(label) for label in labels]
        self.colors = None if colors is None else tuple(colors)
        self.percent = check_bool(percent, "StackedArea: percent")
        self.legend = check_bool(legend, "StackedArea: legend")

    def sources(self) -> Mapping[str, Source]:
        """``"values"``: the vector."""
        return {"values": self.source}

    def _color(self, view: View, i: int) -> tuple[int, int, int]:
        if self.colors is not None:
            return resolve_color(view.theme, self.colors[i % len(self.colors)], i)
        return view.theme.color(i)

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the stacked areas over the shared time axis."""
        values = view.values("values")
        if values.ndim == 1:
            values = values[:, None]
        values = np.nan_to_num(values)
        n = values.shape[1]
        names = _labels(self.labels, n)
        items: list[LegendItem] = (
            [(names[i], self._color(view, i), "area") for i in range(n)] if self.legend else []
        )
        plot_box = self.frame(canvas, box, view, items)
        positive = np.cumsum(np.clip(values, 0, None), axis=1)
        negative = np.cumsum(np.clip(values, None, 0), axis=1)
        low, high = value_range(positive, negative, include=[0.0], pad=0.04)
        ticks, labels, _ = value_axis(plot_box, low, high, scale=view.scale, percent=self.percent)
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), view.theme, scale=view.scale)
        plot.y_axis(ticks, labels)
        xs = plot.x(view.steps)
        zeros = np.zeros(len(xs))
        for stack in (positive, negative):
            below = zeros
            for i in range(n):
                above = stack[:, i]
                if np.any(above != below):
                    canvas.fill_between(
                        xs, plot.y(below), plot.y(above), self._color(view, i), alpha=0.8
                    )
                below = above
        self.time_axis(plot, view)
