"""The classic-control renderers: frames, the Renderer protocol, GIFs and the Gymnasium adapter."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sekai.registry as registry
from sekai.envs.classic_control import (
    AcrobotRenderer,
    CartPoleRenderer,
    MountainCarRenderer,
    PendulumRenderer,
)
from sekai.error import ResetRequired

pytest.importorskip("PIL", reason="the renderers draw with Pillow (sekai-envs[render])")

RENDERERS: dict[str, type[Any]] = {
    "CartPole-v1": CartPoleRenderer,
    "MountainCar-v0": MountainCarRenderer,
    "MountainCarContinuous-v0": MountainCarRenderer,
    "Pendulum-v1": PendulumRenderer,
    "Acrobot-v1": AcrobotRenderer,
}

# A state far from the reset distribution, to check that frames follow the state.
OTHER_STATES: dict[str, list[float]] = {
    "CartPole-v1": [1.5, 0.0, -0.15, 0.0],
    "MountainCar-v0": [0.3, 0.02],
    "MountainCarContinuous-v0": [-1.0, -0.02],
    "Pendulum-v1": [1.5, 0.0],
    "Acrobot-v1": [2.0, -1.0, 0.0, 0.0],
}


def test_frames_have_the_right_shape_and_follow_the_state(case: Any) -> None:
    renderer = RENDERERS[case.env_id](width=120, height=90)
    env = registry.make(case.env_id)  # wrapped: the renderer reads env.unwrapped
    env.reset(seed=0)
    first = renderer.render(env)
    assert first.shape == (90, 120, 3) and first.dtype == np.uint8
    assert first.flags.writeable
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 2  # something is drawn
    np.testing.assert_array_equal(renderer.render(env), first)  # same state, same frame
    env.unwrapped.state = OTHER_STATES[case.env_id]
    second = renderer.render(env)
    assert np.count_nonzero((first != second).any(axis=2)) > 50
    default = RENDERERS[case.env_id]()
    assert default.render(env).shape == (default.height, default.width, 3)


def test_pendulum_frame_shows_the_torque() -> None:
    env = registry.make("Pendulum-v1")
    env.reset(seed=0)
    renderer = PendulumRenderer(100, 100)
    env.unwrapped.state = [0.0, 0.0]
    still = renderer.render(env)  # no torque after a reset
    env.step(np.array([2.0], np.float32))
    env.unwrapped.state = [0.0, 0.0]
    pushed = renderer.render(env)
    assert not np.array_equal(still, pushed)


@pytest.mark.parametrize("square", [PendulumRenderer, AcrobotRenderer], ids=lambda c: c.__name__)
def test_square_renderers_take_0_2_size_first(square: Any) -> None:
    pytest.importorskip("PIL")
    assert (square().width, square().height) == (500, 500)
    assert (square(200).width, square(200).height) == (200, 200)  # sekai 0.2's size
    assert (square(size=120).width, square(size=120).height) == (120, 120)
    assert (square(200, 100).width, square(200, 100).height) == (200, 100)
    assert (square(width=300).width, square(width=300).height) == (300, 300)
    assert (square(height=300).width, square(height=300).height) == (500, 300)
    with pytest.raises(TypeError, match="size=200 and width=300"):
        square(200, width=300)
    with pytest.raises(ValueError, match=f"{square.__name__}: size"):
        square(8)


def test_renderers_follow_the_protocol(case: Any) -> None:
    rendering = pytest.importorskip("sekai.rendering")
    renderer = RENDERERS[case.env_id]()
    assert isinstance(renderer, rendering.Renderer)
    assert isinstance(renderer, rendering.BaseRenderer)  # as the market renderers
    with renderer as entered:
        assert entered is renderer
    assert renderer.closed
    renderer.close()  # twice is fine
    assert repr(renderer).startswith(type(renderer).__name__)


def test_bad_use_raises_clear_errors() -> None:
    env = registry.make("CartPole-v1")
    with pytest.raises(ResetRequired, match="reset"):
        CartPoleRenderer().render(env)
    acrobot = registry.make("Acrobot-v1")
    acrobot.reset(seed=0)
    with pytest.raises(TypeError, match="CartPoleRenderer draws a CartPoleEnv"):
        CartPoleRenderer().render(acrobot)
    with pytest.raises(ValueError, match="width"):
        CartPoleRenderer(width=4)
    with pytest.raises(TypeError, match="height"):
        PendulumRenderer(height=100.0)  # type: ignore[arg-type]


def test_missing_pillow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_pillow(name: str, package: str | None = None) -> Any:
        if name.startswith("PIL"):
            raise ImportError(f"No module named {name!r}")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_pillow)
    with pytest.raises(ImportError, match=r"sekai-envs\[render\]"):
        MountainCarRenderer()


def test_record_frames_writes_a_gif_of_an_episode(tmp_path: Path) -> None:
    rendering = pytest.importorskip("sekai.rendering")
    iio = pytest.importorskip("imageio.v3")
    env = rendering.RecordFrames(
        registry.make("MountainCar-v0", max_episode_steps=25),
        MountainCarRenderer(96, 64),
        directory=tmp_path,
        fps=30,
    )
    result = env.reset(seed=0)
    steps = 0
    while not result.done:
        result = env.step(2)
        steps += 1
    env.close()
    assert steps == 25 and len(env.saved_paths) == 1
    path = env.saved_paths[0]
    assert path.suffix == ".gif" and path.parent == tmp_path
    recorded = env.frames
    assert len(recorded) == steps + 1  # the reset's frame, then one per step
    frames = iio.imread(path)
    # The GIF writer merges identical consecutive frames (the car starts slowly).
    assert 2 <= len(frames) <= steps + 1 and frames.shape[1:] == (64, 96, 3)
    assert np.abs(frames[-1].astype(int) - recorded[-1]).mean() < 8  # a 256-colour palette
    assert not np.array_equal(frames[0], frames[-1])  # the car moved


def test_gymnasium_render_mode_through_to_gymnasium(case: Any) -> None:
    compat = pytest.importorskip("sekai.compat")
    pytest.importorskip("gymnasium")
    gym_env = compat.to_gymnasium(registry.make(case.env_id), RENDERERS[case.env_id](80, 60))
    assert gym_env.render_mode == "rgb_array"
    assert gym_env.metadata["render_modes"] == ["rgb_array"]
    gym_env.reset(seed=0)
    frame = gym_env.render()
    assert frame.shape == (60, 80, 3) and frame.dtype == np.uint8
    gym_env.close()
    # Without a renderer, Gymnasium's render_mode draws with the env's default one.
    gym_env = compat.to_gymnasium(registry.make(case.env_id), render_mode="rgb_array")
    assert type(gym_env.renderer) is RENDERERS[case.env_id]
    gym_env.reset(seed=0)
    default = RENDERERS[case.env_id]()
    assert gym_env.render().shape == (default.height, default.width, 3)
    gym_env.close()
