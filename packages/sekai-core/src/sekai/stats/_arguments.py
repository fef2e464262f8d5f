"""Argument checks and tracker hooks shared by the single-env and vector statistics wrappers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from sekai._internal.validation import check_int
from sekai.stats.collectors import InMemoryTracker, LoggingTracker
from sekai.stats.episode import EpisodeStats
from sekai.stats.tracker import StatsTracker

__all__ = ["TrackerHooks", "check_tracker", "tracker_and_size", "tracker_hooks"]

# Hooks known to do nothing: the wrappers skip calling them.
_NOOP_HOOKS = frozenset(
    {
        StatsTracker.on_reset,
        StatsTracker.on_step,
        InMemoryTracker.on_reset,
        InMemoryTracker.on_step,
        LoggingTracker.on_reset,
        LoggingTracker.on_step,
    }
)


class TrackerHooks(NamedTuple):
    """The methods of a tracker a wrapper calls, looked up once (``None``: nothing to call)."""

    on_reset: Callable[[str | None, int | None], None] | None
    on_step: Callable[[float, bool, bool, dict[str, Any]], None] | None
    on_episode_end: Callable[[EpisodeStats], None]


def tracker_hooks(tracker: object) -> TrackerHooks | None:
    """The hooks of ``tracker``, or ``None`` when it is not a tracker.

    A tracker with ``on_episode_end`` is called through the
    [`StatsTracker`][sekai.stats.StatsTracker] protocol (its ``on_reset`` and
    ``on_step`` too, when it has them and they do something); an object with
    only ``record(stats)``, the protocol's earlier form, gets ``record``
    called at the end of each episode.
    """
    end = getattr(tracker, "on_episode_end", None)
    if callable(end):
        return TrackerHooks(_hook(tracker, "on_reset"), _hook(tracker, "on_step"), end)
    record = getattr(tracker, "record", None)
    if callable(record):
        return TrackerHooks(None, None, record)
    return None


def _hook(tracker: object, name: str) -> Any:
    method = getattr(tracker, name, None)
    if not callable(method) or getattr(type(tracker), name, None) in _NOOP_HOOKS:
        return None
    return method


def check_tracker(owner: str, tracker: object) -> TrackerHooks:
    """The hooks of ``tracker`` (see `tracker_hooks`).

    Raises:
        TypeError: ``tracker`` is not a tracker; the message names ``owner``.
    """
    hooks = tracker_hooks(tracker)
    if hooks is None:
        raise TypeError(
            f"{owner}: tracker must be a StatsTracker (an object with on_reset, on_step, "
            f"on_episode_end and summary methods, or a record(stats) method), got {tracker!r}"
        )
    return hooks


def tracker_and_size(owner: str, tracker: object, deque_size: object) -> tuple[Any, int]:
    """Check a wrapper's ``tracker`` and ``deque_size`` arguments.

    Args:
        owner: The wrapper's name, for the error messages.
        tracker: A [`StatsTracker`][sekai.stats.StatsTracker] (or an object with a
            ``record(stats)`` method), or ``None`` for an
            [`InMemoryTracker`][sekai.stats.InMemoryTracker] keeping ``deque_size`` episodes.
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
    check_tracker(owner, tracker)
    return tracker, size
