"""Typed episode statistics and the trackers that collect them.

``EpisodeStats`` summarises one finished episode. A :class:`StatsTracker`
follows episodes through four methods (``on_reset``, ``on_step``,
``on_episode_end``, ``summary``), called by ``RecordEpisodeStatistics``. Two are
provided: :class:`InMemoryTracker` (a rolling window with mean return and
length) and :class:`LoggingTracker` (one structured :mod:`logging` record per
episode).

Modules: :mod:`sekai.stats.tracker` (``EpisodeStats``, ``StatsTracker``) and
:mod:`sekai.stats.collectors` (the two trackers), as in sekai 0.2.
"""

from sekai.stats.collectors import InMemoryTracker, LoggingTracker
from sekai.stats.episode import EpisodeStats
from sekai.stats.tracker import StatsTracker

__all__ = ["EpisodeStats", "InMemoryTracker", "LoggingTracker", "StatsTracker"]
