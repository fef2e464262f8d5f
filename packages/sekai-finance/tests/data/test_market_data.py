"""MarketData: construction, validation, immutability, time selection, splits."""

from __future__ import annotations

import copy
import datetime as dt
import itertools
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.finance.data import MarketData, Time


def days(n: int, start: str = "2024-01-01") -> np.ndarray:
    return np.arange(n) * np.timedelta64(1, "D") + np.datetime64(start)


# -- construction ------------------------------------------------------------------------------


def test_defaults_from_a_1d_array() -> None:
    data = MarketData([1.0, 2.0, 4.0])
    assert data.prices.shape == (3, 1) and data.n_steps == len(data) == 3 and data.n_assets == 1
    assert data.assets == (0,) and data.price_field == "close" and data.warmup == 0
    assert data.timestamps.tolist() == [0, 1, 2] and data.timestamps.dtype == np.int64
    assert not data.is_datetime and data.periods_per_year == 252.0
    assert list(data.fields) == ["close"] and data.exogenous == {}
    assert data.mask.all()


def test_every_member(data: MarketData) -> None:
    assert data.assets == ("a", "b", "c")
    assert set(data.fields) == {"close", "volume"}
    np.testing.assert_array_equal(data.field("close"), data.prices)
    np.testing.assert_array_equal(data.field("volume")[1], [3.0, 4.0, 5.0])
    assert data.exogenous_series("rate").shape == (30,)
    assert data.exogenous_width("rate") == 1 and data.exogenous_width("curve") == 2
    assert data.is_datetime and data.timestamps.dtype.kind == "M"
    assert "n_steps=30" in repr(data) and "exogenous" in repr(data)
    with pytest.raises(KeyError, match=r"no field 'open'; fields: \['close', 'volume'\]"):
        data.field("open")
    with pytest.raises(KeyError, match="no exogenous series 'vix'"):
        data.exogenous_series("vix")


def test_prices_may_come_from_fields() -> None:
    data = MarketData(fields={"close": [[1.0], [2.0]], "open": [[1.5], [1.5]]})
    np.testing.assert_array_equal(data.prices[:, 0], [1.0, 2.0])
    data = MarketData(fields={"mid": [1.0, 2.0]}, price_field="mid")
    assert data.price_field == "mid"


def test_nan_prices_mark_unavailable_assets() -> None:
    prices = np.array([[np.nan, 1.0], [2.0, np.nan], [2.0, 3.0]])
    data = MarketData(prices)
    np.testing.assert_array_equal(data.mask, [[False, True], [True, False], [True, True]])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"prices": [[1.0], [-1.0]]}, ValueError, r"got -1\.0 at row 1, asset column 0"),
        ({"prices": [[1.0], [0.0]]}, ValueError, "finite and > 0"),
        ({"prices": [[1.0], [np.inf]]}, ValueError, "finite and > 0"),
        ({"prices": [["a"], ["b"]]}, TypeError, "prices must be an array of numbers"),
        ({"prices": np.ones((2, 2, 2))}, ValueError, r"shape \(n_steps, n_assets\)"),
        ({"prices": np.ones((0, 2))}, ValueError, "shape"),
        ({}, ValueError, "pass prices, or fields holding the price field 'close'"),
        (
            {"prices": [1.0], "fields": {"close": [1.0]}},
            ValueError,
            "given twice",
        ),
        ({"prices": [1.0, 2.0], "fields": {"volume": [1.0]}}, ValueError, r"shape \(2, 1\)"),
        ({"prices": [1.0, 2.0], "fields": [1.0]}, TypeError, "fields must be a mapping"),
        ({"prices": [1.0, 2.0], "timestamps": [1, 1]}, ValueError, "strictly increasing"),
        ({"prices": [1.0, 2.0], "timestamps": [2, 1]}, ValueError, "got 2 then 1 at row 1"),
        ({"prices": [1.0, 2.0], "timestamps": [1.0, 2.0]}, TypeError, "ints or dates"),
        ({"prices": [1.0, 2.0], "timestamps": ["x", "y"]}, TypeError, "ints or dates"),
        ({"prices": [1.0, 2.0], "timestamps": [1, 2, 3]}, ValueError, r"shape \(2,\)"),
        (
            {"prices": [1.0, 2.0], "timestamps": np.array(["NaT", "2020-01-01"], "M8[D]")},
            ValueError,
            "NaT",
        ),
        ({"prices": [[1.0, 2.0]], "assets": ["a"]}, ValueError, "2 labels"),
        ({"prices": [[1.0, 2.0]], "assets": ["a", "a"]}, ValueError, "unique"),
        ({"prices": [[1.0, 2.0]], "assets": "ab"}, TypeError, "sequence of labels"),
        ({"prices": [[1.0, 2.0]], "assets": [[1], [2]]}, TypeError, "hashable"),
        ({"prices": [1.0, 2.0], "exogenous": {"r": [1.0]}}, ValueError, r"shape \(2,\) or"),
        ({"prices": [1.0, 2.0], "exogenous": {1: [1.0, 2.0]}}, TypeError, "names must be str"),
        ({"prices": [1.0, 2.0], "warmup": 2}, ValueError, r"warmup must be an int in \[0, 1\]"),
        ({"prices": [1.0, 2.0], "warmup": 1.0}, TypeError, "warmup"),
        ({"prices": [1.0, 2.0], "price_field": ""}, TypeError, "price_field"),
    ],
)
def test_validation(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        MarketData(**kwargs)


def test_timestamps_in_many_forms() -> None:
    as_strings = MarketData([1.0, 2.0], timestamps=["2024-01-01", "2024-01-02"])
    as_dates = MarketData([1.0, 2.0], timestamps=[dt.date(2024, 1, 1), dt.date(2024, 1, 2)])
    np.testing.assert_array_equal(as_strings.timestamps, as_dates.timestamps)
    assert as_strings.is_datetime


# -- immutability ------------------------------------------------------------------------------


def test_arrays_are_read_only_copies(data: MarketData) -> None:
    source = np.ones((3, 2))
    built = MarketData(source)
    source[0, 0] = 5.0
    assert built.prices[0, 0] == 1.0  # a copy, not a view of the caller's array
    for array in [
        data.prices,
        data.mask,
        data.timestamps,
        data.field("volume"),
        data.exogenous_series("rate"),
        data.log_returns(),
    ]:
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    with pytest.raises(TypeError):
        data.fields["close"] = np.ones((30, 3))  # type: ignore[index]
    with pytest.raises(AttributeError, match="immutable"):
        data.price_field = "open"  # type: ignore[misc]
    assert copy.copy(data) is data and copy.deepcopy(data) is data


def test_pickles_by_value_and_stays_read_only(data: MarketData) -> None:
    restored = pickle.loads(pickle.dumps(data))
    assert restored is not data and not restored.is_shared
    for name in data.fields:
        np.testing.assert_array_equal(restored.field(name), data.field(name))
        assert not restored.field(name).flags.writeable
    np.testing.assert_array_equal(restored.timestamps, data.timestamps)
    np.testing.assert_array_equal(
        restored.exogenous_series("curve"), data.exogenous_series("curve")
    )
    assert restored.assets == data.assets and restored.warmup == data.warmup


# -- periods per year -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("timestamps", "expected"),
    [
        (np.arange("2024-01-01", "2024-03-01", dtype="M8[D]"), 365.0),  # calendar days
        (np.busday_offset("2024-01-01", np.arange(60), roll="forward"), 252.0),  # trading days
        (np.arange("2020-01", "2024-01", dtype="M8[M]").astype("M8[D]"), 12.0),
        (np.arange("2020-01-06", "2021-01-06", 7, dtype="M8[D]"), 52.0),
        (np.arange("2000", "2020", dtype="M8[Y]").astype("M8[D]"), 1.0),
        (np.arange(0, 24 * 40, dtype="M8[h]"), 365.25 * 24),  # hourly, 40 days
    ],
)
def test_periods_per_year_is_inferred(timestamps: np.ndarray, expected: float) -> None:
    data = MarketData(np.ones(len(timestamps)), timestamps=timestamps)
    assert data.periods_per_year == pytest.approx(expected, rel=1e-3)


def test_periods_per_year_of_real_daily_data(sp500: Any) -> None:
    data = MarketData.from_pandas(sp500["Adj Close"])
    assert data.periods_per_year == 252.0


# -- times and rows --------------------------------------------------------------------------------


def test_index_of_sides_and_time_forms(data: MarketData) -> None:
    assert data.index_of("2024-01-03") == 2
    assert data.index_of("2024-01-03", side="right") == 3
    assert data.index_of(np.datetime64("2024-01-03T12:00")) == 3
    assert data.index_of(dt.datetime(2024, 1, 3, tzinfo=dt.timezone.utc)) == 2
    assert data.index_of(Time(dt.date(2024, 1, 3))) == 2
    assert data.index_of("1999-01-01") == 0 and data.index_of("2099-01-01") == 30
    with pytest.raises(TypeError, match="stamped with dates"):
        data.index_of(3)
    with pytest.raises(ValueError, match="not an ISO date"):
        data.index_of("yesterday")
    with pytest.raises(ValueError, match="'left' or 'right'"):
        data.index_of("2024-01-03", side="middle")
    ints = MarketData(np.ones(5), timestamps=[10, 20, 30, 40, 50])
    assert ints.index_of(30) == 2 and ints.index_of(Time(31)) == 3
    with pytest.raises(TypeError, match="stamped with ints"):
        ints.index_of("2024-01-01")


def test_slicing_by_rows_and_by_times(data: MarketData) -> None:
    rows = data[5:10]
    assert rows.n_steps == 5 and rows.timestamps[0] == np.datetime64("2024-01-06")
    np.testing.assert_array_equal(rows.prices, data.prices[5:10])
    np.testing.assert_array_equal(
        rows.exogenous_series("curve"), data.exogenous_series("curve")[5:10]
    )
    np.testing.assert_array_equal(data[-3:].prices, data.prices[-3:])
    by_time = data["2024-01-06":"2024-01-11"]  # half-open: the 11th is excluded
    np.testing.assert_array_equal(by_time.timestamps, rows.timestamps)
    np.testing.assert_array_equal(data[Time("2024-01-06") :].prices, data.prices[5:])
    assert np.shares_memory(rows.prices, data.prices)  # views, no copy
    ints = MarketData(np.arange(1.0, 11.0), timestamps=np.arange(100, 110))
    np.testing.assert_array_equal(ints[Time(102) : Time(105)].timestamps, [102, 103, 104])
    np.testing.assert_array_equal(ints[2:5].timestamps, [102, 103, 104])
    with pytest.raises(TypeError, match="takes a slice"):
        data[3]  # type: ignore[index]
    with pytest.raises(ValueError, match="step must be 1"):
        data[::2]
    with pytest.raises(ValueError, match="selects no rows"):
        data[10:5]


def test_between_is_inclusive(data: MarketData) -> None:
    part = data.between("2024-01-06", "2024-01-10")
    assert part.n_steps == 5
    assert data.between(end="2024-01-01").n_steps == 1
    assert data.between(start="2024-01-30").n_steps == 1
    with pytest.raises(ValueError, match="selects no rows"):
        data.between("2025-01-01")


def test_slices_keep_the_warmup_rows_that_remain(make_panel: Any) -> None:
    data = make_panel(20, 1, warmup=5)
    assert data[2:].warmup == 3 and data[7:].warmup == 0 and data[:10].warmup == 5
    assert data[0:3].warmup == 2  # at most every row but one


def test_select_assets(data: MarketData) -> None:
    picked = data.select(["c", "a"])
    assert picked.assets == ("c", "a")
    np.testing.assert_array_equal(picked.prices, data.prices[:, [2, 0]])
    np.testing.assert_array_equal(picked.field("volume"), data.field("volume")[:, [2, 0]])
    np.testing.assert_array_equal(picked.exogenous_series("rate"), data.exogenous_series("rate"))
    assert not picked.prices.flags.writeable
    with pytest.raises(KeyError, match="no asset 'z'"):
        data.select(["z"])
    with pytest.raises(ValueError, match="each once"):
        data.select(["a", "a"])
    with pytest.raises(TypeError, match="sequence of labels"):
        data.select("a")


def test_log_returns_are_stamped_at_their_end(data: MarketData) -> None:
    returns = data.log_returns()
    assert np.isnan(returns[0]).all()
    np.testing.assert_allclose(returns[1:], np.log(data.prices[1:] / data.prices[:-1]))
    gaps = MarketData([[1.0, 1.0], [np.nan, 2.0], [4.0, 4.0]]).log_returns()
    assert np.isnan(gaps[1:, 0]).all()
    np.testing.assert_allclose(gaps[1:, 1], np.log([2.0, 2.0]))


def test_with_fields_and_exogenous(data: MarketData) -> None:
    more = data.with_fields(spread=np.full((30, 3), 0.01)).with_exogenous(vix=np.arange(30.0))
    assert set(more.fields) == {"close", "volume", "spread"} and "vix" in more.exogenous
    assert "spread" not in data.fields and "vix" not in data.exogenous  # data is unchanged
    assert np.shares_memory(more.prices, data.prices)
    halted = data.prices.copy()
    halted[3, 1] = np.nan
    repriced = data.with_fields(close=halted)
    assert not repriced.mask[3, 1] and data.mask[3, 1]
    with pytest.raises(ValueError, match=r"shape \(30, 3\)"):
        data.with_fields(spread=np.ones((30, 2)))
    with pytest.raises(ValueError, match="finite and > 0"):
        data.with_fields(close=-data.prices)
    with pytest.raises(ValueError, match=r"shape \(30,\) or \(30, k\)"):
        data.with_exogenous(vix=np.ones(3))


# -- splits ------------------------------------------------------------------------------------


def test_split_has_no_overlap_and_prepends_history(make_panel: Any) -> None:
    data = make_panel(100, 2)
    train, valid, test = data.split("2024-02-10", "2024-03-01", embargo=2, history=5)
    assert train.warmup == 0 and train.timestamps[-1] < np.datetime64("2024-02-10")
    # later pieces: 5 rows of warmup, then decision rows after the embargo
    assert valid.warmup == 5 and test.warmup == 5
    decision_valid = valid.timestamps[valid.warmup :]
    decision_test = test.timestamps[test.warmup :]
    assert decision_valid[0] == np.datetime64("2024-02-12")  # boundary + 2 embargoed rows
    assert decision_test[0] == np.datetime64("2024-03-03")
    assert decision_valid[-1] < np.datetime64("2024-03-01") <= decision_test[0]
    decision_sets = [
        set(train.timestamps[train.warmup :].tolist()),
        set(decision_valid.tolist()),
        set(decision_test.tolist()),
    ]
    assert all(not a & b for i, a in enumerate(decision_sets) for b in decision_sets[i + 1 :])
    # the history rows are the rows right before the decision rows
    np.testing.assert_array_equal(valid.prices, data.prices[data.index_of("2024-02-12") - 5 : 60])


def test_split_keeps_the_data_warmup(make_panel: Any) -> None:
    data = make_panel(50, 1, timestamps=np.arange(50), warmup=4)
    first, second = data.split(20)
    assert first.warmup == 4 and second.warmup == 4  # history defaults to the data's warmup
    assert second.timestamps[second.warmup] == 20


@pytest.mark.parametrize(
    ("boundaries", "match"),
    [
        ((), "at least one boundary"),
        ((10, 5), "increasing"),
        ((0,), "increasing"),
        ((99,), "increasing"),
    ],
)
def test_split_errors(make_panel: Any, boundaries: tuple[int, ...], match: str) -> None:
    data = make_panel(20, 1, timestamps=np.arange(20))
    with pytest.raises(ValueError, match=match):
        data.split(*boundaries)


@settings(max_examples=60, deadline=None)
@given(
    cuts=st.lists(st.integers(1, 79), min_size=1, max_size=4, unique=True).map(sorted),
    embargo=st.integers(0, 3),
    history=st.integers(0, 10),
    warmup=st.integers(0, 5),
)
def test_split_properties(cuts: list[int], embargo: int, history: int, warmup: int) -> None:
    data = MarketData(np.arange(1.0, 81.0), timestamps=np.arange(80) * 10, warmup=warmup)
    edges = [0, *cuts, 80]
    if any(
        b - a <= (embargo if i else warmup) for i, (a, b) in enumerate(itertools.pairwise(edges))
    ):
        with pytest.raises(ValueError, match=r"no decision row|increasing"):
            data.split(*[10 * c for c in cuts], embargo=embargo, history=history)
        return
    pieces = data.split(*[10 * c for c in cuts], embargo=embargo, history=history)
    assert len(pieces) == len(cuts) + 1
    previous_end = -1
    for i, piece in enumerate(pieces):
        decision = piece.prices[piece.warmup :, 0] - 1  # row numbers of the original data
        assert decision[0] > previous_end  # no overlap, in order
        assert decision[0] == (edges[i] + embargo if i else max(0, warmup))
        assert decision[-1] == edges[i + 1] - 1
        if i:
            assert piece.warmup == min(max(history, warmup), edges[i] + embargo)
        np.testing.assert_array_equal(np.diff(piece.prices[:, 0]), 1.0)  # contiguous rows
        previous_end = decision[-1]


def test_walk_forward_rolls_and_expands(make_panel: Any) -> None:
    data = make_panel(40, 1, timestamps=np.arange(40), warmup=2)
    folds = list(data.walk_forward(10, 5, embargo=1, history=3))
    starts = [
        (train.timestamps[train.warmup], test.timestamps[test.warmup]) for train, test in folds
    ]
    assert starts == [(2, 13), (7, 18), (12, 23), (17, 28), (22, 33)]
    for train, test in folds:
        assert train.n_steps - train.warmup == 10 and test.n_steps - test.warmup == 5
        assert test.warmup == 3
        assert test.timestamps[test.warmup] - train.timestamps[-1] == 2  # one embargoed row
    expanding = list(data.walk_forward(10, 5, step=10, expanding=True))
    assert [t.timestamps[t.warmup] for t, _ in expanding] == [2, 2, 2]
    assert [t.n_steps - t.warmup for t, _ in expanding] == [10, 20, 30]
    with pytest.raises(ValueError, match="one fold needs 43 rows"):
        data.walk_forward(30, 10, embargo=1)
    with pytest.raises(ValueError, match="test_size"):
        data.walk_forward(10, 0)
