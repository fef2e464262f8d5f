"""OrderBook, Order, Fill and Side: every public method, its semantics and its errors."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections import deque

import numpy as np
import pytest

from sekai.finance.lob import BACKGROUND, Fill, Order, OrderBook, Side

BID, ASK = Side.BID, Side.ASK


def _book(*orders: tuple[Side, int, int]) -> tuple[OrderBook, list[int]]:
    book = OrderBook()
    ids = []
    for side, price, quantity in orders:
        order_id, fills = book.limit(side, price, quantity)
        assert order_id is not None and fills == []
        ids.append(order_id)
    return book, ids


# -- Side, Order, Fill ----------------------------------------------------------------------------


def test_side_values_and_opposite() -> None:
    assert int(BID) == 1 and int(ASK) == -1
    assert BID.opposite is ASK and ASK.opposite is BID
    assert Side(1) is BID and Side(-1) is ASK
    assert isinstance(BID, int)


def test_fill_is_frozen_hashable_and_compares_by_value() -> None:
    fill = Fill(100, 2, 1, 3, -1, 7, BID, 0.5)
    assert fill == Fill(100, 2, 1, 3, -1, 7, BID, 0.5)
    assert len({fill, Fill(100, 2, 1, 3, -1, 7, BID, 0.5)}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        fill.price = 101  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(Fill)] == [
        "price",
        "quantity",
        "maker_order_id",
        "taker_order_id",
        "maker_owner",
        "taker_owner",
        "taker_side",
        "time",
    ]


def test_fills_from_the_book_equal_constructed_fills_and_pickle() -> None:
    book, (ask_id,) = _book((ASK, 101, 5))
    book.time = 2.5
    _, fills = book.market(BID, 2, owner=4)
    expected = Fill(101, 2, ask_id, ask_id + 1, BACKGROUND, 4, BID, 2.5)
    assert fills == [expected]
    assert hash(fills[0]) == hash(expected)
    assert repr(fills[0]) == repr(expected)
    assert pickle.loads(pickle.dumps(fills[0])) == expected
    assert dataclasses.asdict(fills[0])["taker_side"] is BID
    assert dataclasses.replace(fills[0], quantity=1).quantity == 1


def test_order_is_a_value_snapshot() -> None:
    book, (order_id,) = _book((BID, 99, 4))
    order = book.get(order_id)
    assert order == Order(order_id, BID, 99, 4, BACKGROUND, 0.0)
    assert hash(order) == hash(Order(order_id, BID, 99, 4, BACKGROUND, 0.0))
    book.reduce(order_id, 1)
    assert order.quantity == 4  # the snapshot does not follow the book
    assert book.get(order_id) == Order(order_id, BID, 99, 3, BACKGROUND, 0.0)


# -- an empty book --------------------------------------------------------------------------------


def test_empty_book() -> None:
    book = OrderBook()
    assert len(book) == 0
    assert book.best_bid() is None and book.best_ask() is None
    assert book.mid() is None and book.spread() is None
    assert book.last_price is None and book.time == 0.0
    assert book.n_levels(BID) == 0 and book.n_levels(ASK) == 0
    for array in book.depth(3):
        assert array.dtype == np.int64 and array.shape == (3,) and not array.any()
    assert book.get(1) is None
    assert book.orders_of(BACKGROUND) == [] and book.n_orders_of(BACKGROUND) == 0
    assert book.market(BID, 5) == (0, [])
    assert book.cancel(1) is False and book.reduce(1, 1) is False


# -- limit ----------------------------------------------------------------------------------------


def test_limit_rests_with_sequential_ids_and_the_book_time() -> None:
    book = OrderBook()
    book.time = 1.25
    first = book.limit(BID, 99, 3)
    second = book.limit(ASK, 101, 2, owner=5)
    assert first == (1, []) and second == (2, [])
    assert book.get(1) == Order(1, BID, 99, 3, BACKGROUND, 1.25)
    assert book.get(2) == Order(2, ASK, 101, 2, 5, 1.25)
    assert book.best_bid() == 99 and book.best_ask() == 101
    assert len(book) == 2


def test_limit_trades_at_the_resting_price_and_rests_the_remainder() -> None:
    book, (a1, a2, a3) = _book((ASK, 101, 2), (ASK, 102, 3), (ASK, 104, 1))
    book.time = 3.0
    order_id, fills = book.limit(BID, 103, 7, owner=9)
    assert order_id == a3 + 1
    assert fills == [
        Fill(101, 2, a1, order_id, BACKGROUND, 9, BID, 3.0),
        Fill(102, 3, a2, order_id, BACKGROUND, 9, BID, 3.0),
    ]
    # 2 lots left rest at the limit price; the ask at 104 did not cross.
    assert book.get(order_id) == Order(order_id, BID, 103, 2, 9, 3.0)
    assert book.best_bid() == 103 and book.best_ask() == 104
    assert book.last_price == 102


def test_limit_filled_entirely_returns_none_and_partially_fills_the_maker() -> None:
    book, (bid_id,) = _book((BID, 100, 5))
    order_id, fills = book.limit(ASK, 99, 3)
    assert order_id is None
    assert fills == [Fill(100, 3, bid_id, bid_id + 1, BACKGROUND, BACKGROUND, ASK, 0.0)]
    assert book.get(bid_id) == Order(bid_id, BID, 100, 2, BACKGROUND, 0.0)
    assert len(book) == 1 and book.best_ask() is None
    # The fully filled order's id is used up: the next order gets the one after it.
    assert book.limit(ASK, 110, 1)[0] == bid_id + 2


def test_limit_at_the_opposite_price_crosses() -> None:
    book, (ask_id,) = _book((ASK, 100, 1))
    order_id, fills = book.limit(BID, 100, 1)
    assert order_id is None and [f.maker_order_id for f in fills] == [ask_id]


def test_price_then_time_priority() -> None:
    book, ids = _book((ASK, 102, 1), (ASK, 101, 1), (ASK, 101, 1), (ASK, 102, 1), (ASK, 101, 1))
    _, fills = book.market(BID, 5)
    assert [(f.price, f.maker_order_id) for f in fills] == [
        (101, ids[1]),
        (101, ids[2]),
        (101, ids[4]),
        (102, ids[0]),
        (102, ids[3]),
    ]


# -- market ---------------------------------------------------------------------------------------


def test_market_walks_the_book_and_reports_what_traded() -> None:
    book, (b1, b2) = _book((BID, 99, 2), (BID, 98, 3))
    book.time = 4.0
    traded, fills = book.market(ASK, 4, owner=2)
    taker = b2 + 1
    assert traded == 4
    assert fills == [
        Fill(99, 2, b1, taker, BACKGROUND, 2, ASK, 4.0),
        Fill(98, 2, b2, taker, BACKGROUND, 2, ASK, 4.0),
    ]
    assert book.volume_at(BID, 98) == 1 and book.last_price == 98


def test_market_larger_than_the_side_drops_the_rest() -> None:
    book, _ = _book((ASK, 101, 2), (ASK, 105, 1), (BID, 99, 4))
    traded, fills = book.market(BID, 10)
    assert traded == 3 and sum(f.quantity for f in fills) == 3
    assert book.best_ask() is None and book.best_bid() == 99 and len(book) == 1


def test_market_takes_an_id_even_when_nothing_trades() -> None:
    book = OrderBook()
    assert book.market(BID, 1) == (0, [])
    assert book.limit(BID, 10, 1)[0] == 2


# -- cancel and reduce ----------------------------------------------------------------------------


def test_cancel_removes_exactly_that_order() -> None:
    book, (a, b, c) = _book((BID, 99, 1), (BID, 99, 2), (BID, 98, 3))
    assert book.cancel(b) is True
    assert book.get(b) is None and len(book) == 2
    assert book.volume_at(BID, 99) == 1 and book.queue_ahead(a) == 0
    assert book.cancel(b) is False
    assert book.cancel(10_000) is False
    assert book.cancel(a) is True
    assert book.best_bid() == 98 and book.n_levels(BID) == 1
    assert book.get(c) == Order(c, BID, 98, 3, BACKGROUND, 0.0)


def test_cancel_a_filled_order_is_false() -> None:
    book, (ask_id,) = _book((ASK, 101, 2))
    book.market(BID, 2)
    assert book.cancel(ask_id) is False


def test_cancel_a_level_deep_in_the_book() -> None:
    book, ids = _book(*[(ASK, price, 1) for price in (101, 102, 103, 104)])
    assert book.cancel(ids[2]) is True
    assert book.depth(4)[2].tolist() == [101, 102, 104, 0]
    assert book.limit(ASK, 103, 5)[0] is not None
    assert book.depth(4)[2].tolist() == [101, 102, 103, 104]


def test_reduce_keeps_the_queue_position() -> None:
    book, (a, b) = _book((ASK, 101, 5), (ASK, 101, 2))
    assert book.reduce(a, 3) is True
    assert book.get(a) == Order(a, ASK, 101, 2, BACKGROUND, 0.0)
    assert book.queue_ahead(b) == 2 and book.volume_at(ASK, 101) == 4
    _, fills = book.market(BID, 3)
    assert [(f.maker_order_id, f.quantity) for f in fills] == [(a, 2), (b, 1)]


def test_reduce_by_all_or_more_removes_the_order() -> None:
    book, (a, b) = _book((ASK, 101, 5), (ASK, 102, 2))
    assert book.reduce(a, 5) is True
    assert book.get(a) is None and book.best_ask() == 102
    assert book.reduce(b, 50) is True
    assert len(book) == 0 and book.best_ask() is None
    assert book.reduce(b, 1) is False


# -- queries --------------------------------------------------------------------------------------


def test_queue_ahead_counts_older_orders_at_the_same_price_and_side() -> None:
    book, (a, b, c, d) = _book((BID, 99, 2), (BID, 99, 3), (BID, 98, 4), (BID, 99, 1))
    assert [book.queue_ahead(i) for i in (a, b, c, d)] == [0, 2, 0, 5]
    book.market(ASK, 3)  # a filled, b reduced to 2
    assert book.queue_ahead(b) == 0 and book.queue_ahead(d) == 2


def test_queue_ahead_of_an_order_that_does_not_rest_raises_key_error() -> None:
    book = OrderBook()
    with pytest.raises(KeyError, match="no resting order has id 42"):
        book.queue_ahead(42)


def test_orders_of_and_n_orders_of_follow_fills_and_cancels() -> None:
    book = OrderBook()
    ids = [
        book.limit(BID, 99, 1, owner=3)[0],
        book.limit(ASK, 105, 2, owner=3)[0],
        book.limit(ASK, 101, 1, owner=4)[0],
        book.limit(BID, 98, 1, owner=3)[0],
    ]
    assert None not in ids
    mine: list[int] = [ids[0], ids[1]]  # type: ignore[list-item]
    other, late = ids[2], ids[3]
    assert other is not None
    assert [o.order_id for o in book.orders_of(3)] == [*mine, late]
    assert book.n_orders_of(3) == 3 and book.n_orders_of(4) == 1
    assert book.orders_of(99) == [] and book.n_orders_of(99) == 0
    book.market(BID, 2)  # fills owner 4's ask and 1 of owner 3's
    assert book.n_orders_of(4) == 0 and book.orders_of(4) == []
    assert book.get(other) is None
    assert [o.quantity for o in book.orders_of(3) if o.side is ASK] == [1]
    book.cancel(mine[0])
    assert [o.order_id for o in book.orders_of(3)] == [mine[1], late]


def test_volume_at_n_levels_mid_and_spread() -> None:
    book, _ = _book((BID, 97, 1), (BID, 99, 2), (BID, 99, 3), (ASK, 102, 4), (ASK, 104, 5))
    assert book.volume_at(BID, 99) == 5 and book.volume_at(BID, 98) == 0
    assert book.volume_at(ASK, 99) == 0 and book.volume_at(ASK, 104) == 5
    assert book.n_levels(BID) == 2 and book.n_levels(ASK) == 2
    assert book.mid() == 100.5 and book.spread() == 3
    assert isinstance(book.mid(), float)


def test_depth_best_first_padded_with_zeros() -> None:
    book, _ = _book(
        (BID, 97, 1), (BID, 99, 2), (BID, 99, 3), (BID, 95, 1), (ASK, 102, 4), (ASK, 101, 5)
    )
    bid_prices, bid_sizes, ask_prices, ask_sizes = book.depth(4)
    assert bid_prices.tolist() == [99, 97, 95, 0] and bid_sizes.tolist() == [5, 1, 1, 0]
    assert ask_prices.tolist() == [101, 102, 0, 0] and ask_sizes.tolist() == [5, 4, 0, 0]
    top = book.depth(1)
    assert [a.tolist() for a in top] == [[99], [5], [101], [5]]
    # Fresh arrays: writing to them does not touch the book.
    bid_prices[:] = 0
    assert book.depth(1)[0].tolist() == [99]


def test_clear_empties_the_book_but_ids_keep_counting() -> None:
    book, ids = _book((BID, 99, 1), (ASK, 101, 1))
    book.market(BID, 1)
    book.time = 7.0
    book.clear()
    assert len(book) == 0 and book.best_bid() is None and book.best_ask() is None
    assert book.time == 0.0 and book.last_price is None
    assert book.n_orders_of(BACKGROUND) == 0 and book.cancel(ids[0]) is False
    assert book.limit(BID, 99, 1)[0] == ids[-1] + 2


def test_repr_shows_the_touch() -> None:
    book, _ = _book((BID, 99, 1), (ASK, 101, 1))
    assert repr(book) == "OrderBook(best_bid=99, best_ask=101, orders=2, time=0.0)"


def test_numpy_integers_are_accepted() -> None:
    book = OrderBook()
    order_id, _ = book.limit(np.int64(1), np.int64(99), np.int32(2), owner=np.int64(3))
    assert order_id is not None
    assert book.get(np.int64(order_id)) == Order(order_id, BID, 99, 2, 3, 0.0)
    assert book.market(np.int64(-1), np.int64(1))[0] == 1
    assert book.depth(np.int64(1))[1].tolist() == [1]
    assert book.cancel(np.int64(order_id)) is True


def test_copy_and_pickle_give_independent_books() -> None:
    book, (a, b) = _book((BID, 99, 2), (ASK, 101, 3))
    book.cancel(a)
    for clone in (copy.deepcopy(book), pickle.loads(pickle.dumps(book))):
        assert [x.tolist() for x in clone.depth(2)] == [x.tolist() for x in book.depth(2)]
        assert clone.market(BID, 3) == (3, [Fill(101, 3, b, 3, -1, -1, BID, 0.0)])
        assert book.get(b) is not None and clone.get(b) is None
        assert clone.limit(BID, 50, 1)[0] == 4
    assert book.limit(BID, 50, 1)[0] == 3


def test_many_cancels_in_one_queue_keep_it_correct_and_bounded() -> None:
    book = OrderBook()
    ids = [book.limit(ASK, 101, 1)[0] or 0 for _ in range(1000)]
    survivor = ids[700]
    for order_id in ids:
        if order_id != survivor:
            assert book.cancel(order_id)
    assert book.queue_ahead(survivor) == 0 and book.volume_at(ASK, 101) == 1
    # Cancelled orders are not kept around in the queue (white box: the level's
    # linked queue is the survivor alone, its head and its tail).
    volume, count, head, tail = book._asks[101]
    assert (volume, count) == (1, 1) and head is tail and head[1] == survivor
    assert head[6] is None and head[7] is None
    assert book.market(BID, 1)[1][0].maker_order_id == survivor


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda b: b.limit(BID, 0, 1), ValueError, r"price must be an int >= 1.*got 0"),
        (lambda b: b.limit(BID, -3, 1), ValueError, r"price must be .*got -3"),
        (lambda b: b.limit(BID, 10.5, 1), TypeError, r"price must be an int.*got 10.5"),
        (lambda b: b.limit(BID, 10.0, 1), TypeError, r"price .*got 10.0"),
        (lambda b: b.limit(BID, True, 1), TypeError, r"price .*got True"),
        (lambda b: b.limit(BID, "10", 1), TypeError, r"price .*got '10'"),
        (
            lambda b: b.limit(BID, 10, 0),
            ValueError,
            r"quantity must be an int >= 1 and <= 4611686018427387903 \(2\*\*62 - 1\), got 0",
        ),
        (lambda b: b.limit(BID, 10, 2.5), TypeError, r"quantity must be .*got 2.5"),
        (lambda b: b.limit(BID, 10, 1, owner="me"), TypeError, r"owner must be an int.*'me'"),
        (lambda b: b.limit("buy", 10, 1), TypeError, r"side must be Side.BID or Side.ASK.*'buy'"),
        (lambda b: b.limit(0, 10, 1), ValueError, r"side must be .*got 0"),
        (lambda b: b.limit(2, 10, 1), ValueError, r"side must be .*got 2"),
        (lambda b: b.limit(True, 10, 1), TypeError, r"side must be .*got True"),
        (lambda b: b.market(BID, 0), ValueError, r"OrderBook.market: quantity .*got 0"),
        (lambda b: b.market(None, 1), TypeError, r"OrderBook.market: side .*got None"),
        (lambda b: b.cancel("1"), TypeError, r"OrderBook.cancel: order_id must be an int"),
        (lambda b: b.reduce(1, 0), ValueError, r"OrderBook.reduce: quantity .*got 0"),
        (lambda b: b.reduce(1.0, 1), TypeError, r"OrderBook.reduce: order_id .*got 1.0"),
        (lambda b: b.get(None), TypeError, r"OrderBook.get: order_id .*got None"),
        (lambda b: b.queue_ahead("x"), TypeError, r"queue_ahead: order_id .*got 'x'"),
        (lambda b: b.depth(0), ValueError, r"OrderBook.depth: levels must be an int >= 1, got 0"),
        (lambda b: b.depth(2.0), TypeError, r"OrderBook.depth: levels .*got 2.0"),
        (lambda b: b.volume_at(BID, 0), ValueError, r"volume_at: price .*got 0"),
        (lambda b: b.volume_at(3, 10), ValueError, r"volume_at: side .*got 3"),
        (lambda b: b.n_levels("bid"), TypeError, r"n_levels: side .*got 'bid'"),
        (lambda b: b.orders_of(1.5), TypeError, r"orders_of: owner .*got 1.5"),
        (lambda b: b.n_orders_of(None), TypeError, r"n_orders_of: owner .*got None"),
    ],
)
def test_bad_arguments_raise_naming_what_was_expected(call, error, message) -> None:  # type: ignore[no-untyped-def]
    book, _ = _book((BID, 99, 1), (ASK, 101, 1))
    before = [a.tolist() for a in book.depth(3)]
    with pytest.raises(error, match=message):
        call(book)
    assert [a.tolist() for a in book.depth(3)] == before and len(book) == 2


def test_a_rejected_order_uses_no_id() -> None:
    book = OrderBook()
    with pytest.raises(ValueError, match="quantity"):
        book.limit(BID, 99, 0)
    with pytest.raises(TypeError, match="side"):
        book.market("sell", 1)  # type: ignore[arg-type]
    assert book.limit(BID, 99, 1)[0] == 1


def test_a_book_with_a_long_queue_pickles_and_copies() -> None:
    # The queue is a linked chain of orders; pickling must not follow it one
    # recursive call per order.
    book = OrderBook()
    ids = [book.limit(BID, 99, 1 + i % 3, owner=i % 4)[0] or 0 for i in range(20_000)]
    for order_id in ids[::3]:
        book.cancel(order_id)
    clones = [copy.deepcopy(book), pickle.loads(pickle.dumps(book))]
    for clone in clones:
        assert len(clone) == len(book) and clone.volume_at(BID, 99) == book.volume_at(BID, 99)
        assert clone.queue_ahead(ids[-1]) == book.queue_ahead(ids[-1])
        assert [o.order_id for o in clone.orders_of(1)] == [o.order_id for o in book.orders_of(1)]
    expected = book.market(ASK, 10**9), book.limit(ASK, 99, 1)
    for clone in clones:
        assert (clone.market(ASK, 10**9), clone.limit(ASK, 99, 1)) == expected


def test_a_book_pickled_with_deque_levels_unpickles() -> None:
    # The state of a book from before the linked queues: levels of
    # [volume, n_orders, deque of records], cancelled records left as tombstones.
    a = [2, 1, 5, 0.0, BID, 99]
    gone = [0, 2, -1, 0.0, BID, 99]
    b = [3, 3, -1, 1.0, BID, 99]
    c = [4, 4, 5, 1.0, ASK, 101]
    state = {
        "_time": 1.0,
        "last_price": None,
        "_next_id": 5,
        "_orders": {1: a, 3: b, 4: c},
        "_owners": {5: {1: a, 4: c}, -1: {3: b}},
        "_bids": {99: [5, 2, deque([a, gone, b])]},
        "_asks": {101: [4, 1, deque([c])]},
        "_bid_keys": [99],
        "_ask_keys": [-101],
    }
    book = OrderBook.__new__(OrderBook)
    book.__setstate__(state)
    assert book.time == 1.0 and len(book) == 3 and book.queue_ahead(3) == 2
    assert [o.order_id for o in book.orders_of(5)] == [1, 4]
    assert book.get(3) == Order(3, BID, 99, 3, -1, 1.0)
    assert [x.tolist() for x in book.depth(1)] == [[99], [5], [101], [4]]
    assert book.cancel(1) and book.queue_ahead(3) == 0
    assert book.limit(ASK, 99, 3) == (None, [Fill(99, 3, 3, 5, -1, -1, ASK, 1.0)])
