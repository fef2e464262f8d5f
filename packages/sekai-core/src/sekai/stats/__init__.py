"""Typed episode statistics and the trackers that collect them.

``EpisodeStats`` summarises one finished episode. A `StatsTracker`
follows episodes through four methods (``on_reset``, ``on_step``,
``on_episode_end``, ``summary``), called by ``RecordEpisodeStatistics``. Two are
provided: `InMemoryTracker` (a rolling window with mean return and
length) and `LoggingTracker` (one structured `logging` record per
episode).

Modules: `sekai.stats.tracker` (``EpisodeStats``, ``StatsTracker``) and
`sekai.stats.collectors` (the two trackers), as in sekai 0.2.
"""

from sekai.stats.collectors import InMemoryTracker, LoggingTracker
from sekai.stats.episode import EpisodeStats
from sekai.stats.tracker import StatsTracker

__all__ = ["EpisodeStats", "InMemoryTracker", "LoggingTracker", "StatsTracker"]
