"""Argument checks shared by the episode-statistics wrappers (single-env and vector)."""

from __future__ import annotations

from sekai._validation import check_int
from sekai.stats.tracker import InMemoryTracker, StatsTracker

__all__ = ["tracker_and_size"]


def tracker_and_size(owner: str, tracker: object, deque_size: object) -> tuple[StatsTracker, int]:
    """Check a wrapper's ``tracker`` and ``deque_size`` arguments.

    Args:
        owner: The wrapper's name, for the error messages.
        tracker: A :class:`~sekai.stats.StatsTracker`, or ``None`` for an
            :class:`~sekai.stats.InMemoryTracker` keeping ``deque_size`` episodes.
        deque_size: How many recent episodes to keep, an int >= 1.

    Returns:
        The tracker to use and ``deque_size`` as an int.

    Raises:
        TypeError: ``deque_size`` is not an int, or ``tracker`` is not a tracker.
        ValueError: ``deque_size`` is below 1.
    """
    size = check_int(deque_size, f"{owner}: deque_size", minimum=1)
    if tracker is None:
        return InMemoryTracker(size), size
    if not isinstance(tracker, StatsTracker) or not callable(tracker.record):
        raise TypeError(
            f"{owner}: tracker must be a StatsTracker (an object with a record(stats) method), "
            f"got {tracker!r}"
        )
    return tracker, size
