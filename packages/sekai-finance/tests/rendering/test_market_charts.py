"""The market charts of sekai.finance.rendering: 0.2 signatures, prices, trades, book, universe."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sekai.rendering", reason="needs sekai-finance[render]")
pytest.importorskip("PIL", reason="needs sekai-finance[render]")

from sekai.finance.lob import OrderBook, Side
from sekai.finance.rendering import OrderBookChart, PriceChart, UniverseChart
from sekai.rendering import Dashboard, Panel, Row

AGENT = 7


class Desk:
    """A stand-in market env: a price path, the agent's quotes, trades and a real book."""

    def __init__(self, seed: int = 0, n_slots: int = 6) -> None:
        self.rng = np.random.default_rng(seed)
        self.elapsed_steps = 0
        self.max_episode_steps = 40
        self.mid = 100.0
        self.bid_quote, self.ask_quote = 99.0, 101.0
        self.best_bid, self.best_ask = 99.5, 100.5
        self.inventory = 0
        self.bought = 0.0
        self.sold = 0.0
        self.lookback = 100 + np.cumsum(self.rng.normal(0, 0.5, 20))
        self.weights = self.rng.normal(0, 0.2, n_slots)
        self.listed = np.ones(n_slots, dtype=bool)
        self.book = OrderBook()
        for offset, size in enumerate((5, 3, 8), start=1):
            self.book.limit(Side.BID, 100 - offset, size)
            self.book.limit(Side.ASK, 100 + offset, size)
        self.book.limit(Side.BID, 99, 4, AGENT)

    def step(self, buy: float = 0.0, sell: float = 0.0) -> None:
        self.elapsed_steps += 1
        self.mid += float(self.rng.normal(0, 0.5))
        self.bid_quote, self.ask_quote = self.mid - 1, self.mid + 1
        self.best_bid, self.best_ask = self.mid - 0.5, self.mid + 0.5
        self.bought, self.sold = buy, sell
        self.inventory += int(buy - sell)
        self.weights = self.weights + self.rng.normal(0, 0.05, self.weights.size)


def price_chart(**kwargs: Any) -> PriceChart:
    return PriceChart(
        "mid",
        position="inventory",
        quotes=("bid_quote", "ask_quote"),
        spread=("best_bid", "best_ask"),
        buys="bought",
        sells="sold",
        context="lookback",
        reference=100.0,
        reference_label="Arrival",
        **kwargs,
    )


def play(dashboard: Dashboard, desk: Desk, trades: list[tuple[float, float]]) -> list[np.ndarray]:
    frames = [dashboard.render(desk)]
    for buy, sell in trades:
        desk.step(buy, sell)
        frames.append(dashboard.render(desk))
    return frames


LISTED_02 = {
    PriceChart: "price, *, position=None, quotes=None, spread=None, buys=None, sells=None, "
    "context=None, reference=None, reference_label=None, title='Price', tag=True, "
    "min_trade=1e-06, width=1.0, height=1.0",
    OrderBookChart: "book, *, owners=None, levels=8, title='Order book', width=1.0, height=1.0",
    UniverseChart: "weights, *, available=None, labels=None, color='accent', "
    "negative_color='down', title='Universe', width=1.0, height=1.0",
}


@pytest.mark.parametrize("cls", list(LISTED_02), ids=lambda cls: cls.__name__)
def test_signatures_match_0_2(cls: type) -> None:
    namespace: dict[str, Any] = {}
    exec(f"def listed({LISTED_02[cls]}): pass", namespace)
    expected = inspect.signature(namespace["listed"]).parameters.values()
    actual = inspect.signature(cls).parameters.values()
    assert [(p.name, p.kind, p.default) for p in actual] == [
        (p.name, p.kind, p.default) for p in expected
    ]
    assert issubclass(cls, Panel)
    assert cls.__module__ == "sekai.finance.rendering"


def test_price_chart_frames() -> None:
    dashboard = Dashboard(price_chart(), width=480, height=300)
    frames = play(dashboard, Desk(), [(0, 0), (2, 0), (0, 0), (0, 3), (0, 0)])
    assert all(f.shape == (300, 480, 3) and f.dtype == np.uint8 for f in frames)
    assert not np.array_equal(frames[-2], frames[-1])
    again = play(Dashboard(price_chart(), width=480, height=300), Desk(), [(0, 0), (2, 0)])
    assert np.array_equal(again[-1], frames[2])


def test_trades_become_markers_at_the_price() -> None:
    seen: dict[str, Any] = {}
    chart = price_chart(min_trade=0.5)
    draw = chart.draw

    def spy(canvas, box, view) -> None:
        seen["fills"] = chart.fills(view)
        seen["start"] = chart.x_start(view)
        seen["prices"] = view.values("price")
        draw(canvas, box, view)

    chart.draw = spy  # type: ignore[method-assign]
    play(Dashboard(chart, width=300, height=200), Desk(), [(0, 0), (2, 0), (0.2, 0), (0, 3)])
    prices = seen["prices"]
    assert seen["fills"] == {"buys": [(2.0, prices[2])], "sells": [(4.0, prices[4])]}
    assert seen["start"] == -20.0  # the 20 prices of the look-back come first


def test_the_trade_markers_are_drawn() -> None:
    with_trades = play(Dashboard(price_chart(), width=300, height=200), Desk(), [(5, 0)])
    without = play(Dashboard(price_chart(), width=300, height=200), Desk(), [(0, 0)])
    up = np.array(Dashboard(price_chart()).theme.up)
    green = lambda frame: int((np.abs(frame.astype(int) - up).sum(axis=2) < 30).sum())  # noqa: E731
    assert green(with_trades[-1]) > green(without[-1]) + 10


def test_a_minimal_price_chart() -> None:
    frames = play(Dashboard(PriceChart("mid"), width=200, height=120), Desk(), [(0, 0)] * 3)
    assert frames[-1].shape == (120, 200, 3)
    assert PriceChart("mid").sources().keys() == {"price"}
    assert PriceChart("mid").context() == {}


def test_order_book_chart_highlights_an_owner() -> None:
    owners = {AGENT: ("Agent", (255, 0, 255))}
    highlighted = Dashboard(OrderBookChart("book", owners=owners, levels=4), width=300, height=240)
    frame = highlighted.render(Desk())
    magenta = (frame == [255, 0, 255]).all(axis=2)
    assert magenta.sum() > 20
    plain = Dashboard(OrderBookChart("book", levels=4), width=300, height=240).render(Desk())
    assert not (plain == [255, 0, 255]).all(axis=2).any()


def test_order_book_chart_takes_depth_arrays() -> None:
    desk = Desk()
    from_arrays = Dashboard(
        OrderBookChart(lambda env: env.book.depth(4), levels=4), width=300, height=240
    ).render(desk)
    from_book = Dashboard(OrderBookChart("book", levels=4), width=300, height=240).render(desk)
    assert np.array_equal(from_arrays, from_book)
    with pytest.raises(TypeError, match="four arrays"):
        Dashboard(OrderBookChart(lambda env: 3)).render(desk)


def test_an_empty_book_draws() -> None:
    class Empty:
        elapsed_steps = 0
        book = OrderBook()

    assert Dashboard(OrderBookChart("book"), width=200, height=150).render(Empty()).shape == (
        150,
        200,
        3,
    )


def test_universe_chart_shows_unlisted_slots() -> None:
    desk = Desk()
    listed = Dashboard(UniverseChart("weights", available="listed"), width=300, height=200)
    all_listed = listed.render(desk)
    desk.listed = np.array([True, False, True, True, False, True])
    some_unlisted = Dashboard(UniverseChart("weights", available="listed"), width=300, height=200)
    assert not np.array_equal(all_listed, some_unlisted.render(desk))
    labelled = UniverseChart("weights", labels=["A", "B"])
    assert labelled.labels == ["A", "B"]
    assert Dashboard(labelled, width=300, height=200).render(desk).shape == (200, 300, 3)


def test_a_market_dashboard_together() -> None:
    dashboard = Dashboard(
        Row(price_chart(width=2), OrderBookChart("book", owners={AGENT: ("Agent", "highlight")})),
        UniverseChart("weights"),
        title="Desk",
    )
    frame = play(dashboard, Desk(), [(1, 0), (0, 1)])[-1]
    assert frame.shape == (450, 720, 3)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: PriceChart(3), TypeError, "price"),
        (lambda: PriceChart("mid", quotes="bid"), TypeError, "pair"),
        (lambda: PriceChart("mid", min_trade=-1), ValueError, "min_trade"),
        (lambda: PriceChart("mid", title=5), TypeError, "title"),
        (lambda: OrderBookChart("book", levels=0), ValueError, "levels"),
        (lambda: OrderBookChart("book", owners={7: "agent"}), TypeError, "label, colour"),
        (lambda: UniverseChart(None), TypeError, "weights"),
    ],
)
def test_clear_errors(build, error, match) -> None:
    with pytest.raises(error, match=match):
        build()


def test_without_sekai_rendering_the_import_names_the_extra() -> None:
    script = textwrap.dedent(
        """
        import sys

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "sekai.rendering" or name.startswith("sekai.rendering."):
                    raise ImportError(f"No module named {name!r}")
                return None

        sys.meta_path.insert(0, Block())
        try:
            import sekai.finance.rendering
        except ImportError as error:
            print(error)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert "install the sekai-finance[render] distribution" in completed.stdout
