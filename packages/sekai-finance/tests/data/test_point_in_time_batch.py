"""PointInTimeBatch: one guarded decision row per sub-env, equal to data.at(row) bit for bit."""

from __future__ import annotations

import doctest
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.finance.data import MarketData, PastBatch, PointInTime, PointInTimeBatch


def same_bits(a: Any, b: Any) -> bool:
    """Equal dtype, shape and bytes: NaN payloads and signed zeros included."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_copy(result: np.ndarray, *arrays: np.ndarray) -> None:
    """A read-only array that shares no memory with the data's arrays."""
    assert not result.flags.writeable
    for array in arrays:
        assert not np.shares_memory(result, array)


@st.composite
def panels(draw: st.DrawFn) -> dict[str, Any]:
    """Prices with NaN gaps, extra fields, int or date stamps, and some layout."""
    n_steps = draw(st.integers(2, 30))
    n_assets = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    prices = 100 * np.exp(rng.normal(0, 0.05, (n_steps, n_assets)).cumsum(axis=0))
    prices[rng.random(prices.shape) < draw(st.sampled_from([0.0, 0.1, 0.4]))] = np.nan
    fields = {
        f"f{k}": np.where(rng.random(prices.shape) < 0.1, np.nan, rng.normal(size=prices.shape))
        for k in range(draw(st.integers(0, 2)))
    }
    exogenous = {}
    for k, width in enumerate(draw(st.lists(st.sampled_from([0, 1, 3]), max_size=2))):
        series = rng.normal(size=(n_steps,) if width == 0 else (n_steps, width))
        series[rng.random(series.shape) < 0.1] = np.nan
        if width and draw(st.booleans()):
            series = np.asfortranarray(series)  # a layout the windows must not depend on
        exogenous[f"x{k}"] = series  # width 0: a 1-D series
    gaps = rng.integers(1, 5, n_steps).cumsum()
    kind = draw(st.sampled_from(["int", "day", "second"]))
    if kind == "int":
        timestamps: Any = gaps - 3
    else:
        timestamps = np.datetime64("2024-01-01", "s") + gaps * np.timedelta64(
            1, "D" if kind == "day" else "s"
        )
    if draw(st.booleans()):
        prices = np.asfortranarray(prices)  # a layout the log returns must not depend on
    n = draw(st.integers(1, 8))
    length = draw(st.integers(1, n_steps))
    # Mostly rows every read accepts (a full window, a next row), sometimes any row.
    low = min(length, n_steps - 2) if draw(st.integers(0, 3)) else 0
    high = n_steps - 1 if draw(st.integers(0, 3)) else n_steps
    rows = rng.integers(low, max(high, low + 1), n)
    return {
        "prices": prices,
        "fields": fields,
        "exogenous": exogenous,
        "timestamps": timestamps,
        "rows": rows,
        "length": length,
    }


def check_against(batch: PointInTimeBatch, now: list[PointInTime], panel: dict[str, Any]) -> None:
    """Every read of the batch equals, for each sub-env i, what now[i] shows."""
    rows, length = panel["rows"], panel["length"]
    assert len(batch) == len(rows) and same_bits(batch.index, rows.astype(np.intp))
    assert batch.n_assets == now[0].n_assets and batch.assets == now[0].assets
    assert same_bits(batch.time, np.array([pit.time for pit in now]))
    readers = [("prices", batch.prices, lambda pit: pit.prices)]
    readers.append(("mask", batch.mask, lambda pit: pit.mask))
    for name in panel["fields"]:
        readers.append((name, batch.field(name), lambda pit, name=name: pit.field(name)))
    for name in panel["exogenous"]:
        readers.append((name, batch.exogenous(name), lambda pit, name=name: pit.exogenous(name)))
    for _name, past, of in readers:
        latest = past.latest()
        # An exogenous series of shape (n_steps,) reads scalars alone, rows of width 1 batched.
        expected_latest = [np.reshape(of(pit).latest, latest.shape[1:]) for pit in now]
        assert all(same_bits(latest[i], e) for i, e in enumerate(expected_latest))
        out = np.full(latest.shape, 7, latest.dtype)
        assert past.latest(out=out) is out and same_bits(out, latest)
        if rows.min() >= length - 1:
            window = past.window(length)
            expected = [of(pit).window(length).reshape(length, -1) for pit in now]
            assert all(same_bits(window[i], w) for i, w in enumerate(expected))
            out = np.empty(window.shape, window.dtype)
            assert past.window(length, out=out) is out and same_bits(out, window)
        else:
            with pytest.raises(ValueError, match=r"window\(\d+\): sub-env \d+ is at row"):
                past.window(length)
    if rows.min() >= length:
        returns = batch.log_returns(length)
        expected = [pit.log_returns(length) for pit in now]
        assert all(same_bits(returns[i], r) for i, r in enumerate(expected))
        out = np.empty(returns.shape)
        assert batch.log_returns(length, out=out) is out and same_bits(out, returns)
    else:
        with pytest.raises(ValueError, match=r"log_returns\(\d+\): sub-env \d+ is at row"):
            batch.log_returns(length)
    if all(pit.has_next for pit in now):
        price = batch.execution_price()
        assert all(same_bits(price[i], pit.execution_price()) for i, pit in enumerate(now))
        for name in panel["fields"]:
            price = batch.execution_price(name)
            expected = [pit.execution_price(name) for pit in now]
            assert all(same_bits(price[i], p) for i, p in enumerate(expected))
        assert same_bits(batch.execution_time, np.array([pit.execution_time for pit in now]))
    else:
        with pytest.raises(IndexError, match=r"is at row \d+, the last"):
            batch.execution_price()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(panels())
def test_at_rows_reads_what_at_shows(panel: dict[str, Any]) -> None:
    data = MarketData(
        panel["prices"],
        fields=panel["fields"],
        timestamps=panel["timestamps"],
        exogenous=panel["exogenous"],
    )
    batch = data.at_rows(panel["rows"])
    check_against(batch, [data.at(int(row)) for row in panel["rows"]], panel)
    tables = [data.prices, data.mask, data._log_return_table(), *data.fields.values()]
    tables += data.exogenous.values()
    for result in (batch.prices.latest(), batch.mask.latest(), batch.time, batch.index):
        assert_copy(result, *tables)
    for name in panel["exogenous"]:
        assert_copy(batch.exogenous(name).latest(), *tables)
        assert_copy(batch.exogenous(name).window(1), *tables)
    if panel["rows"].min() >= panel["length"]:
        assert_copy(batch.log_returns(panel["length"]), *tables)
        assert_copy(batch.prices.window(panel["length"]), *tables)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(panels(), st.booleans(), st.integers(0, 2**32 - 1))
def test_of_paths_reads_what_each_path_shows(
    panel: dict[str, Any], masked: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    n = len(panel["rows"])
    shape = (n, *panel["prices"].shape)
    prices = 100 * np.exp(rng.normal(0, 0.05, shape).cumsum(axis=1))
    prices[rng.random(shape) < 0.1] = np.nan
    fields = {name: rng.normal(size=shape) for name in panel["fields"]}
    mask = rng.random(shape) < 0.8 if masked else None
    # Each path's own series (n, n_steps[, width]), or one for all (a first axis of 1).
    exogenous = {
        name: np.stack([series * (1 + i) for i in range(n)]) if i_own else series[None]
        for (name, series), i_own in zip(
            panel["exogenous"].items(), rng.random(len(panel["exogenous"])) < 0.5, strict=True
        )
    }
    batch = PointInTimeBatch.of_paths(
        prices,
        panel["rows"],
        timestamps=panel["timestamps"],
        fields=fields,
        mask=mask,
        exogenous=exogenous,
    )
    seen = prices if mask is None else np.where(mask, prices, np.nan)
    now = [
        MarketData(
            seen[i],
            fields={name: table[i] for name, table in fields.items()},
            timestamps=panel["timestamps"],
            exogenous={name: series[min(i, len(series) - 1)] for name, series in exogenous.items()},
        ).at(int(row))
        for i, row in enumerate(panel["rows"])
    ]
    check_against(batch, now, panel)


def test_the_row_numbers_stamp_paths_by_default() -> None:
    batch = PointInTimeBatch.of_paths(np.ones((3, 5)), [0, 2, 4])
    assert batch.time.tolist() == [0, 2, 4] and batch.time.dtype == np.int64
    assert batch.n_assets == 1 and batch.assets == (0,)
    assert batch.prices.latest().shape == (3, 1)


def test_advance_and_with_rows_read_the_same_data() -> None:
    data = MarketData(np.arange(1.0, 21.0).reshape(10, 2), timestamps=np.arange(10) * 10)
    batch = data.at_rows(np.array([2, 5, 7]))
    later = batch.advance(2)
    assert later.index.tolist() == [4, 7, 9] and batch.index.tolist() == [2, 5, 7]
    assert same_bits(later.prices.latest(), data.at_rows([4, 7, 9]).prices.latest())
    assert same_bits(later.time, np.array([40, 70, 90]))
    assert batch.advance(0).index.tolist() == [2, 5, 7]
    moved = batch.with_rows([0, 1, 9, 9])
    assert len(moved) == 4 and moved.prices.latest()[:, 0].tolist() == [1.0, 3.0, 19.0, 19.0]
    assert batch.log_returns(2).shape == (3, 2, 2)  # the earlier batch is unchanged
    paths = PointInTimeBatch.of_paths(np.arange(1.0, 13.0).reshape(2, 6), [0, 3])
    assert paths.advance().prices.latest()[:, 0].tolist() == [2.0, 11.0]
    assert paths.with_rows([5, 0]).prices.latest()[:, 0].tolist() == [6.0, 7.0]


def test_rows_are_copied_and_read_only() -> None:
    data = MarketData(np.arange(1.0, 11.0))
    rows = np.array([3, 4])
    batch = data.at_rows(rows)
    rows[0] = 9  # the caller's array: the batch kept its own rows
    assert batch.index.tolist() == [3, 4]
    index = batch.index
    assert index.dtype == np.intp and not index.flags.writeable
    assert data.at_rows(np.array([1, 2], dtype=np.uint8)).index.dtype == np.intp
    assert data.at_rows([1, 2]).index.tolist() == [1, 2]
    empty = data.at_rows(np.array([], dtype=np.int64))
    assert len(empty) == 0 and empty.log_returns(3).shape == (0, 3, 1)
    assert "0 sub-envs" in repr(empty) and "rows 3..4" in repr(batch)


def test_out_is_written_and_returned() -> None:
    data = MarketData(np.arange(1.0, 21.0).reshape(10, 2), fields={"v": np.ones((10, 2))})
    batch = data.at_rows([3, 6])
    out = np.zeros((2, 3, 2), dtype=np.float32)  # cast: numpy's same-kind rule
    assert batch.prices.window(3, out=out) is out and out.flags.writeable
    assert out[1, :, 0].tolist() == [9.0, 11.0, 13.0]
    strided = np.zeros((2, 4))[:, ::2]  # not contiguous
    assert batch.execution_price(out=strided) is strided
    assert strided[:, 0].tolist() == [9.0, 15.0]
    mask = np.zeros((2, 2), dtype=bool)
    assert batch.mask.latest(out=mask) is mask and mask.all()
    with pytest.raises(ValueError, match=r"out must be an array of shape \(2, 3, 2\), got shape"):
        batch.log_returns(3, out=np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"prices.latest: out must be an array of shape \(2, 2\)"):
        batch.prices.latest(out=[[0.0, 0.0], [0.0, 0.0]])  # type: ignore[arg-type]


def test_bad_rows_name_the_first() -> None:
    data = MarketData(np.ones(5))
    with pytest.raises(ValueError, match=r"at_rows: row -1 of sub-env 1 is outside the data's 5"):
        data.at_rows([0, -1, 7])
    with pytest.raises(ValueError, match=r"row 5 of sub-env 2 is outside"):
        data.at_rows(np.array([0, 4, 5], dtype=np.uint64))
    with pytest.raises(TypeError, match="rows must be ints"):
        data.at_rows([0.0, 1.0])
    with pytest.raises(TypeError, match="rows must be ints"):
        data.at_rows(np.array([True]))
    with pytest.raises(ValueError, match=r"rows must have shape \(n,\), got shape \(1, 2\)"):
        data.at_rows([[0, 1]])
    with pytest.raises(ValueError, match=r"with_rows: row 9 of sub-env 0"):
        data.at_rows([0]).with_rows([9])


def test_reads_before_row_0_name_the_sub_env() -> None:
    batch = MarketData(np.arange(1.0, 11.0)).at_rows([5, 1, 0])
    with pytest.raises(ValueError, match=r"prices.window\(3\): sub-env 1 is at row 1, so its "):
        batch.prices.window(3)
    with pytest.raises(ValueError, match=r"log_returns\(1\): sub-env 2 is at row 0 and needs"):
        batch.log_returns(1)
    with pytest.raises(ValueError, match=r"field\('close'\)\.window\(2\): sub-env 2"):
        batch.field("close").window(2)
    with pytest.raises(ValueError, match="length must be"):
        batch.prices.window(0)
    with pytest.raises(ValueError, match="length must be"):
        batch.log_returns(-1)
    assert batch.prices.window(1).shape == (3, 1, 1)


def test_the_last_row_cannot_execute() -> None:
    batch = MarketData(np.arange(1.0, 6.0)).at_rows([1, 4, 4])
    with pytest.raises(IndexError, match=r"execution_price\(\): sub-env 1 is at row 4, the last"):
        batch.execution_price()
    with pytest.raises(IndexError, match="execution_time: sub-env 1 is at row 4"):
        _ = batch.execution_time
    with pytest.raises(IndexError, match=r"advance\(1\): sub-env 1 at row 4 would leave"):
        batch.advance()
    with pytest.raises(IndexError, match=r"advance\(4\): sub-env 0 at row 1"):
        batch.with_rows([1]).advance(4)
    with pytest.raises(ValueError, match="steps must be"):
        batch.advance(-1)
    assert batch.with_rows([1, 3]).execution_price()[:, 0].tolist() == [3.0, 5.0]


def test_unknown_fields_raise_key_error() -> None:
    batch = MarketData(np.ones(4), fields={"volume": np.zeros(4)}).at_rows([1])
    with pytest.raises(KeyError, match="no field 'open'"):
        batch.field("open")
    with pytest.raises(KeyError, match="no field 'open'"):
        batch.execution_price("open")
    paths = PointInTimeBatch.of_paths(np.ones((1, 4)), [1], fields={"volume": np.ones((1, 4))})
    with pytest.raises(KeyError, match=r"PointInTimeBatch: no field 'open'; fields: \['close'"):
        paths.field("open")
    assert paths.field("volume").latest().tolist() == [[1.0]]


def test_of_paths_errors() -> None:
    of_paths = PointInTimeBatch.of_paths
    with pytest.raises(ValueError, match=r"prices must have shape \(n, n_steps, n_assets\)"):
        of_paths(np.ones(4), [0])
    with pytest.raises(ValueError, match="no empty axis"):
        of_paths(np.ones((2, 0, 1)), [0, 0])
    with pytest.raises(TypeError, match="prices must be an array of numbers"):
        of_paths("abc", [0])
    with pytest.raises(ValueError, match=r"got -1.0 in path 1 at row 2, asset column 0"):
        of_paths(np.array([[1.0, 1, 1], [1, 1, -1]]), [0, 0])
    with pytest.raises(ValueError, match=r"rows must hold one row per path \(2\), got 3"):
        of_paths(np.ones((2, 3)), [0, 0, 0])
    with pytest.raises(ValueError, match=r"mask must be a bool array shaped like prices"):
        of_paths(np.ones((2, 3)), [0, 0], mask=np.ones((2, 3)))
    with pytest.raises(ValueError, match="given twice"):
        of_paths(np.ones((2, 3)), [0, 0], fields={"close": np.ones((2, 3))})
    with pytest.raises(TypeError, match="field names must be str"):
        of_paths(np.ones((2, 3)), [0, 0], fields={1: np.ones((2, 3))})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="fields must be a mapping"):
        of_paths(np.ones((2, 3)), [0, 0], fields=[np.ones((2, 3))])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"field 'v' must have shape \(2, 3, 1\)"):
        of_paths(np.ones((2, 3)), [0, 0], fields={"v": np.ones((2, 4))})
    with pytest.raises(ValueError, match=r"of_paths: timestamps must be strictly increasing"):
        of_paths(np.ones((2, 3)), [0, 0], timestamps=[0, 2, 1])
    with pytest.raises(ValueError, match=r"of_paths: timestamps must have shape \(3,\)"):
        of_paths(np.ones((2, 3)), [0, 0], timestamps=[0, 1])
    with pytest.raises(ValueError, match="row 3 of sub-env 1 is outside"):
        of_paths(np.ones((2, 3)), [0, 3])
    with pytest.raises(ValueError, match=r"with_rows: rows must hold one row per path \(2\)"):
        of_paths(np.ones((2, 3)), [0, 0]).with_rows([0])


def test_a_mask_hides_prices_as_missing() -> None:
    prices = np.array([[[1.0, 2.0], [3.0, 4.0]]])
    batch = PointInTimeBatch.of_paths(prices, [1], mask=np.array([[[True, False], [True, True]]]))
    assert batch.mask.window(2).tolist() == [[[True, False], [True, True]]]
    assert np.isnan(batch.log_returns(1)[0, 0, 1]) and batch.log_returns(1)[0, 0, 0] > 0
    one_asset = PointInTimeBatch.of_paths(
        np.ones((1, 3)), [0], mask=np.array([[False, True, True]])
    )
    assert one_asset.mask.latest().tolist() == [[False]]


def test_paths_are_copied() -> None:
    prices = np.ones((2, 4))
    batch = PointInTimeBatch.of_paths(prices, [1, 1])
    prices[:] = 5.0
    assert batch.prices.latest().tolist() == [[1.0], [1.0]]


def test_the_log_return_table_is_cached_on_the_instance_only() -> None:
    data = MarketData(np.arange(1.0, 11.0).reshape(5, 2))
    table = data._log_return_table()
    assert data._log_return_table() is table and not table.flags.writeable
    assert same_bits(table, data.log_returns())
    assert len(pickle.dumps(data)) == len(pickle.dumps(MarketData(data.prices)))
    assert pickle.loads(pickle.dumps(data))._log_return_cache is None
    assert data[1:]._log_return_cache is None
    assert data.with_fields(volume=np.ones((5, 2)))._log_return_cache is None
    assert data != MarketData(data.prices) and data == data  # identity, as before


def test_repr_and_names() -> None:
    batch = MarketData(np.ones(4)).at_rows([1, 2])
    assert repr(batch) == "PointInTimeBatch(2 sub-envs, rows 1..2)"
    past = batch.field("close")
    assert isinstance(past, PastBatch) and len(past) == 2
    assert repr(past) == "PastBatch(field('close'), 2 sub-envs)"
    assert PointInTimeBatch(MarketData(np.ones(4)), [3]).index.tolist() == [3]


def test_method_examples_run() -> None:
    """Examples of methods: the docs' doctest finder only sees those of the classes."""
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    members = [MarketData.at_rows, *vars(PointInTimeBatch).values(), *vars(PastBatch).values()]
    for member in members:
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if callable(member) or isinstance(member, property):
            for test in finder.find(member, "example", globs={}):
                runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 4


# -- replacing paths ---------------------------------------------------------------------------


def every_read(batch: PointInTimeBatch, length: int) -> list[Any]:
    """Every read of ``batch`` (an error as its type and message), in a fixed order."""
    source = batch._source
    names = [name for name in source._fields if name != "close"]  # type: ignore[attr-defined]
    pasts = [batch.prices, batch.mask, *(batch.field(name) for name in names)]
    pasts += [batch.exogenous(name) for name in source._exogenous]  # type: ignore[attr-defined]
    reads: list[Any] = [lambda: batch.index, lambda: batch.time, lambda: batch.execution_time]
    for past in pasts:
        reads += [past.latest, lambda past=past: past.window(length)]
    reads += [lambda: batch.log_returns(length), batch.execution_price]
    reads += [lambda name=name: batch.execution_price(name) for name in names]
    results = []
    for read in reads:
        try:
            results.append(read())
        except (IndexError, ValueError) as error:
            results.append((type(error), str(error)))
    return results


def same_reads(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(
        x == y if isinstance(x, tuple) else same_bits(x, y) for x, y in zip(a, b, strict=True)
    )


@st.composite
def path_updates(draw: st.DrawFn) -> dict[str, Any]:
    """A panel of paths with fields and exogenous series, and replacements of some of them."""
    n = draw(st.integers(1, 6))
    updates = draw(
        st.lists(
            st.tuples(
                st.lists(st.integers(0, n - 1), unique=True, max_size=n),
                st.booleans(),  # with a mask
                st.booleans(),  # exogenous series given with a first axis of 1
            ),
            max_size=5,
        )
    )
    return {
        "n": n,
        "n_steps": draw(st.integers(2, 12)),
        "n_assets": draw(st.integers(1, 3)),
        "fields": draw(st.integers(0, 2)),
        "widths": draw(st.lists(st.integers(0, 2), max_size=2)),  # 0: series of shape (n_steps,)
        "seed": draw(st.integers(0, 2**32 - 1)),
        "updates": updates,
    }


def random_paths(
    rng: np.random.Generator, k: int, case: dict[str, Any], shared: bool = False
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``k`` paths of prices (NaN gaps), their fields and their exogenous series."""
    shape = (k, case["n_steps"], case["n_assets"])
    prices = 100 * np.exp(rng.normal(0, 0.05, shape).cumsum(axis=1))
    prices[rng.random(shape) < 0.1] = np.nan
    fields = {f"f{j}": rng.normal(size=shape) for j in range(case["fields"])}
    exogenous = {}
    for j, width in enumerate(case["widths"]):
        size = (1 if shared else k, case["n_steps"], *([width] if width else []))
        exogenous[f"x{j}"] = rng.normal(size=size)
    return prices, fields, exogenous


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path_updates())
def test_with_paths_reads_what_of_paths_over_the_new_paths_shows(case: dict[str, Any]) -> None:
    rng = np.random.default_rng(case["seed"])
    n, n_steps = case["n"], case["n_steps"]
    prices, fields, exogenous = random_paths(rng, n, case)
    rows = rng.integers(0, n_steps, n)
    length = int(rng.integers(1, n_steps + 1))
    batch = PointInTimeBatch.of_paths(prices, rows, fields=fields, exogenous=exogenous)
    for indices, masked, shared in case["updates"]:
        k = len(indices)
        new, new_fields, new_exogenous = random_paths(rng, k, case, shared)
        mask = rng.random(new.shape) < 0.8 if masked else None
        given = new[..., 0] if case["n_assets"] == 1 and masked else new  # (k, n_steps) too
        before = batch.advance(0)
        batch = batch.with_paths(
            np.array(indices, dtype=np.int64),
            given,
            fields=new_fields,
            mask=mask,
            exogenous=new_exogenous,
        )
        prices[indices] = new if mask is None else np.where(mask, new, np.nan)
        for name, table in new_fields.items():
            fields[name][indices] = table
        for name, series in new_exogenous.items():
            exogenous[name][indices] = series
        with pytest.raises(RuntimeError, match="built before with_paths replaced"):
            before.prices.latest()
        fresh = PointInTimeBatch.of_paths(prices, rows, fields=fields, exogenous=exogenous)
        assert same_reads(every_read(batch, length), every_read(fresh, length))
        later = rng.integers(0, n_steps, n)  # batches built from the new one read the same
        assert same_reads(
            every_read(batch.with_rows(later), length), every_read(fresh.with_rows(later), length)
        )


def reads_of_paths(batch: PointInTimeBatch) -> list[Callable[[], object]]:
    """Every read of a batch that reaches its paths."""
    return [
        lambda: batch.prices,
        lambda: batch.mask,
        lambda: batch.field("v"),
        lambda: batch.exogenous("x"),
        lambda: batch.log_returns(1),
        batch.execution_price,
        lambda: batch.with_paths([0], np.ones((1, 8)), fields={"v": np.ones((1, 8))}),
    ]


def test_with_paths_costs_the_new_paths_and_retires_the_old_batches() -> None:
    prices = np.arange(1.0, 25.0).reshape(3, 8)
    rate = {"x": np.ones((1, 8))}
    batch = PointInTimeBatch.of_paths(
        prices, [2, 3, 4], fields={"v": prices * 2}, exogenous={"x": np.ones((3, 8))}
    )
    later = batch.advance()
    fresh = batch.with_paths([2], [np.full(8, 5.0)], fields={"v": np.ones((1, 8))}, exogenous=rate)
    assert fresh.index.tolist() == [2, 3, 4]  # the decision rows are kept
    assert fresh.prices.latest()[:, 0].tolist() == [3.0, 12.0, 5.0]
    assert fresh.field("v").latest()[:, 0].tolist() == [6.0, 24.0, 1.0]
    assert fresh.log_returns(1)[2, 0, 0] == 0.0
    for stale in (batch, later):
        assert stale.index.tolist() and len(stale.time)  # rows and times stay readable
        for read in reads_of_paths(stale):
            with pytest.raises(RuntimeError, match="read the batch with_paths returned"):
                read()
    empty = np.ones((0, 8))
    assert len(fresh.advance().with_paths([], empty, fields={"v": empty}, exogenous=rate)) == 3


def test_with_paths_checks_the_new_paths_and_changes_nothing_when_it_raises() -> None:
    batch = PointInTimeBatch.of_paths(
        np.ones((3, 4, 2)),
        [1, 1, 1],
        fields={"v": np.ones((3, 4, 2))},
        exogenous={"x": np.ones((1, 4))},
    )
    new, one = np.ones((1, 4, 2)), {"v": np.ones((1, 4, 2))}
    exogenous = {"x": np.ones((1, 4))}

    def replace(*args: Any, **kwargs: Any) -> PointInTimeBatch:
        kwargs = {"fields": one, "exogenous": exogenous, **kwargs}
        return batch.with_paths(*args, **kwargs)

    with pytest.raises(TypeError, match="indices must be ints"):
        replace([0.0], new)
    with pytest.raises(ValueError, match=r"indices must have shape \(k,\), got shape \(1, 1\)"):
        replace([[0]], new)
    with pytest.raises(ValueError, match=r"index 3 is outside the batch's 3 paths \(0 to 2\)"):
        replace([3], new)
    with pytest.raises(ValueError, match="index -1 is outside"):
        replace([-1], new)
    with pytest.raises(ValueError, match="indices must be distinct, got path 2 more than once"):
        replace([2, 0, 2], np.ones((3, 4, 2)), fields={"v": np.ones((3, 4, 2))})
    with pytest.raises(ValueError, match=r"with_paths: prices must have shape \(1, 4, 2\), got"):
        replace([0], np.ones((1, 4)))
    with pytest.raises(TypeError, match="prices must be an array of numbers"):
        replace([0], "abc")
    bad = np.ones((2, 4, 2))
    bad[1, 3, 1] = 0.0
    with pytest.raises(ValueError, match=r"got 0.0 in path 0 at row 3, asset column 1"):
        replace([2, 0], bad, fields={"v": bad})  # the path numbered as in the batch
    with pytest.raises(ValueError, match=r"mask must be a bool array shaped like prices"):
        replace([0], new, mask=np.ones((1, 4)))
    with pytest.raises(
        ValueError, match=r"fields must hold the new paths of every one of .*\['v'\]"
    ):
        replace([0], new, fields={})
    with pytest.raises(ValueError, match=r"and no other, got \['v', 'w'\]"):
        replace([0], new, fields={**one, "w": new})
    with pytest.raises(ValueError, match="given twice"):
        replace([0], new, fields={**one, "close": new})
    with pytest.raises(ValueError, match=r"field 'v' must have shape \(1, 4, 2\)"):
        replace([0], new, fields={"v": np.ones((1, 4))})
    with pytest.raises(ValueError, match=r"exogenous must hold the new paths .*\['x'\]"):
        replace([0], new, exogenous=None)
    with pytest.raises(ValueError, match=r"exogenous 'x' must have shape \(1, 4\) or \(1, 4, 1\)"):
        replace([0], new, exogenous={"x": np.ones((1, 4, 2))})
    with pytest.raises(TypeError, match="this batch reads one MarketData"):
        MarketData(np.ones(4)).at_rows([1]).with_paths([0], np.ones((1, 4)))
    # Nothing was replaced or retired; a zero price hidden by the mask is fine.
    assert batch.prices.latest().tolist() == [[1.0, 1.0]] * 3
    hidden = np.array([[[True, True], [True, True], [True, False], [True, True]]])
    bad = np.ones((1, 4, 2))
    bad[0, 2, 1] = 0.0
    fresh = replace([1], bad, mask=hidden)
    assert np.isnan(fresh.execution_price()[1, 1]) and fresh.advance().mask.latest()[
        1
    ].tolist() == [
        True,
        False,
    ]


def test_of_paths_exogenous() -> None:
    rates = np.arange(12.0).reshape(3, 4)
    batch = PointInTimeBatch.of_paths(
        np.ones((3, 4)), [1, 2, 3], exogenous={"rate": rates, "flags": np.ones((1, 4, 2))}
    )
    assert batch.exogenous("rate").latest().tolist() == [[1.0], [6.0], [11.0]]
    assert batch.exogenous("rate").window(2)[:, :, 0].tolist() == [[0, 1], [5, 6], [10, 11]]
    assert batch.exogenous("flags").window(2).shape == (3, 2, 2)
    assert repr(batch.exogenous("rate")) == "PastBatch(exogenous('rate'), 3 sub-envs)"
    rates[:] = 0.0  # copied
    assert batch.exogenous("rate").latest()[:, 0].tolist() == [1.0, 6.0, 11.0]
    with pytest.raises(KeyError, match=r"no exogenous series 'x'; series: \['flags', 'rate'\]"):
        batch.exogenous("x")
    with pytest.raises(KeyError, match=r"MarketData: no exogenous series 'x'"):
        MarketData(np.ones(4)).at_rows([1]).exogenous("x")
    with pytest.raises(ValueError, match=r"exogenous\(\'rate\'\).window\(3\): sub-env 0"):
        batch.exogenous("rate").window(3)
    of_paths = PointInTimeBatch.of_paths
    with pytest.raises(ValueError, match=r"exogenous 'r' must have shape \(2, 3\) or \(2, 3, k\)"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous={"r": np.ones(3)})
    with pytest.raises(ValueError, match=r"got shape \(3, 3\)"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous={"r": np.ones((3, 3))})
    with pytest.raises(ValueError, match=r"got shape \(2, 3, 0\)"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous={"r": np.ones((2, 3, 0))})
    with pytest.raises(TypeError, match="exogenous 'r' must be an array of numbers"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous={"r": "abc"})
    with pytest.raises(TypeError, match="exogenous names must be str"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous={1: np.ones((2, 3))})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="exogenous must be a mapping"):
        of_paths(np.ones((2, 3)), [0, 0], exogenous=[np.ones((2, 3))])  # type: ignore[arg-type]


class _Interrupted(np.ndarray):
    """An array whose writes are interrupted, as by a Ctrl-C during `with_paths`."""

    def __setitem__(self, key: Any, value: Any) -> None:
        raise KeyboardInterrupt


def test_an_interrupted_with_paths_leaves_no_batch_reading_half_written_paths() -> None:
    batch = PointInTimeBatch.of_paths(np.ones((2, 4)), [1, 1])
    source = batch._source
    source._returns = source._returns.view(_Interrupted)  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        batch.with_paths([0], np.full((1, 4), 2.0))  # the prices are written, not the returns
    with pytest.raises(RuntimeError, match="built before with_paths"):
        batch.prices.latest()


def test_a_pickled_batch_keeps_replacing_paths_in_place() -> None:
    import pickle

    rng = np.random.default_rng(3)
    panel = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (3, 8, 2)), axis=1))
    batch = pickle.loads(pickle.dumps(PointInTimeBatch.of_paths(panel, [4, 4, 4])))
    new = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (1, 8, 2)), axis=1))
    replaced = batch.with_paths([1], new)
    panel[1] = new[0]
    fresh = PointInTimeBatch.of_paths(panel, [4, 4, 4])
    np.testing.assert_array_equal(replaced.log_returns(3), fresh.log_returns(3))
    np.testing.assert_array_equal(replaced.prices.window(4), fresh.prices.window(4))
