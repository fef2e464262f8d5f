"""The order-book renderers: the agent's quotes and fills, the traders of a shared book, GIFs."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sekai.rendering", reason="needs sekai-envs[render]")
pytest.importorskip("PIL", reason="needs sekai-envs[render]")

from PIL import Image

import sekai.registry as registry
from sekai.envs.finance import LimitOrderBookMarket
from sekai.envs.finance.rendering import LimitOrderBookMarketRenderer, LimitOrderBookRenderer
from sekai.finance.lob import Side
from sekai.rendering import Dashboard, save_gif
from sekai.rendering.dashboard import read

W, H = 360, 225


def source(renderer: Dashboard, panel: int, key: str, env: Any) -> Any:
    """The current value of a source of one of the renderer's panels."""
    return read(env, renderer.panels[panel].sources()[key])


def lots(fills: list[Any], owner: int) -> tuple[int, int]:
    """What ``owner`` bought and sold in ``fills``."""
    bought = sold = 0
    for fill in fills:
        if owner in (fill.maker_owner, fill.taker_owner):
            side = fill.taker_side if fill.taker_owner == owner else fill.taker_side.opposite
            if side is Side.BID:
                bought += fill.quantity
            else:
                sold += fill.quantity
    return bought, sold


def test_limit_order_book_shows_the_agents_quotes_fills_and_book() -> None:
    env = registry.make("LimitOrderBook-v0", session_length=60.0)
    renderer = LimitOrderBookRenderer(levels=5, width=W, height=H)
    env.reset(seed=5)
    renderer.check(env)
    traded = 0
    for step in range(60):
        action = env.baseline_action() if step % 7 else np.array([2, 3, 2 if step % 2 else 0])
        result = env.step(action)
        renderer.render(env)
        bought, sold = lots(result.info["fills"], env.AGENT)
        assert source(renderer, 0, "buys", env) == bought
        assert source(renderer, 0, "sells", env) == sold
        traded += bought + sold
        bid = env.book.get(env.trader.bid_id) if env.trader.bid_id is not None else None
        quoted = source(renderer, 0, "bid_quote", env)
        assert quoted == bid.price if bid is not None else np.isnan(quoted)
        assert source(renderer, 0, "position", env) == result.info["inventory"]
        assert source(renderer, 0, "best_bid", env) == env.book.best_bid()
        assert source(renderer, 0, "price", env) == result.info["mid_price"]
        assert source(renderer, 2, "s0", env) == pytest.approx(result.info["wealth"])
    assert traded > 0
    assert source(renderer, 1, "book", env) is env.book
    assert source(renderer, 1, "owners", env) == {env.AGENT: ("Agent", "highlight")}


def test_the_book_panel_highlights_the_agents_resting_lots() -> None:
    env = registry.make("LimitOrderBook-v0", session_length=10.0)
    env.reset(seed=0)
    renderer = LimitOrderBookRenderer(width=W, height=H)
    before = renderer.render(env)  # the agent has no order yet
    env.step(np.array([1, 1, 1]))  # quote both sides at the touch
    env.step(np.array([1, 1, 1]))
    assert env.book.orders_of(env.AGENT)
    highlight = np.array(renderer.theme.highlight)
    after = renderer.render(env)

    def near(frame: np.ndarray) -> int:  # highlighted pixels in the book's half of the frame
        close = np.abs(frame.astype(int) - highlight).sum(axis=2) < 30
        return int(np.count_nonzero(close[:, W // 2 :]))

    assert near(after) > near(before)


def play_market(renderer: Dashboard, env: LimitOrderBookMarket, seed: int = 0) -> list[Any]:
    env.reset(seed=seed)
    frames = [renderer.render(env)]
    while env.agents:
        env.step({agent: env.baseline_action(agent) for agent in env.acting})
        frames.append(renderer.render(env))
    return frames


def market() -> LimitOrderBookMarket:
    return LimitOrderBookMarket(3, decision_intervals=[1.0, 2.0, 3.0], session_length=20.0)


def test_market_frames_follow_the_session(tmp_path: Path) -> None:
    renderer = LimitOrderBookMarketRenderer(width=W, height=H)
    env = market()
    env.reset(seed=0)
    renderer.check(env)
    frames = play_market(renderer, env)
    assert len(frames) > 15
    assert all(f.shape == (H, W, 3) and f.dtype == np.uint8 for f in frames)
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))
    again = play_market(LimitOrderBookMarketRenderer(width=W, height=H), market())
    assert all(np.array_equal(a, b) for a, b in zip(frames, again, strict=True))
    # A second session on the same renderer starts a new history (the session time goes back).
    assert np.array_equal(play_market(renderer, env)[-1], frames[-1])
    path = save_gif(frames, tmp_path / "market.gif", fps=10)
    with Image.open(path) as gif:
        assert gif.n_frames == len(frames) and gif.size == (W, H)


def test_market_reads_every_trader() -> None:
    renderer = LimitOrderBookMarketRenderer(width=W, height=H)
    env = market()
    env.reset(seed=1)
    traded = 0
    while env.agents:
        result = env.step({agent: env.baseline_action(agent) for agent in env.acting})
        renderer.render(env)
        mid = result.info["trader_0"]["mid_price"]
        wealth = [result.info[agent]["wealth"] for agent in env.possible_agents]
        inventory = [result.info[agent]["inventory"] for agent in env.possible_agents]
        np.testing.assert_allclose(source(renderer, 2, "s0", env), wealth)
        np.testing.assert_array_equal(source(renderer, 3, "s0", env), inventory)
        assert source(renderer, 0, "price", env) == mid
        fills = {id(f): f for agent in env.possible_agents for f in result.info[agent]["fills"]}
        owners = [env.traders[agent].owner for agent in env.possible_agents]
        bought = sum(lots(list(fills.values()), owner)[0] for owner in owners)
        assert source(renderer, 0, "buys", env) == bought
        traded += bought
    assert traded > 0
    assert source(renderer, 1, "owners", env) == {0: ("T0", 0), 1: ("T1", 1), 2: ("T2", 2)}
    assert read(env, renderer.step) == env.core.session_time == env.config.session_length
