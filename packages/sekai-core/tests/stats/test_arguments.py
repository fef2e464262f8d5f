"""The tracker and deque_size checks shared by the episode-statistics wrappers."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker
from sekai.stats._arguments import tracker_and_size


def test_default_tracker_keeps_deque_size_episodes() -> None:
    tracker, size = tracker_and_size("Owner", None, np.int64(7))
    assert isinstance(tracker, InMemoryTracker) and tracker.maxlen == 7
    assert size == 7 and type(size) is int


def test_a_given_tracker_is_used_as_is() -> None:
    given = LoggingTracker()
    assert tracker_and_size("Owner", given, 3) == (given, 3)

    class Duck:
        def record(self, stats: EpisodeStats) -> None:
            pass

    duck = Duck()
    assert tracker_and_size("Owner", duck, 1)[0] is duck


@pytest.mark.parametrize(
    ("deque_size", "error"),
    [(0, ValueError), (-3, ValueError), (True, TypeError), (2.0, TypeError), ("5", TypeError)],
)
def test_bad_deque_size_is_named(deque_size: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=rf"Owner: deque_size must be an int >= 1, got {deque_size!r}"):
        tracker_and_size("Owner", None, deque_size)


def test_an_object_without_record_is_not_a_tracker() -> None:
    with pytest.raises(TypeError, match=r"Owner: tracker must be a StatsTracker.*got \[\]"):
        tracker_and_size("Owner", [], 10)


def test_a_non_callable_record_attribute_is_not_a_tracker() -> None:
    class NotCallable:
        record = "episodes.csv"

    with pytest.raises(TypeError, match=r"Owner: tracker must be a StatsTracker.*NotCallable"):
        tracker_and_size("Owner", NotCallable(), 10)
