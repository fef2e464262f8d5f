"""data.at(t): only rows stamped at or before t are visible; reading ahead raises.

Three kinds of checks: every accessor, one by one; the arrays returned share no
memory with the data (no view of the full array survives); and, with
hypothesis, that changing every row after t changes nothing seen at t, while
any index that would select a row after t raises LookAheadError.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.error import LookAheadError
from sekai.finance.data import MarketData, Past, PointInTime, Time

N_STEPS = 12


def make(n_steps: int = N_STEPS, n_assets: int = 2, seed: int = 0) -> MarketData:
    rng = np.random.default_rng(seed)
    prices = np.exp(rng.normal(0, 0.1, (n_steps, n_assets)).cumsum(axis=0)) * 100
    prices[4, 1] = np.nan  # a halt
    return MarketData(
        prices,
        fields={"volume": rng.integers(1, 100, (n_steps, n_assets)).astype(float)},
        timestamps=np.arange(n_steps) * 10,
        exogenous={"rate": np.arange(float(n_steps)), "curve": rng.normal(size=(n_steps, 3))},
    )


@pytest.fixture
def data() -> MarketData:
    return make()


def every_past(now: PointInTime) -> list[Past]:
    return [
        now.prices,
        now.field("volume"),
        now.field("close"),
        now.mask,
        now.timestamps,
        now.exogenous("rate"),
        now.exogenous("curve"),
    ]


# -- what is visible ---------------------------------------------------------------------------


def test_at_by_row_and_by_time(data: MarketData) -> None:
    assert data.at(5).index == 5 and data.at(5).time == 50
    assert data.at(-1).index == N_STEPS - 1
    assert data.at(Time(50)).index == 5 and data.at(Time(57)).index == 5  # as of: last row <= 57
    with pytest.raises(IndexError, match="outside the data's 12 rows"):
        data.at(N_STEPS)
    with pytest.raises(KeyError, match="no row is stamped at or before"):
        data.at(Time(-1))
    dated = MarketData([1.0, 2.0, 3.0], timestamps=["2024-01-01", "2024-01-02", "2024-01-05"])
    assert dated.at("2024-01-04").index == 1 and dated.at(np.datetime64("2024-01-05")).index == 2


def test_past_accessors_show_rows_up_to_t(data: MarketData) -> None:
    now = data.at(5)
    assert now.assets == data.assets and now.n_assets == 2 and "row=5" in repr(now)
    for past in every_past(now):
        full = {
            "prices": data.prices,
            "field('volume')": data.field("volume"),
            "field('close')": data.prices,
            "mask": data.mask,
            "timestamps": data.timestamps,
            "exogenous('rate')": data.exogenous_series("rate"),
            "exogenous('curve')": data.exogenous_series("curve"),
        }[past.name]
        assert len(past) == 6 and past.shape == (6, *full.shape[1:]) and past.ndim == full.ndim
        assert past.dtype == full.dtype and "rows 0..5" in repr(past)
        np.testing.assert_array_equal(past.latest, full[5])
        np.testing.assert_array_equal(past.window(3), full[3:6])
        np.testing.assert_array_equal(past.window(6), full[:6])
        np.testing.assert_array_equal(np.asarray(past), full[:6])
        np.testing.assert_array_equal(np.stack(list(past)), full[:6])  # iteration stops at t
        np.testing.assert_array_equal(past[:], full[:6])
        np.testing.assert_array_equal(past[-1], full[5])
        np.testing.assert_array_equal(past[-6], full[0])
        np.testing.assert_array_equal(past[2:5], full[2:5])
        np.testing.assert_array_equal(past[::-1], full[5::-1])
        np.testing.assert_array_equal(past[[0, 5, -2]], full[[0, 5, 4]])
        np.testing.assert_array_equal(past.asof(Time(37)), full[3])
        np.testing.assert_array_equal(past.between(10, 30), full[1:4])
        np.testing.assert_array_equal(past[Time(40)], full[4])
        with pytest.raises(ValueError, match=r"window\(7\) needs 7 rows up to row 5; only 6"):
            past.window(7)
    np.testing.assert_array_equal(now.available, data.mask[5])
    np.testing.assert_array_equal(data.at(4).available, [True, False])


def test_multi_axis_indexing(data: MarketData) -> None:
    now = data.at(5)
    np.testing.assert_array_equal(now.prices[:, 1], data.prices[:6, 1])
    np.testing.assert_array_equal(now.prices[..., 0], data.prices[:6, 0])
    assert now.prices[5, 0] == data.prices[5, 0]
    np.testing.assert_array_equal(
        now.exogenous("curve")[2:4, [0, 2]], data.exogenous_series("curve")[2:4, [0, 2]]
    )
    np.testing.assert_array_equal(now.exogenous("rate")[..., 3], 3.0)  # time axis behind ...
    np.testing.assert_array_equal(now.prices[None, 5], data.prices[None, 5])
    mask = data.mask[:6]
    np.testing.assert_array_equal(now.prices[mask], data.prices[:6][mask])


def test_window_into_a_buffer(data: MarketData) -> None:
    buffer = np.zeros((4, 2))
    assert data.at(5).prices.window(4, out=buffer) is buffer
    np.testing.assert_array_equal(buffer, data.prices[2:6])


def test_log_returns_and_execution(data: MarketData) -> None:
    now = data.at(6)
    returns = now.log_returns(3)
    np.testing.assert_allclose(returns, np.log(data.prices[4:7] / data.prices[3:6]))
    assert np.isnan(returns[0, 1]) and np.isnan(returns[1, 1])  # the halt at row 4
    np.testing.assert_array_equal(now.log_returns(6), data.log_returns()[1:7])
    with pytest.raises(ValueError, match="needs rows -1 to 6"):
        now.log_returns(7)
    np.testing.assert_array_equal(now.execution_price(), data.prices[7])
    np.testing.assert_array_equal(now.execution_price("volume"), data.field("volume")[7])
    assert now.execution_time == 70 and now.has_next
    last = data.at(-1)
    assert not last.has_next
    with pytest.raises(IndexError, match="is the last"):
        last.execution_price()
    with pytest.raises(IndexError, match="is the last"):
        _ = last.execution_time
    assert now.advance().index == 7 and now.advance(0).index == 6
    with pytest.raises(IndexError, match="leaves the data"):
        now.advance(6)


# -- reading ahead ---------------------------------------------------------------------------


AHEAD = [
    6,
    11,
    np.int64(7),
    slice(0, 7),
    slice(6, None),
    slice(3, 100),
    slice(6, 6),
    slice(8, 2, -1),
    slice(None, 6, -1),
    [1, 6],
    np.array([0, 9]),
    (6, 0),
    (slice(2, 8), 1),
    Time(60),
    Time(1000),
]


@pytest.mark.parametrize("key", AHEAD, ids=repr)
def test_indexing_ahead_raises(data: MarketData, key: Any) -> None:
    for past in every_past(data.at(5)):
        if isinstance(key, tuple) and past.ndim == 1:
            continue
        with pytest.raises(LookAheadError, match="after the decision row 5"):
            past[key]


def test_masks_asof_and_between_ahead_raise(data: MarketData) -> None:
    past = data.at(5).prices
    long_mask = np.zeros(N_STEPS, bool)
    long_mask[[1, 8]] = True
    with pytest.raises(LookAheadError):
        past[long_mask]
    long_mask[8] = False
    np.testing.assert_array_equal(past[long_mask], data.prices[[1]])  # nothing ahead: fine
    with pytest.raises(LookAheadError):
        past.asof(Time(51))
    with pytest.raises(LookAheadError):
        past.between(0, 60)
    with pytest.raises(LookAheadError):
        data.at(5).exogenous("rate")[..., 6]
    with pytest.raises(KeyError, match="no row is stamped at or before"):
        past.asof(-5)


def test_too_far_back_is_an_index_error_not_a_wrap_into_the_future(data: MarketData) -> None:
    past = data.at(5).prices
    with pytest.raises(IndexError):
        past[-7]  # on the full array, -7 would be row 5 - fine, but here it is before row 0
    with pytest.raises(IndexError):
        past[np.array([-7])]
    np.testing.assert_array_equal(past[-100:], data.prices[:6])  # slices clip, as in numpy


def test_bad_keys_are_type_errors(data: MarketData) -> None:
    past = data.at(5).prices
    for key in [1.5, "a", slice(Time(0), Time(30)), slice(0.0, 2.0)]:
        with pytest.raises(TypeError):
            past[key]


# -- no path to the future ---------------------------------------------------------------------


def results(now: PointInTime) -> list[Any]:
    out: list[Any] = []
    for past in every_past(now):
        out += [past.latest, past.window(2), past[:], past[1:3], past[[0, 1]], past[-1]]
        out += [np.asarray(past), past.asof(Time(20)), past.between(0, 20), *list(past)]
    out += [now.available, now.log_returns(2), now.execution_price()]
    return out


def test_returned_arrays_are_read_only_copies(data: MarketData) -> None:
    arrays = [value for value in results(data.at(5)) if isinstance(value, np.ndarray)]
    assert len(arrays) > 60
    sources = [*data.fields.values(), data.mask, data.timestamps, *data.exogenous.values()]
    for array in arrays:
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
        assert array.base is None or (array.base.base is None and array.base.size <= 6 * 3)
        assert not any(np.shares_memory(array, source) for source in sources)


def test_shared_data_gives_copies_too(data: MarketData) -> None:
    with data.share() as shared:
        for array in results(shared.at(5)):
            if isinstance(array, np.ndarray):
                assert not np.shares_memory(array, shared.prices)
                assert not np.shares_memory(array, shared.exogenous_series("curve"))


def test_point_in_time_hides_the_data(data: MarketData) -> None:
    now = data.at(5)
    public = {name for name in dir(now) if not name.startswith("_")}
    assert public == {
        "advance", "agent_view", "assets", "available", "execution_price", "execution_time",
        "exogenous", "field", "has_next", "index", "is_agent_view", "log_returns", "mask",
        "n_assets", "prices", "time", "timestamps",
    }  # fmt: skip
    assert {name for name in dir(now.prices) if not name.startswith("_")} == {
        "asof", "between", "dtype", "latest", "name", "ndim", "shape", "window",
    }  # fmt: skip


# -- properties --------------------------------------------------------------------------------

index_keys = st.one_of(
    st.integers(-15, 15),
    st.builds(
        slice,
        st.none() | st.integers(-15, 15),
        st.none() | st.integers(-15, 15),
        st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]),
    ),
    st.lists(st.integers(-15, 15), min_size=1, max_size=4),
)


def snapshot(data: MarketData, t: int, key: Any, length: int) -> list[Any]:
    """Everything read at t (errors included), for comparing two datasets."""
    now = data.at(t)
    seen: list[Any] = []
    for read in [
        lambda: now.prices[key],
        lambda: now.field("volume")[key],
        lambda: now.mask[key],
        lambda: now.exogenous("curve")[key],
        lambda: now.timestamps[key],
        lambda: now.prices.window(length),
        lambda: now.exogenous("rate").window(length),
        lambda: now.log_returns(length),
        lambda: now.prices.latest,
        lambda: now.available,
        lambda: now.prices.asof(Time(10 * length + 3)),
        lambda: now.prices.between(Time(10 * (t - length)), Time(10 * t)),
        lambda: np.asarray(now.field("volume")),
    ]:
        try:
            seen.append(np.asarray(read()))
        except (LookAheadError, IndexError, ValueError, KeyError) as error:
            seen.append(type(error))
    return seen


@settings(max_examples=300, deadline=None)
@given(
    t=st.integers(0, N_STEPS - 1),
    key=index_keys,
    length=st.integers(1, 14),
    seed=st.integers(0, 99),
)
def test_changing_the_future_changes_nothing_seen(t: int, key: Any, length: int, seed: int) -> None:
    data = make(seed=1)
    rng = np.random.default_rng(seed)
    future = slice(t + 1, None)
    prices = data.prices.copy()
    prices[future] *= np.exp(rng.normal(0, 1, prices[future].shape))
    prices[future][rng.random(prices[future].shape) < 0.3] = np.nan
    volume = data.field("volume").copy()
    volume[future] = rng.normal(size=volume[future].shape)
    curve = data.exogenous_series("curve").copy()
    curve[future] = rng.normal(size=curve[future].shape)
    rate = data.exogenous_series("rate").copy()
    rate[future] = -1.0
    other = MarketData(
        prices,
        fields={"volume": volume},
        timestamps=data.timestamps,
        exogenous={"rate": rate, "curve": curve},
    )
    for a, b in zip(snapshot(data, t, key, length), snapshot(other, t, key, length), strict=True):
        if isinstance(a, type) or isinstance(b, type):
            assert a is b
        else:
            np.testing.assert_array_equal(a, b)


def rows_named(key: Any, t: int) -> np.ndarray:
    """The rows of the full data a key names at time t (negative indices count back
    from t, open ends stop at t); a row < 0 is before the data."""
    if isinstance(key, (int, list)):
        return np.array([k + t + 1 if k < 0 else k for k in np.atleast_1d(key).tolist()])
    step = key.step or 1

    def resolve(bound: int | None) -> int | None:
        return None if bound is None else bound + t + 1 if bound < 0 else bound

    start, stop = resolve(key.start), resolve(key.stop)
    if step > 0:
        start = 0 if start is None else max(start, 0)
        stop = t + 1 if stop is None else max(stop, 0)
    else:
        start = t if start is None else start
        stop = -1 if stop is None else max(stop, -1)
    return np.arange(start, stop, step)


@settings(max_examples=400, deadline=None)
@given(t=st.integers(0, N_STEPS - 1), key=index_keys)
def test_a_key_reaching_ahead_raises_else_reads_the_rows_it_names(t: int, key: Any) -> None:
    data = make()
    past = data.at(t).prices
    rows = rows_named(key, t)
    if rows.size and rows.max() > t:
        with pytest.raises(LookAheadError):
            past[key]
        return
    if rows.size and rows.min() < 0:
        with pytest.raises(IndexError):
            past[key]
        return
    try:
        got = past[key]
    except LookAheadError:
        # an empty selection, but named with a bound after t: refused all the same
        assert isinstance(key, slice) and not rows.size
        assert max(key.start or 0, key.stop or 0) > t
        return
    expected = data.prices[rows[0]] if isinstance(key, int) else data.prices[rows]
    np.testing.assert_array_equal(got, expected)
