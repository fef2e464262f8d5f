"""RecordFrames: frames per reset/step, episode selection, writing to disk."""

from __future__ import annotations

import asyncio
import sys

import numpy as np
import pytest

from sekai.rendering import RecordFrames, Renderer
from sekai.wrappers import AutoReset


class StepRenderer(Renderer):
    """A 2x2 RGB frame filled with the env's step count."""

    def __init__(self) -> None:
        self.closed = False

    def render(self, env):
        return np.full((2, 2, 3), env.unwrapped.t, np.uint8)

    def close(self) -> None:
        self.closed = True


def counts(frames):
    return [int(f[0, 0, 0]) for f in frames]


def test_one_frame_after_reset_and_each_step(counter_env) -> None:
    env = RecordFrames(counter_env(episode_length=5), StepRenderer())
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    assert counts(env.frames) == [0, 1, 2, 3]
    assert env.episode_id == 0 and env.recording


def test_recording_stops_at_episode_end_and_restarts_at_reset(counter_env) -> None:
    env = RecordFrames(counter_env(episode_length=2), StepRenderer())
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    assert counts(env.frames) == [0, 1, 2]
    assert not env.recording
    env.reset()
    assert counts(env.frames) == [0]
    assert env.episode_id == 1


def test_episode_trigger_selects_episodes(counter_env) -> None:
    env = RecordFrames(
        counter_env(episode_length=1), StepRenderer(), episode_trigger=lambda i: i % 2 == 1
    )
    sizes = []
    for _ in range(4):
        env.reset()
        env.step(0)
        sizes.append(len(env.frames))
    assert sizes == [0, 2, 0, 2]


def test_npz_files_are_written_per_episode(counter_env, tmp_path) -> None:
    env = RecordFrames(
        counter_env(episode_length=2),
        StepRenderer(),
        directory=tmp_path / "out",
        format="npz",
        fps=10,
    )
    for _ in range(2):
        env.reset(seed=0)
        env.step(0)
        env.step(0)
    assert [p.name for p in env.saved_paths] == ["episode-000000.npz", "episode-000001.npz"]
    with np.load(env.saved_paths[0]) as data:
        assert data["frames"].shape == (3, 2, 2, 3)
        assert counts(data["frames"]) == [0, 1, 2]
        assert float(data["fps"]) == 10.0


def test_unfinished_episode_is_written_at_reset_and_close(counter_env, tmp_path) -> None:
    renderer = StepRenderer()
    env = RecordFrames(
        counter_env(episode_length=100),
        renderer,
        directory=tmp_path,
        format="npz",
        name_prefix="run",
    )
    env.reset(seed=0)
    env.step(0)
    env.reset()
    env.step(0)
    env.step(0)
    env.close()
    assert [p.name for p in env.saved_paths] == ["run-000000.npz", "run-000001.npz"]
    with np.load(env.saved_paths[1]) as data:
        assert counts(data["frames"]) == [0, 1, 2]
    assert renderer.closed
    env.close()  # a second close is harmless
    assert len(env.saved_paths) == 2


def test_an_episode_recorded_after_close_is_written_by_the_next_close(
    counter_env, tmp_path
) -> None:
    inner = counter_env(episode_length=100)
    closes = []
    inner.close = lambda: closes.append(True)
    env = RecordFrames(
        inner, StepRenderer(), directory=tmp_path, format="npz", close_renderer=False
    )
    env.reset(seed=0)
    env.step(0)
    env.close()
    env.reset()
    env.step(0)
    env.step(0)
    env.close()
    env.close()
    assert [p.name for p in env.saved_paths] == ["episode-000000.npz", "episode-000001.npz"]
    with np.load(env.saved_paths[1]) as data:
        assert counts(data["frames"]) == [0, 1, 2]
    assert closes == [True, True]


def test_close_renderer_false_leaves_it_open(counter_env) -> None:
    renderer = StepRenderer()
    RecordFrames(counter_env(), renderer, close_renderer=False).close()
    assert not renderer.closed


def test_gif_and_png_need_imageio(counter_env, tmp_path, monkeypatch) -> None:
    # A None entry in sys.modules makes the import fail, whether imageio is installed or not.
    monkeypatch.setitem(sys.modules, "imageio", None)
    monkeypatch.setitem(sys.modules, "imageio.v3", None)
    with pytest.raises(ImportError, match=r"install the sekai-wrappers\[images\] distribution"):
        RecordFrames(counter_env(), StepRenderer(), directory=tmp_path, format="gif")
    # In memory only, no imaging library is needed.
    RecordFrames(counter_env(), StepRenderer(), format="gif")


@pytest.mark.parametrize("fmt", ["gif", "png"])
def test_image_formats(counter_env, tmp_path, fmt) -> None:
    iio = pytest.importorskip("imageio.v3")
    env = RecordFrames(
        counter_env(episode_length=2), StepRenderer(), directory=tmp_path, format=fmt
    )
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    (path,) = env.saved_paths
    if fmt == "gif":
        assert path.name == "episode-000000.gif"
        assert len(iio.imread(path, index=None)) == 3
    else:
        assert sorted(p.name for p in path.iterdir()) == [
            "frame-000000.png",
            "frame-000001.png",
            "frame-000002.png",
        ]


def test_async_records_too(counter_env) -> None:
    env = RecordFrames(counter_env(episode_length=5), StepRenderer())

    async def run():
        await env.async_reset(seed=0)
        await env.async_step(0)

    asyncio.run(run())
    assert counts(env.frames) == [0, 1]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"format": "mp3"}, ValueError),
        ({"fps": 0}, ValueError),
        ({"episode_trigger": 3}, TypeError),
        ({"fps": float("nan")}, ValueError),
        ({"name_prefix": None}, TypeError),
        ({"name_prefix": ""}, TypeError),
        ({"close_renderer": "no"}, TypeError),
    ],
)
def test_rejects_bad_arguments(counter_env, kwargs, error) -> None:
    with pytest.raises(error):
        RecordFrames(counter_env(), StepRenderer(), **kwargs)


def test_rejects_a_non_renderer(counter_env) -> None:
    with pytest.raises(TypeError, match="Renderer"):
        RecordFrames(counter_env(), lambda env: None)


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="RecordFrames is wrapped around an AutoReset"):
        RecordFrames(AutoReset(counter_env()), StepRenderer())


def test_check_env(space_env, any_space, assert_conforms) -> None:
    class Blank(Renderer):
        def render(self, env):
            return np.zeros((1, 1, 3), np.uint8)

        def close(self) -> None:
            pass

    assert_conforms(RecordFrames(space_env(any_space), Blank()))


def test_same_seed_same_frames(counter_env) -> None:
    class ObsRenderer(Renderer):
        """Draws the counter's current observation, which depends on the seed."""

        def render(self, env):
            return np.full((1, 1, 3), env.unwrapped.start + env.unwrapped.t, np.uint8)

        def close(self) -> None:
            pass

    def run(seed):
        env = RecordFrames(counter_env(episode_length=3), ObsRenderer())
        env.reset(seed=seed)
        for _ in range(3):
            env.step(0)
        return counts(env.frames)

    a = run(4)
    assert a == run(4)
    assert a == [a[0], a[0] + 1, a[0] + 2, a[0] + 3]
