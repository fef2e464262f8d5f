"""The agent's view of point-in-time data (what an env hands out as ``env.now``).

It reads the observation side exactly as the env's view does, refuses every
read of the execution side with LookAheadError, and pickles (like every Past)
the rows up to the decision row and nothing after them. The env's own view
keeps its execution side and pickles whole.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import LookAheadError
from sekai.finance.data import MarketData, Past, PointInTime, PointInTimeBatch, Time

N_STEPS = 16
PROTOCOLS = st.integers(2, pickle.HIGHEST_PROTOCOL)


def make(n_steps: int = N_STEPS, seed: int = 0) -> MarketData:
    rng = np.random.default_rng(seed)
    prices = 100 * np.exp(rng.normal(0, 0.05, (n_steps, 2)).cumsum(axis=0))
    prices[3, 1] = np.nan  # a halt
    return MarketData(
        prices,
        fields={"volume": rng.integers(1, 100, (n_steps, 2)).astype(float)},
        timestamps=np.arange(n_steps) * 10,
        assets=["a", "b"],
        exogenous={"rate": rng.normal(size=n_steps), "curve": rng.normal(size=(n_steps, 3))},
    )


def pasts(now: PointInTime) -> list[Past]:
    return [
        now.prices,
        now.field("volume"),
        now.mask,
        now.timestamps,
        now.exogenous("rate"),
        now.exogenous("curve"),
    ]


def attempt(read: Callable[[], Any]) -> Any:
    """What ``read`` gives: its value, or its error as (type, message)."""
    try:
        return read()
    except (LookAheadError, IndexError, ValueError, KeyError) as error:
        return type(error), str(error)


def past_reads(past: Past, key: Any, length: int, t: int) -> list[Any]:
    return [
        attempt(lambda: past.shape),
        attempt(lambda: len(past)),
        attempt(lambda: repr(past)),
        attempt(lambda: past.latest),
        attempt(lambda: past[key]),
        attempt(lambda: past.window(length)),
        attempt(lambda: np.asarray(past)),
        attempt(lambda: list(past)),
        attempt(lambda: past.asof(Time(10 * t - 5))),
        attempt(lambda: past.asof(Time(10 * t + 5))),  # after row t: refused
        attempt(lambda: past.between(Time(10 * (t - length)), Time(10 * t))),
    ]


def observed(now: PointInTime, key: Any, length: int) -> list[Any]:
    """Every read of the observation side, in a fixed order (errors included)."""
    t = now.index
    seen = [
        attempt(lambda: (now.index, now.time, now.assets, now.n_assets)),
        attempt(lambda: now.available),
        attempt(lambda: now.log_returns(length)),
    ]
    for past in pasts(now):
        seen += past_reads(past, key, length, t)
    return seen


def assert_same(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            np.testing.assert_array_equal(x, y)  # NaN equals NaN
            assert np.asarray(x).dtype == np.asarray(y).dtype
        elif isinstance(x, (list, tuple)):
            assert type(x) is type(y)
            assert_same(list(x), list(y))
        else:
            assert x == y


keys = st.one_of(
    st.integers(-18, 18),
    st.builds(slice, st.none() | st.integers(-18, 18), st.none() | st.integers(-18, 18)),
    st.lists(st.integers(-18, 18), min_size=1, max_size=3),
)


# -- what an agent's view reads and refuses -------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(t=st.integers(0, N_STEPS - 1), key=keys, length=st.integers(1, 6))
def test_an_agent_view_reads_what_the_env_view_reads(t: int, key: Any, length: int) -> None:
    data = make()
    now = data.at(t)
    agent = now.agent_view()
    assert agent.is_agent_view and not now.is_agent_view
    assert_same(observed(agent, key, length), observed(now, key, length))


ENV_SIDE: dict[str, Callable[[PointInTime], Any]] = {
    "execution_price()": lambda now: now.execution_price(),
    "execution_price('volume')": lambda now: now.execution_price("volume"),
    "execution_time": lambda now: now.execution_time,
    "has_next": lambda now: now.has_next,
    "advance(1)": lambda now: now.advance(),
    "advance(3)": lambda now: now.advance(3),
}


@pytest.mark.parametrize("name", list(ENV_SIDE))
@pytest.mark.parametrize("t", [5, N_STEPS - 1])
def test_an_agent_view_refuses_the_execution_side(name: str, t: int) -> None:
    data = make()
    read = ENV_SIDE[name]
    agent = data.at(t).agent_view()
    # Refused at the last row too: an IndexError would tell that the data ends there.
    with pytest.raises(
        LookAheadError, match=r"after the decision row \d+: this is an agent's"
    ) as e:
        read(agent)
    assert f"PointInTime.{name.split('(')[0]}" in str(e.value) and "MarketData.at" in str(e.value)
    if t == 5:  # the env's view still reads them
        now = data.at(t)
        np.testing.assert_array_equal(now.execution_price(), data.prices[t + 1])
        np.testing.assert_array_equal(now.execution_price("volume"), data.field("volume")[t + 1])
        assert now.execution_time == data.timestamps[t + 1] and now.has_next
        assert now.advance(3).index == t + 3 and not now.advance(3).is_agent_view


def test_what_an_agent_view_reaches_is_an_agent_view() -> None:
    agent = make().at(7).agent_view()
    assert agent.agent_view() is agent and agent.advance(0) is agent
    assert repr(agent) == "PointInTime(row=7, time=70, agent view)"
    for name in ("agent_view", "advance", "execution_price", "execution_time", "has_next"):
        assert not any(hasattr(past, name) for past in pasts(agent))
    with pytest.raises(LookAheadError, match=r"advance\(1\) reads row 8"):
        agent.advance(0).advance(1)


# -- pickles carry the past only ---------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(t=st.integers(0, N_STEPS - 1), key=keys, length=st.integers(1, 6), protocol=PROTOCOLS)
def test_a_pickled_agent_view_reads_the_same_past_and_nothing_later(
    t: int, key: Any, length: int, protocol: int
) -> None:
    agent = make().at(t).agent_view()
    for other in (
        pickle.loads(pickle.dumps(agent, protocol=protocol)),
        copy.copy(agent),
        copy.deepcopy(agent),
    ):
        assert isinstance(other, PointInTime) and other.is_agent_view
        assert_same(observed(other, key, length), observed(agent, key, length))
        assert other._data.n_steps == t + 1  # the rows after t did not travel
        with pytest.raises(LookAheadError, match="agent's view"):
            other.execution_price()


@settings(max_examples=100, deadline=None)
@given(t=st.integers(0, N_STEPS - 1), key=keys, length=st.integers(1, 6), protocol=PROTOCOLS)
def test_a_pickled_past_reads_the_same_rows(t: int, key: Any, length: int, protocol: int) -> None:
    for past in pasts(make().at(t)):  # from the env's view: a Past pickles its rows 0..t only
        other = pickle.loads(pickle.dumps(past, protocol=protocol))
        assert isinstance(other, Past) and other.name == past.name
        assert_same(past_reads(other, key, length, t), past_reads(past, key, length, t))
        assert len(other._array) == len(other._times) == t + 1


def test_the_pickle_of_an_agent_view_over_long_data_holds_no_later_row() -> None:
    n_steps, t = 10_000, 10
    rng = np.random.default_rng(1)
    prices = 100 * np.exp(rng.normal(0, 0.01, (n_steps, 1)).cumsum(axis=0))  # every row distinct
    rate = rng.normal(size=n_steps)
    data = MarketData(prices, fields={"open": prices * 0.999}, exogenous={"rate": rate})
    assert len(pickle.dumps(data.at(t))) > 150_000  # the env's view: the whole data
    for blob in (pickle.dumps(data.at(t).agent_view()), pickle.dumps(data.at(t).prices)):
        assert len(blob) < 2_000
        assert prices[t].tobytes() in blob  # row t is known ...
        later = [r for r in range(t + 1, n_steps) if prices[r].tobytes() in blob]
        assert later == []  # ... no later row is
        assert not any(rate[r].tobytes() in blob for r in range(t + 1, n_steps))


def test_an_agent_view_of_shared_data_pickles_by_value() -> None:
    data = make()
    with data.share() as shared:
        blobs = [pickle.dumps(shared.at(9).agent_view()), pickle.dumps(shared.at(9).prices)]
    # The block is gone: a pickle holding a handle to it would no longer load.
    agent, prices = pickle.loads(blobs[0]), pickle.loads(blobs[1])
    assert not agent._data.is_shared
    assert_same(observed(agent, -3, 4), observed(data.at(9), -3, 4))
    np.testing.assert_array_equal(np.asarray(prices), data.prices[:10])


def test_the_env_view_keeps_its_execution_side_and_pickles_whole() -> None:
    data = make()
    now = pickle.loads(pickle.dumps(data.at(4)))
    assert not now.is_agent_view and now._data.n_steps == N_STEPS
    np.testing.assert_array_equal(now.execution_price(), data.prices[5])
    assert now.advance(11).index == N_STEPS - 1 and not now.advance(11).has_next


# -- the batch ---------------------------------------------------------------------------------


def batches(kind: str, rows: list[int]) -> PointInTimeBatch:
    data = make()
    if kind == "history":
        return data.at_rows(rows)
    paths = np.stack([data.prices, data.prices[::-1]] * 2)[: len(rows)]
    volume = np.stack([data.field("volume")] * len(rows))
    rate = data.exogenous_series("rate")[None]
    return PointInTimeBatch.of_paths(
        paths, rows, fields={"volume": volume}, exogenous={"rate": rate}
    )


def new_path(batch: PointInTimeBatch) -> dict[str, Any]:
    """The arguments of ``batch.with_paths`` giving sub-env 0 a path of ones."""
    ones = np.ones((1, N_STEPS, batch.n_assets))
    return {
        "indices": [0],
        "prices": ones,
        "fields": {"volume": ones},
        "exogenous": {"rate": np.ones((1, N_STEPS))},
    }


def batch_reads(batch: PointInTimeBatch, length: int) -> list[Any]:
    reads: list[Any] = [
        attempt(lambda: (batch.index, batch.time, batch.assets, batch.n_assets, len(batch))),
        attempt(lambda: batch.log_returns(length)),
    ]
    for past in (batch.prices, batch.mask, batch.field("volume"), batch.exogenous("rate")):
        reads += [attempt(past.latest), attempt(partial(past.window, length))]
    return reads


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["history", "paths"]),
    rows=st.lists(st.integers(0, N_STEPS - 1), min_size=1, max_size=4),
    length=st.integers(1, 6),
)
def test_a_batch_agent_view_reads_what_the_batch_reads(
    kind: str, rows: list[int], length: int
) -> None:
    batch = batches(kind, rows)
    agent = batch.agent_view()
    assert agent.is_agent_view and not batch.is_agent_view
    assert agent.agent_view() is agent and agent.advance(0) is agent
    assert_same(batch_reads(agent, length), batch_reads(batch, length))


BATCH_ENV_SIDE: dict[str, Callable[[PointInTimeBatch], Any]] = {
    "execution_price()": lambda batch: batch.execution_price(),
    "execution_price('volume')": lambda batch: batch.execution_price("volume"),
    "execution_time": lambda batch: batch.execution_time,
    "advance(1)": lambda batch: batch.advance(),
    "advance(2)": lambda batch: batch.advance(2),
    "with_rows()": lambda batch: batch.with_rows([4, 4]),
}


@pytest.mark.parametrize("kind", ["history", "paths"])
@pytest.mark.parametrize("name", [*BATCH_ENV_SIDE, "with_paths()"])
def test_a_batch_agent_view_refuses_the_execution_side_and_other_rows(kind: str, name: str) -> None:
    batch = batches(kind, [3, 6])
    expected = batch.execution_price()
    agent = batch.agent_view()

    def read(batch: PointInTimeBatch) -> Any:
        if name == "with_paths()":
            return batch.with_paths(**new_path(batch))
        return BATCH_ENV_SIDE[name](batch)

    with pytest.raises(LookAheadError, match="this is an agent's view") as e:
        read(agent)
    assert f"PointInTimeBatch.{name.split('(')[0]}" in str(e.value)
    assert "own batch" in str(e.value)
    # Nothing was replaced or retired: the env's batch reads on, execution side included.
    np.testing.assert_array_equal(batch.execution_price(), expected)
    np.testing.assert_array_equal(agent.prices.latest(), batch.prices.latest())
    if name != "with_paths()" or kind == "paths":
        read(batch)


def test_a_batch_agent_view_is_retired_with_the_batch_it_came_from() -> None:
    batch = batches("paths", [3, 6])
    agent = batch.agent_view()
    fresh = batch.with_paths(**new_path(batch))
    with pytest.raises(RuntimeError, match="built before with_paths"):
        agent.prices.latest()
    assert fresh.agent_view().prices.latest()[0].tolist() == [1.0, 1.0]


def test_a_batch_agent_view_refuses_pickling_and_the_env_batch_pickles() -> None:
    batch = batches("history", [3, 6])
    agent = batch.agent_view()
    for what in (agent, agent.prices, [agent]):
        with pytest.raises(TypeError, match=r"does not pickle .*pickle the arrays read from it"):
            pickle.dumps(what)
    with pytest.raises(TypeError, match="does not pickle or copy"):
        copy.deepcopy(agent)
    other = pickle.loads(pickle.dumps(batch))
    assert not other.is_agent_view
    np.testing.assert_array_equal(other.execution_price(), batch.execution_price())
    assert repr(agent) == "PointInTimeBatch(2 sub-envs, rows 3..6, agent view)"
