"""RecordEpisodeStatistics: typed per-episode statistics and a pluggable tracker."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from sekai.core import (
    ActType,
    Env,
    ObsType,
    ResetResult,
    SeedType,
    StepResult,
    Wrapper,
)
from sekai.stats import EpisodeStats, StatsTracker
from sekai.stats._arguments import check_tracker, tracker_and_size

__all__ = ["RecordEpisodeStatistics"]


class RecordEpisodeStatistics(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Records each episode's return, length and duration.

    On the step that ends an episode (``terminated`` or ``truncated``) the
    returned info is a copy of the env's info with ``info["episode"]`` set
    to an [`EpisodeStats`][sekai.stats.EpisodeStats] (a typed dataclass, not a
    dict). The latest one stays available as `episode_stats`; the last
    ``deque_size`` returns, lengths and durations are kept in
    `return_queue`, `length_queue` and `time_queue`.

    The tracker (a [`StatsTracker`][sekai.stats.StatsTracker]) is called at each
    moment of an episode: ``on_reset(env_id, seed)`` when it starts (with the
    env's registered id, if any, and the int seed given to ``reset``, if
    any), ``on_step(reward, terminated, truncated, info)`` after every step
    (with the env's own info), and ``on_episode_end(stats)`` on its last
    step. A tracker with only a ``record(stats)`` method has it called at the
    end of each episode.

    It works on either side of ``AutoReset``: a step that ends an episode
    also starts counting the next one, so the resets made inside an
    ``AutoReset`` need not reach this wrapper (the tracker's ``on_reset`` is
    then called, with ``seed=None``, before the next episode's first step).
    `reset` discards an unfinished episode and starts a new one.

    Args:
        env: The environment to wrap.
        tracker: Where the statistics go. Defaults to an
            [`InMemoryTracker`][sekai.stats.InMemoryTracker] keeping ``deque_size``
            episodes.
        deque_size: How many recent episodes the queues keep (>= 1).

    Raises:
        TypeError: ``tracker`` is not a tracker, or ``deque_size`` is not an
            int.
        ValueError: ``deque_size`` is below 1.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        tracker: StatsTracker | None = None,
        deque_size: int = 100,
    ) -> None:
        chosen, size = tracker_and_size("RecordEpisodeStatistics", tracker, deque_size)
        super().__init__(env)
        self.tracker = chosen
        self.return_queue: deque[float] = deque(maxlen=size)
        self.length_queue: deque[int] = deque(maxlen=size)
        self.time_queue: deque[float] = deque(maxlen=size)
        self._episode_stats: EpisodeStats | None = None
        self._return = 0.0
        self._length = 0
        self._started = False
        self._announce = False  # an episode started without a reset: tell the tracker
        self._start_time = 0.0
        self._start_clock = 0.0

    @property
    def tracker(self) -> StatsTracker:
        """The tracker in use (assignable: the new one gets the following calls)."""
        return self._tracker

    @tracker.setter
    def tracker(self, value: StatsTracker) -> None:
        hooks = check_tracker("RecordEpisodeStatistics", value)
        self._tracker = value
        self._on_reset, self._on_step, self._on_episode_end = hooks

    @property
    def episode_stats(self) -> EpisodeStats | None:
        """The stats of the most recently finished episode (``None`` before the first)."""
        return self._episode_stats

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env and start counting a new episode."""
        result = self.env.reset(seed=seed, options=options)
        self._begin(seed)
        return result

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`."""
        result = await self.env.async_reset(seed=seed, options=options)
        self._begin(seed)
        return result

    def _begin(self, seed: SeedType) -> None:
        self._start()  # a reset discards the unfinished episode
        self._announce = False
        if self._on_reset is not None:
            self._on_reset(self._env_id(), seed if isinstance(seed, int) else None)

    def _env_id(self) -> str | None:
        spec = self.spec
        return None if spec is None else spec.id

    def _start(self) -> None:
        self._return = 0.0
        self._length = 0
        self._start_time = time.time()
        self._start_clock = time.perf_counter()
        self._started = True

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        # Count the step; on the last step of an episode, add info["episode"].
        if not self._started:
            self._start()
            self._announce = True
        if self._announce:
            self._announce = False
            if self._on_reset is not None:
                self._on_reset(self._env_id(), None)
        self._return += float(result.reward)
        self._length += 1
        if self._on_step is not None:
            self._on_step(result.reward, result.terminated, result.truncated, result.info)
        if not (result.terminated or result.truncated):
            return result
        elapsed = time.perf_counter() - self._start_clock
        stats = EpisodeStats(
            episode_return=self._return,
            episode_length=self._length,
            elapsed_time=elapsed,
            start_time=self._start_time,
            end_time=self._start_time + elapsed,
            terminated=bool(result.terminated),
            truncated=bool(result.truncated),
        )
        self._episode_stats = stats
        self.return_queue.append(stats.episode_return)
        self.length_queue.append(stats.episode_length)
        self.time_queue.append(stats.elapsed_time)
        self._on_episode_end(stats)
        self._start()  # the next episode starts now (an outer or inner AutoReset)
        self._announce = True
        info = dict(result.info)
        info["episode"] = stats
        return StepResult(
            result.observation, result.reward, result.terminated, result.truncated, info
        )
