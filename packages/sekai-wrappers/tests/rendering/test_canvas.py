"""Canvas: coordinates (y up), blending, clipping, lines with gaps and dashes, images, text."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("PIL", reason="sekai.rendering draws with Pillow (sekai-wrappers[render])")

from sekai.rendering import Canvas, rotate

WHITE = [255, 255, 255]
BLACK = (0, 0, 0)


def test_a_new_canvas_is_the_background() -> None:
    frame = Canvas(30, 20, (10, 20, 30)).to_array()
    assert frame.shape == (20, 30, 3)
    assert frame.dtype == np.uint8
    assert (frame == [10, 20, 30]).all()


def test_y_points_up_and_rects_cover_pixel_centres() -> None:
    canvas = Canvas(10, 10)
    canvas.rect(2, 0, 5, 3, BLACK)  # x in [2, 5), the three bottom rows
    frame = canvas.to_array()
    painted = np.argwhere((frame == 0).all(axis=2))
    assert sorted({int(r) for r, _ in painted}) == [7, 8, 9]  # array row 9 is the bottom
    assert sorted({int(c) for _, c in painted}) == [2, 3, 4]


def test_reversed_sides_and_thin_rects() -> None:
    a, b = Canvas(10, 10), Canvas(10, 10)
    a.rect(2, 2, 6, 6, BLACK)
    b.rect(6, 6, 2, 2, BLACK)
    assert np.array_equal(a.to_array(), b.to_array())
    thin = Canvas(10, 10)
    thin.rect(3.0, 0, 3.2, 10, BLACK)  # thinner than a pixel: still one column
    assert ((thin.to_array() == 0).all(axis=2)).sum() == 10


def test_alpha_blends_over_what_is_drawn() -> None:
    canvas = Canvas(4, 4, (255, 255, 255))
    canvas.rect(0, 0, 4, 4, (0, 0, 0), alpha=0.5)
    value = canvas.to_array()[0, 0, 0]
    assert 120 <= value <= 135
    with pytest.raises(ValueError, match="alpha"):
        canvas.rect(0, 0, 1, 1, BLACK, alpha=1.5)


def test_clip_restricts_drawing_and_nests() -> None:
    canvas = Canvas(20, 10)
    with canvas.clip(0, 0, 10, 10):
        with canvas.clip(5, 0, 20, 10):  # the intersection is x in [5, 10)
            canvas.rect(0, 0, 20, 10, BLACK)
            inside = canvas.to_array()  # includes the drawing so far
        canvas.rect(0, 0, 2, 10, (255, 0, 0))
    frame = canvas.to_array()
    black = (frame == 0).all(axis=2)
    assert black[:, 5:10].all() and not black[:, :5].any() and not black[:, 10:].any()
    assert (inside == 0).all(axis=2)[:, 5:10].all()
    assert (frame[:, 0] == [255, 0, 0]).all()
    with canvas.clip(30, 0, 40, 10):  # outside the canvas: nothing is drawn
        canvas.rect(0, 0, 20, 10, (0, 255, 0))
    assert np.array_equal(canvas.to_array(), frame)


def test_polyline_breaks_at_nan() -> None:
    canvas = Canvas(30, 10)
    canvas.polyline([(0, 5), (10, 5), (np.nan, 5), (20, 5), (30, 5)], BLACK, 2)
    row = (canvas.to_array()[4:6] == 0).all(axis=2).any(axis=0)
    assert row[:9].all() and row[21:29].all()
    assert not row[12:18].any()


def test_dashes_leave_gaps() -> None:
    solid, dashed = Canvas(60, 6), Canvas(60, 6)
    solid.line((0, 3), (60, 3), BLACK, 2)
    dashed.line((0, 3), (60, 3), BLACK, 2, dash=(6, 4))
    inked = lambda c: int((c.to_array() == 0).all(axis=2).any(axis=0).sum())  # noqa: E731
    assert 30 < inked(dashed) < inked(solid) - 10
    with pytest.raises(ValueError, match="dash"):
        dashed.line((0, 3), (60, 3), BLACK, 2, dash=(0, 4))


def test_fill_between_and_polygon_and_circle() -> None:
    canvas = Canvas(40, 40)
    canvas.fill_between([0, 40], [0, 0], 10, BLACK)  # the bottom quarter
    frame = canvas.to_array()
    assert (frame[32:, :] == 0).all() and (frame[:28, :] == 255).all()
    canvas = Canvas(40, 40)
    canvas.polygon([(0, 0), (40, 0), (0, 40)], BLACK)  # lower-left triangle
    frame = canvas.to_array()
    assert (frame[38, 1] == 0).all() and (frame[1, 38] == 255).all()
    canvas = Canvas(40, 40)
    canvas.circle(20, 20, 5, BLACK)
    dark = (canvas.to_array() == 0).all(axis=2)
    assert dark[20, 20] and not dark[20, 27] and 60 < dark.sum() < 100  # about pi * 25


def test_image_is_placed_and_scaled_into_its_box() -> None:
    canvas = Canvas(20, 20)
    picture = np.zeros((2, 2, 3), np.uint8)
    picture[0, 0] = (255, 0, 0)  # top left
    canvas.image(picture, 10, 10, 20, 20)  # the top-right quarter
    frame = canvas.to_array()
    assert (frame[0, 10] == [255, 0, 0]).all() and (frame[0:5, 10:15] == [255, 0, 0]).all()
    assert (frame[9, 19] == 0).all() and (frame[10:, :] == 255).all()
    with pytest.raises(ValueError, match=r"\(h, w\)"):
        canvas.image(np.zeros((2, 2, 2)), 0, 0, 5, 5)


def test_text_inks_where_it_is_anchored() -> None:
    canvas = Canvas(100, 30)
    width = canvas.text(50, 15, "Hello", BLACK, size=12, align="center", valign="middle")
    dark = (canvas.to_array() < 128).all(axis=2)
    columns = np.flatnonzero(dark.any(axis=0))
    rows = np.flatnonzero(dark.any(axis=1))
    assert abs((columns[0] + columns[-1]) / 2 - 50) <= 2
    assert abs((rows[0] + rows[-1]) / 2 - 15) <= 3
    assert columns[-1] - columns[0] <= width + 1
    with pytest.raises(ValueError, match="align"):
        canvas.text(0, 0, "x", BLACK, align="justify")  # type: ignore[arg-type]


def test_antialiasing_keeps_the_size_and_softens_edges() -> None:
    sharp, smooth = Canvas(40, 40), Canvas(40, 40, antialias=True)
    for canvas in (sharp, smooth):
        canvas.line((0, 0), (40, 17), BLACK, 1.5)
    a, b = sharp.to_array(), smooth.to_array()
    assert a.shape == b.shape == (40, 40, 3)
    levels = lambda f: len(np.unique(f[:, :, 0]))  # noqa: E731
    assert levels(b) > levels(a)


def test_pixels_is_a_copy() -> None:
    canvas = Canvas(4, 4)
    pixels = canvas.pixels
    pixels[:] = 0
    assert (canvas.to_array() == 255).all()


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((0, 10), {}, ValueError),
        ((10, 20000), {}, ValueError),
        ((10.5, 10), {}, TypeError),
        ((10, 10, "#zzzzzz"), {}, ValueError),
        ((10, 10), {"antialias": 1}, TypeError),
    ],
)
def test_bad_canvas_arguments(args, kwargs, error) -> None:
    with pytest.raises(error):
        Canvas(*args, **kwargs)


def test_rotate_turns_counterclockwise() -> None:
    assert np.allclose(rotate([1.0, 0.0], math.pi / 2), [0.0, 1.0])
    assert np.allclose(rotate([[2.0, 1.0]], math.pi, origin=(1.0, 1.0)), [[0.0, 1.0]])
    with pytest.raises(ValueError, match="points"):
        rotate([1.0, 2.0, 3.0], 0.1)


def test_clear_paints_the_canvas_or_the_clipped_box() -> None:
    canvas = Canvas(10, 10)
    canvas.clear((1, 2, 3))
    assert (canvas.to_array() == [1, 2, 3]).all()
    with canvas.clip(0, 0, 5, 10):
        canvas.clear("#000000")
    frame = canvas.to_array()
    assert (frame[:, :5] == 0).all() and (frame[:, 5:] == [1, 2, 3]).all()
