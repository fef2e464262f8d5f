"""Reading MarketData from files: bar (OHLCV) files in one call, and errors that say where."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.error import InvalidData, MissingColumns, SekaiError
from sekai.finance.data import MarketData

pd = pytest.importorskip("pandas")

# A Yahoo Finance download, as its CSV export writes it.
YAHOO = """\
Date,Open,High,Low,Close,Adj Close,Volume
2024-01-02,187.15,188.44,183.89,185.64,184.94,82488700
2024-01-03,184.22,185.88,183.43,184.25,183.55,58414500
2024-01-04,182.15,183.09,180.88,181.91,181.22,71983600
2024-01-05,181.99,182.76,180.17,181.18,180.49,62303300
"""

DATES = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"]


def write(tmp_path: Path, text: str, name: str = "prices.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yahoo_file_loads_as_one_asset_with_its_fields(tmp_path: Path) -> None:
    path = write(tmp_path, YAHOO, "AAPL.csv")
    data = MarketData.from_csv(path, layout="ohlcv", symbol="AAPL")
    assert data.assets == ("AAPL",) and data.n_steps == 4 and data.price_field == "close"
    assert sorted(data.fields) == ["adj_close", "close", "high", "low", "open", "volume"]
    frame = pd.read_csv(path)
    for column in frame.columns[1:]:
        name = column.lower().replace(" ", "_")
        np.testing.assert_array_equal(data.field(name)[:, 0], frame[column].to_numpy(float))
    np.testing.assert_array_equal(data.timestamps, np.array(DATES, dtype="datetime64[ns]"))
    # priced by the adjusted close, a few fields only; names compare in any case or spacing
    adjusted = MarketData.from_csv(path, layout="ohlcv", price="Adj Close", fields=["OPEN"])
    assert adjusted.price_field == "adj_close" and sorted(adjusted.fields) == ["adj_close", "open"]
    assert adjusted.assets == (0,)
    np.testing.assert_array_equal(adjusted.prices[:, 0], frame["Adj Close"].to_numpy())
    # the long layout's one-asset form takes the label too
    long = MarketData.from_csv(path, time="Date", asset=None, price="Close", symbol="AAPL")
    assert long.assets == ("AAPL",)


def test_a_yahoo_file_saved_as_parquet_loads_the_same(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")  # Parquet files need it (the [data] extra)
    path = write(tmp_path, YAHOO, "AAPL.csv")
    data = MarketData.from_csv(path, layout="ohlcv", symbol="AAPL")
    # the same file as Parquet, whose Date is the stored index
    pd.read_csv(path).set_index("Date").to_parquet(tmp_path / "AAPL.parquet")
    parquet = MarketData.from_parquet(tmp_path / "AAPL.parquet", layout="ohlcv", symbol="AAPL")
    assert parquet.assets == ("AAPL",)
    for name in data.fields:
        np.testing.assert_array_equal(parquet.field(name), data.field(name))


def test_wide_layout_refuses_a_bar_file_instead_of_loading_volume_as_an_asset(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, YAHOO)
    with pytest.raises(InvalidData, match="layout='ohlcv'") as caught:
        MarketData.from_csv(path, layout="wide", time="Date")
    assert "'Volume'" in str(caught.value) and "not assets" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    # two assets that happen to have ordinary names still load
    wide = write(tmp_path, "date,AAPL,MSFT\n2024-01-02,1.0,2.0\n", "wide.csv")
    assert MarketData.from_csv(wide, layout="wide").assets == ("AAPL", "MSFT")


def test_the_default_layout_on_a_bar_file_names_every_missing_column_and_the_layout(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, YAHOO)
    with pytest.raises(MissingColumns) as caught:
        MarketData.from_csv(path)
    message = str(caught.value)
    assert "no columns 'date', 'symbol', 'close'" in message  # all three, in one error
    assert "'Date' for 'date'" in message and "'Close' for 'close'" in message
    assert "layout='ohlcv'" in message
    assert caught.value.columns == ("date", "symbol", "close")  # type: ignore[attr-defined]
    error = caught.value
    assert isinstance(error, KeyError) and isinstance(error, ValueError)
    assert isinstance(error, SekaiError)
    with pytest.raises(MissingColumns, match="no columns 'spread', 'vwap'"):
        MarketData.from_csv(path, layout="ohlcv", fields=["open", "HIGH ", "spread", "vwap"])


def test_an_empty_table_says_so(tmp_path: Path) -> None:
    # Used to be a bare KeyError: 'close'.
    path = write(tmp_path, "date,symbol,close\n")
    for layout in ("long", "wide", "ohlcv"):
        with pytest.raises(InvalidData, match="the table has no rows"):
            MarketData.from_csv(
                path, layout=layout, **({"asset": None} if layout != "long" else {})
            )


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    row=st.integers(0, 3),
    text=st.sampled_from(["abc", "-", "1.2.3", "12,5", "$10"]),  # pandas reads "n/a" as NaN
    column=st.sampled_from(["close", "volume"]),
)
def test_text_in_a_long_file_is_located(tmp_path: Path, row: int, text: str, column: str) -> None:
    values = {"close": [10.0, 11.0, 12.0, 13.0], "volume": [5, 6, 7, 8]}
    cells: dict[str, list[object]] = {name: list(v) for name, v in values.items()}
    cells[column][row] = text
    frame = pd.DataFrame({"date": DATES, "symbol": ["A", "B", "A", "B"], **cells})
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(InvalidData) as caught:
        MarketData.from_csv(path, fields=["volume"])
    symbol = "AB"[row % 2]
    assert (
        f"column {column!r} at row {row} (date {DATES[row]}, symbol {symbol!r}) holds {text!r}, "
        "which is not a number"
    ) in str(caught.value)


def test_text_in_a_wide_file_or_frame_names_the_asset_and_the_time(tmp_path: Path) -> None:
    path = write(tmp_path, "date,A,B\n2024-01-02,1.0,2.0\n2024-01-03,1.5,oops\n")
    with pytest.raises(InvalidData, match=r"the price of asset 'B' at 2024-01-03 \(row 1\)"):
        MarketData.from_csv(path, layout="wide")
    frame = pd.DataFrame({"A": [1.0, "1.5"], "B": [2.0, 3.0]}, index=pd.to_datetime(DATES[:2]))
    assert MarketData.from_pandas(frame).prices[1, 0] == 1.5  # numbers as text still read
    volume = frame.assign(A=[1.0, "lots"])
    with pytest.raises(InvalidData, match=r"field 'volume' of asset 'A' at 2024-01-03.*'lots'"):
        MarketData.from_pandas(frame, fields={"volume": volume})


def test_a_row_without_a_time_or_with_a_bad_date_is_located(tmp_path: Path) -> None:
    path = write(tmp_path, "date,symbol,close\n2024-01-02,A,1.0\n,A,2.0\n")
    with pytest.raises(InvalidData, match=r"row 1 has no time \(column 'date' is empty there\)"):
        MarketData.from_csv(path)
    path = write(tmp_path, "Date,Close\n2024-01-02,1.0\nyesterday,2.0\n")
    with pytest.raises(InvalidData, match="row 1 of column 'Date' holds 'yesterday'"):
        MarketData.from_csv(path, layout="ohlcv")


def test_wide_dates_are_sorted_as_dates_not_as_text(tmp_path: Path) -> None:
    path = write(tmp_path, "date,A\n1/10/2024,3.0\n1/9/2024,2.0\n12/29/2023,1.0\n")
    data = MarketData.from_csv(path, layout="wide", date_format="%m/%d/%Y")
    assert data.prices[:, 0].tolist() == [1.0, 2.0, 3.0]


def test_symbol_only_names_a_single_asset(tmp_path: Path) -> None:
    path = write(tmp_path, "date,symbol,close\n2024-01-02,A,1.0\n")
    with pytest.raises(ValueError, match="symbol labels the one asset"):
        MarketData.from_csv(path, symbol="A")
    with pytest.raises(ValueError, match="symbol labels the one asset"):
        MarketData.from_csv(path, layout="wide", symbol="A")


def test_columns_that_name_one_field_twice_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "Date,Close,close\n2024-01-02,1.0,1.0\n")
    with pytest.raises(InvalidData, match=r"name the field\(s\) \['close'\] more than once"):
        MarketData.from_csv(path, layout="ohlcv")


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tickers=st.lists(
        st.sampled_from(["LOW", "OPEN", "HIGH", "VOLUME", "AAPL", "MSFT"]),
        min_size=1,
        max_size=6,
        unique=True,
    )
)
def test_tickers_named_like_bar_fields_load_as_a_wide_table(
    tmp_path: Path, tickers: list[str]
) -> None:
    # Lowe's (LOW), Opendoor (OPEN) and HIGH are real tickers: a table of their
    # prices has no close column, which every bar file has.
    rows = [",".join(["date", *tickers])] + [
        ",".join([date, *(f"{10.0 + i + j}" for j in range(len(tickers)))])
        for i, date in enumerate(DATES)
    ]
    path = write(tmp_path, "\n".join(rows) + "\n", "wide.csv")
    data = MarketData.from_csv(path, layout="wide")
    assert data.assets == tuple(tickers)
    np.testing.assert_array_equal(data.prices[:, 0], 10.0 + np.arange(len(DATES)))


@pytest.mark.parametrize(
    "header",
    [
        "Date,Open,High,Low,Close,Adj Close,Volume",  # Yahoo
        "date,open,high,low,close,volume",  # any OHLCV export
        "Date,Open,Close,Volume",
        "Date,High,Low,Adj Close",
    ],
)
def test_bar_files_are_still_refused_as_wide(tmp_path: Path, header: str) -> None:
    values = ",".join("1.0" for _ in header.split(",")[1:])
    path = write(tmp_path, f"{header}\n2024-01-02,{values}\n")
    with pytest.raises(InvalidData, match="layout='ohlcv'"):
        MarketData.from_csv(path, layout="wide", time=header.split(",")[0])


def test_wrong_kinds_of_values_are_still_type_errors() -> None:
    # Before the located messages these were TypeErrors; `except TypeError` still works.
    frame = pd.DataFrame({"time": [1.0, 2.0], "symbol": ["A", "A"], "close": [1.0, 2.0]})
    for times in ([1.0, 2.0], [1.0, np.nan], [True, False], pd.to_timedelta([1, 2], unit="s")):
        with pytest.raises(TypeError, match=r"MarketData\.from_long") as caught:
            MarketData.from_long(frame.assign(time=times), time="time")
        assert isinstance(caught.value, InvalidData)
        with pytest.raises(TypeError, match=r"MarketData\.from_pandas"):
            MarketData.from_pandas(pd.DataFrame({"A": [1.0, 2.0]}, index=pd.Index(times)))
    dated = frame.assign(time=[1, 2], close=[pd.Timestamp("2024-01-02").to_pydatetime(), 2.0])
    with pytest.raises(TypeError, match=r"column 'close' at row 0 .* which is not a number"):
        MarketData.from_long(dated, time="time")
    # text stays a ValueError only, and a gap in text or dates too
    with pytest.raises(InvalidData) as text:
        MarketData.from_long(frame.assign(time=[1, 2], close=["x", 2.0]), time="time")
    with pytest.raises(InvalidData) as gap:
        MarketData.from_long(frame.assign(time=["2024-01-02", None]), time="time")
    assert not isinstance(text.value, TypeError) and not isinstance(gap.value, TypeError)


def test_an_empty_long_table_is_still_a_key_error() -> None:
    # It raised a bare KeyError: 'close' before it said what was wrong.
    frame = pd.DataFrame({"time": [], "symbol": [], "close": []})
    with pytest.raises(KeyError, match="the table has no rows") as caught:
        MarketData.from_long(frame, time="time")
    assert isinstance(caught.value, InvalidData)
