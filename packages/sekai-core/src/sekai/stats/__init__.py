"""Typed episode statistics and the trackers that collect them.

``EpisodeStats`` summarises one finished episode; any object with a
``record(stats)`` method is a :class:`StatsTracker`. Two are provided:
:class:`InMemoryTracker` (a rolling window with mean return and length) and
:class:`LoggingTracker` (one structured :mod:`logging` record per episode).
"""

from sekai.stats.episode import EpisodeStats
from sekai.stats.tracker import InMemoryTracker, LoggingTracker, StatsTracker

__all__ = ["EpisodeStats", "InMemoryTracker", "LoggingTracker", "StatsTracker"]
