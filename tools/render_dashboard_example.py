"""Draw the dashboards that the rendering guide shows into the docs' assets.

- ``docs/pages/assets/dashboard-portfolio.png``: ``Portfolio-v0`` on windows
  of regime-switching returns (4 assets, lookback 20, starting value 1: its
  first default) played from seed 0 for 120 steps by a momentum policy, drawn
  with the generic panels (LineChart, BarChart, StackedArea, stats) in the
  light theme.
- ``docs/pages/assets/dashboard-market.png``: a market maker quoting on a
  limit order book against zero-intelligence order flow (``sekai.finance.lob``),
  drawn with the market panels (PriceChart, OrderBookChart) in the dark theme.

Both runs are seeded, so the images are the same every time.

Usage: ``python tools/render_dashboard_example.py`` (needs Pillow:
``sekai-wrappers[render]``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry
from sekai.envs import RegimeSwitchingSampler
from sekai.finance.lob import OrderBook, Side, ZeroIntelligenceFlow
from sekai.finance.rendering import OrderBookChart, PriceChart
from sekai.rendering import (
    BarChart,
    Dashboard,
    LineChart,
    Row,
    Series,
    StackedArea,
    Stat,
)

ASSETS = Path(__file__).resolve().parents[1] / "docs" / "pages" / "assets"
AGENT = 1


def portfolio_frame() -> np.ndarray:
    """Portfolio-v0 after 120 steps of a momentum policy."""
    sampler = RegimeSwitchingSampler(4)
    env = registry.make("Portfolio-v0", sampler=sampler, lookback=20, capital=1.0)
    portfolio_env: Any = env.unwrapped
    n = portfolio_env.n_assets
    names = [f"Asset {i}" for i in range(n)] + ["Cash"]
    dashboard = Dashboard(
        LineChart(
            Series("portfolio_value", label="Portfolio", fill=True),
            title="Portfolio value",
            baseline=1.0,
        ),
        Row(
            BarChart("weights", labels=names, title="Weights"),
            StackedArea("weights", labels=names, legend=True, title="Allocation"),
            height=0.9,
        ),
        title="Portfolio-v0",
        subtitle="seed 0, momentum policy",
        stats=[
            Stat("Value", "portfolio_value", format="{:.3f}", delta="relative"),
            Stat("Cash", lambda env: env.weights[-1], format="{:.0%}"),
            Stat("Step", "elapsed_steps", format="{:d}"),
        ],
        horizon=120,
    )
    observation = env.reset(seed=0).observation
    frame = dashboard.render(env)
    for _ in range(120):
        momentum = observation["returns"][-10:].sum(axis=0)
        scores = np.exp(8.0 * np.append(momentum, 0.0))
        observation = env.step((scores / scores.sum()).astype(np.float32)).observation
        frame = dashboard.render(env)
    env.close()
    return frame


class Desk:
    """A market maker on a zero-intelligence book: quotes around the mid, skewed by inventory."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.book = OrderBook()
        self.flow = ZeroIntelligenceFlow(limit_rate=10.0, market_rate=2.0, cancel_rate=0.4)
        self.flow.initialise(self.book, self.rng, mid=1000, levels=8)
        self.lookback = self._warm_up(40)
        self.elapsed_steps = 0
        self.episode_length = 100
        self.inventory = 0
        self.cash = 0.0
        self.bought = self.sold = 0
        self.bid_quote = self.ask_quote = float("nan")
        self._quote()

    @property
    def mid(self) -> float:
        return float(self.book.mid() or self.book.last_price or 1000)

    @property
    def pnl(self) -> float:
        return self.cash + self.inventory * self.mid

    def _warm_up(self, steps: int) -> np.ndarray:
        prices = []
        for _ in range(steps):
            self.flow.advance(self.book, self.rng, self.book.time + 1.0)
            prices.append(self.mid)
        return np.array(prices)

    def _quote(self) -> None:
        for order in self.book.orders_of(AGENT):
            self.book.cancel(order.order_id)
        # Improve the best prices by a tick when the spread allows, leaning
        # against the inventory.
        best_bid = self.book.best_bid() or int(self.mid) - 1
        best_ask = self.book.best_ask() or int(self.mid) + 1
        skew = -(self.inventory // 4)
        bid = min(best_bid + 1 + skew, best_ask - 1)
        ask = max(best_ask - 1 + skew, bid + 1)
        self.book.limit(Side.BID, bid, 3, AGENT)
        self.book.limit(Side.ASK, ask, 3, AGENT)
        self.bid_quote, self.ask_quote = float(bid), float(ask)

    def step(self) -> None:
        self.elapsed_steps += 1
        fills = self.flow.advance(self.book, self.rng, self.book.time + 1.0)
        mine = [fill for fill in fills if fill.maker_owner == AGENT]
        self.bought = sum(f.quantity for f in mine if f.taker_side is Side.ASK)
        self.sold = sum(f.quantity for f in mine if f.taker_side is Side.BID)
        self.inventory += self.bought - self.sold
        self.cash += sum(
            f.price * f.quantity * (1 if f.taker_side is Side.BID else -1) for f in mine
        )
        self._quote()


def market_frame() -> np.ndarray:
    """The market maker's desk after 70 steps, in the dark theme."""
    desk = Desk(seed=3)
    best_bid: Any = lambda env: env.book.best_bid()  # noqa: E731
    best_ask: Any = lambda env: env.book.best_ask()  # noqa: E731
    dashboard = Dashboard(
        Row(
            PriceChart(
                "mid",
                quotes=("bid_quote", "ask_quote"),
                spread=(best_bid, best_ask),
                buys="bought",
                sells="sold",
                position="inventory",
                context="lookback",
                width=1.7,
            ),
            OrderBookChart("book", owners={AGENT: ("Market maker", "highlight")}, levels=7),
        ),
        Row(
            LineChart(Series("pnl", label="PnL", signed=True), title="PnL", baseline=0.0),
            LineChart(
                Series("inventory", label="Inventory", step=True, color="accent"),
                title="Inventory",
                baseline=0.0,
                limits=(-10, 10),
            ),
            height=0.75,
        ),
        title="Market making on a limit order book",
        subtitle="zero-intelligence order flow, seed 3",
        stats=[
            Stat("PnL", "pnl", delta="absolute"),
            Stat("Inventory", "inventory", format="{:+d}"),
            Stat("Mid", "mid", format="{:,.1f}"),
        ],
        theme="dark",
    )
    frame = dashboard.render(desk)
    for _ in range(70):
        desk.step()
        frame = dashboard.render(desk)
    return frame


def main(argv: list[str]) -> int:
    from PIL import Image

    ASSETS.mkdir(parents=True, exist_ok=True)
    frames = {"portfolio": portfolio_frame, "market": market_frame}
    for name in argv or sorted(frames):
        path = ASSETS / f"dashboard-{name}.png"
        Image.fromarray(frames[name]()).save(path, optimize=True)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
