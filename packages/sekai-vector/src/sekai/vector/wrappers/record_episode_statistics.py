"""VecRecordEpisodeStatistics: per-sub-env episode statistics of a vector env."""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from sekai.core import ActType, ObsType
from sekai.stats import EpisodeStats, StatsTracker
from sekai.stats._arguments import check_tracker, tracker_and_size
from sekai.vector.results import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers.base import VecWrapper

if TYPE_CHECKING:
    pass

__all__ = ["VecRecordEpisodeStatistics"]


class VecRecordEpisodeStatistics(VecWrapper[ObsType, ActType, ObsType, ActType]):
    """Records the return, length and duration of every sub-env's episodes.

    On the step where sub-env ``i`` finishes an episode, ``infos[i]`` is a
    copy of its info with ``"episode"`` set to an
    [`EpisodeStats`][sekai.stats.EpisodeStats], as the single-env
    ``RecordEpisodeStatistics`` does, and the stats go to the tracker. The
    last ``deque_size`` returns, lengths and durations are kept in
    `return_queue`, `length_queue` and `time_queue`.

    The tracker hears of each sub-env's episodes through the
    [`StatsTracker`][sekai.stats.StatsTracker] hooks: ``on_reset`` with the sub-env's
    index as its ``env_id`` (``"0"``, ``"1"``, ...) when an episode starts,
    ``on_episode_end`` with its stats (a tracker with only ``record(stats)``
    has that called instead). ``on_step`` is not called: its arguments do
    not say which sub-env a step belongs to, and the steps of the sub-envs
    interleave.

    With autoreset, the step that ends an episode starts the next one. Without
    autoreset, a finished sub-env is frozen and keeps reporting done: it is
    ignored from then on until `reset`, so each episode is recorded
    once even when the others are stepped further (``while not
    finished.all(): ...``). `reset` discards unfinished episodes.

    Args:
        venv: The vector env to wrap.
        tracker: Where the stats of every finished episode go; defaults to an
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
        venv: VecEnv[ObsType, ActType],
        tracker: StatsTracker | None = None,
        deque_size: int = 100,
    ) -> None:
        chosen, maxlen = tracker_and_size("VecRecordEpisodeStatistics", tracker, deque_size)
        super().__init__(venv)
        n = self.num_envs
        self.tracker: StatsTracker = chosen
        self._on_reset, _, self._on_episode_end = check_tracker(
            "VecRecordEpisodeStatistics", chosen
        )
        self.return_queue: deque[float] = deque(maxlen=maxlen)
        self.length_queue: deque[int] = deque(maxlen=maxlen)
        self.time_queue: deque[float] = deque(maxlen=maxlen)
        self.episode_count = 0
        self._returns = np.zeros(n, dtype=np.float64)
        self._lengths = np.zeros(n, dtype=np.int64)
        self._start_times = np.zeros(n, dtype=np.float64)
        self._start_clocks = np.zeros(n, dtype=np.float64)
        self._ignored = np.zeros(n, dtype=bool)
        self._any_ignored = False
        self._started = False

    def _ignore_frozen(self) -> None:
        """Stop counting the sub-envs the wrapped vector env froze (until the next reset)."""
        frozen = self.venv.frozen
        if frozen.any():
            self._ignored[:] = frozen
            self._any_ignored = True

    def _start(self) -> None:
        if self._on_reset is not None:
            for i in range(self.num_envs):
                self._on_reset(str(i), None)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._start_times[:] = time.time()
        self._start_clocks[:] = time.perf_counter()
        self._ignored[:] = False
        self._any_ignored = False
        self._started = True

    def _after_reset(self, result: VecResetResult[Any]) -> VecResetResult[Any]:
        self._start()
        return result

    def _after_step(self, result: VecStepResult[Any]) -> VecStepResult[Any]:
        if not self._started:
            self._start()
        rewards = result.rewards
        ids = result.env_ids  # None: every sub-env; else the rows of a partial batch
        done = np.logical_or(result.terminated, result.truncated)
        if self._any_ignored:
            active = ~(self._ignored if ids is None else self._ignored[ids])
            rows = active if ids is None else ids[active]
            self._returns[rows] += rewards[active]
            self._lengths[rows] += 1
            done &= active
        elif ids is None:
            self._returns += rewards
            self._lengths += 1
        else:
            self._returns[ids] += rewards
            self._lengths[ids] += 1
        if not done.any():
            return result
        now, clock = time.time(), time.perf_counter()
        infos = list(result.infos)
        for k in np.flatnonzero(done).tolist():
            i = k if ids is None else int(ids[k])
            elapsed = clock - float(self._start_clocks[i])
            start = float(self._start_times[i])
            stats = EpisodeStats(
                episode_return=float(self._returns[i]),
                episode_length=int(self._lengths[i]),
                elapsed_time=elapsed,
                start_time=start,
                end_time=start + elapsed,
                terminated=bool(result.terminated[k]),
                truncated=bool(result.truncated[k]),
            )
            self.return_queue.append(stats.episode_return)
            self.length_queue.append(stats.episode_length)
            self.time_queue.append(stats.elapsed_time)
            self.episode_count += 1
            self._on_episode_end(stats)
            if self._on_reset is not None and not self.venv.frozen[i]:
                self._on_reset(str(i), None)  # autoreset started its next episode
            info = dict(infos[k])
            info["episode"] = stats
            infos[k] = info
            self._returns[i] = 0.0
            self._lengths[i] = 0
            self._start_times[i] = now
            self._start_clocks[i] = clock
        self._ignore_frozen()
        return VecStepResult(
            result.observations, rewards, result.terminated, result.truncated, infos, ids
        )
