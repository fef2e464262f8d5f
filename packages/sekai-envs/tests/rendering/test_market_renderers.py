"""The market renderers: frames over episodes, GIFs, check(), trades, sales, names, signatures."""

from __future__ import annotations

import inspect
import itertools
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sekai.rendering", reason="needs sekai-envs[render]")
pytest.importorskip("PIL", reason="needs sekai-envs[render]")

from PIL import Image

import sekai.envs.finance as finance
import sekai.envs.finance.rendering as rendering
import sekai.registry as registry
from sekai.envs.finance import equal_weight
from sekai.envs.finance._render_common import StepMemory
from sekai.finance import MarketData
from sekai.rendering import DARK, BaseRenderer, Dashboard, RecordFrames, Renderer
from sekai.rendering.dashboard import read

W, H = 360, 225  # small frames keep the tests fast


@dataclass(frozen=True)
class Case:
    """An env id with small arguments, its renderer and a policy that makes things happen."""

    env_id: str
    renderer: type[Dashboard]
    kwargs: dict[str, Any]
    policy: Callable[[Any, int], Any]

    def __str__(self) -> str:
        return self.env_id


def _switching(env: Any, step: int) -> int:
    return (1, 2, 2, 0, 0, 1)[(step // 3) % 6]  # flat, long, short... every three steps


def _execution(env: Any, step: int) -> Any:
    return env.almgren_chriss_actions()[step]


CASES = [
    Case(
        "Trading-v0",
        rendering.TradingRenderer,
        {"lookback": 10, "episode_length": 24},
        _switching,
    ),
    Case(
        "Portfolio-v0",
        rendering.PortfolioRenderer,
        {"episode_length": 24},
        lambda env, step: np.roll(np.array([0.5, 0.2, 0.1, 0.1, 0.1, 0.0], np.float32), step // 4),
    ),
    Case(
        "Market-v0",
        rendering.MarketRenderer,
        {"max_assets": 6, "lookback": 5, "episode_length": 24},
        lambda env, step: equal_weight(env),
    ),
    Case(
        "MarketMaking-v0",
        rendering.MarketMakingRenderer,
        {"n_steps": 24},
        lambda env, step: env.avellaneda_stoikov_action(),
    ),
    Case("OptimalExecution-v0", rendering.OptimalExecutionRenderer, {}, _execution),
    Case(
        "LimitOrderBook-v0",
        rendering.LimitOrderBookRenderer,
        {"session_length": 24.0},
        lambda env, step: env.baseline_action(),
    ),
]


def play(case: Case, renderer: Dashboard, env: Any, seed: int = 0) -> list[np.ndarray]:
    """Render after the reset and after every step of one episode."""
    env.reset(seed=seed)
    frames = [renderer.render(env)]
    step = 0
    while True:
        result = env.step(case.policy(env, step))
        frames.append(renderer.render(env))
        step += 1
        if result.terminated or result.truncated:
            return frames


@pytest.fixture(params=CASES, ids=str)
def case(request: pytest.FixtureRequest) -> Case:
    return request.param  # type: ignore[no-any-return]


def test_frames_over_an_episode_have_the_shape_and_change(case: Case) -> None:
    env = registry.make(case.env_id, **case.kwargs)  # wrapped: sources read through wrappers
    frames = play(case, case.renderer(width=W, height=H), env)
    assert len(frames) >= 20
    for frame in frames:
        assert frame.shape == (H, W, 3) and frame.dtype == np.uint8
    changed = [not np.array_equal(a, b) for a, b in itertools.pairwise(frames)]
    assert all(changed), f"frames {[i for i, c in enumerate(changed) if not c]} repeat"
    assert len(np.unique(frames[-1].reshape(-1, 3), axis=0)) > 20  # charts are drawn


def test_same_seed_same_frames(case: Case) -> None:
    first = play(case, case.renderer(width=W, height=H), registry.make(case.env_id, **case.kwargs))
    again = play(case, case.renderer(width=W, height=H), registry.make(case.env_id, **case.kwargs))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))


def test_check_passes_and_does_not_disturb_the_frames(case: Case) -> None:
    env = registry.make(case.env_id, **case.kwargs)
    checked = case.renderer(width=W, height=H)
    plain = case.renderer(width=W, height=H)
    env.reset(seed=1)
    checked.check(env)
    assert np.array_equal(checked.render(env), plain.render(env))
    for step in range(5):
        env.step(case.policy(env, step))
        checked.check(env)  # before and after the frame of the step
        frame = checked.render(env)
        checked.check(env)
        assert np.array_equal(frame, plain.render(env))
    assert np.array_equal(checked.render(env), frame)  # a second frame of the same step


def test_record_frames_writes_a_gif_that_decodes(case: Case, tmp_path: Path) -> None:
    renderer = case.renderer(width=W, height=H)
    recorder = RecordFrames(registry.make(case.env_id, **case.kwargs), renderer)
    frames = play(case, _Recorded(renderer), recorder)  # the frames RecordFrames took
    assert len(recorder.frames) == len(frames)
    path = recorder.save(tmp_path / "episode.gif", fps=10)
    with Image.open(path) as gif:
        assert gif.size == (W, H)
        assert gif.n_frames == len(recorder.frames)
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"))
    assert last.shape == (H, W, 3)
    # GIF colours are quantised: the decoded frame is close to the recorded one, not equal.
    assert np.abs(last.astype(int) - recorder.frames[-1].astype(int)).mean() < 8


class _Recorded(BaseRenderer):
    """Returns the frame RecordFrames recorded last, so play() can run through the recorder."""

    def __init__(self, renderer: Dashboard) -> None:
        self.renderer = renderer

    def render(self, env: Any) -> Any:
        return env.frames[-1]


def test_dark_theme_and_size(case: Case) -> None:
    env = registry.make(case.env_id, **case.kwargs)
    env.reset(seed=0)
    frame = case.renderer(theme="dark", width=300, height=200).render(env)
    assert frame.shape == (200, 300, 3)
    assert tuple(frame[0, 0]) == DARK.background


def test_a_new_episode_starts_a_new_history(case: Case) -> None:
    env = registry.make(case.env_id, **case.kwargs)
    renderer = case.renderer(width=W, height=H)
    play(case, renderer, env, seed=3)
    env.reset(seed=3)
    fresh = case.renderer(width=W, height=H)
    env_again = registry.make(case.env_id, **case.kwargs)
    env_again.reset(seed=3)
    assert np.array_equal(renderer.render(env), fresh.render(env_again))


# -- what the panels read --------------------------------------------------------------------


def _sources(renderer: Dashboard, index: int) -> dict[str, Callable[[Any], Any]]:
    """The sources of a panel of ``renderer`` as functions of the env."""
    return {
        key: (lambda env, source=source: read(env, source))
        for key, source in renderer.panels[index].sources().items()
    }


def test_trading_trades_are_the_changes_of_the_chosen_position() -> None:
    env = registry.make("Trading-v0", lookback=5, episode_length=40, transaction_cost=0.002)
    renderer = rendering.TradingRenderer(width=W, height=H)
    sources = _sources(renderer, 0)
    env.reset(seed=4)
    renderer.render(env)
    assert sources["buys"](env) == sources["sells"](env) == 0.0
    held = 0.0
    for action in (2, 2, 0, 0, 0, 1, 2, 1, 1, 0, 2):  # positions (-1, 0, 1)
        env.step(action)
        renderer.render(env)
        target = env.positions[action]
        assert sources["buys"](env) == pytest.approx(max(target - held, 0.0))
        assert sources["sells"](env) == pytest.approx(max(held - target, 0.0))
        held = target


def test_trading_frames_open_with_the_lookback_before_the_episode() -> None:
    close = 100.0 * np.exp(np.cumsum(np.random.default_rng(0).normal(0, 0.01, 300)))
    env = registry.make("Trading-v0", data=MarketData(close), lookback=20, episode_length=30)
    renderer = rendering.TradingRenderer(width=W, height=H)
    context = renderer.panels[0].context()["context"]
    env.reset(options={"start": 100})
    np.testing.assert_array_equal(context(env), close[80:100])
    for _ in range(7):
        env.step(1)
        renderer.render(env)
    np.testing.assert_array_equal(context(env), close[80:100])  # the episode's, not the step's


def test_optimal_execution_sales_are_the_shares_sold() -> None:
    env = registry.make("OptimalExecution-v0", n_steps=10)
    renderer = rendering.OptimalExecutionRenderer(width=W, height=H)
    sells = _sources(renderer, 0)["sells"]
    share, trajectory = (
        lambda env, source=s.source: read(env, source) for s in renderer.panels[1].series
    )
    env.reset(seed=0)
    renderer.render(env)
    assert sells(env) == 0.0
    holdings = env.almgren_chriss_trajectory()
    for step, action in enumerate(env.almgren_chriss_actions(), start=1):
        result = env.step(action)
        renderer.render(env)
        assert sells(env) == pytest.approx(result.info["shares_sold"])
        assert trajectory(env) == pytest.approx(holdings[step] / env.X0)
        assert share(env) == pytest.approx(result.info["inventory"] / env.X0, abs=1e-6)


def test_market_making_fills_and_quotes_come_from_the_env() -> None:
    env = registry.make("MarketMaking-v0", n_steps=60)
    renderer = rendering.MarketMakingRenderer(width=W, height=H)
    sources = _sources(renderer, 0)
    env.reset(seed=2)
    filled = 0
    for _ in range(60):
        result = env.step(env.avellaneda_stoikov_action())
        renderer.render(env)
        assert sources["buys"](env) == (env.order_size if result.info["bid_filled"] else 0)
        assert sources["sells"](env) == (env.order_size if result.info["ask_filled"] else 0)
        assert sources["bid_quote"](env) == result.info["bid"]
        filled += result.info["bid_filled"] + result.info["ask_filled"]
    assert filled > 0


def test_market_universe_shows_the_slots() -> None:
    env = registry.make("Market-v0", max_assets=6, lookback=5, episode_length=10)
    renderer = rendering.MarketRenderer(width=W, height=H)
    universe = _sources(renderer, 1)
    env.reset(seed=0)
    env.step(equal_weight(env))
    listed = np.array([asset is not None for asset in env.slot_assets])
    np.testing.assert_array_equal(universe["available"](env), listed)
    np.testing.assert_array_equal(universe["weights"](env), env.weights[:-1])
    labels = universe["labels"](env)
    assert [label == "empty" for label in labels] == (~listed).tolist()


def test_portfolio_labels_name_the_assets() -> None:
    panel = 50.0 * np.exp(np.cumsum(np.random.default_rng(0).normal(0, 0.01, (200, 3)), axis=0))
    env = registry.make(
        "Portfolio-v0", data=MarketData(panel, assets=["AAA", "BBB", "CCC"]), episode_length=20
    )
    renderer = rendering.PortfolioRenderer(width=W, height=H)
    env.reset(seed=0)
    renderer.check(env)
    labels = _sources(renderer, 2)["labels"]
    assert labels(env) == ["AAA", "BBB", "CCC", "Cash"]
    plain = registry.make("Portfolio-v0")
    plain.reset(seed=0)
    assert labels(plain) == ["Asset 0", "Asset 1", "Asset 2", "Asset 3", "Asset 4", "Cash"]


# -- the step memory ----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.elapsed_steps = 0
        self.value = 0.0


def test_step_memory_derives_from_the_last_step_and_restarts() -> None:
    memory: StepMemory[tuple[float, float]] = StepMemory(
        lambda previous, env: (env.value, env.value - (previous[0] if previous else env.value))
    )
    clock = Clock()
    assert memory(clock) == (0.0, 0.0)
    clock.elapsed_steps, clock.value = 1, 2.0
    assert memory(clock) == (2.0, 2.0)
    assert memory(clock) == (2.0, 2.0)  # the same step again: the same change
    clock.elapsed_steps, clock.value = 3, 7.0  # a frame skipped a step
    assert memory(clock) == (7.0, 5.0)
    clock.elapsed_steps = 1  # back in time: a new episode
    assert memory(clock) == (7.0, 0.0)
    clock.elapsed_steps, clock.value = 2, 8.0
    memory.clear()
    assert memory(clock) == (8.0, 0.0)


def test_record_frames_resets_the_trades_between_episodes() -> None:
    renderer = rendering.TradingRenderer(width=W, height=H)
    recorder = RecordFrames(registry.make("Trading-v0", lookback=5, episode_length=5), renderer)
    sells = _sources(renderer, 0)["sells"]
    recorder.reset(seed=0)
    for _ in range(5):
        recorder.step(0)  # short
    recorder.reset(seed=0)  # a new episode starts flat: no trade at its first frame
    assert sells(recorder) == 0.0
    recorder.step(0)
    assert sells(recorder) == 1.0


# -- names, import paths, signatures, arguments ---------------------------------------------------

NAMES = {
    "TradingRenderer": "Trading-v0",
    "PortfolioRenderer": "Portfolio-v0",
    "MarketRenderer": "Market-v0",
    "MarketMakingRenderer": "MarketMaking-v0",
    "OptimalExecutionRenderer": "OptimalExecution-v0",
    "LimitOrderBookRenderer": "LimitOrderBook-v0",
    "LimitOrderBookMarketRenderer": "LimitOrderBookMarket",
    "MarketMicrostructureRenderer": "MarketMicrostructure-v0",
}
BOOKS = {"LimitOrderBookRenderer", "LimitOrderBookMarketRenderer"}


def test_names_at_the_0_2_import_paths() -> None:
    assert sorted(rendering.__all__) == sorted(NAMES)
    assert set(NAMES) <= set(finance.__all__)
    for name in NAMES:
        cls = getattr(rendering, name)
        assert getattr(finance, name) is cls
        assert cls.__module__ == "sekai.envs.finance.rendering"
        assert issubclass(cls, Dashboard) and issubclass(cls, BaseRenderer)
        assert isinstance(cls(), Renderer)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_signatures(name: str) -> None:
    levels = "levels=8, " if name in BOOKS else ""
    listed = f"*, {levels}title={NAMES[name]!r}, theme='light', width=720, height=450, window=None"
    namespace: dict[str, Any] = {}
    exec(f"def listed({listed}): pass", namespace)
    expected = inspect.signature(namespace["listed"]).parameters.values()
    actual = inspect.signature(getattr(rendering, name)).parameters.values()
    assert [(p.name, p.kind, p.default) for p in actual] == [
        (p.name, p.kind, p.default) for p in expected
    ]
    renderer = getattr(rendering, name)(title=None, theme="dark", width=200, height=100, window=5)
    assert (renderer.width, renderer.height, renderer.window) == (200, 100, 5)
    assert renderer.title is None and renderer.theme is DARK


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"title": 3}, TypeError, "title must be a str or None, got 3"),
        ({"width": 10}, ValueError, "width"),
        ({"theme": "sepia"}, ValueError, "sepia"),
        ({"window": 0}, ValueError, "window"),
    ],
)
def test_clear_errors(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        rendering.TradingRenderer(**kwargs)


@pytest.mark.parametrize("levels", [0, 51, 2.5])
def test_book_levels_are_checked(levels: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="levels"):
        rendering.LimitOrderBookRenderer(levels=levels)


def test_sekai_envs_finance_does_not_import_the_renderers() -> None:
    probe = (
        "import sys, sekai.envs.finance as f\n"
        "f.TradingEnv, f.MarketMakingEnv\n"
        "print('sekai.rendering' in sys.modules, 'sekai.envs.finance.rendering' in sys.modules)\n"
        "f.TradingRenderer\n"
        "print('sekai.rendering' in sys.modules)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert completed.stdout.split() == ["False", "False", "True"]


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
        import sekai.envs.finance as finance
        finance.TradingEnv(episode_length=5).reset(seed=0)  # the envs work without it
        try:
            finance.TradingRenderer
        except ModuleNotFoundError as error:
            print(error)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert "install the sekai-envs[render] distribution" in completed.stdout
