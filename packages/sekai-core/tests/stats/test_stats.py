"""EpisodeStats, StatsTracker, InMemoryTracker, LoggingTracker."""

from __future__ import annotations

import logging
import math
import pickle
import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker, StatsTracker


def stats(ret: float = 1.0, length: int = 10, **kwargs: object) -> EpisodeStats:
    values: dict[str, object] = {
        "episode_return": ret,
        "episode_length": length,
        "elapsed_time": 0.5,
        "start_time": 100.0,
        "end_time": 100.5,
        "terminated": True,
        "truncated": False,
    }
    values.update(kwargs)
    return EpisodeStats(**values)  # type: ignore[arg-type]


def test_episode_stats_fields_and_done() -> None:
    s = stats(2.5, 7)
    assert (s.episode_return, s.episode_length, s.elapsed_time) == (2.5, 7, 0.5)
    assert (s.start_time, s.end_time) == (100.0, 100.5)
    assert s.extra == {}
    assert s.done is True
    assert stats(terminated=False, truncated=True).done is True
    assert stats(terminated=False, truncated=False).done is False


def test_extra_default_is_not_shared_and_fields_can_be_assigned() -> None:
    a, b = stats(), stats()
    a.extra["pnl"] = 1.0
    assert b.extra == {}
    a.episode_return = 3.0  # sekai 0.2's EpisodeStats is not frozen
    a.truncated = True
    assert (a.episode_return, a.truncated) == (3.0, True) and a != b
    assert not hasattr(a, "__dict__")  # slots: a misspelt field is refused
    with pytest.raises(AttributeError):
        a.episode_retrun = 1.0  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)  # the extra dict, as in 0.2


def test_episode_stats_pickle_and_as_dict() -> None:
    s = stats(extra={"sharpe": 1.2})
    assert pickle.loads(pickle.dumps(s)) == s
    d = s.as_dict()
    assert d["episode_return"] == 1.0
    assert d["extra"] == {"sharpe": 1.2}
    assert d["extra"] is not s.extra


def test_trackers_satisfy_the_protocol() -> None:
    assert isinstance(InMemoryTracker(), StatsTracker)
    assert isinstance(LoggingTracker(), StatsTracker)

    class Custom:
        def on_reset(self, env_id: str | None, seed: int | None) -> None:
            pass

        def on_step(self, reward: float, terminated: bool, truncated: bool, info: dict) -> None:
            pass

        def on_episode_end(self, stats: EpisodeStats) -> None:
            pass

        def summary(self) -> dict:
            return {}

    assert isinstance(Custom(), StatsTracker)
    assert not isinstance(object(), StatsTracker)

    # The earlier protocol (record(stats) alone) is not sekai 0.2's StatsTracker any
    # more; the wrappers still accept such an object (see test_arguments.py).
    class RecordOnly:
        def record(self, stats: EpisodeStats) -> None:
            pass

    assert not isinstance(RecordOnly(), StatsTracker)


def test_in_memory_tracker_rolls_and_averages() -> None:
    tracker = InMemoryTracker(maxlen=3)
    assert len(tracker) == 0
    assert math.isnan(tracker.mean_return)
    assert math.isnan(tracker.mean_length)
    for i in range(5):
        tracker.record(stats(float(i), 10 * i))
    assert len(tracker) == 3
    assert [e.episode_return for e in tracker.episodes] == [2.0, 3.0, 4.0]
    assert tracker.mean_return == 3.0
    assert tracker.mean_length == 30.0
    tracker.episodes.clear()  # a copy: the tracker is unaffected
    assert len(tracker) == 3
    tracker.clear()
    assert len(tracker) == 0


def test_in_memory_tracker_default_and_unbounded() -> None:
    assert InMemoryTracker().maxlen == 100
    tracker = InMemoryTracker(maxlen=None)
    for _ in range(150):
        tracker.record(stats())
    assert len(tracker) == 150


@pytest.mark.parametrize(
    ("bad", "error"),
    [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError), ("10", TypeError)],
)
def test_in_memory_tracker_rejects_bad_maxlen(bad: object, error: type[Exception]) -> None:
    with pytest.raises(
        error, match=re.escape(f"maxlen must be a positive int or None, got {bad!r}")
    ):
        InMemoryTracker(maxlen=bad)  # type: ignore[arg-type]


def test_in_memory_tracker_accepts_numpy_ints() -> None:
    tracker = InMemoryTracker(maxlen=np.int64(2))
    assert tracker.maxlen == 2 and type(tracker.maxlen) is int
    for i in range(3):
        tracker.record(stats(float(i)))
    assert [e.episode_return for e in tracker.episodes] == [1.0, 2.0]


@pytest.mark.parametrize("extra", [None, [("pnl", 1.0)], "pnl"])
def test_extra_must_be_a_dict(extra: object) -> None:
    with pytest.raises(TypeError, match=re.escape(f"extra must be a dict, got {extra!r}")):
        stats(extra=extra)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30), st.integers(1, 10))
def test_mean_return_is_the_mean_of_the_window(returns: list[float], maxlen: int) -> None:
    tracker = InMemoryTracker(maxlen=maxlen)
    for r in returns:
        tracker.record(stats(r))
    window = returns[-maxlen:]
    assert tracker.mean_return == pytest.approx(math.fsum(window) / len(window))


def test_logging_tracker_emits_structured_records(caplog: pytest.LogCaptureFixture) -> None:
    tracker = LoggingTracker()
    assert tracker.logger.name == "sekai.stats"
    with caplog.at_level(logging.INFO, logger="sekai.stats"):
        tracker.record(stats(3.5, 12, extra={"pnl": 0.1}))
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert "return=3.5" in record.getMessage()
    assert "length=12" in record.getMessage()
    assert record.episode_return == 3.5  # type: ignore[attr-defined]
    assert record.episode_length == 12  # type: ignore[attr-defined]
    assert record.terminated is True  # type: ignore[attr-defined]
    assert record.truncated is False  # type: ignore[attr-defined]
    assert record.episode_start_time == 100.0  # type: ignore[attr-defined]
    assert record.episode_extra == {"pnl": 0.1}  # type: ignore[attr-defined]


def test_logging_tracker_custom_logger_and_level(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.episodes")
    tracker = LoggingTracker(logger, level=logging.DEBUG)
    with caplog.at_level(logging.INFO, logger="test.episodes"):
        tracker.record(stats())
    assert caplog.records == []
    with caplog.at_level(logging.DEBUG, logger="test.episodes"):
        tracker.record(stats())
    (record,) = caplog.records
    assert record.name == "test.episodes"
    assert record.levelno == logging.DEBUG


def test_logging_tracker_accepts_level_names(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("test.adapted")
    tracker = LoggingTracker(logger, level="WARNING")
    assert tracker.level == logging.WARNING
    with caplog.at_level(logging.INFO, logger="test.adapted"):
        tracker.record(stats(2.0))
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.episode_return == 2.0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"logger": "sekai.stats"},
            TypeError,
            "logger must be a logging.Logger, got 'sekai.stats'",
        ),
        ({"level": "LOUD"}, ValueError, "level must be a logging level name or int, got 'LOUD'"),
        ({"level": 20.0}, TypeError, "level must be a logging level name or int, got 20.0"),
        ({"level": True}, TypeError, "level must be a logging level name or int, got True"),
    ],
)
def test_logging_tracker_rejects_bad_arguments(
    kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=re.escape(match)):
        LoggingTracker(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("tracker", [InMemoryTracker(), LoggingTracker()], ids=repr)
def test_trackers_record_only_episode_stats(tracker: StatsTracker) -> None:
    with pytest.raises(
        TypeError, match=r"Tracker\.record expects an EpisodeStats, got \{'episode_return': 1\.0\}"
    ):
        tracker.record({"episode_return": 1.0})  # type: ignore[arg-type]
