"""Text: measuring and the built-in typeface's stand-ins for missing characters."""

from __future__ import annotations

import importlib
import itertools
from typing import Any

import pytest

pytest.importorskip("PIL", reason="sekai.rendering draws with Pillow (sekai-wrappers[render])")

from sekai.rendering import Canvas, text_width
from sekai.rendering.text import face, font_sizes


def test_width_grows_with_the_text() -> None:
    widths = [text_width("E" * n) for n in range(6)]
    assert widths[0] == 0.0
    assert all(a < b for a, b in itertools.pairwise(widths))
    assert text_width("Equity") < text_width("Equity curve")


def test_width_grows_with_size_and_weight() -> None:
    assert text_width("1,234.56", 10) < text_width("1,234.56", 12) < text_width("1,234.56", 20)
    assert text_width("Total", 12, bold=True) > text_width("Total", 12)


def test_canvas_text_returns_the_measured_width() -> None:
    canvas = Canvas(200, 40)
    drawn = canvas.text(5, 20, "Drawdown", (0, 0, 0), size=14, bold=True)
    assert drawn == text_width("Drawdown", 14, bold=True)


def test_faces_are_cached_per_size_and_weight() -> None:
    assert face(12) is face(12.0)
    assert face(12) is not face(12, bold=True)
    assert face(12).line_height > 0


def test_missing_characters_are_drawn_as_their_ascii_stand_ins() -> None:
    regular = face(12)
    minus = regular.glyph("\u2212")
    assert minus.text == "-" and not minus.present
    assert regular.glyph("a").present
    assert text_width("\u22121") == text_width("-1")
    with pytest.raises(ValueError, match="one character"):
        regular.glyph("ab")


def test_font_sizes_name_every_role() -> None:
    assert {"title", "panel", "tick", "stat_value"} <= set(font_sizes)
    assert font_sizes["title"] > font_sizes["tick"]


@pytest.mark.parametrize(("args", "error"), [((3,), TypeError), (("x", 0.5), ValueError)])
def test_bad_arguments(args, error) -> None:
    with pytest.raises(error):
        text_width(*args)


def test_missing_pillow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_pillow(name: str, package: str | None = None) -> Any:
        if name.startswith("PIL"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_pillow)
    with pytest.raises(
        ImportError, match=r"install the sekai-wrappers\[render\] distribution"
    ) as info:
        Canvas(10, 10)
    assert "`pip install pillow`" in str(info.value)
