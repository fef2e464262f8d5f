"""Where episode statistics go: the StatsTracker protocol and two trackers."""

from __future__ import annotations

import logging
import math
from collections import deque
from typing import Protocol, runtime_checkable

from sekai._validation import check_int
from sekai.stats.episode import EpisodeStats

__all__ = ["InMemoryTracker", "LoggingTracker", "StatsTracker"]

_MAXLEN = "a positive int or None"


@runtime_checkable
class StatsTracker(Protocol):
    """Anything that receives the stats of finished episodes.

    Implement ``record`` to send them to a logger, a metrics server, an
    experiment tracker, ... No base class is needed: any object with a
    matching ``record`` method is a tracker (``isinstance`` checks work).
    """

    def record(self, stats: EpisodeStats) -> None:
        """Receive the stats of one finished episode."""


class InMemoryTracker:
    """Keeps the stats of the most recent episodes in memory.

    Args:
        maxlen: How many episodes to keep (a rolling window); ``None`` keeps
            every episode.

    Raises:
        TypeError: ``maxlen`` is neither an int nor ``None``.
        ValueError: ``maxlen`` is below 1.
    """

    def __init__(self, maxlen: int | None = 100) -> None:
        size = None if maxlen is None else check_int(maxlen, "maxlen", minimum=1, expected=_MAXLEN)
        self._episodes: deque[EpisodeStats] = deque(maxlen=size)

    @property
    def maxlen(self) -> int | None:
        """Size of the rolling window (``None``: unbounded)."""
        return self._episodes.maxlen

    def record(self, stats: EpisodeStats) -> None:
        """Store ``stats``, dropping the oldest episode when the window is full.

        Raises:
            TypeError: ``stats`` is not an :class:`EpisodeStats`.
        """
        if not isinstance(stats, EpisodeStats):
            raise _not_stats(self, stats)
        self._episodes.append(stats)

    @property
    def episodes(self) -> list[EpisodeStats]:
        """The stored episodes, oldest first (a copy)."""
        return list(self._episodes)

    @property
    def mean_return(self) -> float:
        """Mean ``episode_return`` over the window; NaN when it is empty."""
        if not self._episodes:
            return math.nan
        return math.fsum(e.episode_return for e in self._episodes) / len(self._episodes)

    @property
    def mean_length(self) -> float:
        """Mean ``episode_length`` over the window; NaN when it is empty."""
        if not self._episodes:
            return math.nan
        return sum(e.episode_length for e in self._episodes) / len(self._episodes)

    def clear(self) -> None:
        """Forget every stored episode."""
        self._episodes.clear()

    def __len__(self) -> int:
        return len(self._episodes)

    def __repr__(self) -> str:
        return f"InMemoryTracker(maxlen={self.maxlen!r}, episodes={len(self)})"


class LoggingTracker:
    """Emits one :mod:`logging` record per finished episode.

    The record's message is human-readable; its fields are also attached as
    attributes of the :class:`logging.LogRecord` (through ``extra``), so
    structured handlers (JSON formatters, log shippers) can read them:
    ``episode_return``, ``episode_length``, ``elapsed_time``,
    ``episode_start_time``, ``episode_end_time``, ``terminated``,
    ``truncated`` and ``episode_extra`` (the ``extra`` dict).

    Args:
        logger: Where to log, a :class:`logging.Logger`; defaults to the
            ``"sekai.stats"`` logger.
        level: The level of the records, an int or a level name such as
            ``"DEBUG"`` (stored as its int).

    Raises:
        TypeError: ``logger`` is not a logger, or ``level`` is neither an int
            nor a str.
        ValueError: ``level`` is a name :mod:`logging` does not know.
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

    def record(self, stats: EpisodeStats) -> None:
        """Log ``stats`` (nothing is built when the level is disabled).

        Raises:
            TypeError: ``stats`` is not an :class:`EpisodeStats`.
        """
        if not isinstance(stats, EpisodeStats):
            raise _not_stats(self, stats)
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


def _not_stats(tracker: object, stats: object) -> TypeError:
    return TypeError(f"{type(tracker).__name__}.record expects an EpisodeStats, got {stats!r}")


def _level_number(level: object) -> int:
    if isinstance(level, str):
        number = logging.getLevelName(level)  # the level's number for a known name
        if not isinstance(number, int):
            raise ValueError(f"level must be a logging level name or int, got {level!r}")
        return number
    return check_int(level, "level", expected="a logging level name or int")
