"""RecordEpisodeStatistics: EpisodeStats in info["episode"], trackers, queues."""

from __future__ import annotations

import pytest

from sekai.core import TimeLimit
from sekai.stats import EpisodeStats, InMemoryTracker
from sekai.wrappers import AutoReset, RecordEpisodeStatistics


class ListTracker:
    def __init__(self) -> None:
        self.seen: list[EpisodeStats] = []

    def record(self, stats: EpisodeStats) -> None:
        self.seen.append(stats)


def test_episode_stats_on_the_last_step(counter_env) -> None:
    env = RecordEpisodeStatistics(counter_env(episode_length=3))
    env.reset(seed=0)
    assert env.episode_stats is None
    assert "episode" not in env.step(0).info
    assert "episode" not in env.step(0).info
    last = env.step(0)
    stats = last.info["episode"]
    assert isinstance(stats, EpisodeStats)
    assert stats.episode_return == 1.0 + 2.0 + 3.0
    assert stats.episode_length == 3
    assert stats.terminated and not stats.truncated and stats.done
    assert stats.elapsed_time >= 0.0
    assert stats.end_time >= stats.start_time
    assert env.episode_stats is stats
    assert last.info["t"] == 3


def test_truncation_is_recorded(counter_env) -> None:
    env = RecordEpisodeStatistics(TimeLimit(counter_env(episode_length=100), 2))
    env.reset(seed=0)
    env.step(0)
    stats = env.step(0).info["episode"]
    assert stats.truncated and not stats.terminated
    assert stats.episode_length == 2


def test_env_info_is_not_mutated(counter_env) -> None:
    inner = counter_env(episode_length=1)
    seen = {}

    original = inner.step

    def step(action):
        r = original(action)
        seen["info"] = r.info
        return r

    inner.step = step
    env = RecordEpisodeStatistics(inner)
    env.reset(seed=0)
    r = env.step(0)
    assert "episode" in r.info
    assert "episode" not in seen["info"]


def test_tracker_receives_every_episode(counter_env) -> None:
    tracker = ListTracker()
    env = RecordEpisodeStatistics(counter_env(episode_length=2), tracker=tracker)
    for _ in range(3):
        env.reset(seed=0)
        env.step(0)
        env.step(0)
    assert [s.episode_return for s in tracker.seen] == [3.0, 3.0, 3.0]
    assert env.tracker is tracker


def test_default_tracker_and_queues_keep_deque_size_episodes(counter_env) -> None:
    env = RecordEpisodeStatistics(counter_env(episode_length=1), deque_size=2)
    assert isinstance(env.tracker, InMemoryTracker)
    for _ in range(5):
        env.reset()
        env.step(0)
    assert len(env.tracker) == 2
    assert list(env.return_queue) == [1.0, 1.0]
    assert list(env.length_queue) == [1, 1]
    assert len(env.time_queue) == 2


def test_reset_discards_an_unfinished_episode(counter_env) -> None:
    env = RecordEpisodeStatistics(counter_env(episode_length=3))
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    env.reset()
    env.step(0)
    env.step(0)
    stats = env.step(0).info["episode"]
    assert stats.episode_length == 3
    assert stats.episode_return == 6.0


@pytest.mark.parametrize("outside", [True, False])
def test_works_on_either_side_of_autoreset(counter_env, outside) -> None:
    inner = counter_env(episode_length=2)
    env = (
        RecordEpisodeStatistics(AutoReset(inner))
        if outside
        else AutoReset(RecordEpisodeStatistics(inner))
    )
    env.reset(seed=0)
    episodes = []
    for _ in range(6):
        r = env.step(0)
        if r.terminated:
            episodes.append(r.info["episode"])
    assert [(s.episode_length, s.episode_return) for s in episodes] == [(2, 3.0)] * 3


def test_rejects_bad_arguments(counter_env) -> None:
    with pytest.raises(ValueError, match="deque_size"):
        RecordEpisodeStatistics(counter_env(), deque_size=0)
    with pytest.raises(TypeError, match="tracker"):
        RecordEpisodeStatistics(counter_env(), tracker=object())


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(RecordEpisodeStatistics(space_env(any_space)))


def test_same_seed_same_trajectory(counter_env) -> None:
    def run():
        env = RecordEpisodeStatistics(counter_env(episode_length=4))
        env.reset(seed=5)
        out = []
        for _ in range(9):
            r = env.step(0)
            if r.terminated:
                out.append((r.info["episode"].episode_return, r.info["episode"].episode_length))
                env.reset()
        return out

    assert run() == run() == [(10.0, 4), (10.0, 4)]
