"""sekai.rendering offers 0.2's names, module paths and signatures.

The expected signatures are copied from the 0.2 API listing: parameter names,
kinds and defaults must match (annotations are not compared). RecordFrames
keeps this project's extra keyword-only options after 0.2's.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from typing import Any

import pytest

import sekai.rendering as rendering

TOP_LEVEL_02 = {
    "ANSIString", "BarChart", "BaseRenderer", "Canvas", "Column", "DARK", "Dashboard", "LIGHT",
    "LineChart", "Panel", "RGBArray", "RecordFrames", "RenderFrame", "Renderer", "Row",
    "Series", "StackedArea", "Stat", "Theme", "View", "get_theme", "rotate", "save_gif",
    "save_video", "text_width",
}  # fmt: skip

MODULES_02 = {
    "sekai.rendering.canvas": "Canvas rotate",
    "sekai.rendering.charts": "Box MINUS Plot decimals_for format_number legend legend_width "
    "nice_step nice_ticks tick_labels triangle value_range",
    "sekai.rendering.dashboard": "BarChart Column Dashboard LineChart Panel Row Series Source "
    "StackedArea Stat View read resolve_color",
    "sekai.rendering.recorder": "ActType ObsType RecordFrames SeedType save_gif save_video",
    "sekai.rendering.renderer": "BaseRenderer RenderFrame Renderer",
    "sekai.rendering.text": "Face Glyph face font_sizes text_width",
    "sekai.rendering.theme": "ColorLike DARK LIGHT THEMES Theme get_theme mix rgb",
}

DEFINED_IN_02 = {
    "BarChart": "dashboard", "BaseRenderer": "renderer", "Canvas": "canvas", "Column": "dashboard",
    "Dashboard": "dashboard", "LineChart": "dashboard", "Panel": "dashboard",
    "RecordFrames": "recorder", "Renderer": "renderer", "Row": "dashboard", "Series": "dashboard",
    "StackedArea": "dashboard", "Stat": "dashboard", "Theme": "theme", "View": "dashboard",
}  # fmt: skip

# name -> the parameters of the listing (``self`` included for methods).
SIGNATURES_02 = {
    "BarChart": "source, *, labels=None, colors=None, color=None, negative_color='down', "
    "available=None, percent=True, limit=None, title=None, width=1.0, height=1.0",
    "BarChart.draw": "self, canvas, box, view",
    "BarChart.sources": "self",
    "BaseRenderer": "",
    "BaseRenderer.close": "self",
    "BaseRenderer.render": "self, env",
    "Canvas": "width, height, background=(255, 255, 255), *, antialias=False",
    "Canvas.circle": "self, cx, cy, radius, color, *, alpha=1.0",
    "Canvas.clear": "self, color=(255, 255, 255)",
    "Canvas.clip": "self, left, bottom, right, top",
    "Canvas.fill_between": "self, x, y1, y2, color, *, alpha=1.0",
    "Canvas.image": "self, image, left, bottom, right, top, *, alpha=1.0",
    "Canvas.line": "self, start, end, color, width=1.0, *, alpha=1.0, dash=None",
    "Canvas.polygon": "self, points, color, *, alpha=1.0",
    "Canvas.polyline": "self, points, color, width=1.0, *, alpha=1.0, dash=None",
    "Canvas.rect": "self, left, bottom, right, top, color, *, alpha=1.0, radius=0.0",
    "Canvas.text": "self, x, y, text, color, *, size=12, bold=False, align='left', "
    "valign='baseline', alpha=1.0",
    "Canvas.to_array": "self",
    "Column": "*children, heights=None, width=1.0",
    "Dashboard": "*items, title=None, subtitle=None, stats=(), heights=None, width=720, "
    "height=450, theme='light', step='elapsed_steps', horizon='auto', window=None",
    "Dashboard.check": "self, env",
    "Dashboard.render": "self, env",
    "Dashboard.reset": "self, env=None",
    "Dashboard.set_layout": "self, *items, heights=None",
    "LineChart": "*series, title=None, baseline=None, percent=False, tag=True, limits=(), "
    "shade=None, shade_label=None, shade_color='down', width=1.0, height=1.0",
    "Panel": "title=None, *, width=1.0, height=1.0",
    "Panel.context": "self",
    "Panel.draw": "self, canvas, box, view",
    "Panel.frame": "self, canvas, box, view, legend_items=(), *, gutter=None",
    "Panel.sources": "self",
    "Panel.time_axis": "self, plot, view",
    "Panel.x_start": "self, view",
    "RecordFrames.clear": "self",
    "RecordFrames.save": "self, path, fps=None",
    "Renderer.close": "self",
    "Renderer.render": "self, env",
    "Row": "*children, widths=None, height=1.0",
    "Series": "source, label=None, color=None, fill=False, signed=False, step=False, "
    "dashed=False, width=2.0, rebase=None",
    "StackedArea": "source, *, labels=None, colors=None, percent=True, legend=False, "
    "title=None, width=1.0, height=1.0",
    "Stat": "label, source, format='{:,.2f}', delta=None, higher_is_better=True",
    "Stat.text": "self, value",
    "Theme": "name, background, grid, axis, text, text_secondary, text_muted, price, accent, "
    "neutral, up, down, highlight, series",
    "Theme.color": "self, slot",
    "Theme.ink_on": "self, fill",
    "Theme.with_colors": "self, *, series=None, **colors",
    "View": "env, history, prefix, theme, scale, x_domain, show_x, gutter",
    "View.color": "self, spec, slot=0",
    "View.context": "self, key",
    "View.latest": "self, key",
    "View.raw": "self, key",
    "View.size": "self, px",
    "View.values": "self, key",
    "get_theme": "theme",
    "rotate": "points, angle, origin=(0.0, 0.0)",
    "save_gif": "frames, path, fps=30",
    "save_video": "frames, path, fps=30",
    "text_width": "text, size=12, bold=False",
}


def listed(parameters: str) -> list[tuple[str, Any, Any]]:
    namespace: dict[str, Any] = {}
    exec(f"def listed({parameters}): pass", namespace)
    signature = inspect.signature(namespace["listed"])
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def actual(obj: Any) -> list[tuple[str, Any, Any]]:
    signature = inspect.signature(obj)  # for a class: its constructor, without self
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def resolve(name: str) -> Any:
    obj: Any = rendering
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", sorted(SIGNATURES_02))
def test_signature_matches_0_2(name: str) -> None:
    assert actual(resolve(name)) == listed(SIGNATURES_02[name])


def test_record_frames_extends_0_2_with_keyword_options() -> None:
    params = actual(rendering.RecordFrames)
    assert params[:4] == listed("env, renderer, *, enabled=True, max_frames=None")
    assert all(kind is inspect.Parameter.KEYWORD_ONLY for _, kind, _ in params[2:])


def test_top_level_names() -> None:
    assert set(rendering.__all__) >= TOP_LEVEL_02
    for name in rendering.__all__:
        assert getattr(rendering, name) is not None
    assert rendering.charts.__name__ == "sekai.rendering.charts"  # a module attribute, as in 0.2


@pytest.mark.parametrize("module", sorted(MODULES_02))
def test_module_paths(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in MODULES_02[module].split() if not hasattr(imported, name)]
    assert not missing


@pytest.mark.parametrize("name", sorted(DEFINED_IN_02))
def test_classes_present_themselves_where_0_2_defined_them(name: str) -> None:
    assert getattr(rendering, name).__module__ == f"sekai.rendering.{DEFINED_IN_02[name]}"


@pytest.mark.parametrize(
    ("cls", "fields"),
    [
        (rendering.Series, "source label color fill signed step dashed width rebase"),
        (rendering.Stat, "label source format delta higher_is_better"),
        (
            rendering.Theme,
            "name background grid axis text text_secondary text_muted price accent neutral "
            "up down highlight series",
        ),
    ],
)
def test_frozen_dataclass_fields(cls: type, fields: str) -> None:
    assert [f.name for f in dataclasses.fields(cls)] == fields.split()
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_class_attributes() -> None:
    assert rendering.Panel.timeseries is True
    assert rendering.BarChart.timeseries is False
    assert isinstance(rendering.View.step, property)
