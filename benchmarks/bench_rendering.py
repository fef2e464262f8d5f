"""Rendering: dashboard frames per second, and what RecordFrames costs a step when disabled.

Dashboards (``sekai.rendering.Dashboard``, drawn with Pillow) at 720 x 450:

- ``typical``: a LineChart of two series (one filled) over a BarChart of five
  weights, with three Stats, a title and a subtitle;
- ``portfolio``: the same plus a StackedArea of the weights;
- ``market``: a PriceChart (quotes, spread, trades, position, context) next to
  an OrderBookChart of a real order book, over a LineChart of PnL.

Each is measured with and without antialiasing, at two history lengths
(frames drawn after 100 and after 1000 recorded steps: history grows with the
episode, and so does the work of drawing it). The market dashboard needs
sekai-finance.

RecordFrames: microseconds per ``step`` of a trivial env, bare, through an
empty wrapper, and through ``RecordFrames(env, renderer, enabled=False)``
(recording must stay off the step's hot path when disabled), plus the cost of
a recorded step with a trivial renderer.

Timing: best CPU time (``time.process_time``) over repeats. Run
``python benchmarks/bench_rendering.py [--quick]``; results are printed and
written to ``benchmarks/results/bench_rendering.json``.
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.rendering import (
    BarChart,
    Dashboard,
    LineChart,
    RecordFrames,
    Renderer,
    Row,
    Series,
    StackedArea,
    Stat,
)
from sekai.spaces import Box, Discrete

RESULTS = Path(__file__).parent / "results" / "bench_rendering.json"
WIDTH, HEIGHT = 720, 450
NAMES = ["AAPL", "MSFT", "GOOG", "AMZN", "NVDA"]


class Desk:
    """Attributes a market env exposes, advanced by a seeded random walk."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.elapsed_steps = 0
        self.max_episode_steps = 1000
        self.equity = 1.0
        self.benchmark = 1.0
        self.peak = 1.0
        self.drawdown = 0.0
        self.weights = np.full(5, 0.2)
        self.mid = 100.0
        self.bid_quote, self.ask_quote = 99.0, 101.0
        self.best_bid, self.best_ask = 99.5, 100.5
        self.bought = self.sold = 0.0
        self.inventory = 0.0
        self.pnl = 0.0
        self.lookback = 100 + np.cumsum(self.rng.normal(0, 0.3, 50))
        self.book: Any = None

    def step(self) -> None:
        rng = self.rng
        self.elapsed_steps += 1
        self.equity *= 1 + rng.normal(0.0005, 0.01)
        self.benchmark *= 1 + rng.normal(0.0003, 0.008)
        self.peak = max(self.peak, self.equity)
        self.drawdown = self.equity / self.peak - 1
        self.weights = rng.dirichlet(np.full(5, 4.0))
        self.mid += rng.normal(0, 0.2)
        self.bid_quote, self.ask_quote = self.mid - 1, self.mid + 1
        self.best_bid, self.best_ask = self.mid - 0.5, self.mid + 0.5
        trade = rng.random()
        self.bought = 1.0 if trade < 0.05 else 0.0
        self.sold = 1.0 if trade > 0.95 else 0.0
        self.inventory += self.bought - self.sold
        self.pnl += rng.normal(0.01, 0.5)


def typical() -> Dashboard:
    return Dashboard(
        LineChart(
            Series("equity", label="Strategy", fill=True),
            Series("benchmark", label="Benchmark", dashed=True),
            title="Equity",
            baseline=1.0,
        ),
        BarChart("weights", labels=NAMES, title="Weights"),
        title="Portfolio",
        subtitle="benchmark dashboard",
        stats=[
            Stat("Equity", "equity", delta="relative"),
            Stat("Drawdown", "drawdown", format="{:.1%}", higher_is_better=False),
            Stat("Step", "elapsed_steps", format="{:d}"),
        ],
    )


def portfolio() -> Dashboard:
    dashboard = typical()
    line, bars = dashboard.panels
    dashboard.set_layout(
        line, Row(bars, StackedArea("weights", labels=NAMES, legend=True, title="Allocation"))
    )
    return dashboard


def market() -> Dashboard | None:
    try:
        from sekai.finance.lob import OrderBook, Side
        from sekai.finance.rendering import OrderBookChart, PriceChart
    except ImportError:
        return None
    book = OrderBook()
    for offset in range(1, 9):
        book.limit(Side.BID, 1000 - offset, 3 + offset)
        book.limit(Side.ASK, 1000 + offset, 2 + offset)
    book.limit(Side.BID, 999, 4, 7)

    def the_book(env: Any) -> Any:
        return book

    return Dashboard(
        Row(
            PriceChart(
                "mid",
                quotes=("bid_quote", "ask_quote"),
                spread=("best_bid", "best_ask"),
                buys="bought",
                sells="sold",
                position="inventory",
                context="lookback",
                width=1.6,
            ),
            OrderBookChart(the_book, owners={7: ("Agent", "highlight")}, levels=6),
        ),
        LineChart(Series("pnl", label="PnL", signed=True), title="PnL", baseline=0.0),
        title="Market making",
        stats=[Stat("PnL", "pnl", delta="absolute"), Stat("Inventory", "inventory")],
    )


DASHBOARDS: dict[str, Callable[[], Dashboard | None]] = {
    "typical": typical,
    "portfolio": portfolio,
    "market": market,
}


def bench_dashboard(
    build: Callable[[], Dashboard | None], history: int, antialias: bool, frames: int, repeats: int
) -> float | None:
    """Frames per second of a dashboard whose history already holds ``history`` steps."""
    dashboard = build()
    if dashboard is None:
        return None
    dashboard.antialias = antialias
    desk = Desk()
    for _ in range(history):  # fill the history (each frame records a step; not timed)
        dashboard.render(desk)
        desk.step()
    best = math.inf
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(frames):
            desk.step()
            dashboard.render(desk)
        best = min(best, (time.process_time() - start) / frames)
    return 1.0 / best


class Counter(Env[np.ndarray, int]):
    """The cheapest env: a counter."""

    observation_space = Box(0.0, 1e9, (1,), np.float32)
    action_space = Discrete(2)

    def __init__(self) -> None:
        self.t = 0
        self._obs = np.zeros(1, np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self.t = 0
        return ResetResult(self._obs, {})

    def step(self, action: int) -> StepResult[np.ndarray]:
        self.t += 1
        return StepResult(self._obs, 0.0, False, False, {})


class Blank(Renderer):
    def __init__(self) -> None:
        self.frame = np.zeros((4, 4, 3), np.uint8)

    def render(self, env: Any) -> np.ndarray:
        return self.frame

    def close(self) -> None:
        pass


class Empty(Wrapper[np.ndarray, int, np.ndarray, int]):
    pass


def bench_step(steps: int, repeats: int) -> dict[str, float]:
    """Microseconds per step: bare, empty wrapper, RecordFrames disabled and enabled."""
    envs: dict[str, Any] = {
        "bare": Counter(),
        "empty_wrapper": Empty(Counter()),
        "record_frames_disabled": RecordFrames(Counter(), Blank(), enabled=False),
        "record_frames_enabled": RecordFrames(Counter(), Blank(), max_frames=None),
    }
    best = dict.fromkeys(envs, math.inf)
    for _ in range(repeats):
        for name, env in envs.items():
            env.reset()
            step = env.step
            start = time.process_time()
            for _ in range(steps):
                step(0)
            best[name] = min(best[name], (time.process_time() - start) / steps * 1e6)
            if name == "record_frames_enabled":
                env.clear()
    return best


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    frames, repeats = (10, 2) if quick else (40, 3)
    histories = (100,) if quick else (100, 1000)
    from PIL import __version__ as pillow_version

    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pillow": pillow_version,
        "size": f"{WIDTH}x{HEIGHT}",
        "timing": "best CPU time over repeats",
        "dashboards_fps": {},
    }
    print(f"python {report['python']}, pillow {pillow_version}; dashboards at {WIDTH}x{HEIGHT}")
    print(f"{'dashboard':<12} {'history':>8} {'antialias fps':>14} {'plain fps':>10}")
    for name, build in DASHBOARDS.items():
        for history in histories:
            row = {
                "antialias": bench_dashboard(build, history, True, frames, repeats),
                "plain": bench_dashboard(build, history, False, frames, repeats),
            }
            if row["plain"] is None:
                print(f"{name:<12} skipped (needs sekai-finance)")
                break
            report["dashboards_fps"][f"{name}@{history}"] = row
            print(
                f"{name:<12} {history:>8} {row['antialias']:14.1f} {row['plain']:10.1f}",
                flush=True,
            )
    steps = 20_000 if quick else 200_000
    report["step_us"] = bench_step(steps, repeats)
    print("RecordFrames, microseconds per step of a counter env:")
    for name, value in report["step_us"].items():
        print(f"  {name:<24} {value:8.3f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
