"""Reading LOBSTER message files and replaying them into an OrderBook."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.finance.lob import (
    BACKGROUND,
    LOBSTER_MESSAGE_DTYPE,
    Fill,
    LobsterReplay,
    Order,
    OrderBook,
    OrderFlow,
    Side,
    read_lobster_messages,
)

BID, ASK = Side.BID, Side.ASK

# time, type, order id, size, price (1/10000 $), direction
MESSAGES = """\
34200.000,1,11,100,1000000,1
34200.100,1,12,50,1000100,1
34200.200,1,21,80,1000300,-1
34200.300,1,22,30,1000200,-1
34200.400,2,11,40,1000000,1
34200.500,4,22,10,1000200,-1
34200.600,3,12,50,1000100,1
34200.700,5,0,5,1000150,1
34200.800,4,99,5,1000000,1
34200.900,1,13,20,1000000,1
34201.000,7,0,0,-1,-1
34201.500,4,22,20,1000200,-1
34201.700,4,11,15,1000000,1
34202.000,7,0,0,1,-1
"""


def _status(replay: LobsterReplay) -> tuple[bool, float | None, bool]:
    """(done, next_time, halted), read afresh (the replay changes them as it goes)."""
    return replay.done, replay.next_time, replay.halted


@pytest.fixture
def message_file(tmp_path: Path) -> Path:
    path = tmp_path / "AAPL_2012-06-21_message_1.csv"
    path.write_text(MESSAGES)
    return path


def test_read_messages_from_a_file(message_file: Path) -> None:
    messages = read_lobster_messages(message_file)
    assert messages.dtype == LOBSTER_MESSAGE_DTYPE
    assert len(messages) == 14
    first = messages[0]
    assert first["time"] == 34200.0 and first["type"] == 1 and first["order_id"] == 11
    assert first["size"] == 100 and first["price"] == 1_000_000 and first["direction"] == 1
    assert messages["type"].tolist() == [1, 1, 1, 1, 2, 4, 3, 5, 4, 1, 7, 4, 4, 7]
    assert messages["price"][10] == -1 and messages["direction"][3] == -1


def test_read_messages_from_open_files_and_lines(message_file: Path) -> None:
    expected = read_lobster_messages(message_file)
    with message_file.open() as handle:
        np.testing.assert_array_equal(read_lobster_messages(handle), expected)
    np.testing.assert_array_equal(read_lobster_messages(io.StringIO(MESSAGES)), expected)
    np.testing.assert_array_equal(read_lobster_messages(MESSAGES.splitlines()), expected)


def test_extra_columns_are_ignored_and_an_empty_file_is_empty(tmp_path: Path) -> None:
    wide = tmp_path / "wide.csv"
    wide.write_text("".join(line + ",0\n" for line in MESSAGES.splitlines()))
    np.testing.assert_array_equal(
        read_lobster_messages(wide), read_lobster_messages(io.StringIO(MESSAGES))
    )
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    messages = read_lobster_messages(empty)
    assert messages.dtype == LOBSTER_MESSAGE_DTYPE and messages.shape == (0,)
    replay = LobsterReplay(messages)
    assert replay.done and replay.run() == [] and len(replay.book) == 0


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("34200.0,9,1,10,1000000,1", r"row 2 must have a type in 1\.\.7, got \[34200.0, 9.0"),
        ("34200.0,1,1,10,1000000,0", r"row 2 must have a direction of 1 or -1"),
        ("34200.0,1,1,1.5,1000000,1", r"row 2 must have .*integral .*size"),
        ("34200.0,1,1,-5,1000000,1", r"row 2 must have a size >= 0"),
        ("nan,1,1,5,1000000,1", r"row 2 must have a finite time"),
    ],
)
def test_bad_rows_are_rejected_naming_the_row(line: str, message: str) -> None:
    text = "34199.0,1,7,10,1000000,1\n" + line + "\n"
    with pytest.raises(ValueError, match=message):
        read_lobster_messages(io.StringIO(text))


@pytest.mark.parametrize("text", ["34200.0,1,1,10,1000000\n", "34200.0,1,x,10,1000000,1\n"])
def test_malformed_files_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (numpy's own message about the CSV)
        read_lobster_messages(io.StringIO(text))


def test_replay_rebuilds_the_book(message_file: Path) -> None:
    replay = LobsterReplay(read_lobster_messages(message_file))
    book = replay.book
    assert len(replay) == 14 and replay.position == 0 and replay.next_time == 34200.0

    # The four new orders: bids 100 @ 100.00 and 50 @ 100.01, asks 80 @ 100.03 and 30 @ 100.02.
    assert replay.step_until(34200.3) == []
    assert replay.position == 4 and book.time == 34200.3
    assert [a.tolist() for a in book.depth(3)] == [
        [10001, 10000, 0],
        [50, 100, 0],
        [10002, 10003, 0],
        [30, 80, 0],
    ]
    ask_22 = replay.book_id(22)
    assert ask_22 is not None
    assert book.get(ask_22) == Order(ask_22, ASK, 10002, 30, BACKGROUND, 34200.3)

    # Partial cancel of 11, execution of 10 lots of 22, deletion of 12, a hidden
    # execution (no change) and an execution of an order the book never saw.
    fills = replay.step_until(34200.85)
    assert fills == [Fill(10002, 10, ask_22, -1, BACKGROUND, BACKGROUND, BID, 34200.5)]
    assert book.last_price == 10002
    assert book.volume_at(BID, 10000) == 60 and book.volume_at(BID, 10001) == 0
    assert book.volume_at(ASK, 10002) == 20
    assert replay.book_id(12) is None and replay.n_unknown == 1
    assert book.time == 34200.85

    # A new bid queues behind 11; a halt; the rest of 22 trades; 15 lots of 11 trade.
    assert replay.step_until(34201.0) == []
    assert _status(replay) == (False, 34201.5, True)
    fills = replay.step_until(34201.9)
    bid_11 = replay.book_id(11)
    assert bid_11 is not None
    assert fills == [
        Fill(10002, 20, ask_22, -1, BACKGROUND, BACKGROUND, BID, 34201.5),
        Fill(10000, 15, bid_11, -1, BACKGROUND, BACKGROUND, ASK, 34201.7),
    ]
    assert replay.book_id(22) is None and book.best_ask() == 10003
    assert replay.run() == []
    assert _status(replay) == (True, None, False)

    bid_13 = replay.book_id(13)
    assert bid_13 is not None and book.queue_ahead(bid_13) == 45
    assert [a.tolist() for a in book.depth(2)] == [[10000, 0], [65, 0], [10003, 0], [80, 0]]
    assert len(book) == 3 and book.last_price == 10000 and book.time == 34202.0
    assert replay.counts == {1: 5, 2: 1, 3: 1, 4: 4, 5: 1, 6: 0, 7: 2}
    assert replay.n_unknown == 1


def test_run_applies_everything_at_once(message_file: Path) -> None:
    stepped = LobsterReplay(read_lobster_messages(message_file))
    stepped.step_until(34200.45)
    stepped.step_until(34201.6)
    stepped.step_until(1e9)
    whole = LobsterReplay(read_lobster_messages(message_file))
    fills = whole.run()
    assert [f.quantity for f in fills] == [10, 20, 15]
    assert [a.tolist() for a in whole.book.depth(5)] == [a.tolist() for a in stepped.book.depth(5)]
    assert whole.counts == stepped.counts


def test_replay_into_a_given_book_with_an_owner_and_tick(message_file: Path) -> None:
    book = OrderBook()
    book.limit(ASK, 2_000_000, 1, owner=5)  # already there, far away
    replay = LobsterReplay(read_lobster_messages(message_file), book, tick_size=1, owner=3)
    replay.run()
    assert replay.book is book
    assert book.best_bid() == 1_000_000 and book.best_ask() == 1_000_300
    assert book.n_orders_of(3) == 3 and book.n_orders_of(5) == 1


def test_a_crossing_new_order_trades_in_the_replay() -> None:
    text = "1.0,1,1,10,1000000,-1\n2.0,1,2,4,1000100,1\n3.0,3,2,4,1000100,1\n"
    replay = LobsterReplay(read_lobster_messages(io.StringIO(text)))
    fills = replay.run()
    assert [(f.price, f.quantity, f.taker_side) for f in fills] == [(10000, 4, BID)]
    # The fully filled order never rested: deleting it later is an unknown order.
    assert replay.n_unknown == 1 and replay.book.volume_at(ASK, 10000) == 6


@pytest.mark.parametrize(
    ("text", "kwargs", "message"),
    [
        ("1.0,1,1,10,1000050,1\n", {}, r"multiples of tick_size 100, got 1000050 at row 1"),
        ("1.0,1,1,10,0,1\n", {}, r"positive multiples of tick_size"),
        ("2.0,1,1,10,1000000,1\n1.0,3,1,10,1000000,1\n", {}, r"time order, got time 1.0 at row 2"),
        ("1.0,1,1,10,1000000,1\n", {"tick_size": 0}, r"tick_size must be an int >= 1, got 0"),
    ],
)
def test_replay_rejects_bad_messages(text: str, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LobsterReplay(read_lobster_messages(io.StringIO(text)), **kwargs)


def test_replay_checks_arrays_it_did_not_read() -> None:
    messages = np.zeros(2, dtype=LOBSTER_MESSAGE_DTYPE)
    messages["type"] = [1, 8]
    messages["direction"] = 1
    messages["price"] = 100
    with pytest.raises(ValueError, match=r"types must be in 1\.\.7, got 8 at row 2"):
        LobsterReplay(messages)
    messages["type"] = [1, 3]
    messages["direction"] = [1, 0]
    with pytest.raises(ValueError, match=r"direction of 1 or -1, got 0 at row 2"):
        LobsterReplay(messages)
    with pytest.raises(ValueError, match=r"missing \['size'\]"):
        LobsterReplay(
            np.zeros(
                1, dtype=[(n, "f8") for n in ("time", "type", "order_id", "price", "direction")]
            )
        )


# -- a replay as an order flow (OrderFlow) ---------------------------------------------------------


def test_a_replay_is_an_order_flow_that_starts_over_at_initialise() -> None:
    messages = read_lobster_messages(io.StringIO(MESSAGES))
    replay = LobsterReplay(messages)
    assert isinstance(replay, OrderFlow)
    first = replay.run()
    counts, unknown = dict(replay.counts), replay.n_unknown
    assert replay.done and replay.halted is False
    rng = np.random.default_rng(0)
    for _ in range(2):
        book = OrderBook()
        replay.initialise(book, rng, mid=10_000, levels=10, orders_per_level=3)
        assert replay.book is book and replay.position == 0 and len(book) == 0
        assert replay.n_unknown == 0 and set(replay.counts.values()) == {0}
        # advance is step_until on the replay's book: the same fills, in two parts.
        part = replay.advance(book, rng, until=34200.65)
        assert book.time == 34200.65 and replay.position == 7 and replay.book_id(11) == 1
        part += replay.advance(book, None, until=34300.0)
        assert [(f.price, f.quantity, f.maker_owner) for f in part] == [
            (f.price, f.quantity, f.maker_owner) for f in first
        ]
        assert replay.counts == counts and replay.n_unknown == unknown and replay.done
        assert book.time == 34300.0


def test_a_replay_advances_only_its_own_book() -> None:
    replay = LobsterReplay(read_lobster_messages(io.StringIO(MESSAGES)))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="advance: book must be the replay's own book"):
        replay.advance(OrderBook(), rng, until=34200.5)
    assert replay.position == 0
    expected = r"initialise: book must be a sekai\.finance\.lob\.OrderBook, got 'book'"
    with pytest.raises(TypeError, match=expected):
        replay.initialise("book", rng, mid=100)  # type: ignore[arg-type]
