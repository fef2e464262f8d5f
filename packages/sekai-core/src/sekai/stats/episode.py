"""EpisodeStats: the typed summary of one finished episode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["EpisodeStats"]


# Not frozen: sekai 0.2 code assigns fields (e.g. to correct a return before logging it).
# unsafe_hash keeps __hash__ defined as in 0.2; hashing still fails on the ``extra`` dict.
@dataclass(slots=True, unsafe_hash=True)
class EpisodeStats:
    """Statistics of one finished episode.

    ``RecordEpisodeStatistics`` puts one in ``info["episode"]`` on the step
    that ends an episode and hands it to its `StatsTracker`. The fields can
    be assigned; the object in ``info["episode"]`` is the one the tracker
    received, so a change made to one shows in the other.

    Attributes:
        episode_return: Sum of the episode's rewards (undiscounted).
        episode_length: Number of steps in the episode.
        elapsed_time: Wall-clock seconds from reset to the last step.
        start_time: Wall-clock time of the reset (``time.time()`` seconds).
        end_time: Wall-clock time of the last step.
        terminated: The episode ended in a terminal state.
        truncated: The episode was cut short (time limit, end of data).
        extra: Any further, env- or wrapper-specific, values (a fresh dict per
            instance).

    Raises:
        TypeError: ``extra`` is not a dict.
    """

    episode_return: float
    episode_length: int
    elapsed_time: float
    start_time: float
    end_time: float
    terminated: bool
    truncated: bool
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        extra: object = self.extra
        if not isinstance(extra, dict):
            raise TypeError(f"EpisodeStats.extra must be a dict, got {extra!r}")

    @property
    def done(self) -> bool:
        """Whether the episode is over, ``terminated or truncated``."""
        return bool(self.terminated or self.truncated)

    def as_dict(self) -> dict[str, Any]:
        """The fields as a flat dict (``extra`` is copied, not merged)."""
        return {
            "episode_return": self.episode_return,
            "episode_length": self.episode_length,
            "elapsed_time": self.elapsed_time,
            "start_time": self.start_time,
            "end_time": self.end_time,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "extra": dict(self.extra),
        }
