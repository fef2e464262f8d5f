"""The integer range of the book: prices and quantities too large for its int64 keys are refused.

A price of 2**62 or more used to rest (out of reach of market orders) and a
quantity of 2**63 or more to rest too, and ``depth`` then raised
OverflowError. They are refused where they enter, and everything inside the
range still trades and shows in ``depth`` exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.finance.lob import (
    LOBSTER_MESSAGE_DTYPE,
    LobsterReplay,
    OrderBook,
    Side,
    ZeroIntelligenceFlow,
)

BID, ASK = Side.BID, Side.ASK
MAX_PRICE = OrderBook.MAX_PRICE
MAX_QUANTITY = OrderBook.MAX_QUANTITY
MAX_VOLUME = OrderBook.MAX_VOLUME

sides = st.sampled_from([BID, ASK])
too_high = st.integers(min_value=2**62, max_value=2**80)
highest_prices = st.integers(min_value=MAX_PRICE - 1000, max_value=MAX_PRICE)


def _state(book: OrderBook) -> list[list[int]]:
    return [a.tolist() for a in book.depth(3)]


def test_the_bounds_are_what_the_int64_keys_allow() -> None:
    assert MAX_PRICE == MAX_QUANTITY == 2**62 - 1
    assert np.iinfo(np.int64).max == MAX_VOLUME


@settings(max_examples=50, deadline=None)
@given(side=sides, price=too_high)
def test_a_price_of_2_62_or_more_is_refused_and_changes_nothing(side: Side, price: int) -> None:
    book = OrderBook()
    book.limit(BID, 99, 1)
    book.limit(ASK, 101, 1)
    before = _state(book)
    with pytest.raises(
        ValueError,
        match=rf"OrderBook.limit: price must be an int >= 1 and <= {MAX_PRICE} "
        rf"\(2\*\*62 - 1; a price in ticks\), got {price}",
    ):
        book.limit(side, price, 1)
    assert _state(book) == before and len(book) == 2
    assert book.limit(BID, 98, 1)[0] == 3  # the refused order took no id


@settings(max_examples=50, deadline=None)
@given(price=too_high)
def test_numpy_prices_past_the_range_are_refused(price: int) -> None:
    book = OrderBook()
    value = np.uint64(price) if price < 2**64 else price
    with pytest.raises(ValueError, match=rf"price must be .*<= {MAX_PRICE}.*, got .*{price}"):
        book.limit(ASK, value, 1)
    with pytest.raises(ValueError, match=r"volume_at: price must be .*<= "):
        book.volume_at(ASK, value)


@settings(max_examples=50, deadline=None)
@given(price=highest_prices, quantity=st.integers(1, 5))
def test_the_highest_ask_prices_trade_with_a_market_order_and_show_in_depth(
    price: int, quantity: int
) -> None:
    book = OrderBook()
    ask_id, _ = book.limit(ASK, price, quantity)
    assert [a.tolist() for a in book.depth(1)] == [[0], [0], [price], [quantity]]
    traded, fills = book.market(BID, quantity + 1)
    assert traded == quantity
    assert [(f.price, f.quantity, f.maker_order_id) for f in fills] == [(price, quantity, ask_id)]
    assert len(book) == 0 and book.last_price == price


@settings(max_examples=50, deadline=None)
@given(price=highest_prices)
def test_the_highest_bid_prices_rest_and_trade(price: int) -> None:
    book = OrderBook()
    book.limit(BID, price, 2)
    assert book.best_bid() == price and book.depth(1)[0].tolist() == [price]
    traded, fills = book.market(ASK, 1)
    assert traded == 1 and fills[0].price == price
    _, crossed = book.limit(ASK, 1, 1)  # a sell at the lowest price crosses up to it
    assert [f.price for f in crossed] == [price] and len(book) == 0


@settings(max_examples=50, deadline=None)
@given(side=sides, quantity=too_high)
def test_a_quantity_of_2_62_or_more_is_refused(side: Side, quantity: int) -> None:
    book = OrderBook()
    with pytest.raises(
        ValueError,
        match=rf"OrderBook.limit: quantity must be an int >= 1 and <= {MAX_QUANTITY} "
        rf"\(2\*\*62 - 1\), got {quantity}",
    ):
        book.limit(side, 100, quantity)
    assert len(book) == 0 and book.limit(side, 100, 1)[0] == 1


def test_the_largest_quantity_rests_and_shows_in_depth() -> None:
    book = OrderBook()
    book.limit(BID, 100, MAX_QUANTITY)
    assert book.depth(1)[1].tolist() == [MAX_QUANTITY]
    traded, _ = book.market(ASK, 2**70)  # a market order only takes out: any size will do
    assert traded == MAX_QUANTITY and len(book) == 0


@settings(max_examples=100, deadline=None)
@given(
    side=sides,
    first=st.integers(1, MAX_QUANTITY),
    second=st.integers(1, MAX_QUANTITY),
    third=st.integers(1, MAX_QUANTITY),
)
def test_the_quantity_at_one_price_never_passes_int64(
    side: Side, first: int, second: int, third: int
) -> None:
    book = OrderBook()
    book.limit(side, 100, first)
    book.limit(side, 100, second)
    before = _state(book)
    if first + second + third <= MAX_VOLUME:
        assert book.limit(side, 100, third)[0] == 3
        sizes = book.depth(1)[1 if side is BID else 3].tolist()
        assert sizes == [first + second + third]
        return
    name = "bids" if side is BID else "asks"
    with pytest.raises(
        ValueError,
        match=rf"the {name} at price 100 hold {first + second} and cannot take a quantity of "
        rf"{third} more: the quantity at one price must stay <= {MAX_VOLUME}",
    ):
        book.limit(side, 100, third)
    assert _state(book) == before and len(book) == 2
    assert book.limit(side, 101, 1)[0] == 3  # the refused order took no id


# -- the flow and the LOBSTER replay, which feed the book -----------------------------------------


def test_the_flow_refuses_a_mid_whose_levels_leave_the_range() -> None:
    with pytest.raises(
        ValueError,
        match=rf"initialise: mid must be <= {MAX_PRICE - 5}, so that the asks up to mid \+ "
        rf"levels \(5\) stay at most OrderBook.MAX_PRICE = {MAX_PRICE}, got {MAX_PRICE - 4}",
    ):
        ZeroIntelligenceFlow().initialise(
            OrderBook(), np.random.default_rng(0), mid=MAX_PRICE - 4, levels=5
        )


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_flow_keeps_its_prices_in_range_at_the_top(seed: int) -> None:
    rng = np.random.default_rng(seed)
    flow = ZeroIntelligenceFlow(limit_rate=20.0, market_rate=4.0, max_offset=30)
    book = OrderBook()
    flow.initialise(book, rng, mid=MAX_PRICE - 3, levels=3)
    flow.advance(book, rng, until=20.0)
    bid_prices, _, ask_prices, _ = book.depth(50)  # used to raise OverflowError
    assert (ask_prices <= MAX_PRICE).all() and (bid_prices <= MAX_PRICE).all()
    asks = [order.price for order in book.orders_of(-1) if order.side is ASK]
    assert asks and max(asks) <= MAX_PRICE


def _messages(*rows: tuple[float, int, int, int, int, int]) -> np.ndarray:
    return np.array(list(rows), dtype=LOBSTER_MESSAGE_DTYPE)


@settings(max_examples=20, deadline=None)
@given(price=st.integers(2**62, 2**63 - 1))
def test_lobster_refuses_prices_past_the_range_before_replaying(price: int) -> None:
    # int64 LOBSTER prices go past the range only with a tick of 1 price unit
    messages = _messages((1.0, 1, 7, 10, 100, 1), (2.0, 1, 8, 10, price, -1))
    book = OrderBook()
    with pytest.raises(
        ValueError,
        match=rf"prices must be at most {MAX_PRICE} \(2\*\*62 - 1\) ticks of 1, "
        rf"got {price} at row 2",
    ):
        LobsterReplay(messages, book, tick_size=1)
    assert len(book) == 0  # nothing was replayed


@pytest.mark.parametrize("tick_size", [1, 2])
def test_lobster_replays_the_highest_price(tick_size: int) -> None:
    replay = LobsterReplay(
        _messages((1.0, 1, 7, 10, MAX_PRICE * tick_size, -1)), tick_size=tick_size
    )
    replay.run()
    assert replay.book.depth(1)[2].tolist() == [MAX_PRICE]


@pytest.mark.parametrize("size", [0, 2**62, 2**63 - 1])
def test_lobster_refuses_sizes_past_the_range_before_replaying(size: int) -> None:
    messages = _messages((1.0, 1, 7, 10, 10000, 1), (2.0, 1, 8, size, 10100, -1))
    book = OrderBook()
    with pytest.raises(
        ValueError,
        match=rf"sizes must be in \[1, {MAX_QUANTITY}\] \(2\*\*62 - 1\), got {size} at row 2",
    ):
        LobsterReplay(messages, book)
    assert len(book) == 0  # nothing was replayed
