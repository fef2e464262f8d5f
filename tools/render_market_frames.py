"""Draw a frame of each market env with its renderer into the docs' assets.

One seeded episode per env, played by the env's baseline policy (or a simple
rule where that shows more), drawn by the renderer of
``sekai.envs.finance.rendering`` at the default 720 x 450 and saved as
``docs/pages/assets/market-<name>.png``:

- ``market-trading.png``: ``Trading-v0``, a 20-day momentum rule (long after
  a rising month, short after a falling one), 150 steps;
- ``market-portfolio.png``: ``Portfolio-v0`` on windows of regime-switching
  returns (4 assets, lookback 20, starting value 1), a momentum tilt over the
  assets;
- ``market-universe.png``: ``Market-v0``, equal weights over the listed assets;
- ``market-making.png``: ``MarketMaking-v0``, the Avellaneda-Stoikov quotes;
- ``market-execution.png``: ``OptimalExecution-v0``, the Almgren-Chriss schedule;
- ``market-order-book.png``: ``LimitOrderBook-v0``, the env's baseline quotes;
- ``market-order-book-market.png``: ``LimitOrderBookMarket``, three traders
  deciding every 1, 2 and 5 time units (with latency jitter) in a session of
  120, each quoting the baseline;
- ``market-microstructure.png``: ``MarketMicrostructure-v0`` over 100 steps,
  the market maker quoting 0.1 around the mid, skewed against its inventory,
  and the trader buying when its signal is above 1 and selling below -1.

The runs are seeded, so the images are the same every time. The script also
prints each renderer's frame rate over its episode (CPU time; the frames
are drawn after every step as RecordFrames draws them).

Usage: ``python tools/render_market_frames.py [name ...]`` (needs
``sekai-envs[render]``: sekai.rendering and Pillow).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry
from sekai.envs import RegimeSwitchingSampler
from sekai.envs.finance import LimitOrderBookMarket, OptimalExecutionEnv, equal_weight
from sekai.envs.finance.rendering import (
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
    MarketMakingRenderer,
    MarketMicrostructureRenderer,
    MarketRenderer,
    OptimalExecutionRenderer,
    PortfolioRenderer,
    TradingRenderer,
)
from sekai.rendering import Dashboard

ASSETS = Path(__file__).resolve().parents[1] / "docs" / "pages" / "assets"

Frame = np.ndarray


def episode(
    env: Any, renderer: Dashboard, policy: Callable[[Any, Any], Any], steps: int, seed: int
) -> tuple[Frame, float]:
    """Play up to ``steps`` steps, drawing every frame; return the last one and the frame rate."""
    observation = env.reset(seed=seed).observation
    started = time.process_time()
    frame = renderer.render(env)
    frames = 1
    for _ in range(steps):
        result = env.step(policy(env, observation))
        observation = result.observation
        frame = renderer.render(env)
        frames += 1
        if result.terminated or result.truncated:
            break
    return frame, frames / max(time.process_time() - started, 1e-9)


def trading() -> tuple[Frame, float]:
    def momentum(env: Any, observation: Any) -> int:
        return 2 if observation[-21:-1].sum() > 0 else 0  # long (index 2) or short (0)

    return episode(registry.make("Trading-v0"), TradingRenderer(), momentum, 150, seed=7)


def portfolio() -> tuple[Frame, float]:
    def tilt(env: Any, observation: Any) -> Any:
        scores = np.exp(8.0 * np.append(observation["returns"][-10:].sum(axis=0), 0.0))
        return (scores / scores.sum()).astype(np.float32)

    env = registry.make("Portfolio-v0", sampler=RegimeSwitchingSampler(4), lookback=20, capital=1.0)
    return episode(env, PortfolioRenderer(), tilt, 252, seed=0)


def universe() -> tuple[Frame, float]:
    env = registry.make("Market-v0", max_assets=8)
    return episode(env, MarketRenderer(), lambda env, _: equal_weight(env), 252, seed=2)


def making() -> tuple[Frame, float]:
    return episode(
        registry.make("MarketMaking-v0"),
        MarketMakingRenderer(),
        lambda env, _: env.avellaneda_stoikov_action(),
        200,
        seed=0,
    )


def execution() -> tuple[Frame, float]:
    env = registry.make("OptimalExecution-v0")
    base = env.unwrapped
    assert isinstance(base, OptimalExecutionEnv)
    schedule = iter(base.almgren_chriss_actions())
    return episode(env, OptimalExecutionRenderer(), lambda env, _: next(schedule), 25, seed=1)


def order_book() -> tuple[Frame, float]:
    env = registry.make("LimitOrderBook-v0", session_length=150.0)
    renderer = LimitOrderBookRenderer()
    return episode(env, renderer, lambda env, _: env.baseline_action(), 150, seed=3)


def multi_agent_episode(
    env: Any, renderer: Dashboard, actions: Callable[[Any], dict[str, Any]], seed: int
) -> tuple[Frame, float]:
    """`episode` for a MultiAgentEnv: play until no agent is left, ``actions(env)`` each step."""
    env.reset(seed=seed)
    started = time.process_time()
    frame = renderer.render(env)
    frames = 1
    while env.agents:
        env.step(actions(env))
        frame = renderer.render(env)
        frames += 1
    return frame, frames / max(time.process_time() - started, 1e-9)


def order_book_market() -> tuple[Frame, float]:
    env = LimitOrderBookMarket(
        3, decision_intervals=[1.0, 2.0, 5.0], jitter=0.5, session_length=120.0
    )
    return multi_agent_episode(
        env,
        LimitOrderBookMarketRenderer(),
        lambda env: {agent: env.baseline_action(agent) for agent in env.acting},
        seed=4,
    )


def microstructure() -> tuple[Frame, float]:
    def quote(env: Any) -> Any:
        skew = 0.005 * env.inventory  # long: lower both quotes to sell more and buy less
        offsets = np.clip([0.1 + skew, 0.1 - skew], 0.0, env.max_offset)
        return offsets.astype(np.float32)

    def trade(env: Any) -> int:
        return 0 if env.signal > 1 else 2 if env.signal < -1 else 1  # buy, sell or hold

    return multi_agent_episode(
        registry.make("MarketMicrostructure-v0", episode_length=100),
        MarketMicrostructureRenderer(),
        lambda env: {"market_maker": quote(env), "trader": trade(env)},
        seed=4,
    )


FRAMES: dict[str, Callable[[], tuple[Frame, float]]] = {
    "trading": trading,
    "portfolio": portfolio,
    "universe": universe,
    "making": making,
    "execution": execution,
    "order-book": order_book,
    "order-book-market": order_book_market,
    "microstructure": microstructure,
}


def main(argv: list[str]) -> int:
    from PIL import Image

    unknown = sorted(set(argv) - set(FRAMES))
    if unknown:
        print(f"unknown frames {unknown}; choose from {sorted(FRAMES)}", file=sys.stderr)
        return 2
    ASSETS.mkdir(parents=True, exist_ok=True)
    for name in argv or list(FRAMES):
        frame, rate = FRAMES[name]()
        path = ASSETS / f"market-{name}.png"
        Image.fromarray(frame).save(path, optimize=True)
        print(f"{path}  ({rate:.0f} frames/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
