"""Two trackers: `InMemoryTracker` and `LoggingTracker`."""

from __future__ import annotations

import logging
import math
from collections import deque
from typing import TYPE_CHECKING, Any

from sekai._internal.validation import check_int
from sekai.stats.episode import EpisodeStats

if TYPE_CHECKING:
    from sekai.core.results import InfoDict

__all__ = ["CallableFloat", "InMemoryTracker", "LoggingTracker"]

_MAX_EPISODES = "a positive int or None"


class CallableFloat(float):
    """A float that returns itself when called.

    ``InMemoryTracker.mean_return`` is one: read as a value (``tracker.mean_return``)
    or called as sekai 0.2's method (``tracker.mean_return()``), it gives the
    same number.
    """

    def __call__(self) -> float:
        """Return the value as a plain float."""
        return float(self)


class InMemoryTracker:
    """Keeps the stats of the most recent episodes in memory.

    Args:
        max_episodes: How many episodes to keep (a rolling window); ``None``
            keeps every episode.
        maxlen: Another name of ``max_episodes`` (keyword only).

    Attributes:
        max_episodes: The size of the window (``None``: unbounded).

    Raises:
        TypeError: ``max_episodes`` is neither an int nor ``None``.
        ValueError: ``max_episodes`` is below 1, or both names are given.
    """

    def __init__(self, max_episodes: int | None = 100, *, maxlen: Any = ...) -> None:
        name = "max_episodes"
        if maxlen is not ...:
            if max_episodes != 100:
                raise ValueError("InMemoryTracker: give max_episodes or maxlen, not both")
            max_episodes, name = maxlen, "maxlen"
        size = (
            None
            if max_episodes is None
            else check_int(max_episodes, name, minimum=1, expected=_MAX_EPISODES)
        )
        self._episodes: deque[EpisodeStats] = deque(maxlen=size)

    @property
    def max_episodes(self) -> int | None:
        """Size of the rolling window (``None``: unbounded)."""
        return self._episodes.maxlen

    @property
    def maxlen(self) -> int | None:
        """Same as `max_episodes`."""
        return self._episodes.maxlen

    # -- the StatsTracker hooks --------------------------------------------------------------

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """Nothing to do: only finished episodes are kept."""

    def on_step(self, reward: float, terminated: bool, truncated: bool, info: InfoDict) -> None:
        """Nothing to do: only finished episodes are kept."""

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """Store ``stats``, dropping the oldest episode when the window is full.

        Raises:
            TypeError: ``stats`` is not an `EpisodeStats`.
        """
        if not isinstance(stats, EpisodeStats):
            raise _not_stats(self, stats, "on_episode_end")
        self._episodes.append(stats)

    def record(self, stats: EpisodeStats) -> None:
        """Same as `on_episode_end` (the earlier name of the hook)."""
        if not isinstance(stats, EpisodeStats):
            raise _not_stats(self, stats, "record")
        self._episodes.append(stats)

    def summary(self) -> dict[str, Any]:
        """The stored episodes in numbers.

        Returns:
            ``{"num_episodes", "mean_return", "mean_length", "episodes"}``: how
            many episodes the window holds (``num_episodes``, sekai 0.2's key;
            ``episodes`` is the same count), and their mean return and length
            (NaN when there are none).
        """
        return _summary(len(self._episodes), float(self.mean_return), float(self.mean_length))

    # -- reading -----------------------------------------------------------------------------

    @property
    def episodes(self) -> list[EpisodeStats]:
        """The stored episodes, oldest first (a copy)."""
        return list(self._episodes)

    @property
    def mean_return(self) -> CallableFloat:
        """Mean ``episode_return`` over the window; NaN when it is empty.

        Also callable, as in sekai 0.2: ``tracker.mean_return()``.
        """
        if not self._episodes:
            return CallableFloat(math.nan)
        total = math.fsum(e.episode_return for e in self._episodes)
        return CallableFloat(total / len(self._episodes))

    @property
    def mean_length(self) -> CallableFloat:
        """Mean ``episode_length`` over the window; NaN when it is empty.

        Also callable, as in sekai 0.2: ``tracker.mean_length()``.
        """
        if not self._episodes:
            return CallableFloat(math.nan)
        return CallableFloat(sum(e.episode_length for e in self._episodes) / len(self._episodes))

    def clear(self) -> None:
        """Forget every stored episode."""
        self._episodes.clear()

    def __len__(self) -> int:
        return len(self._episodes)

    def __repr__(self) -> str:
        return f"InMemoryTracker(max_episodes={self.max_episodes!r}, episodes={len(self)})"


class LoggingTracker:
    """Emits one `logging` record per finished episode.

    The record's message is human-readable; its fields are also attached as
    attributes of the `logging.LogRecord` (through ``extra``), so
    structured handlers (JSON formatters, log shippers) can read them:
    ``episode_return``, ``episode_length``, ``elapsed_time``,
    ``episode_start_time``, ``episode_end_time``, ``terminated``,
    ``truncated`` and ``episode_extra`` (the ``extra`` dict).

    Args:
        logger: Where to log, a `logging.Logger`; defaults to the
            ``"sekai.stats"`` logger.
        level: The level of the records, an int or a level name such as
            ``"DEBUG"`` (stored as its int).

    Raises:
        TypeError: ``logger`` is not a logger, or ``level`` is neither an int
            nor a str.
        ValueError: ``level`` is a name `logging` does not know.
    """

    def __init__(
        self,
        logger: logging.Logger | None = None,
        level: int | str = logging.INFO,
    ) -> None:
        if logger is None:
            logger = logging.getLogger("sekai.stats")
        elif not isinstance(logger, logging.Logger):
            raise TypeError(f"logger must be a logging.Logger, got {logger!r}")
        self.logger = logger
        self.level: int = _level_number(level)
        self._count = 0
        self._return_sum = 0.0
        self._length_sum = 0

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """Nothing to do: one record is logged per finished episode."""

    def on_step(self, reward: float, terminated: bool, truncated: bool, info: InfoDict) -> None:
        """Nothing to do: one record is logged per finished episode."""

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """Log ``stats`` (nothing is built when the level is disabled).

        Raises:
            TypeError: ``stats`` is not an `EpisodeStats`.
        """
        self._log(stats, "on_episode_end")

    def record(self, stats: EpisodeStats) -> None:
        """Same as `on_episode_end` (the earlier name of the hook)."""
        self._log(stats, "record")

    def summary(self) -> dict[str, Any]:
        """Every episode logged so far, in numbers.

        Returns:
            The keys of `InMemoryTracker.summary`, over every episode seen.
        """
        count = self._count
        return _summary(
            count,
            self._return_sum / count if count else math.nan,
            self._length_sum / count if count else math.nan,
        )

    def _log(self, stats: EpisodeStats, method: str) -> None:
        if not isinstance(stats, EpisodeStats):
            raise _not_stats(self, stats, method)
        self._count += 1
        self._return_sum += float(stats.episode_return)
        self._length_sum += int(stats.episode_length)
        if not self.logger.isEnabledFor(self.level):
            return
        self.logger.log(
            self.level,
            "episode finished: return=%.6g length=%d time=%.3fs terminated=%s truncated=%s",
            stats.episode_return,
            stats.episode_length,
            stats.elapsed_time,
            stats.terminated,
            stats.truncated,
            extra={
                "episode_return": stats.episode_return,
                "episode_length": stats.episode_length,
                "elapsed_time": stats.elapsed_time,
                "episode_start_time": stats.start_time,
                "episode_end_time": stats.end_time,
                "terminated": stats.terminated,
                "truncated": stats.truncated,
                "episode_extra": stats.extra,
            },
        )

    def __repr__(self) -> str:
        return f"LoggingTracker(logger={self.logger.name!r}, level={self.level!r})"


def _not_stats(tracker: object, stats: object, method: str) -> TypeError:
    return TypeError(f"{type(tracker).__name__}.{method} expects an EpisodeStats, got {stats!r}")


def _level_number(level: object) -> int:
    if isinstance(level, str):
        number = logging.getLevelName(level)  # the level's number for a known name
        if not isinstance(number, int):
            raise ValueError(f"level must be a logging level name or int, got {level!r}")
        return number
    return check_int(level, "level", expected="a logging level name or int")


def _summary(count: int, mean_return: float, mean_length: float) -> dict[str, Any]:
    """The summary both trackers give, from the episode count and the means."""
    return {
        "num_episodes": count,
        "mean_return": mean_return,
        "mean_length": mean_length,
        "episodes": count,
    }
