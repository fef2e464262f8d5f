"""Dashboard: recording sources, frames, layout, themes, episodes and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("PIL", reason="sekai.rendering draws with Pillow (sekai-wrappers[render])")

from sekai.rendering import (
    DARK,
    LIGHT,
    BarChart,
    BaseRenderer,
    Column,
    Dashboard,
    LineChart,
    Panel,
    Renderer,
    Row,
    Series,
    StackedArea,
    Stat,
    View,
)
from sekai.rendering.charts import Box


class Market:
    """A stand-in env: a few attributes that change with every step."""

    def __init__(self, seed: int = 0, horizon: int | None = 50) -> None:
        self.rng = np.random.default_rng(seed)
        self.elapsed_steps = 0
        if horizon is not None:
            self.max_episode_steps = horizon
        self.equity = 1.0
        self.weights = np.array([0.5, 0.3, 0.2])
        self.drawdown = 0.0

    def step(self) -> None:
        self.elapsed_steps += 1
        self.equity *= 1 + self.rng.normal(0, 0.02)
        self.weights[:] = self.rng.dirichlet(np.ones(3))  # updated in place, as fast envs do
        self.drawdown = min(0.0, self.equity - 1.0)

    def reset(self) -> None:
        self.elapsed_steps = 0


def typical(**kwargs: Any) -> Dashboard:
    return Dashboard(
        LineChart(Series("equity", label="Equity", fill=True), title="Equity", baseline=1.0),
        Row(BarChart("weights", labels=["a", "b", "c"]), StackedArea("weights", legend=True)),
        title="Test",
        stats=[Stat("Equity", "equity", delta="relative")],
        **kwargs,
    )


def play(dashboard: Dashboard, env: Market, steps: int) -> list[np.ndarray]:
    frames = [dashboard.render(env)]
    for _ in range(steps):
        env.step()
        frames.append(dashboard.render(env))
    return frames


@pytest.mark.parametrize(("width", "height"), [(720, 450), (320, 200), (1280, 720)])
def test_frames_have_the_requested_shape_and_dtype(width: int, height: int) -> None:
    frame = play(typical(width=width, height=height), Market(), 3)[-1]
    assert frame.shape == (height, width, 3)
    assert frame.dtype == np.uint8
    assert frame.flags.writeable


def test_frames_change_when_the_data_changes_and_only_then() -> None:
    a = play(typical(width=360, height=240), Market(seed=1), 5)
    b = play(typical(width=360, height=240), Market(seed=1), 5)
    c = play(typical(width=360, height=240), Market(seed=2), 5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))  # deterministic
    assert not np.array_equal(a[-1], c[-1])
    assert not np.array_equal(a[-2], a[-1])


def test_history_is_recorded_per_step_and_copied() -> None:
    dashboard = typical(width=200, height=120)
    env = Market()
    play(dashboard, env, 4)
    chart = dashboard.panels[0]
    seen: dict[str, Any] = {}

    class Spy(Panel):
        def sources(self):
            return {"w": "weights", "e": "equity"}

        def draw(self, canvas, box, view: View) -> None:
            seen["steps"] = view.steps.tolist()
            seen["w"] = view.values("w")
            seen["e"] = view.values("e")
            seen["latest"] = view.latest("e")

    dashboard.set_layout(chart, Spy())
    env = Market()
    play(dashboard, env, 3)
    assert seen["steps"] == [0.0, 1.0, 2.0, 3.0]
    assert seen["w"].shape == (4, 3)
    assert len({tuple(row) for row in seen["w"]}) == 4  # in-place updates were copied
    assert seen["latest"] == env.equity == seen["e"][-1]


def test_a_step_that_goes_back_starts_a_new_episode() -> None:
    steps: list[list[float]] = []

    class Spy(Panel):
        def sources(self):
            return {"e": "equity"}

        def draw(self, canvas, box, view) -> None:
            steps.append(view.steps.tolist())

    dashboard = Dashboard(Spy(), width=100, height=80)
    env = Market()
    play(dashboard, env, 3)
    env.reset()
    dashboard.render(env)
    assert steps[-2] == [0.0, 1.0, 2.0, 3.0]
    assert steps[-1] == [0.0]
    dashboard.render(env)  # the same step again replaces the row
    assert steps[-1] == [0.0]


def test_without_elapsed_steps_frames_are_counted_until_reset() -> None:
    class Plain:
        equity = 1.0

    steps: list[list[float]] = []

    class Spy(Panel):
        def sources(self):
            return {"e": "equity"}

        def draw(self, canvas, box, view) -> None:
            steps.append(view.steps.tolist())

    dashboard = Dashboard(Spy(), width=100, height=80)
    for _ in range(3):
        dashboard.render(Plain())
    assert steps[-1] == [0.0, 1.0, 2.0]
    dashboard.reset()
    dashboard.render(Plain())
    assert steps[-1] == [0.0]
    with pytest.raises(AttributeError, match="step source 'clock'"):
        Dashboard(Spy(), step="clock", width=100, height=80).render(Plain())


def test_window_keeps_the_last_steps() -> None:
    domains: list[tuple[float, float]] = []

    class Spy(Panel):
        def sources(self):
            return {"e": "equity"}

        def draw(self, canvas, box, view) -> None:
            domains.append((view.x_domain, len(view.steps)))

    dashboard = Dashboard(Spy(), window=5, width=100, height=80)
    play(dashboard, Market(), 12)
    (x0, x1), kept = domains[-1]
    assert (x0, x1) == (7.0, 12.0)
    assert kept == 6


def test_horizon_sets_the_end_of_the_time_axis() -> None:
    domains: list[tuple[float, float]] = []

    class Spy(Panel):
        def draw(self, canvas, box, view) -> None:
            domains.append(view.x_domain)

    play(Dashboard(Spy(), width=100, height=80), Market(horizon=50), 2)
    assert domains[-1] == (0.0, 50.0)
    play(Dashboard(Spy(), width=100, height=80), Market(horizon=None), 2)
    assert domains[-1] == (0.0, 2.0)
    play(Dashboard(Spy(), horizon=20, width=100, height=80), Market(horizon=50), 2)
    assert domains[-1] == (0.0, 20.0)


def test_panels_are_laid_out_inside_the_body_and_do_not_overlap() -> None:
    boxes: dict[str, Box] = {}

    class Spy(Panel):
        timeseries = False

        def __init__(self, name: str, **kwargs: Any) -> None:
            super().__init__(name, **kwargs)

        def draw(self, canvas, box, view) -> None:
            boxes[self.title] = box

    dashboard = Dashboard(
        Spy("top", height=2),
        Row(Spy("left"), Column(Spy("right-top"), Spy("right-bottom")), widths=[1, 3]),
        title="Layout",
        width=400,
        height=300,
    )
    dashboard.render(Market())
    frame = Box(0, 0, 400, 300)
    assert set(boxes) == {"top", "left", "right-top", "right-bottom"}
    assert all(frame.contains(box) for box in boxes.values())
    assert all(box.top < 300 - 20 for box in boxes.values())  # below the title
    top, left, right = boxes["top"], boxes["left"], boxes["right-top"]
    assert top.height == pytest.approx(2 * (left.height), rel=0.1)
    assert right.width == pytest.approx(3 * left.width, rel=0.1)
    assert boxes["right-top"].bottom > boxes["right-bottom"].top
    items = list(boxes.values())
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            overlap = min(a.right, b.right) > max(a.left, b.left) and min(a.top, b.top) > max(
                a.bottom, b.bottom
            )
            assert not overlap, (a, b)


def test_a_panel_cannot_draw_outside_its_box() -> None:
    class Greedy(Panel):
        def draw(self, canvas, box, view) -> None:
            canvas.rect(0, 0, canvas.width, canvas.height, (255, 0, 0))

    class Blank(Panel):
        def draw(self, canvas, box, view) -> None:
            pass

    dashboard = Dashboard(Row(Greedy(), Blank()), width=200, height=100)
    frame = dashboard.render(Market())
    red = (frame == [255, 0, 0]).all(axis=2)
    assert red[:, :90].any() and not red[:, 110:].any()


def test_themes_differ() -> None:
    light = typical(width=240, height=160, theme="light").render(Market())
    dark = typical(width=240, height=160, theme=DARK).render(Market())
    assert not np.array_equal(light, dark)
    assert (light[0, 0] == LIGHT.background).all()
    assert (dark[0, 0] == DARK.background).all()
    assert light.mean() > dark.mean()


def test_a_dashboard_is_a_renderer() -> None:
    dashboard = typical()
    assert isinstance(dashboard, BaseRenderer) and isinstance(dashboard, Renderer)
    with dashboard as entered:
        assert entered is dashboard
    with pytest.raises(NotImplementedError, match="render"):
        BaseRenderer().render(None)


def test_callable_sources_titles_and_stat_formats() -> None:
    stat = Stat("Equity", lambda env: env.equity * 100, format="{:,.1f}", delta="absolute")
    dashboard = Dashboard(
        LineChart(lambda env: env.equity, title="Equity"),
        title=lambda env: f"step {env.elapsed_steps}",
        stats=[stat],
        width=240,
        height=160,
    )
    frames = play(dashboard, Market(), 2)
    assert not np.array_equal(frames[0], frames[-1])
    assert stat.text(-1234.56) == "\u22121,234.6"
    assert stat.text(None) == "\u2013"
    assert stat.change(110.0, 100.0) == ("+10.0", 10.0)
    assert Stat("x", "x", delta="relative").change(110.0, 100.0)[0] == "+10.00%"
    assert Stat("x", "x").change(110.0, 100.0) is None


def test_check_and_render_name_a_missing_source() -> None:
    dashboard = Dashboard(LineChart("equity", title="Equity"), LineChart("pnl", title="PnL"))
    with pytest.raises(AttributeError, match=r"LineChart\(title='PnL'\).*'pnl'.*Market"):
        dashboard.check(Market())
    with pytest.raises(AttributeError, match="'pnl'"):
        dashboard.render(Market())
    typical().check(Market())  # every source exists: no error


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: Dashboard("equity"), TypeError, "Panels"),
        (lambda: Dashboard(stats=[("a", "b")]), TypeError, "Stat"),
        (lambda: Dashboard(width=10), ValueError, "width"),
        (lambda: Dashboard(theme="neon"), ValueError, "unknown theme"),
        (lambda: Dashboard(window=0), ValueError, "window"),
        (lambda: LineChart(), ValueError, "at least one series"),
        (lambda: LineChart(3), TypeError, "source"),
        (lambda: Series("x", width=0), ValueError, "width"),
        (lambda: Series("x", fill=1), TypeError, "fill"),
        (lambda: Stat("x", "x", delta="ratio"), ValueError, "delta"),
        (lambda: Row(LineChart("x"), widths=[1, 2]), ValueError, "one number per child"),
        (lambda: BarChart("x", limit=-1), ValueError, "limit"),
        (lambda: Panel(height=0), ValueError, "height"),
    ],
)
def test_clear_errors(build, error, match) -> None:
    with pytest.raises(error, match=match):
        build()


def test_the_same_panel_twice_is_refused() -> None:
    chart = LineChart("equity")
    with pytest.raises(ValueError, match="twice"):
        Dashboard(chart, Row(chart))


def test_bar_chart_marks_unavailable_bars_and_handles_empty_data() -> None:
    class Env:
        elapsed_steps = 0
        values = np.array([0.5, -0.25, 0.0])
        listed = np.array([True, True, False])

    full = Dashboard(BarChart("values", available="listed"), width=200, height=120)
    all_listed = Dashboard(BarChart("values"), width=200, height=120)
    assert not np.array_equal(full.render(Env()), all_listed.render(Env()))

    class Empty:
        elapsed_steps = 0
        values = ()

    frame = Dashboard(BarChart("values"), width=200, height=120).render(Empty())
    assert frame.shape == (120, 200, 3)


def test_line_chart_options_draw() -> None:
    chart = LineChart(
        Series("equity", label="Equity", signed=True, rebase=100),
        Series("weights", label="Weights", step=True, dashed=True),
        baseline=100.0,
        limits=(90.0, 110.0),
        shade=lambda env: env.drawdown < 0,
        shade_label="Drawdown",
        percent=False,
    )
    plain = LineChart(Series("equity", rebase=100))
    frames = [
        play(Dashboard(c, width=300, height=200), Market(seed=3), 6)[-1] for c in (chart, plain)
    ]
    assert not np.array_equal(*frames)


def test_history_values_stay_right_across_replaced_rows_trims_and_new_lengths() -> None:
    class Feed:
        def __init__(self) -> None:
            self.elapsed_steps = 0
            self.x = 0.0
            self.v = np.zeros(2)

    seen: list[tuple[list[float], list[float], tuple[int, ...]]] = []

    class Spy(Panel):
        def sources(self):
            return {"x": "x", "v": "v"}

        def draw(self, canvas, box, view) -> None:
            x = view.values("x")
            assert not x.flags.writeable
            seen.append((view.steps.tolist(), x.tolist(), view.values("v").shape))

    feed = Feed()
    dashboard = Dashboard(Spy(), window=3, width=100, height=80)
    for step, x in [(0, 0.0), (1, 1.0), (1, 1.5), (2, 2.0), (3, 3.0), (4, 4.0)]:
        feed.elapsed_steps, feed.x = step, x
        dashboard.render(feed)
    assert seen[2][:2] == ([0.0, 1.0], [0.0, 1.5])  # step 1 drawn again: its row replaced
    assert seen[-1][:2] == ([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 3.0, 4.0])  # the window of 3 steps
    feed.v = np.ones(3)  # the vector grows: earlier rows are padded with NaN
    feed.elapsed_steps = 5
    dashboard.render(feed)
    assert seen[-1][2] == (4, 3)


def test_long_areas_fill_between_their_curves() -> None:
    from sekai.rendering import Canvas

    xs = np.linspace(0, 200, 1000)  # long enough to be filled column by column
    lower, upper = np.full(1000, 20.0), 40 + 10 * np.sin(xs / 20)
    canvas = Canvas(200, 80)
    canvas.fill_between(xs, lower, upper, (0, 0, 0))
    dark = (canvas.to_array() == 0).all(axis=2)
    for column in (10, 100, 190):
        rows = np.flatnonzero(dark[:, column])
        top = 80 - (40 + 10 * np.sin((column + 0.5) / 20))
        assert abs(rows[0] - top) <= 1 and rows[-1] == 80 - 21
        assert len(rows) == rows[-1] - rows[0] + 1  # no holes
    assert not dark[:, :].all(axis=0).any()
