"""MarketData from pandas (wide and long), CSV and Parquet, on the S&P 500 history of arch."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.finance.data import MarketData

pd = pytest.importorskip("pandas")

OHLCV = ["Open", "High", "Low", "Close", "Volume"]


@pytest.fixture
def parquet() -> None:
    """Parquet files need pyarrow (the ``[data]`` extra): the tests writing them skip without it."""
    pytest.importorskip("pyarrow")


def assert_same(a: MarketData, b: MarketData) -> None:
    assert a.assets == b.assets and a.price_field == b.price_field
    assert set(a.fields) == set(b.fields)
    for name in a.fields:
        np.testing.assert_array_equal(a.field(name), b.field(name))
    np.testing.assert_array_equal(a.timestamps, b.timestamps)
    np.testing.assert_array_equal(a.mask, b.mask)


def test_real_history_through_pandas_and_csv(sp500: Any, tmp_path: Path) -> None:
    from_pandas = MarketData.from_pandas(
        sp500["Adj Close"].rename("SPX"),
        fields={name: sp500[name] for name in OHLCV},
        price_field="adj_close",
    )
    assert from_pandas.n_steps == len(sp500) == 5031 and from_pandas.assets == ("SPX",)
    assert from_pandas.timestamps[0] == np.datetime64("1999-01-04")
    assert from_pandas.timestamps[-1] == np.datetime64("2018-12-31")
    np.testing.assert_array_equal(from_pandas.prices[:, 0], sp500["Adj Close"].to_numpy())
    np.testing.assert_array_equal(from_pandas.field("Volume")[:, 0], sp500["Volume"].to_numpy())
    assert from_pandas.mask.all() and from_pandas.periods_per_year == 252.0

    from_long = MarketData.from_long(
        sp500, time="Date", asset=None, price="Adj Close", fields=OHLCV
    )
    csv = tmp_path / "sp500.csv"
    sp500.to_csv(csv)  # the index becomes a "Date" column of strings
    from_csv = MarketData.from_csv(csv, time="Date", asset=None, price="Adj Close", fields=OHLCV)
    assert_same(from_long, from_csv)
    assert from_long.assets == (0,)
    np.testing.assert_allclose(from_long.prices, from_pandas.prices, rtol=0, atol=0)
    np.testing.assert_array_equal(from_long.timestamps, from_pandas.timestamps)
    # real log returns: daily moves of the index, with the 2008 crash in them
    returns = from_csv.log_returns()[1:, 0]
    assert abs(returns.mean()) < 1e-3 and 0.005 < returns.std() < 0.02
    assert returns.min() < -0.09 and returns.max() > 0.1


def test_real_history_through_parquet(sp500: Any, tmp_path: Path, parquet: None) -> None:
    path = tmp_path / "sp500.parquet"
    sp500.to_parquet(path)  # the index is stored as the index
    from_parquet = MarketData.from_parquet(
        path, time="Date", asset=None, price="Adj Close", fields=OHLCV
    )
    from_long = MarketData.from_long(
        sp500, time="Date", asset=None, price="Adj Close", fields=OHLCV
    )
    assert_same(from_long, from_parquet)


def _wide_prices() -> Any:
    index = pd.date_range("2024-01-01", periods=5, freq="D", name="date")
    return pd.DataFrame(
        {"AAA": [1.0, 2.0, 3.0, 4.0, 5.0], "BBB": [np.nan, np.nan, 7.0, 8.0, 9.0]}, index=index
    )


def test_wide_frames_of_several_assets(tmp_path: Path) -> None:
    prices = _wide_prices()
    index = prices.index
    volume = pd.DataFrame({"BBB": [1.0] * 4, "AAA": [2.0] * 4}, index=index[1:])  # misaligned
    data = MarketData.from_pandas(prices.iloc[::-1], fields={"volume": volume})  # unsorted input
    assert data.assets == ("AAA", "BBB")
    np.testing.assert_array_equal(data.prices[:, 0], [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(data.mask[:, 1], [False, False, True, True, True])  # a listing
    volumes = data.field("volume")
    assert np.isnan(volumes[0]).all()
    np.testing.assert_array_equal(volumes[1:], [[2.0, 1.0]] * 4)  # aligned on names and times

    path = tmp_path / "wide.csv"
    prices.to_csv(path)
    assert_same(MarketData.from_csv(path, layout="wide"), MarketData.from_pandas(prices))


def test_wide_parquet_files(tmp_path: Path, parquet: None) -> None:
    prices = _wide_prices()
    prices.to_parquet(tmp_path / "wide.parquet")
    assert_same(
        MarketData.from_parquet(tmp_path / "wide.parquet", layout="wide"),
        MarketData.from_pandas(prices),
    )


def test_exogenous_series_are_joined_as_of_each_time() -> None:
    index = pd.date_range("2024-01-01", periods=6, freq="D")
    prices = pd.Series(np.arange(1.0, 7.0), index=index, name="X")
    # published on the 2nd and the 5th: known from then on, not before
    rate = pd.Series([0.01, 0.02], index=pd.to_datetime(["2024-01-02", "2024-01-05"]), name="rate")
    curve = pd.DataFrame(
        {"2y": [1.0, 2.0], "10y": [3.0, 4.0]}, index=pd.to_datetime(["2023-12-01", "2024-01-04"])
    )
    data = MarketData.from_pandas(prices, exogenous={"rate": rate, "curve": curve})
    np.testing.assert_array_equal(
        data.exogenous_series("rate"), [np.nan, 0.01, 0.01, 0.01, 0.02, 0.02]
    )
    np.testing.assert_array_equal(data.exogenous_series("curve")[:, 0], [1, 1, 1, 2, 2, 2])
    assert data.exogenous_width("curve") == 2 and data.assets == ("X",)
    frame = MarketData.from_pandas(prices, exogenous=curve)
    assert set(frame.exogenous) == {"2y", "10y"}


def _long_rows() -> Any:
    rows = [
        ("2024-01-01", "A", 10.0, 100),
        ("2024-01-02", "A", 11.0, 110),
        ("2024-01-02", "B", 20.0, 200),  # B lists on the 2nd
        ("2024-01-03", "B", 21.0, 210),  # A delisted after the 2nd
        ("2024-01-04", "B", 22.0, 220),
    ]
    return pd.DataFrame(rows, columns=["date", "symbol", "close", "volume"])


def test_long_table_with_listings_and_delistings(tmp_path: Path) -> None:
    frame = _long_rows()
    data = MarketData.from_long(frame, fields=["volume"])
    assert data.assets == ("A", "B") and data.is_datetime
    np.testing.assert_array_equal(
        data.mask, [[True, False], [True, True], [False, True], [False, True]]
    )
    np.testing.assert_array_equal(data.field("volume")[1], [110.0, 200.0])
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    assert_same(MarketData.from_csv(path, fields=["volume"]), data)
    ints = frame.assign(date=[1, 2, 2, 3, 4])
    assert MarketData.from_long(ints).timestamps.tolist() == [1, 2, 3, 4]


def test_long_parquet_files(tmp_path: Path, parquet: None) -> None:
    frame = _long_rows()
    frame.to_parquet(tmp_path / "long.parquet")
    data = MarketData.from_long(frame, fields=["volume"])
    assert_same(MarketData.from_parquet(tmp_path / "long.parquet", fields=["volume"]), data)


def test_time_zones_become_utc() -> None:
    index = pd.date_range("2024-01-01 09:30", periods=3, freq="h", tz="America/New_York")
    data = MarketData.from_pandas(pd.Series([1.0, 2.0, 3.0], index=index))
    assert data.timestamps[0] == np.datetime64("2024-01-01T14:30")


@pytest.mark.filterwarnings("ignore:Could not infer format")
def test_reader_errors(tmp_path: Path) -> None:
    frame = pd.DataFrame({"date": [1, 1], "symbol": ["A", "A"], "close": [1.0, 2.0]})
    with pytest.raises(ValueError, match="more than one row for"):
        MarketData.from_long(frame)
    with pytest.raises(KeyError, match="no column 'price'"):
        MarketData.from_long(frame, price="price")
    with pytest.raises(TypeError, match="must be a DataFrame"):
        MarketData.from_long([1, 2])
    with pytest.raises(TypeError, match="sequence of column names"):
        MarketData.from_long(frame, fields="volume")
    with pytest.raises(ValueError, match="row 0 of column 'date' holds 'x', which is not a date"):
        MarketData.from_long(frame.assign(date=["x", "y"], symbol=["A", "B"]))
    twice = pd.Series([1.0, 2.0], index=[1, 1])
    with pytest.raises(ValueError, match="must be unique"):
        MarketData.from_pandas(twice)
    with pytest.raises(TypeError, match="DataFrame or a Series"):
        MarketData.from_pandas(np.ones(3))
    two = pd.DataFrame({"A": [1.0], "B": [1.0]})
    with pytest.raises(ValueError, match="is a Series but there are 2 assets"):
        MarketData.from_pandas(two, fields={"volume": pd.Series([1.0])})
    two.to_csv(tmp_path / "two.csv")
    with pytest.raises(ValueError, match="'long', 'wide' or 'ohlcv', got 'tall'"):
        MarketData.from_csv(tmp_path / "two.csv", layout="tall")


def test_missing_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"install the sekai-finance\[data\] distribution"):
        MarketData.from_csv("prices.csv")
    with pytest.raises(ImportError, match=r"install the sekai-finance\[data\] distribution"):
        MarketData.from_pandas(object())


def test_a_long_row_without_an_asset_is_refused_not_loaded_as_an_asset_named_nan(
    tmp_path: Path,
) -> None:
    path = tmp_path / "long.csv"
    path.write_text(
        "date,symbol,close\n2020-01-01,A,1.0\n2020-01-02,,2.0\n2020-01-02,A,3.0\n2020-01-03,A,4.0\n"
    )
    with pytest.raises(ValueError, match=r"row 1 of the table has no asset \(column 'symbol'"):
        MarketData.from_csv(path)
    path.write_text("date,symbol,close\n2020-01-01,A,1.0\n2020-01-02,A,3.0\n")
    assert MarketData.from_csv(path).assets == ("A",)  # the same table, whole, loads


def test_a_column_named_twice_is_refused_not_loaded_as_two_assets(tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    path.write_text("date,A,B,A\n2020-01-01,1,2,3\n2020-01-02,1,2,3\n")
    with pytest.raises(ValueError, match=r"names the column\(s\) \['A'\] more than once"):
        MarketData.from_csv(path, layout="wide", time="date")
    path.write_text("date,A,B,C\n2020-01-01,1,2,3\n2020-01-02,1,2,3\n")
    assert MarketData.from_csv(path, layout="wide", time="date").assets == ("A", "B", "C")
