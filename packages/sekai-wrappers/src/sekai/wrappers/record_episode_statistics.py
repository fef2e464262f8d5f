"""RecordEpisodeStatistics: typed per-episode statistics and a pluggable tracker."""

from __future__ import annotations

import time
from collections import deque

from sekai.core import ActType, Env, ObsType, ResetResult, StepResult, Wrapper
from sekai.stats import EpisodeStats, StatsTracker
from sekai.stats._arguments import tracker_and_size

__all__ = ["RecordEpisodeStatistics"]


class RecordEpisodeStatistics(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Records each episode's return, length and duration.

    On the step that ends an episode (``terminated`` or ``truncated``) the
    returned info is a copy of the env's info with ``info["episode"]`` set
    to an :class:`~sekai.stats.EpisodeStats` (a typed dataclass, not a
    dict), and the stats are handed to the tracker. The latest one stays
    available as :attr:`episode_stats`; the last ``deque_size`` returns,
    lengths and durations are kept in :attr:`return_queue`,
    :attr:`length_queue` and :attr:`time_queue`.

    It works on either side of ``AutoReset``: a step that ends an episode
    also starts counting the next one, so the resets made inside an
    ``AutoReset`` need not reach this wrapper. :meth:`reset` discards an
    unfinished episode and starts a new one.

    Args:
        env: The environment to wrap.
        tracker: Where the stats of every finished episode go (any
            :class:`~sekai.stats.StatsTracker`). Defaults to an
            :class:`~sekai.stats.InMemoryTracker` keeping ``deque_size``
            episodes.
        deque_size: How many recent episodes the queues keep (>= 1).

    Raises:
        TypeError: ``tracker`` has no ``record`` method, or ``deque_size`` is
            not an int.
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
        self.tracker: StatsTracker = chosen
        self.return_queue: deque[float] = deque(maxlen=size)
        self.length_queue: deque[int] = deque(maxlen=size)
        self.time_queue: deque[float] = deque(maxlen=size)
        self._episode_stats: EpisodeStats | None = None
        self._return = 0.0
        self._length = 0
        self._started = False
        self._start_time = 0.0
        self._start_clock = 0.0

    @property
    def episode_stats(self) -> EpisodeStats | None:
        """The stats of the most recently finished episode (``None`` before the first)."""
        return self._episode_stats

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._start()  # a reset discards the unfinished episode
        return result

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
        self._return += float(result.reward)
        self._length += 1
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
        self.tracker.record(stats)
        self._start()  # the next episode starts now (an outer or inner AutoReset)
        info = dict(result.info)
        info["episode"] = stats
        return StepResult(
            result.observation, result.reward, result.terminated, result.truncated, info
        )
