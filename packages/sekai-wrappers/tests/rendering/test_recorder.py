"""RecordFrames with 0.2's options (enabled, max_frames, save, clear), save_gif and save_video."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.rendering import (
    Dashboard,
    LineChart,
    RecordFrames,
    Renderer,
    Stat,
    record_frames,
    recorder,
    save_gif,
    save_video,
)


class Counting(Renderer):
    """Frames filled with the env's step count; counts its calls and resets."""

    def __init__(self, size: tuple[int, int] = (6, 8)) -> None:
        self.size = size
        self.calls = 0
        self.resets = 0

    def render(self, env):
        self.calls += 1
        return np.full((*self.size, 3), env.unwrapped.t * 10 % 256, np.uint8)

    def reset(self, env) -> None:
        self.resets += 1

    def close(self) -> None:
        pass


def test_the_old_module_path_still_works() -> None:
    assert record_frames.RecordFrames is recorder.RecordFrames is RecordFrames
    assert RecordFrames.__module__ == "sekai.rendering.recorder"


def test_disabled_recording_never_renders(counter_env) -> None:
    renderer = Counting()
    env = RecordFrames(counter_env(episode_length=5), renderer, enabled=False)
    env.reset(seed=0)
    for _ in range(4):
        env.step(0)
    assert renderer.calls == 0 and env.frames == [] and not env.recording
    env.enabled = True  # from the next step on
    env.step(0)
    assert renderer.calls == 1 and len(env.frames) == 1
    env.enabled = False
    env.reset()
    env.step(0)
    assert renderer.calls == 1
    with pytest.raises(TypeError, match="enabled"):
        env.enabled = "yes"  # type: ignore[assignment]


def test_max_frames_caps_each_episode(counter_env) -> None:
    renderer = Counting()
    env = RecordFrames(counter_env(episode_length=10), renderer, max_frames=3)
    env.reset(seed=0)
    for _ in range(6):
        env.step(0)
    assert len(env.frames) == 3 and renderer.calls == 3
    env.reset()
    assert len(env.frames) == 1
    with pytest.raises(ValueError, match="max_frames"):
        RecordFrames(counter_env(), renderer, max_frames=0)


def test_renderer_reset_is_called_at_every_reset(counter_env) -> None:
    renderer = Counting()
    env = RecordFrames(counter_env(), renderer)
    env.reset(seed=0)
    env.reset()
    assert renderer.resets == 2


def test_clear_drops_the_frames(counter_env) -> None:
    env = RecordFrames(counter_env(), Counting())
    env.reset(seed=0)
    env.step(0)
    env.clear()
    assert env.frames == []
    env.step(0)
    assert len(env.frames) == 1


def test_save_gif_decodes_back_with_every_frame(counter_env, tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    env = RecordFrames(counter_env(episode_length=20), Counting(), fps=20)
    env.reset(seed=0)
    for _ in range(4):
        env.step(0)
    path = env.save(tmp_path / "run.gif")
    assert path == tmp_path / "run.gif"
    with image.open(path) as gif:
        assert gif.n_frames == 5
        assert gif.size == (8, 6)
        assert gif.info["duration"] == 50
        gif.seek(3)
        assert np.asarray(gif.convert("RGB"))[0, 0, 0] == 30


def test_save_npz_and_bad_saves(counter_env, tmp_path: Path) -> None:
    env = RecordFrames(counter_env(), Counting())
    with pytest.raises(ValueError, match="no frames"):
        env.save(tmp_path / "none.gif")
    env.reset(seed=0)
    env.step(0)
    path = env.save(tmp_path / "run.npz", fps=5)
    with np.load(path) as data:
        assert data["frames"].shape == (2, 6, 8, 3) and float(data["fps"]) == 5.0
    with pytest.raises(ValueError, match="format"):
        env.save(tmp_path / "run.bmp")
    with pytest.raises(ValueError, match="fps"):
        env.save(tmp_path / "run.gif", fps=0)


def test_a_dashboard_episode_recorded_to_gif(counter_env, tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    dashboard = Dashboard(
        LineChart("t", title="Steps"),
        stats=[Stat("Step", "t", format="{:d}")],
        width=160,
        height=100,
    )
    env = RecordFrames(TimeLimit(counter_env(episode_length=100), 6), dashboard, fps=10)
    env.reset(seed=0)
    done = False
    while not done:
        result = env.step(0)
        done = result.terminated or result.truncated
    assert len(env.frames) == 7
    assert all(frame.shape == (100, 160, 3) for frame in env.frames)
    path = save_gif(env.frames, tmp_path / "episode.gif", fps=10)
    with image.open(path) as gif:
        assert gif.n_frames == 7
    env.reset()  # the dashboard forgets the last episode
    assert len(env.frames) == 1


def test_save_gif_checks_its_frames(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no frames"):
        save_gif([], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="shape of the first"):
        save_gif([np.zeros((2, 2, 3), np.uint8), np.zeros((3, 2, 3), np.uint8)], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="uint8"):
        save_gif([np.zeros((2, 2, 3))], tmp_path / "x.gif")
    with pytest.raises(ValueError, match="fps"):
        save_gif([np.zeros((2, 2, 3), np.uint8)], tmp_path / "x.gif", fps=-1)


def test_save_video_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    with pytest.raises(
        ImportError, match=r"install the sekai-wrappers\[video\] distribution"
    ) as info:
        save_video([np.zeros((4, 4, 3), np.uint8)], tmp_path / "x.mp4")
    assert "`pip install imageio imageio-ffmpeg`" in str(info.value)
    with pytest.raises(ValueError, match=r"\.mp4"):
        save_video([np.zeros((4, 4, 3), np.uint8)], tmp_path / "x.gif")


def test_save_video_pads_odd_sizes_for_the_encoder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    written: dict[str, object] = {"frames": []}

    class Writer:
        def append_data(self, frame) -> None:
            written["frames"].append(frame)  # type: ignore[union-attr]

        def close(self) -> None:
            written["closed"] = True

    def get_writer(path, **kwargs):
        written.update(path=path, **kwargs)
        return Writer()

    fake_v2 = types.ModuleType("imageio.v2")
    fake_v2.get_writer = get_writer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "imageio.v2", fake_v2)
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", types.ModuleType("imageio_ffmpeg"))
    frames = [np.full((5, 7, 3), i, np.uint8) for i in range(3)]
    path = save_video(frames, tmp_path / "x.mp4", fps=12)
    assert path == tmp_path / "x.mp4"
    assert written["fps"] == 12 and written["codec"] == "libx264" and written["closed"]
    shapes = {frame.shape for frame in written["frames"]}  # type: ignore[union-attr]
    assert shapes == {(6, 8, 3)}
    assert written["frames"][2][5, 7, 0] == 2  # type: ignore[index]


def test_an_episode_saved_as_mp4_reads_back_frame_for_frame(counter_env, tmp_path: Path) -> None:
    # The real encoder (the ``video`` extra): every recorded frame is in the
    # file, in order, at its size, with its colour (H.264 is lossy, so within
    # a few levels), at the frame rate asked for.
    pytest.importorskip("imageio_ffmpeg")
    import imageio.v2 as iio

    recorder = RecordFrames(counter_env(episode_length=9), Counting(size=(32, 48)))
    recorder.reset(seed=0)
    done = False
    while not done:
        result = recorder.step(0)
        done = result.terminated or result.truncated
    path = recorder.save(tmp_path / "episode.mp4", fps=8)

    reader = iio.get_reader(path, format="FFMPEG")
    try:
        frames = [np.asarray(frame) for frame in reader]
        fps = reader.get_meta_data()["fps"]
    finally:
        reader.close()
    assert fps == 8
    assert len(frames) == len(recorder.frames) == 10
    for written, recorded in zip(frames, recorder.frames, strict=True):
        assert written.shape == recorded.shape == (32, 48, 3)
        assert np.abs(written.astype(int) - recorded.astype(int)).max() <= 3
