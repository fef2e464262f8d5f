"""Themes: colour parsing, the built-in themes, lookups and derived themes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sekai.rendering import DARK, LIGHT, Theme, get_theme
from sekai.rendering.theme import THEMES, mix, rgb


@pytest.mark.parametrize(
    ("color", "expected"),
    [
        ("#1f77b4", (31, 119, 180)),
        ("1f77b4", (31, 119, 180)),
        ("#FFF", (255, 255, 255)),
        ((10, 20, 30), (10, 20, 30)),
        ([10.4, 20.6, 0], (10, 21, 0)),
        (np.array([1, 2, 3], dtype=np.uint8), (1, 2, 3)),
    ],
)
def test_rgb_accepts_triples_and_hex(color, expected) -> None:
    result = rgb(color)
    assert result == expected
    assert all(type(c) is int for c in result)


@pytest.mark.parametrize(
    ("color", "error"),
    [
        ("#12345", ValueError),
        ("#gggggg", ValueError),
        ((0, 0, 256), ValueError),
        ((0, 0, -1), ValueError),
        ((0, 0, float("nan")), ValueError),
        ((0, 0), TypeError),
        ((True, 0, 0), TypeError),
        (12, TypeError),
        (None, TypeError),
    ],
)
def test_rgb_rejects_malformed_colours(color, error) -> None:
    with pytest.raises(error, match=r"colour|hex"):
        rgb(color)


def test_mix_interpolates_and_clips() -> None:
    assert mix((0, 0, 0), (200, 100, 50), 0.5) == (100, 50, 25)
    assert mix("#000", "#fff", 2.0) == (255, 255, 255)
    assert mix("#000", "#fff", -1.0) == (0, 0, 0)


def test_light_and_dark_differ_in_every_role_that_matters() -> None:
    assert LIGHT != DARK
    for role in ("background", "text", "grid", "axis", "accent", "up", "down"):
        assert getattr(LIGHT, role) != getattr(DARK, role), role
    # Light ink on dark, dark ink on light.
    assert sum(LIGHT.background) > sum(LIGHT.text)
    assert sum(DARK.background) < sum(DARK.text)


def test_get_theme_by_name_or_object() -> None:
    assert get_theme("light") is LIGHT
    assert get_theme("DARK") is DARK
    assert get_theme(DARK) is DARK
    assert set(THEMES) == {"light", "dark"}
    with pytest.raises(ValueError, match=r"unknown theme 'solarized'.*\['dark', 'light'\]"):
        get_theme("solarized")
    with pytest.raises(TypeError, match="Theme or the name"):
        get_theme(3)


def test_series_colours_cycle() -> None:
    n = len(LIGHT.series)
    assert LIGHT.color(0) == LIGHT.series[0]
    assert LIGHT.color(n + 1) == LIGHT.series[1]


def test_ink_on_picks_the_readable_colour() -> None:
    assert LIGHT.ink_on((250, 250, 250)) == LIGHT.text
    assert LIGHT.ink_on((10, 10, 10)) == LIGHT.background
    assert DARK.ink_on((250, 250, 250)) == DARK.background
    assert DARK.ink_on((10, 10, 10)) == DARK.text


def test_with_colors_replaces_only_what_is_given() -> None:
    custom = LIGHT.with_colors(up="#00ff00", series=["#ff0000"])
    assert custom.up == (0, 255, 0)
    assert custom.series == ((255, 0, 0),)
    assert custom.down == LIGHT.down
    assert custom.name == "light"
    assert LIGHT.up != (0, 255, 0)  # the original is unchanged (frozen)
    with pytest.raises(TypeError, match="unknown colour name"):
        LIGHT.with_colors(ups="#00ff00")
    with pytest.raises(dataclasses.FrozenInstanceError):
        LIGHT.up = (0, 0, 0)  # type: ignore[misc]


def test_theme_checks_its_fields() -> None:
    fields = {f.name: getattr(LIGHT, f.name) for f in dataclasses.fields(LIGHT)}
    made = Theme(**{**fields, "name": "mine", "up": "#010203"})
    assert made.up == (1, 2, 3)
    with pytest.raises(ValueError, match="at least one colour"):
        Theme(**{**fields, "series": ()})
    with pytest.raises(TypeError, match="name"):
        Theme(**{**fields, "name": ""})
