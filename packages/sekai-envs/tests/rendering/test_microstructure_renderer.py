"""The MarketMicrostructure-v0 renderer: both agents' quotes, fills and books, GIFs, PettingZoo."""

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
from sekai.envs.finance.rendering import MarketMicrostructureRenderer
from sekai.envs.microstructure import MARKET_MAKER, TRADER, MarketMicrostructureEnv
from sekai.rendering import DARK, save_gif
from sekai.rendering.dashboard import read

W, H = 360, 225
BUY, HOLD, SELL = 0, 1, 2


def source(renderer: MarketMicrostructureRenderer, panel: int, key: str, env: Any) -> Any:
    """The current value of a source of one of the renderer's panels."""
    return read(env, renderer.panels[panel].sources()[key])


def actions(env: MarketMicrostructureEnv) -> dict[str, Any]:
    """Quotes skewed against the inventory; the trader follows its signal."""
    skew = 0.01 * env.inventory
    quotes = np.clip([0.1 + skew, 0.1 - skew], 0.0, env.max_offset).astype(np.float32)
    signal = env.signal
    return {MARKET_MAKER: quotes, TRADER: BUY if signal > 0.5 else SELL if signal < -0.5 else HOLD}


def play(renderer: MarketMicrostructureRenderer, env: Any, seed: int = 0) -> list[np.ndarray]:
    """Render after the reset and after every step of one episode."""
    env.reset(seed=seed)
    frames = [renderer.render(env)]
    while env.agents:
        env.step(actions(env))
        frames.append(renderer.render(env))
    return frames


def make(**kwargs: Any) -> Any:
    return registry.make("MarketMicrostructure-v0", **{"episode_length": 30, **kwargs})


def test_frames_at_the_reset_and_after_every_step() -> None:
    env = make()
    renderer = MarketMicrostructureRenderer(width=W, height=H)
    env.reset(seed=0)
    renderer.check(env)
    frames = play(renderer, env)
    assert len(frames) == 31
    for frame in frames:
        assert frame.shape == (H, W, 3) and frame.dtype == np.uint8
    changed = [not np.array_equal(a, b) for a, b in itertools.pairwise(frames)]
    assert all(changed), f"frames {[i for i, c in enumerate(changed) if not c]} repeat"
    assert len(np.unique(frames[-1].reshape(-1, 3), axis=0)) > 20  # charts are drawn
    again = play(MarketMicrostructureRenderer(width=W, height=H), make())
    assert all(np.array_equal(a, b) for a, b in zip(frames, again, strict=True))
    # A second episode on the same renderer starts a new history (the step goes back to 0).
    assert np.array_equal(play(renderer, env)[-1], frames[-1])


def test_the_frame_follows_the_quotes() -> None:
    # No noise traders and a trader who holds: the quotes are all that differs.
    frames = []
    for offset in (0.1, 0.3):
        env = make(noise_intensity=0.0)
        renderer = MarketMicrostructureRenderer(width=W, height=H)
        env.reset(seed=0)
        renderer.render(env)
        mid = env.mid_price
        quotes = np.array([offset, offset], np.float32)
        env.step({MARKET_MAKER: quotes, TRADER: HOLD})
        frames.append(renderer.render(env))
        assert source(renderer, 0, "bid_quote", env) == pytest.approx(mid - offset)
        assert source(renderer, 0, "ask_quote", env) == pytest.approx(mid + offset)
    assert not np.array_equal(*frames)


def test_the_panels_read_both_agents() -> None:
    env = make(episode_length=80)
    renderer = MarketMicrostructureRenderer(width=W, height=H)
    result = env.reset(seed=3)
    renderer.render(env)
    assert np.isnan(source(renderer, 0, "bid_quote", env))  # nothing quoted yet
    assert source(renderer, 0, "buys", env) == source(renderer, 0, "sells", env) == 0
    bought = sold = trades = 0
    while env.agents:
        mid = env.mid_price
        action = actions(env)
        result = env.step(action)
        renderer.render(env)
        maker, trader = result.info[MARKET_MAKER], result.info[TRADER]
        bid_offset, ask_offset = action[MARKET_MAKER].astype(float)
        assert source(renderer, 0, "bid_quote", env) == pytest.approx(mid - bid_offset)
        assert source(renderer, 0, "ask_quote", env) == pytest.approx(mid + ask_offset)
        assert source(renderer, 0, "price", env) == env.mid_price
        buys, sells = source(renderer, 0, "buys", env), source(renderer, 0, "sells", env)
        assert buys + sells == maker["fills"]
        fill = (1 if action[TRADER] == BUY else -1) if trader["filled"] else 0
        assert env.trader_fill == fill
        assert buys >= (fill < 0) and sells >= (fill > 0)  # the trader hit the maker's quote
        assert source(renderer, 0, "position", env) == maker["inventory"]
        assert source(renderer, 1, "s0", env) == env.signal
        assert source(renderer, 2, "s0", env) == pytest.approx(maker["pnl"])
        assert source(renderer, 2, "s1", env) == pytest.approx(trader["pnl"])
        assert source(renderer, 3, "s0", env) == maker["inventory"]
        assert source(renderer, 3, "s1", env) == trader["position"]
        bought, sold, trades = bought + buys, sold + sells, trades + abs(fill)
    assert bought > 0 and sold > 0 and trades > 0
    assert bought - sold == env.inventory
    assert read(env, renderer.step) == env.elapsed_steps == 80


def test_an_episode_saves_as_a_gif(tmp_path: Path) -> None:
    # RecordFrames wraps single-agent envs; a multi-agent episode's frames are saved directly.
    frames = play(MarketMicrostructureRenderer(width=W, height=H), make())
    path = save_gif(frames, tmp_path / "microstructure.gif", fps=10)
    with Image.open(path) as gif:
        assert gif.n_frames == len(frames) and gif.size == (W, H)
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"))
    # GIF colours are quantised: the decoded frame is close to the drawn one, not equal.
    assert np.abs(last.astype(int) - frames[-1].astype(int)).mean() < 8


def test_dark_theme_and_size() -> None:
    env = make()
    env.reset(seed=0)
    frame = MarketMicrostructureRenderer(theme="dark", width=300, height=200).render(env)
    assert frame.shape == (200, 300, 3)
    assert tuple(frame[0, 0]) == DARK.background


def test_to_pettingzoo_draws_the_default_renderer() -> None:
    compat = pytest.importorskip("sekai.compat")
    pytest.importorskip("pettingzoo")
    env = compat.to_pettingzoo(registry.make("MarketMicrostructure-v0"), render_mode="rgb_array")
    assert isinstance(env.renderer, MarketMicrostructureRenderer)
    observations, _ = env.reset(seed=0)
    first = env.render()
    env.step({agent: env.action_space(agent).sample() for agent in observations})
    frame = env.render()
    assert frame.shape == (450, 720, 3) and frame.dtype == np.uint8
    assert first.shape == frame.shape and not np.array_equal(first, frame)
    env.close()
