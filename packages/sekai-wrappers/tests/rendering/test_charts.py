"""Chart helpers: ticks, number formats, ranges, boxes, legends and the data-to-pixel map."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.rendering.charts import (
    MINUS,
    Box,
    decimals_for,
    format_number,
    legend_width,
    nice_step,
    nice_ticks,
    step_points,
    tick_labels,
    triangle,
    value_axis,
    value_range,
)


@pytest.mark.parametrize(
    ("span", "count", "step"),
    [(10, 5, 2.0), (1, 5, 0.2), (0.22, 4, 0.05), (1234, 4, 250.0), (3e6, 3, 1e6)],
)
def test_nice_step(span, count, step) -> None:
    assert nice_step(span, count) == step


def test_nice_ticks_are_round_and_inside() -> None:
    ticks = nice_ticks(0.87, 1.09, 4)
    assert ticks.tolist() == [0.9, 0.95, 1.0, 1.05]
    ticks = nice_ticks(-3.2, 7.9, 5)
    assert ticks[0] >= -3.2 and ticks[-1] <= 7.9
    assert np.allclose(np.diff(ticks), ticks[1] - ticks[0])
    assert nice_ticks(5.0, 5.0).tolist() == [5.0]
    with pytest.raises(ValueError, match="finite"):
        nice_ticks(0.0, float("inf"))


def test_decimals_for() -> None:
    assert [decimals_for(s) for s in (100, 5, 0.5, 0.25, 0.05, 0.001)] == [0, 0, 1, 2, 2, 3]


def test_format_number() -> None:
    assert format_number(-1234.5) == f"{MINUS}1,234.50"
    assert format_number(-0.001) == "0.00"  # no minus sign on a zero
    assert format_number(0.0123, 1, percent=True, sign=True) == "+1.2%"
    assert format_number(2_500_000, 1, compact=True) == "2.5M"
    assert format_number(-12_300, 1, compact=True) == f"{MINUS}12.3k"
    assert format_number(None) == format_number(float("nan")) == "\u2013"


def test_tick_labels_share_their_decimals() -> None:
    assert tick_labels([0.9, 0.95, 1.0]) == ["0.90", "0.95", "1.00"]
    assert tick_labels([0.0, 0.05, 0.1], percent=True) == ["0%", "5%", "10%"]
    assert tick_labels([0.0, 500_000.0, 1_000_000.0]) == ["0", "0.5M", "1.0M"]
    assert tick_labels([-2000.0, 0.0, 2000.0], compact=True) == [f"{MINUS}2k", "0", "2k"]
    assert tick_labels([]) == []


def test_value_range() -> None:
    assert value_range([1.0, 3.0], pad=0.0) == (1.0, 3.0)
    low, high = value_range([1.0, 3.0], include=[0.0])
    assert low < 0.0 and high > 3.0
    assert value_range([np.nan, np.inf]) == (0.0, 1.0)
    assert value_range([2.0, -1.0], pad=0.0, symmetric=True) == (-2.0, 2.0)
    low, high = value_range([5.0])
    assert low < 5.0 < high


def test_value_axis_ticks_fit_the_height() -> None:
    short = value_axis(Box(0, 0, 100, 60), 0.0, 100.0)
    tall = value_axis(Box(0, 0, 100, 300), 0.0, 100.0)
    assert 2 <= len(short[0]) < len(tall[0])
    assert len(tall[0]) == len(tall[1])


def test_step_points() -> None:
    xs, ys = step_points(np.array([0.0, 1.0, 2.0]), np.array([5.0, 6.0, 7.0]))
    assert xs.tolist() == [0.0, 1.0, 1.0, 2.0, 2.0]
    assert ys.tolist() == [5.0, 5.0, 6.0, 6.0, 7.0]


def test_box_splits_tile_the_box() -> None:
    box = Box(0, 0, 100, 50)
    rows = box.rows([1, 3], gap=10)
    assert rows[0].top == 50 and rows[1].bottom == 0
    assert rows[0].height == pytest.approx(10) and rows[1].height == pytest.approx(30)
    columns = box.columns([1, 1, 2])
    assert [c.width for c in columns] == [25, 25, 50]
    assert all(box.contains(part) for part in [*rows, *columns])
    assert box.inset(10).width == 80 and box.inset(100).width == 0
    assert not box.contains(Box(-1, 0, 10, 10))


def test_triangle_points_up_for_buys() -> None:
    up, down = triangle(0, 0, 10, up=True), triangle(0, 0, 10, up=False)
    assert up[2, 1] > up[0, 1] and down[2, 1] < down[0, 1]


def test_legend_width_grows_with_items() -> None:
    pytest.importorskip("PIL")
    one = [("Equity", (0, 0, 0), "line")]
    two = [*one, ("Benchmark", (0, 0, 0), "dash")]
    assert 0 == legend_width([]) < legend_width(one) < legend_width(two)
