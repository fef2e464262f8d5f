"""Random streams of orders: the book keeps its invariants and matches a slow reference.

The reference book below is written to be obviously right rather than fast:
one list of resting orders in arrival order, and every question answered by
scanning it.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import given, settings, strategies as st

from sekai.finance.lob import BACKGROUND, Fill, Order, OrderBook, Side

BID, ASK = Side.BID, Side.ASK
OWNERS = (BACKGROUND, 0, 1, 2)


@dataclass
class _Resting:
    order_id: int
    side: Side
    price: int
    quantity: int
    owner: int
    time: float


class ReferenceBook:
    """Price-time priority by brute force over a list kept in arrival order."""

    def __init__(self) -> None:
        self.resting: list[_Resting] = []
        self.next_id = 1
        self.time = 0.0
        self.last_price: int | None = None

    def _best_maker(self, taker_side: Side, limit: int | None) -> _Resting | None:
        candidates = [
            o
            for o in self.resting
            if o.side is not taker_side
            and (limit is None or (o.price <= limit if taker_side is BID else o.price >= limit))
        ]
        if not candidates:
            return None
        best = (
            min(o.price for o in candidates)
            if taker_side is BID
            else max(o.price for o in candidates)
        )
        return next(o for o in candidates if o.price == best)  # the oldest at the best price

    def _take(
        self, side: Side, quantity: int, limit: int | None, taker_id: int, owner: int
    ) -> tuple[int, list[Fill]]:
        fills = []
        while quantity > 0:
            maker = self._best_maker(side, limit)
            if maker is None:
                break
            traded = min(quantity, maker.quantity)
            fills.append(
                Fill(
                    maker.price,
                    traded,
                    maker.order_id,
                    taker_id,
                    maker.owner,
                    owner,
                    side,
                    self.time,
                )
            )
            quantity -= traded
            maker.quantity -= traded
            if maker.quantity == 0:
                self.resting.remove(maker)
            self.last_price = maker.price
        return quantity, fills

    def limit(self, side: Side, price: int, quantity: int, owner: int) -> Any:
        order_id = self.next_id
        self.next_id += 1
        left, fills = self._take(side, quantity, price, order_id, owner)
        if left == 0:
            return None, fills
        self.resting.append(_Resting(order_id, side, price, left, owner, self.time))
        return order_id, fills

    def market(self, side: Side, quantity: int, owner: int) -> Any:
        order_id = self.next_id
        self.next_id += 1
        left, fills = self._take(side, quantity, None, order_id, owner)
        return quantity - left, fills

    def _find(self, order_id: int) -> _Resting | None:
        return next((o for o in self.resting if o.order_id == order_id), None)

    def cancel(self, order_id: int) -> bool:
        order = self._find(order_id)
        if order is not None:
            self.resting.remove(order)
        return order is not None

    def reduce(self, order_id: int, quantity: int) -> bool:
        order = self._find(order_id)
        if order is not None:
            order.quantity -= quantity
            if order.quantity <= 0:
                self.resting.remove(order)
        return order is not None

    def depth(self, levels: int) -> list[list[int]]:
        out = []
        for side, best_first in ((BID, True), (ASK, False)):
            prices = sorted({o.price for o in self.resting if o.side is side}, reverse=best_first)
            prices = prices[:levels]
            sizes = [
                sum(o.quantity for o in self.resting if o.side is side and o.price == p)
                for p in prices
            ]
            pad = [0] * (levels - len(prices))
            out += [prices + pad, sizes + pad]
        return out

    def queue_ahead(self, order_id: int) -> int:
        order = self._find(order_id)
        assert order is not None
        ahead = 0
        for o in self.resting:
            if o is order:
                return ahead
            if o.side is order.side and o.price == order.price:
                ahead += o.quantity
        raise AssertionError("unreachable")

    def orders(self) -> list[Order]:
        return [
            Order(o.order_id, o.side, o.price, o.quantity, o.owner, o.time) for o in self.resting
        ]


# -- random streams -------------------------------------------------------------------------------

sides = st.sampled_from([BID, ASK])
owners = st.sampled_from(OWNERS)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("limit"), sides, st.integers(1, 12), st.integers(1, 6), owners),
        st.tuples(st.just("market"), sides, st.integers(1, 12), owners),
        st.tuples(st.just("cancel"), st.integers(0, 200)),
        st.tuples(st.just("reduce"), st.integers(0, 200), st.integers(1, 6)),
        st.tuples(st.just("time"), st.floats(0.0, 5.0, allow_nan=False)),
    ),
    max_size=120,
)


def _target(issued: list[int], pick: int) -> int:
    """Mostly an id the book gave out, sometimes one it never did."""
    if issued and pick < 180:
        return issued[pick % len(issued)]
    return 10_000 + pick


def _all_orders(book: OrderBook) -> list[Order]:
    return sorted((o for owner in OWNERS for o in book.orders_of(owner)), key=lambda o: o.order_id)


def _apply(book: Any, operation: tuple[Any, ...], issued: list[int]) -> Any:
    kind = operation[0]
    if kind == "limit":
        _, side, price, quantity, owner = operation
        result = book.limit(side, price, quantity, owner)
        issued.append(book.next_id - 1 if isinstance(book, ReferenceBook) else book._next_id - 1)
        return result
    if kind == "market":
        _, side, quantity, owner = operation
        return book.market(side, quantity, owner)
    if kind == "cancel":
        return book.cancel(_target(issued, operation[1]))
    if kind == "reduce":
        return book.reduce(_target(issued, operation[1]), operation[2])
    book.time += operation[1]
    return None


@settings(max_examples=300, deadline=None)
@given(operations)
def test_matches_the_reference_event_for_event(ops: list[tuple[Any, ...]]) -> None:
    book, reference = OrderBook(), ReferenceBook()
    issued_book: list[int] = []
    issued_reference: list[int] = []
    for op in ops:
        got = _apply(book, op, issued_book)
        expected = _apply(reference, op, issued_reference)
        assert got == expected, op
        assert [a.tolist() for a in book.depth(6)] == reference.depth(6)
        assert book.last_price == reference.last_price
        orders = reference.orders()
        assert _all_orders(book) == sorted(orders, key=lambda o: o.order_id)
        assert len(book) == len(orders)
        for order in orders:
            assert book.get(order.order_id) == order
            assert book.queue_ahead(order.order_id) == reference.queue_ahead(order.order_id)
        for owner in OWNERS:
            assert book.orders_of(owner) == [o for o in orders if o.owner == owner]
            assert book.n_orders_of(owner) == sum(o.owner == owner for o in orders)
        for side in (BID, ASK):
            prices = {o.price for o in orders if o.side is side}
            assert book.n_levels(side) == len(prices)
            for price in range(1, 14):
                assert book.volume_at(side, price) == sum(
                    o.quantity for o in orders if o.side is side and o.price == price
                )


@settings(max_examples=300, deadline=None)
@given(operations)
def test_invariants_hold_after_every_event(ops: list[tuple[Any, ...]]) -> None:
    book = OrderBook()
    issued: list[int] = []
    added = taker_filled = maker_filled = cancelled = 0
    for op in ops:
        before = {o.order_id: o for o in _all_orders(book)}
        if op[0] in ("cancel", "reduce"):
            target = _target(issued, op[1])
            resting = before.get(target)
            result = _apply(book, op, issued)
            assert result is (resting is not None)
            after = {o.order_id: o for o in _all_orders(book)}
            if op[0] == "cancel":
                if resting is not None:
                    # Cancel removes exactly one order and leaves the others untouched.
                    assert len(book) == len(before) - 1
                    cancelled += resting.quantity
                    del before[target]
                assert after == before
            else:
                if resting is not None:
                    cancelled += min(op[2], resting.quantity)
                    if op[2] >= resting.quantity:
                        del before[target]
                    else:
                        before[target].quantity -= op[2]
                assert after == before
            fills: list[Fill] = []
        elif op[0] == "limit":
            order_id, fills = _apply(book, op, issued)
            added += op[3]
            taker_filled += sum(f.quantity for f in fills)
            if order_id is not None:
                order = book.get(order_id)
                assert order is not None
                assert order.quantity == op[3] - sum(f.quantity for f in fills)
        elif op[0] == "market":
            traded, fills = _apply(book, op, issued)
            assert traded == sum(f.quantity for f in fills) <= op[2]
            if traded < op[2]:  # only an empty opposite side stops a market order
                assert (book.best_ask() if op[1] is BID else book.best_bid()) is None
        else:
            _apply(book, op, issued)
            fills = []
        maker_filled += sum(f.quantity for f in fills)
        orders = _all_orders(book)
        # Never crossed after matching.
        bid, ask = book.best_bid(), book.best_ask()
        assert bid is None or ask is None or bid < ask
        # Sizes conserved: what limit orders brought is resting, traded or cancelled.
        resting_total = sum(o.quantity for o in orders)
        assert added == resting_total + taker_filled + maker_filled + cancelled
        depth = book.depth(50)
        assert int(depth[1].sum() + depth[3].sum()) == resting_total
        # Fills: each at a price no worse than the taker's limit, best prices first.
        prices = [f.price for f in fills]
        if fills and op[0] == "limit":
            assert (
                all(p <= op[2] for p in prices) if op[1] is BID else all(p >= op[2] for p in prices)
            )
        assert prices == sorted(prices, reverse=bool(fills) and fills[0].taker_side is ASK)
        # FIFO within a level: nothing older than a filled maker still rests at its price.
        for fill in fills:
            maker_side = fill.taker_side.opposite
            assert all(
                o.order_id >= fill.maker_order_id
                for o in orders
                if o.side is maker_side and o.price == fill.price
            )
        by_level: dict[tuple[Side, int], list[Order]] = {}
        for o in orders:
            by_level.setdefault((o.side, o.price), []).append(o)
        for level in by_level.values():
            ahead = np.cumsum([0] + [o.quantity for o in level[:-1]])
            assert [book.queue_ahead(o.order_id) for o in level] == ahead.tolist()


# -- long queues with many cancels ----------------------------------------------------------------
#
# Few prices and many orders per price: queues grow long, and cancels and
# reductions hit their fronts, middles and ends. A copy or pickle of the book
# in the middle of the stream must carry on exactly like the book itself.

deep_operations = st.lists(
    st.one_of(
        st.tuples(st.just("limit"), sides, st.integers(5, 8), st.integers(1, 4), owners),
        st.tuples(st.just("limit"), sides, st.integers(5, 8), st.integers(1, 4), owners),
        st.tuples(st.just("limit"), sides, st.integers(5, 8), st.integers(1, 4), owners),
        st.tuples(st.just("cancel"), st.integers(0, 200)),
        st.tuples(st.just("cancel"), st.integers(0, 200)),
        st.tuples(st.just("reduce"), st.integers(0, 200), st.integers(1, 4)),
        st.tuples(st.just("market"), sides, st.integers(1, 30), owners),
        st.tuples(st.just("time"), st.floats(0.0, 5.0, allow_nan=False)),
        st.tuples(st.just("copy"), st.sampled_from(["pickle", "deepcopy"])),
    ),
    max_size=400,
)


def _queues(book: OrderBook) -> dict[tuple[Side, int], list[int]]:
    """The ids in each price level's queue, front first, walking the links both ways."""
    out: dict[tuple[Side, int], list[int]] = {}
    for side, levels in ((BID, book._bids), (ASK, book._asks)):
        for price, (volume, count, head, tail) in levels.items():
            forward, record, before = [], head, None
            while record is not None:
                assert record[6] is before  # the back link mirrors the forward one
                forward.append(record[1])
                before, record = record, record[7]
            assert before is tail and len(forward) == count
            assert volume == sum(book._orders[i][0] for i in forward)
            out[side, price] = forward
    return out


@settings(max_examples=150, deadline=None)
@given(deep_operations)
def test_long_queues_with_many_cancels_match_the_reference(ops: list[tuple[Any, ...]]) -> None:
    book, reference = OrderBook(), ReferenceBook()
    issued_book: list[int] = []
    issued_reference: list[int] = []
    for op in ops:
        if op[0] == "copy":
            book = pickle.loads(pickle.dumps(book)) if op[1] == "pickle" else copy.deepcopy(book)
            continue
        got = _apply(book, op, issued_book)
        expected = _apply(reference, op, issued_reference)
        assert got == expected, op
        assert book.last_price == reference.last_price
        assert [a.tolist() for a in book.depth(4)] == reference.depth(4)
        orders = reference.orders()
        assert len(book) == len(orders)
        expected_queues: dict[tuple[Side, int], list[int]] = {}
        for order in orders:
            expected_queues.setdefault((order.side, order.price), []).append(order.order_id)
        assert _queues(book) == expected_queues
        for owner in OWNERS:
            assert book.orders_of(owner) == [o for o in orders if o.owner == owner]
    for order in reference.orders():
        assert book.queue_ahead(order.order_id) == reference.queue_ahead(order.order_id)


@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=40), st.integers(1, 60))
def test_churn_on_one_level_keeps_the_queue_the_size_of_the_resting_orders(
    picks: list[int], resting: int
) -> None:
    # Orders keep arriving at one price while others are cancelled (front,
    # middle or back of the queue): the level holds the resting orders and
    # nothing else, whatever the number of cancels so far.
    book = OrderBook()
    alive = [book.limit(ASK, 101, 1)[0] or 0 for _ in range(resting)]
    for round_ in range(50):
        for pick in picks:
            victim = alive.pop(pick % len(alive))
            assert book.cancel(victim)
            order_id, _ = book.limit(ASK, 101, 1)
            assert order_id is not None
            alive.append(order_id)
        queue = _queues(book)[ASK, 101]
        assert queue == alive, round_
        assert len(book._orders) == resting and book._asks[101][1] == resting
        assert book.volume_at(ASK, 101) == resting
    assert [f.maker_order_id for f in book.market(BID, resting)[1]] == alive
    assert len(book) == 0 and book.n_levels(ASK) == 0
