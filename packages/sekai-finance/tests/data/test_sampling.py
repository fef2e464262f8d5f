"""Start samplers (sekai 0.2's EpisodeSampler family) and the start arithmetic."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.finance.data import MarketData, Time
from sekai.finance.sampling import (
    EpisodeSampler,
    FixedStart,
    HistoricalSampler,
    RandomStart,
    SequentialStart,
    as_sampler,
    first_start,
    resolve_start,
    sample_start,
    spawn_samplers,
)


def rows(n: int, warmup: int = 0) -> MarketData:
    return MarketData(np.arange(1.0, n + 1), timestamps=np.arange(n) * 10, warmup=warmup)


def test_random_start_is_uniform_and_reproducible() -> None:
    sampler = RandomStart()
    draws = [sampler.sample(np.random.default_rng(7), 10, 5) for _ in range(3)]
    assert len(set(draws)) == 1  # same generator state, same start
    rng = np.random.default_rng(0)
    counts = np.bincount([sampler.sample(rng, 10, 5) for _ in range(20000)], minlength=10)
    assert counts.size == 10
    # each count is Binomial(20000, 0.1): sd ~42
    assert np.all(np.abs(counts - 2000) < 5 * 42)
    assert repr(sampler) == "RandomStart()" and isinstance(sampler.spawn(), RandomStart)


def test_sequential_start_strides_and_wraps() -> None:
    sampler = SequentialStart()
    starts = [sampler.sample(np.random.default_rng(), 10, 4) for _ in range(5)]
    assert starts == [0, 4, 8, 0, 4] and sampler.epoch == 1
    strided = SequentialStart(start=1, stride=3)
    assert [strided.sample(None, 8, 4) for _ in range(4)] == [1, 4, 7, 1]  # type: ignore[arg-type]
    assert strided.epoch == 1 and strided.start == 1 and strided.stride == 3
    strided.reset()
    assert strided.epoch == 0 and strided.sample(None, 8, 4) == 1  # type: ignore[arg-type]
    child = strided.spawn()
    assert isinstance(child, SequentialStart) and child is not strided
    assert child.sample(None, 8, 4) == 1 and child.epoch == 0  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start=9 is not a valid offset"):
        SequentialStart(9).sample(None, 5, 1)  # type: ignore[arg-type]
    assert "epoch=0" in repr(SequentialStart())


def test_fixed_start() -> None:
    sampler = FixedStart(3)
    assert sampler.start == 3 and sampler.sample(np.random.default_rng(), 4, 1) == 3
    with pytest.raises(
        ValueError, match="start=3 is not a valid offset; the data allows offsets 0 to 2"
    ):
        sampler.sample(np.random.default_rng(), 3, 1)
    sampler.reset()  # a no-op
    assert sampler.spawn().start == 3 and repr(sampler) == "FixedStart(3)"


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: FixedStart(-1), ValueError, "FixedStart: start must be an int >= 0"),
        (lambda: FixedStart(1.5), TypeError, "FixedStart: start"),  # type: ignore[arg-type]
        (lambda: SequentialStart(stride=0), ValueError, "stride must be an int >= 1"),
        (lambda: RandomStart().sample(np.random.default_rng(), 0, 1), ValueError, "n_starts"),
        (lambda: RandomStart().sample(np.random.default_rng(), 3, 0), ValueError, "episode_length"),
    ],
)
def test_sampler_validation(call: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_as_sampler() -> None:
    assert isinstance(as_sampler("random"), RandomStart)
    assert isinstance(as_sampler("sequential"), SequentialStart)
    fixed = as_sampler(4)
    assert isinstance(fixed, FixedStart) and fixed.start == 4
    assert isinstance(as_sampler(np.int64(2)), FixedStart)
    mine = SequentialStart(2)
    assert as_sampler(mine) is mine
    with pytest.raises(ValueError, match="'random', 'sequential', an int or an EpisodeSampler"):
        as_sampler("shuffled")
    with pytest.raises(ValueError, match="sampler must be"):
        as_sampler(-1)
    with pytest.raises(TypeError, match="a start sampler only chooses where"):
        as_sampler(HistoricalSampler(np.zeros((5, 1))))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got True"):
        as_sampler(True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got None"):
        as_sampler(None)  # type: ignore[arg-type]


def test_first_start_and_valid_range() -> None:
    assert first_start(0, rows(50).warmup) == 0
    assert first_start(10, 0) == 10
    assert first_start(lookback=10, warmup=20) == 20
    assert first_start(10) == 10
    with pytest.raises(TypeError, match=r"call first_start\(lookback, data.warmup\)"):
        first_start(rows(50), 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="warmup"):
        first_start(3, -1)
    data = rows(50, warmup=5)
    rng = np.random.default_rng(0)
    starts = {
        sample_start(RandomStart(), rng, data, episode_length=10, lookback=8) for _ in range(2000)
    }
    assert starts == set(range(8, 40))  # the last start's final decision executes at row 49
    assert sample_start(FixedStart(0), rng, data, episode_length=10, lookback=8) == 8
    with pytest.raises(ValueError, match="needs 51 rows"):
        sample_start(RandomStart(), rng, data, episode_length=42, lookback=8)
    with pytest.raises(TypeError, match="as_sampler"):
        sample_start("random", rng, data, episode_length=5)  # type: ignore[arg-type]


def test_sequential_episodes_tile_the_data() -> None:
    data = rows(41)
    sampler = SequentialStart()
    rng = np.random.default_rng()
    starts = [sample_start(sampler, rng, data, episode_length=10, lookback=0) for _ in range(5)]
    assert starts == [0, 10, 20, 30, 0]  # decision rows 0..39 once each, then epoch 2
    assert sampler.epoch == 1


def test_a_bad_custom_sampler_is_caught() -> None:
    class Broken(EpisodeSampler):
        def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
            return n_starts

    with pytest.raises(ValueError, match=r"must return an int in \[0, 31\), got 31"):
        sample_start(Broken(), np.random.default_rng(), rows(41), episode_length=10)
    assert isinstance(Broken().spawn(), Broken)
    with pytest.raises(TypeError):
        EpisodeSampler()  # type: ignore[abstract]


def test_resolve_start_by_row_or_time() -> None:
    data = rows(50, warmup=5)
    assert resolve_start(7, data=data, episode_length=10) == 7
    assert resolve_start(Time(70), data=data, episode_length=10) == 7
    assert resolve_start(Time(65), data=data, episode_length=10) == 7  # first row at or after
    dated = MarketData(np.ones(30), timestamps=np.arange("2024-01-01", "2024-01-31", dtype="M8[D]"))
    assert resolve_start("2024-01-10", data=dated, episode_length=5, lookback=3) == 9
    with pytest.raises(ValueError, match="valid first rows are 5 to 39"):
        resolve_start(3, data=data, episode_length=10)
    with pytest.raises(ValueError, match="valid first rows are 5 to 39"):
        resolve_start(40, data=data, episode_length=10)
    with pytest.raises(TypeError, match="give episode_length"):
        resolve_start(7, data=data)


def test_sekai_0_2_calls_give_the_starts_without_data() -> None:
    """``sample_start(..., n_starts=...)`` and ``resolve_start(option, timestamps=...)``."""
    data = rows(50, warmup=5)
    # The data's valid starts are rows 8..39 for lookback 8: 32 of them from row 8.
    given = {"n_starts": 32, "episode_length": 10, "lookback": 8, "warmup": data.warmup}
    rng = np.random.default_rng(0)
    for offset in (0, 13, 31):
        from_data = sample_start(FixedStart(offset), rng, data, episode_length=10, lookback=8)
        assert sample_start(FixedStart(offset), rng, **given) == from_data == 8 + offset
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    drawn = [sample_start(RandomStart(), rng_a, **given) for _ in range(50)]
    assert drawn == [
        sample_start(RandomStart(), rng_b, data, episode_length=10, lookback=8) for _ in range(50)
    ]
    stamps = data.timestamps
    for option in (8, 20, 39, Time(int(stamps[25])), Time(int(stamps[25]) - 5)):
        assert resolve_start(
            option, timestamps=stamps, lookback=8, n_starts=32, warmup=data.warmup
        ) == resolve_start(option, data=data, episode_length=10, lookback=8)
    with pytest.raises(ValueError, match="valid first rows are 8 to 39"):
        resolve_start(40, timestamps=stamps, lookback=8, n_starts=32, warmup=5)
    with pytest.raises(ValueError, match="valid first rows are 8 to 39"):
        resolve_start(7, lookback=8, n_starts=32)
    with pytest.raises(TypeError, match="give the timestamps"):
        resolve_start(Time(70), lookback=8, n_starts=32)
    with pytest.raises(TypeError, match="give n_starts"):
        sample_start(RandomStart(), rng_a, episode_length=10, lookback=8)
    with pytest.raises(TypeError, match="come from the data"):
        sample_start(RandomStart(), rng_a, data, n_starts=3, episode_length=10)
    with pytest.raises(TypeError, match="come from the data"):
        resolve_start(8, data=data, episode_length=10, warmup=2)
    with pytest.raises(ValueError, match="n_starts"):
        sample_start(RandomStart(), rng_a, n_starts=0, episode_length=10)


def test_samplers_pickle_with_their_progress() -> None:
    sampler = SequentialStart(stride=2)
    sampler.sample(None, 10, 3)  # type: ignore[arg-type]
    restored = pickle.loads(pickle.dumps(sampler))
    assert restored.sample(None, 10, 3) == 2  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(
    n_steps=st.integers(2, 80),
    warmup=st.integers(0, 20),
    lookback=st.integers(0, 20),
    length=st.integers(1, 40),
    seed=st.integers(0, 2**16),
    kind=st.sampled_from(["random", "sequential", 0, 3]),
)
def test_every_sampled_episode_fits(
    n_steps: int, warmup: int, lookback: int, length: int, seed: int, kind: Any
) -> None:
    data = rows(n_steps, warmup=min(warmup, n_steps - 1))
    sampler = as_sampler(kind)
    rng = np.random.default_rng(seed)
    first = max(data.warmup, lookback)
    n_starts = n_steps - 1 - length - first + 1
    if n_starts < 1 or (isinstance(kind, int) and kind >= n_starts):
        with pytest.raises(ValueError, match=r"needs .* rows|is not a valid offset"):
            sample_start(sampler, rng, data, episode_length=length, lookback=lookback)
        return
    for _ in range(5):
        start = sample_start(sampler, rng, data, episode_length=length, lookback=lookback)
        assert start >= data.warmup and start >= lookback  # history is there
        assert start + length <= n_steps - 1  # every decision can execute
        now = data.at(start)
        if lookback:
            assert now.log_returns(lookback).shape == (lookback, 1)
        assert now.advance(length - 1).has_next


def test_spawn_samplers_spawns_one_sampler_per_sub_env() -> None:
    parent = SequentialStart(2, stride=3)
    children = spawn_samplers(parent, 3)
    assert len(children) == 3 and len({id(child) for child in children}) == 3
    assert all(isinstance(c, SequentialStart) and c is not parent for c in children)
    assert [(c.start, c.stride) for c in children] == [(2, 3)] * 3


@pytest.mark.parametrize("value", ["random", "sequential", 7, None])
def test_spawn_samplers_passes_names_and_starts_unchanged(value: Any) -> None:
    assert spawn_samplers(value, 2) == [value, value]


@pytest.mark.parametrize("value", [1.5, True, object()])
def test_spawn_samplers_refuses_what_cannot_be_spawned(value: Any) -> None:
    with pytest.raises(TypeError, match=r"spawn\(\)") as info:
        spawn_samplers(value, 2)
    assert repr(value) in str(info.value)
