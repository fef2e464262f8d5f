"""Recording frames: RecordFrames keeps a renderer's frames step by step; save_gif, save_video."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sekai._internal.validation import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_real,
)
from sekai.core import ActType, Env, ObsType, ResetResult, StepResult, Wrapper
from sekai.core.wrapper import contains_self_resetting_layer
from sekai.rendering._writers import (
    VIDEO_SUFFIXES,
    FrameFormat,
    image_module,
    save_gif,
    save_npz,
    save_video,
    writer_for,
)
from sekai.rendering.renderer import Renderer
from sekai.utils.seeding import SeedType

__all__ = ["RecordFrames", "save_gif", "save_video"]

save_gif.__module__ = __name__
save_video.__module__ = __name__


class RecordFrames(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Records a frame from ``renderer`` after every reset and step.

    Episodes are numbered from 0 by their ``reset()``. For each episode that
    ``episode_trigger(episode_id)`` selects (all of them by default), the
    wrapper calls ``renderer.render(self.env)`` after the reset and after
    every step, and keeps the frames in `frames` until the next reset.
    If the renderer has a ``reset(env)`` method (as
    [`Dashboard`][sekai.rendering.Dashboard] does, to forget the last episode's
    history), it is called at every reset, before the first frame.

    ``enabled=False`` turns recording off: the renderer is never called and
    a step costs what a step through an empty wrapper costs. Set
    `enabled` at any time; it takes effect from the next step (or
    reset). ``max_frames`` caps the frames kept per episode: later steps of
    the episode are not rendered.

    `save` writes the current frames to a file of your choice (GIF,
    MP4 or npz). With a ``directory``, each recorded episode is also written
    there when it ends (a step returns ``terminated`` or ``truncated``), or,
    if it is cut short, at the next ``reset()`` or at `close`:

    - ``format="gif"``: ``<name_prefix>-<episode_id>.gif``, an animated GIF
      at ``fps`` frames per second;
    - ``format="png"``: a folder ``<name_prefix>-<episode_id>`` holding
      ``frame-000000.png``, ...;
    - ``format="npz"``: ``<name_prefix>-<episode_id>.npz`` with the stacked
      ``frames`` and ``fps`` (needs numpy only).

    The episode id in file names has six digits (``episode-000003.gif``), so
    the files sort in episode order.

    GIF and PNG episodes written to a ``directory`` need the optional
    imaging dependency, imageio (the ``sekai-wrappers[images]`` distribution
    brings it); without it, the constructor raises an ``ImportError`` saying
    so. Paths written so far are in `saved_paths`.

    The frames are per-episode state: put ``AutoReset`` outside this wrapper
    (it warns when built around one), otherwise the frames after the first
    episode end are not recorded.

    Args:
        env: The environment to record.
        renderer: Draws each frame (see [`Renderer`][sekai.rendering.Renderer]).
        enabled: Record frames; ``False`` records nothing.
        max_frames: Keep at most this many frames per episode (``None``: no cap).
        directory: Where to write recorded episodes; ``None`` keeps the
            frames in memory only.
        name_prefix: File name prefix of written episodes.
        format: ``"gif"``, ``"png"`` or ``"npz"``.
        fps: Frames per second stored with the episode (> 0).
        episode_trigger: Selects the episodes to record by id; ``None``
            records every episode.
        close_renderer: Close the renderer in `close`.

    Raises:
        TypeError: ``renderer`` is not a Renderer, ``episode_trigger`` is not
            callable, ``name_prefix`` is not a non-empty str, ``enabled`` or
            ``close_renderer`` is not a bool, ``max_frames`` is not an int.
        ValueError: An unknown ``format``, a bad ``fps``, ``max_frames`` < 1.
        ImportError: ``directory`` is given with ``"gif"`` or ``"png"`` and
            imageio is not installed.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        renderer: Renderer,
        *,
        enabled: bool = True,
        max_frames: int | None = None,
        directory: str | os.PathLike[str] | None = None,
        name_prefix: str = "episode",
        format: FrameFormat = "gif",
        fps: float = 30.0,
        episode_trigger: Callable[[int], bool] | None = None,
        close_renderer: bool = True,
    ) -> None:
        owner = "RecordFrames"
        if not isinstance(renderer, Renderer):
            raise TypeError(
                f"{owner}: renderer must implement render(env), close() and the context "
                f"manager methods (see sekai.rendering.Renderer), got {renderer!r}"
            )
        check_bool(enabled, f"{owner}: enabled")
        if max_frames is not None:
            max_frames = check_int(max_frames, f"{owner}: max_frames", minimum=1)
        check_choice(format, f"{owner}: format", ("gif", "png", "npz"))
        fmt = format
        rate = check_real(
            fps,
            f"{owner}: fps",
            minimum=0,
            min_open=True,
            expected="a finite number > 0",
            type_error=ValueError,  # 0.2 raises ValueError for any bad fps
        )
        if not isinstance(name_prefix, str) or not name_prefix:
            raise TypeError(f"{owner}: name_prefix must be a non-empty str, got {name_prefix!r}")
        check_bool(close_renderer, f"{owner}: close_renderer")
        if episode_trigger is not None:
            check_callable(episode_trigger, f"{owner}: episode_trigger")
        if directory is not None and fmt != "npz":
            image_module(owner, fmt)
        super().__init__(env)
        if contains_self_resetting_layer(env):
            warnings.warn(
                f"{owner} is wrapped around an AutoReset ({env}): the resets AutoReset makes "
                f"do not reach {owner}, so frames stop being recorded after the first episode "
                f"ends. Put AutoReset outside: AutoReset({owner}(env, renderer)).",
                UserWarning,
                stacklevel=2,
            )
        self.renderer = renderer
        self.max_frames = max_frames
        self.directory = None if directory is None else Path(directory)
        self.name_prefix = name_prefix
        self.format = fmt
        self.fps = rate
        self.episode_trigger = episode_trigger
        self.close_renderer = close_renderer
        self.saved_paths: list[Path] = []
        self._write = writer_for(fmt)
        reset = getattr(renderer, "reset", None)
        self._reset_renderer: Callable[[Any], Any] | None = reset if callable(reset) else None
        self._frames: list[Any] = []
        self._episode_id = -1
        self._enabled = enabled
        self._selected = False  # the trigger chose the current episode
        self._recording = False  # enabled and selected, and the episode is not over
        self._unsaved = False
        self._closed = False

    @property
    def enabled(self) -> bool:
        """Whether frames are recorded; assign to switch recording on or off."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._enabled = check_bool(value, "RecordFrames: enabled")
        self._recording = self._enabled and self._selected

    @property
    def frames(self) -> list[Any]:
        """The frames recorded since the last reset (the live list)."""
        return self._frames

    @property
    def episode_id(self) -> int:
        """Number of the current episode (-1 before the first reset)."""
        return self._episode_id

    @property
    def recording(self) -> bool:
        """Whether frames are being recorded for the current episode."""
        return self._recording

    def clear(self) -> None:
        """Drop the frames recorded so far (recording goes on with the next step)."""
        self._frames = []
        self._unsaved = False

    def save(self, path: str | Path, fps: float | None = None) -> Path:
        """Write the frames recorded since the last reset to ``path``.

        The suffix chooses the format: ``.gif`` (`save_gif`, needs
        Pillow), ``.mp4`` and the other video suffixes (`save_video`,
        needs the ``video`` extra: imageio and imageio-ffmpeg), or ``.npz`` (numpy only).

        Args:
            path: The file to write (its folder must exist).
            fps: Frames per second; by default the wrapper's ``fps``.

        Returns:
            ``path`` as a `Path`.

        Raises:
            ValueError: No frames were recorded, or an unknown suffix.
            ImportError: The library the format needs is missing.
        """
        target = Path(path)
        suffix = target.suffix.lower()
        rate = (
            self.fps
            if fps is None
            else check_real(
                fps, "RecordFrames.save: fps", minimum=0, min_open=True, type_error=ValueError
            )
        )
        if not self._frames:
            raise ValueError(
                "RecordFrames.save: no frames were recorded since the last reset (is "
                "recording enabled, and was the env reset?)"
            )
        if suffix == ".gif":
            return save_gif(self._frames, target, rate)
        if suffix in VIDEO_SUFFIXES:
            return save_video(self._frames, target, rate)
        if suffix == ".npz":
            return save_npz(self._frames, target, rate)
        raise ValueError(
            f"RecordFrames.save: cannot tell the format of {str(path)!r}; use a .gif, "
            f"{', '.join(VIDEO_SUFFIXES)} or .npz file"
        )

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env and start a new episode (recording its first frame)."""
        self._finish()
        result = self.env.reset(seed=seed, options=options)
        self._start()
        return result

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`."""
        self._finish()
        result = await self.env.async_reset(seed=seed, options=options)
        self._start()
        return result

    def close(self) -> None:
        """Write an unfinished recorded episode, close the renderer (optional) and the env.

        A second call does nothing, unless the wrapper was reset in between:
        then it writes and closes again, like the first.
        """
        if self._closed:
            return
        self._closed = True
        try:
            self._finish()
        finally:
            if self.close_renderer:
                self.renderer.close()
            self.env.close()

    def _start(self) -> None:
        self._closed = False  # a reset after close() records again; the next close() writes
        self._episode_id += 1
        self._frames = []
        trigger = self.episode_trigger
        self._selected = True if trigger is None else bool(trigger(self._episode_id))
        self._recording = self._enabled and self._selected
        if self._reset_renderer is not None:
            self._reset_renderer(self.env)
        if self._recording:
            self._frames.append(self.renderer.render(self.env))
            self._unsaved = True

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        # Record a frame of the step; write the episode when it ends. Disabled,
        # this is one attribute test.
        if self._recording:
            frames = self._frames
            if self.max_frames is None or len(frames) < self.max_frames:
                frames.append(self.renderer.render(self.env))
                self._unsaved = True
            if result.terminated or result.truncated:
                self._finish()
                self._recording = False
        return result

    def _finish(self) -> None:
        if not self._unsaved:
            return
        self._unsaved = False
        if self.directory is None or not self._frames:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        stem = self.directory / f"{self.name_prefix}-{self._episode_id:06d}"
        self.saved_paths.append(self._write(stem, self._frames, self.fps))
