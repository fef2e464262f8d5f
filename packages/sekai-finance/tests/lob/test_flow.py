"""ZeroIntelligenceFlow: seeding, reproducibility, and arrival statistics.

Statistical checks allow 5 standard deviations computed from the sample size,
so a correct implementation fails them with probability below 1e-6 per check
(the seeds are fixed, so the outcome is deterministic anyway).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from sekai.finance.lob import BACKGROUND, Fill, OrderBook, Side, ZeroIntelligenceFlow

BID, ASK = Side.BID, Side.ASK


class RecordingBook(OrderBook):
    """An OrderBook that records the calls the flow makes (it acts through the public API)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[Any, ...]] = []
        self.market_ids: set[int] = set()

    def limit(self, side: Side, price: int, quantity: int, owner: int = BACKGROUND) -> Any:
        reference = self.best_ask() if side is BID else self.best_bid()
        self.calls.append(
            ("limit", self.time, self.n_orders_of(BACKGROUND), side, price, quantity, reference)
        )
        return super().limit(side, price, quantity, owner)

    def market(self, side: Side, quantity: int, owner: int = BACKGROUND) -> Any:
        self.calls.append(("market", self.time, self.n_orders_of(BACKGROUND), side, quantity))
        result = super().market(side, quantity, owner)
        self.market_ids.add(self._next_id - 1)
        return result

    def cancel(self, order_id: int) -> bool:
        order = self.get(order_id)
        self.calls.append(("cancel", self.time, self.n_orders_of(BACKGROUND), order))
        return super().cancel(order_id)


def _state(book: OrderBook) -> Any:
    return [a.tolist() for a in book.depth(20)], len(book), book.time, book.last_price


def _within(observed: float, expected: float, sd: float, k: float = 5.0) -> bool:
    return abs(observed - expected) <= k * sd


# -- the dataclass --------------------------------------------------------------------------------


def test_defaults_and_dataclass_contract() -> None:
    flow = ZeroIntelligenceFlow()
    assert dataclasses.astuple(flow) == (10.0, 2.0, 0.5, 10, 0.5, 3.0)
    assert flow == ZeroIntelligenceFlow(10, 2, 0.5, 10, 0.5, 3)
    assert hash(flow) == hash(ZeroIntelligenceFlow())
    with pytest.raises(dataclasses.FrozenInstanceError):
        flow.limit_rate = 1.0  # type: ignore[misc]
    assert isinstance(ZeroIntelligenceFlow(limit_rate=np.float32(2)).limit_rate, float)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"limit_rate": -1.0},
            ValueError,
            r"ZeroIntelligenceFlow: limit_rate must be .*>= 0.*-1.0",
        ),
        ({"market_rate": math.nan}, ValueError, r"market_rate .*nan"),
        ({"cancel_rate": math.inf}, ValueError, r"cancel_rate .*inf"),
        ({"cancel_rate": "fast"}, TypeError, r"cancel_rate .*'fast'"),
        ({"max_offset": 0}, ValueError, r"max_offset must be an int >= 1, got 0"),
        ({"max_offset": 2.0}, TypeError, r"max_offset .*2.0"),
        ({"offset_decay": 0.0}, ValueError, r"offset_decay must be .*\(0.0, 1.0\].*0.0"),
        ({"offset_decay": 1.5}, ValueError, r"offset_decay .*1.5"),
        ({"mean_size": 0.5}, ValueError, r"mean_size must be .*>= 1.0.*0.5"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        ZeroIntelligenceFlow(**kwargs)


# -- initialise -----------------------------------------------------------------------------------


def test_initialise_lays_out_levels_around_mid() -> None:
    book = OrderBook()
    book.time = 3.0
    ZeroIntelligenceFlow().initialise(
        book, np.random.default_rng(0), mid=1000, levels=4, orders_per_level=2
    )
    assert len(book) == 16 and book.n_orders_of(BACKGROUND) == 16
    bid_prices, bid_sizes, ask_prices, ask_sizes = book.depth(5)
    assert bid_prices.tolist() == [999, 998, 997, 996, 0]
    assert ask_prices.tolist() == [1001, 1002, 1003, 1004, 0]
    assert (bid_sizes[:4] >= 2).all() and (ask_sizes[:4] >= 2).all()
    assert book.mid() == 1000.0 and book.spread() == 2
    assert all(o.time == 3.0 for o in book.orders_of(BACKGROUND))
    assert book.last_price is None


def test_initialise_is_reproducible() -> None:
    books = [OrderBook() for _ in range(3)]
    for book, seed in zip(books, (7, 7, 8), strict=True):
        ZeroIntelligenceFlow().initialise(book, np.random.default_rng(seed), mid=500)
    assert _state(books[0]) == _state(books[1])
    assert _state(books[0]) != _state(books[2])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"mid": 10, "levels": 10}, ValueError, r"initialise: mid must be an int >= 11, got 10"),
        ({"mid": 100.0}, TypeError, r"initialise: mid .*100.0"),
        ({"mid": 100, "levels": 0}, ValueError, r"initialise: levels must be an int >= 1"),
        ({"mid": 100, "orders_per_level": 0}, ValueError, r"orders_per_level must be"),
    ],
)
def test_initialise_bad_arguments(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    book = OrderBook()
    with pytest.raises(error, match=message):
        ZeroIntelligenceFlow().initialise(book, np.random.default_rng(0), **kwargs)
    assert len(book) == 0


def test_mean_size_one_gives_unit_orders() -> None:
    book = OrderBook()
    ZeroIntelligenceFlow(mean_size=1.0).initialise(book, np.random.default_rng(0), mid=100)
    assert set(book.depth(10)[1].tolist()) == {3}  # 3 orders of size 1 at each level


# -- advance --------------------------------------------------------------------------------------


def _run(seed: int, flow: ZeroIntelligenceFlow, until: float) -> tuple[OrderBook, list[Fill]]:
    rng = np.random.default_rng(seed)
    book = OrderBook()
    flow.initialise(book, rng, mid=1000)
    return book, flow.advance(book, rng, until)


def test_advance_is_reproducible_and_depends_on_the_seed() -> None:
    flow = ZeroIntelligenceFlow()
    (a, fills_a), (b, fills_b), (_c, fills_c) = (_run(s, flow, 50.0) for s in (1, 1, 2))
    assert fills_a == fills_b and _state(a) == _state(b)
    assert fills_a != fills_c


def test_advance_in_steps_is_reproducible_too() -> None:
    def stepped(seed: int) -> Any:
        rng = np.random.default_rng(seed)
        book = OrderBook()
        flow = ZeroIntelligenceFlow()
        flow.initialise(book, rng, mid=1000)
        fills = []
        for t in range(1, 21):
            fills += flow.advance(book, rng, float(t))
            assert book.time == float(t)
        return fills, _state(book)

    assert stepped(3) == stepped(3)


def test_advance_sets_times_and_returns_market_fills() -> None:
    book = RecordingBook()
    rng = np.random.default_rng(5)
    flow = ZeroIntelligenceFlow()
    flow.initialise(book, rng, mid=1000)
    book.time = 10.0
    book.calls.clear()
    fills = flow.advance(book, rng, 40.0)
    assert book.time == 40.0
    times = [call[1] for call in book.calls]
    assert times == sorted(times) and times[0] > 10.0 and times[-1] <= 40.0
    assert fills and all(f.taker_owner == BACKGROUND for f in fills)
    # Every fill comes from a market order: the flow's limit orders never cross.
    assert {f.taker_order_id for f in fills} <= book.market_ids
    assert all(f.time in times for f in fills)
    for call in book.calls:
        if call[0] == "limit" and call[6] is not None:
            side, price, reference = call[3], call[4], call[6]
            assert (price < reference) if side is BID else (price > reference)
    bid, ask = book.best_bid(), book.best_ask()
    assert bid is None or ask is None or bid < ask


def test_advance_to_the_current_time_does_nothing() -> None:
    book, _ = _run(0, ZeroIntelligenceFlow(), 5.0)
    before = _state(book)
    assert ZeroIntelligenceFlow().advance(book, np.random.default_rng(1), 5.0) == []
    assert _state(book) == before


def test_advance_backwards_or_to_nan_raises() -> None:
    book, _ = _run(0, ZeroIntelligenceFlow(), 5.0)
    with pytest.raises(ValueError, match=r"until must be >= book.time \(5.0\), got 4.0"):
        ZeroIntelligenceFlow().advance(book, np.random.default_rng(0), 4.0)
    with pytest.raises(ValueError, match=r"until must be a finite real number, got nan"):
        ZeroIntelligenceFlow().advance(book, np.random.default_rng(0), math.nan)


def test_no_rates_no_events() -> None:
    book, _ = _run(0, ZeroIntelligenceFlow(), 0.0)
    before = _state(book)
    flow = ZeroIntelligenceFlow(limit_rate=0.0, market_rate=0.0, cancel_rate=0.0)
    assert flow.advance(book, np.random.default_rng(0), 100.0) == []
    assert _state(book)[:2] == before[:2] and book.time == 100.0


def test_an_empty_book_that_never_traded_cannot_place_limit_orders() -> None:
    with pytest.raises(ValueError, match="empty and has never traded"):
        ZeroIntelligenceFlow().advance(OrderBook(), np.random.default_rng(0), 10.0)
    # Market orders alone are fine on an empty book.
    flow = ZeroIntelligenceFlow(limit_rate=0.0, cancel_rate=0.0)
    assert flow.advance(OrderBook(), np.random.default_rng(0), 10.0) == []


def test_an_empty_book_refers_to_the_last_price() -> None:
    book = OrderBook()
    book.limit(ASK, 50, 1)
    book.market(BID, 1)
    flow = ZeroIntelligenceFlow(market_rate=0.0, cancel_rate=0.0)
    flow.advance(book, np.random.default_rng(0), 5.0)
    bid, ask = book.best_bid(), book.best_ask()
    assert bid is not None and ask is not None and 40 <= bid < ask <= 60


def test_the_flow_never_cancels_other_owners_orders() -> None:
    book, _ = _run(0, ZeroIntelligenceFlow(), 0.0)
    agent = [book.limit(BID, 900, 1, owner=1)[0], book.limit(ASK, 1100, 1, owner=1)[0]]
    flow = ZeroIntelligenceFlow(market_rate=0.0, cancel_rate=5.0)
    flow.advance(book, np.random.default_rng(0), 200.0)
    assert [o.order_id for o in book.orders_of(1)] == agent


# -- statistics -----------------------------------------------------------------------------------


def _recorded(flow: ZeroIntelligenceFlow, until: float, seed: int = 11) -> RecordingBook:
    book = RecordingBook()
    rng = np.random.default_rng(seed)
    flow.initialise(book, rng, mid=10_000, levels=20, orders_per_level=4)
    book.calls.clear()
    flow.advance(book, rng, until)
    return book


def test_arrival_counts_follow_the_poisson_rates() -> None:
    flow = ZeroIntelligenceFlow(limit_rate=10.0, market_rate=2.0, cancel_rate=0.5)
    horizon = 2000.0
    book = _recorded(flow, horizon)
    kinds = [call[0] for call in book.calls]
    for kind, rate in (("limit", flow.limit_rate), ("market", flow.market_rate)):
        # Each kind is a Poisson process of its own rate, whatever the state.
        mean = rate * horizon
        assert _within(kinds.count(kind), mean, math.sqrt(mean)), (kind, kinds.count(kind), mean)
    # Cancellations: rate cancel_rate per resting background order, so their
    # count minus the integral of cancel_rate * N(t) dt is a martingale whose
    # variance is that integral.
    integral, last = 0.0, 0.0
    for call in book.calls:
        integral += flow.cancel_rate * call[2] * (call[1] - last)
        last = call[1]
    integral += flow.cancel_rate * book.n_orders_of(BACKGROUND) * (horizon - last)
    assert _within(kinds.count("cancel"), integral, math.sqrt(integral))
    # Arrivals are uniform in time: each half of the horizon gets half of them.
    limit_times = np.array([c[1] for c in book.calls if c[0] == "limit"])
    n = len(limit_times)
    assert _within(int((limit_times < horizon / 2).sum()), n / 2, math.sqrt(n / 4))


def test_sides_sizes_and_offsets_follow_their_distributions() -> None:
    flow = ZeroIntelligenceFlow(
        limit_rate=20.0,
        market_rate=1.0,
        cancel_rate=0.3,
        max_offset=6,
        offset_decay=0.6,
        mean_size=4.0,
    )
    book = _recorded(flow, 1000.0)
    limits = [c for c in book.calls if c[0] == "limit"]
    n = len(limits)
    assert _within(sum(c[3] is BID for c in limits), n / 2, math.sqrt(n / 4))
    sizes = np.array([c[5] for c in limits] + [c[4] for c in book.calls if c[0] == "market"])
    p = 1 / flow.mean_size
    assert sizes.min() >= 1
    assert _within(sizes.mean(), flow.mean_size, math.sqrt((1 - p) / p**2 / len(sizes)))
    # Offsets from the opposite quote: P(k) proportional to decay ** (k - 1), k = 1..6.
    offsets = np.array(
        [(c[6] - c[4]) if c[3] is BID else (c[4] - c[6]) for c in limits if c[6] is not None]
    )
    weights = flow.offset_decay ** np.arange(flow.max_offset)
    probabilities = weights / weights.sum()
    assert offsets.min() >= 1 and offsets.max() <= flow.max_offset
    m = len(offsets)
    counts = np.bincount(offsets, minlength=flow.max_offset + 1)[1:]
    for count, prob in zip(counts, probabilities, strict=True):
        assert _within(count, m * prob, math.sqrt(m * prob * (1 - prob))), (counts, probabilities)


def test_cancellations_pick_background_orders_uniformly() -> None:
    # With no arrivals the book only shrinks; each cancel takes a uniformly chosen order,
    # so the first cancel hits each of the 40 initial orders with probability 1/40.
    flow = ZeroIntelligenceFlow(limit_rate=0.0, market_rate=0.0, cancel_rate=1.0)
    hits = np.zeros(41, dtype=int)
    rng = np.random.default_rng(2)
    trials = 4000
    for _ in range(trials):
        book = RecordingBook()
        flow.initialise(book, rng, mid=100, levels=10, orders_per_level=2)
        book.calls.clear()
        first = book.time
        while not book.calls:
            first += 0.05
            flow.advance(book, rng, first)
        hits[book.calls[0][3].order_id] += 1
    expected = trials / 40
    assert hits[0] == 0
    mean_index = float((np.arange(40) * hits[1:]).sum() / trials)
    assert _within(mean_index, 19.5, math.sqrt((40**2 - 1) / 12 / trials))
    chi2 = float((((hits[1:] - expected) ** 2) / expected).sum())
    # 39 degrees of freedom: mean 39, sd sqrt(78); 5 sd above the mean.
    assert chi2 < 39 + 5 * math.sqrt(78), hits
