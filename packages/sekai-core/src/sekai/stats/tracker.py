"""The StatsTracker protocol: where the statistics of episodes go."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sekai.stats.episode import EpisodeStats

if TYPE_CHECKING:
    from sekai.core.results import InfoDict

__all__ = ["EpisodeStats", "StatsTracker"]


@runtime_checkable
class StatsTracker(Protocol):
    """Anything that follows the episodes of an env and collects their statistics.

    ``RecordEpisodeStatistics`` (and ``VecRecordEpisodeStatistics``) call a
    tracker at four moments:

    - `on_reset` when an episode starts with a ``reset()``;
    - `on_step` after every step, with its reward and flags;
    - `on_episode_end` on the step that ends an episode, with its
      [`EpisodeStats`][sekai.stats.EpisodeStats];
    - `summary` is for the user, to read what was collected.

    Subclass it to inherit do-nothing defaults and override only the hooks
    you need (a subclass that only overrides `on_episode_end` receives
    every finished episode); or write any class with the four methods, which
    ``isinstance(obj, StatsTracker)`` recognises. An object with only a
    ``record(stats)`` method (the earlier form of this protocol) is still
    accepted by the wrappers, which call it where they call
    `on_episode_end`.
    """

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        """An episode starts.

        Args:
            env_id: The env's registered id, if it has one.
            seed: The int seed given to ``reset()``, if any.
        """

    def on_step(self, reward: float, terminated: bool, truncated: bool, info: InfoDict) -> None:
        """A step was taken (the one that ends an episode included)."""

    def on_episode_end(self, stats: EpisodeStats) -> None:
        """An episode ended; ``stats`` summarises it."""

    def summary(self) -> dict[str, Any]:
        """What the tracker collected so far, as a dict (empty by default)."""
        return {}
