"""The chart, text and theme helpers called as sekai 0.2 code calls them, and what they draw."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

pytest.importorskip("PIL", reason="sekai.rendering draws with Pillow (sekai-wrappers[render])")

from sekai.rendering import DARK, LIGHT, Canvas
from sekai.rendering.charts import (
    Box,
    Plot,
    legend,
    legend_width,
    nice_step,
    nice_ticks,
    triangle,
    triangle_points,
)
from sekai.rendering.dashboard import resolve_color
from sekai.rendering.text import Face, Glyph, face, font_sizes, text_width
from sekai.rendering.theme import mix

RED, BLUE, GREEN = (255, 0, 0), (0, 0, 255), (0, 255, 0)
WHITE = (255, 255, 255)


def _plot(**kwargs: Any) -> tuple[Canvas, Plot]:
    """A 100 x 100 white canvas; the data square [0, 1]^2 maps to pixels [10, 90]^2."""
    canvas = Canvas(100, 100, WHITE)
    return canvas, Plot(canvas, Box(10, 10, 90, 90), (0.0, 1.0), (0.0, 1.0), LIGHT, **kwargs)


def _pixel(canvas: Canvas, x: float, y: float) -> tuple[int, ...]:
    """The colour of the pixel just above canvas point (x, y) (y up, as the canvas draws)."""
    frame = canvas.to_array()
    return tuple(int(c) for c in frame[frame.shape[0] - int(y), int(x)])


class Recorder:
    """Stands in for a Canvas: records the lines, texts and shapes a Plot asks for."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> float:
            self.calls.append((name, args, kwargs))
            return 10.0  # what Canvas.text returns: the width drawn

        return record

    def named(self, name: str) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        return [(args, kwargs) for called, args, kwargs in self.calls if called == name]


def _recorded_plot(scale: float = 1.0) -> tuple[Recorder, Plot]:
    recorder = Recorder()
    plot = Plot(recorder, Box(10, 10, 90, 90), (0.0, 1.0), (0.0, 1.0), LIGHT, scale)  # type: ignore[arg-type]
    return recorder, plot


# -- Plot ------------------------------------------------------------------------------------------


def test_plot_takes_0_2_domains_and_a_positional_scale() -> None:
    canvas = Canvas(100, 100)
    plot = Plot(canvas, Box(0, 0, 100, 50), (0.0, 10.0), (-1.0, 1.0), DARK, 2.0)
    assert (plot.x_domain, plot.y_domain, plot.scale) == ((0.0, 10.0), (-1.0, 1.0), 2.0)
    assert plot.x([0.0, 5.0, 10.0]).tolist() == [0.0, 50.0, 100.0]
    assert plot.y([-1.0, 1.0]).tolist() == [0.0, 50.0]
    same = Plot(canvas, Box(0, 0, 100, 50), x_domain=(0, 10), y_domain=(-1, 1), theme=DARK)
    assert same.scale == 1.0 and same.x(5.0) == 50.0


def test_line_and_step_line_draw_through_the_data_points() -> None:
    canvas, plot = _plot()
    plot.line([0.0, 1.0], [0.5, 0.5], RED, width=3)
    assert _pixel(canvas, 50, 50) == RED and _pixel(canvas, 50, 60) == WHITE
    canvas, plot = _plot()
    plot.line([0.0, 0.5, 1.0], [0.25, 0.75, 0.75], BLUE, width=3, step=True)
    # A step line holds 0.25 until x = 0.5: at x = 0.25 it is low, not on the diagonal.
    assert _pixel(canvas, 30, 30) == BLUE and _pixel(canvas, 30, 40) == WHITE
    with pytest.raises(ValueError, match="xs and ys must have as many values, got 2 and 3"):
        plot.line([0.0, 1.0], [0.0, 0.5, 1.0], RED)


def test_area_fills_down_to_its_base() -> None:
    canvas, plot = _plot()
    plot.area([0.0, 1.0], [0.5, 0.5], RED, alpha=1.0)  # base: the bottom of the domain
    assert _pixel(canvas, 50, 30) == RED and _pixel(canvas, 50, 70) == WHITE
    canvas, plot = _plot()
    plot.area([0.0, 1.0], [0.5, 0.5], BLUE, base=0.75, alpha=1.0)
    assert _pixel(canvas, 50, 65) == BLUE and _pixel(canvas, 50, 30) == WHITE


def test_marker_shapes_and_ring() -> None:
    canvas, plot = _plot()
    plot.marker(0.5, 0.5, BLUE, radius=4, ring=GREEN)
    assert _pixel(canvas, 50, 50) == BLUE
    assert _pixel(canvas, 50, 55) == GREEN  # the ring, 1.5 px beyond the radius
    assert _pixel(canvas, 50, 58) == WHITE
    canvas, plot = _plot()
    plot.marker(0.5, 0.5, RED, shape="up", radius=6)
    assert _pixel(canvas, 50, 47) == RED  # a triangle's wide base is below its centre
    assert _pixel(canvas, 45, 54) == WHITE  # and its apex narrow
    plot.marker(float("nan"), 0.5, RED)  # nothing to draw, no error
    with pytest.raises(ValueError, match=r"shape must be 'circle', 'up' or 'down', got 'star'"):
        plot.marker(0.5, 0.5, RED, shape="star")  # type: ignore[arg-type]


def test_vline_hline_and_shade_span_the_box() -> None:
    canvas, plot = _plot()
    plot.vline(0.5, RED, width=2)
    plot.hline(0.25, BLUE, width=2)
    assert _pixel(canvas, 50, 80) == RED and _pixel(canvas, 50, 12) == RED
    assert _pixel(canvas, 80, 30) == BLUE and _pixel(canvas, 50, 95) == WHITE
    canvas, plot = _plot()
    plot.shade(0.25, 0.75, RED, alpha=1.0)
    assert _pixel(canvas, 50, 50) == RED and _pixel(canvas, 20, 50) == WHITE
    assert Plot.band is Plot.shade


def test_grid_labels_every_tick_but_those_near_what_it_avoids() -> None:
    recorder, plot = _recorded_plot()
    plot.grid([0.0, 0.5, 1.0], ["0", "0.5", "1"], avoid=[0.52])
    assert len(recorder.named("line")) == 3  # every grid line
    labels = [args[2] for args, _ in recorder.named("text")]
    assert labels == ["0", "1"]
    recorder, plot = _recorded_plot(scale=2.0)
    plot.grid([0.0, 1.0], size=12)  # lines only
    assert recorder.named("text") == [] and len(recorder.named("line")) == 2
    with pytest.raises(ValueError, match="one label per tick, got 1 labels for 2 ticks"):
        plot.grid([0.0, 1.0], ["0"])


def test_x_ticks_and_tag_take_a_text_size_scaled_by_the_plot() -> None:
    recorder, plot = _recorded_plot(scale=2.0)
    plot.x_ticks([0.0, 1.0], ["start", "end"], size=10)
    sizes = [kwargs["size"] for _, kwargs in recorder.named("text")]
    assert sizes == [20.0, 20.0]
    assert [args[2] for args, _ in recorder.named("text")] == ["start", "end"]
    recorder, plot = _recorded_plot(scale=2.0)
    plot.tag(y=0.5, text="1.23", color=RED, size=8)
    ((args, kwargs),) = recorder.named("text")
    assert args[1] == 50.0 and args[2] == "1.23" and kwargs["size"] == 16.0
    recorder, plot = _recorded_plot()
    plot.tag(0.5, "1.23", RED)
    assert recorder.named("text")[0][1]["size"] == font_sizes["tag"]


# -- helpers ---------------------------------------------------------------------------------------


def test_box_snapped_rounds_every_edge_to_a_pixel() -> None:
    assert Box(0.4, 10.5, 99.5, 50.2).snapped() == Box(0.0, 11.0, 100.0, 50.0)
    assert Box(1.0, 2.0, 3.0, 4.0).snapped() == Box(1.0, 2.0, 3.0, 4.0)


def test_legend_takes_the_theme_and_a_scale() -> None:
    items = [("Equity", RED, "line"), ("Drawdown", BLUE, "area")]
    recorder = Recorder()
    drawn = legend(recorder, 200.0, 20.0, items, LIGHT, scale=2.0)  # type: ignore[arg-type]
    texts = recorder.named("text")
    assert [args[2] for args, _ in texts] == ["Equity", "Drawdown"]
    assert {args[3] for args, _ in texts} == {LIGHT.text_secondary}
    assert {kwargs["size"] for _, kwargs in texts} == {font_sizes["legend"] * 2}
    assert drawn == legend_width(items, scale=2.0) == legend_width(items, font_sizes["legend"] * 2)
    recorder = Recorder()
    legend(recorder, 0.0, 0.0, items, "#102030", size=8, align="left")  # type: ignore[arg-type]
    assert {args[3] for args, _ in recorder.named("text")} == {(16, 32, 48)}


@given(
    span=st.floats(0.01, 1e6, allow_nan=False, allow_infinity=False),
    count=st.integers(1, 12),
    low=st.floats(-1e4, 1e4, allow_nan=False),
)
def test_integer_ticks_are_whole_numbers(span: float, count: int, low: float) -> None:
    step = nice_step(span, count, integer=True)
    assert step >= 1 and step == int(step)
    assert step >= nice_step(span, count)  # never finer than the plain step
    ticks = nice_ticks(low, low + span, count, integer=True)
    assert np.all(ticks == np.round(ticks))
    slack = 1e-6 * max(step, abs(low))  # the rounding nice_ticks allows
    assert np.all((ticks >= low - slack) & (ticks <= low + span + slack))


def test_triangle_draws_on_a_canvas_as_in_0_2() -> None:
    canvas = Canvas(40, 40, WHITE)
    corners = triangle(canvas, 20, 20, 8, RED, True)
    assert _pixel(canvas, 20, 17) == RED
    assert corners.tolist() == triangle_points(20, 20, 16, up=True).tolist()
    down = triangle(canvas=canvas, x=20, y=20, r=8, color=BLUE, up=False)
    assert down[2, 1] < down[0, 1]  # pointing down
    # This version's earlier form: no canvas, only the corners.
    assert triangle(0, 0, 10, up=False).tolist() == triangle_points(0, 0, 10, up=False).tolist()
    with pytest.raises(TypeError, match="give the radius r and the color"):
        triangle(canvas, 20, 20)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="first argument must be a Canvas"):
        triangle(0, 0, 10, RED)  # type: ignore[call-overload]


def test_resolve_color_takes_the_theme_first() -> None:
    assert resolve_color(LIGHT, "up", 0) == LIGHT.up
    assert resolve_color(DARK, None, 1) == DARK.color(1)
    assert resolve_color(theme=LIGHT, spec="#ff0000", slot=0) == RED
    with pytest.raises(
        TypeError, match="theme must be a Theme, got 'up' \\(the theme comes first\\)"
    ):
        resolve_color("up", LIGHT, 0)  # type: ignore[arg-type]


def test_mix_takes_0_2_parameter_names() -> None:
    assert mix(color=(0, 0, 0), other=(200, 100, 50), amount=0.5) == (100, 50, 25)


# -- text ------------------------------------------------------------------------------------------


def test_glyph_is_0_2_mask_and_placement() -> None:
    regular: Face = face(12)
    g = regular.glyph(ch="g")
    height = g.mask.shape[0]
    assert g.mask.dtype == np.uint8 and g.mask.max() > 0 and not g.mask.flags.writeable
    assert g.top > 0 and g.top < height  # 'g' reaches above and below the baseline
    assert g.bbox == regular.font.getbbox("g", anchor="ls")
    assert g.advance == text_width("g", 12) and g.char == g.text == "g"
    built = Glyph(np.zeros((2, 3), np.uint8), 1, 2, 4.0)  # 0.2's constructor
    assert (built.left, built.top, built.advance, built.bbox) == (1, 2, 4.0, (1, -2, 4, 0))


def test_face_layout_places_each_character_at_the_width_before_it() -> None:
    regular = face(14)
    placed = regular.layout("Sharpe 1.2")
    assert [g.char for _, g in placed] == list("Sharpe 1.2")
    assert [x for x, _ in placed] == [regular.width("Sharpe 1.2"[:i]) for i in range(10)]
    assert regular.layout("") == []


def test_font_sizes_can_be_called_as_in_0_2() -> None:
    sizes = font_sizes()
    assert sizes == dict(font_sizes) and sizes["tick"] == font_sizes["tick"]
    sizes["tick"] = 99.0  # a copy: the dashboard's sizes stay
    assert font_sizes["tick"] != 99.0
    with pytest.raises(TypeError):
        font_sizes["tick"] = 1.0  # type: ignore[index]
