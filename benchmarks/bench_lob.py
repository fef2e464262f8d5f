"""Order book speed: sekai.finance's OrderBook against a sortedcontainers book.

A mixed stream of events, drawn once (seed 0) and replayed into each book:
65% limit adds, 20% cancels, 15% market orders, after a prefix of limit adds
that builds the book (not timed). Limit prices sit a geometric number of
ticks from the best opposite quote (5% of them cross it and trade), cancels
pick a resting order uniformly, and market order sizes grow with the book so
that it stays around ``TARGET_ORDERS`` resting orders (about 30 levels a side).

Measured, in one run, the books taking turns:

1. Throughput: events per second over the whole stream (best of the repeats).
   Target: >= 250k events/s.
2. Latency: ``time.perf_counter_ns()`` around every event of one pass, p50 /
   p99 / max (the timer's own cost included). Target: p99 < 25 us.
3. The same for ``SortedDictBook``, a straightforward book written here: a
   ``sortedcontainers.SortedDict`` of price -> deque of orders per side, an id
   -> order dict, ``deque.remove`` to cancel, fills built as :class:`Fill`.
   Target: sekai >= 1.5x its throughput.

Both books must return the same results event for event (checked first).
Needs ``sortedcontainers`` (the ``bench`` dependency group); without it only
the sekai book is measured. Run ``python benchmarks/bench_lob.py [--quick]``;
results are printed and written to ``benchmarks/results/bench_lob.json``.
"""

from __future__ import annotations

import gc
import json
import math
import platform
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.finance.lob import BACKGROUND, Fill, OrderBook, Side

try:
    from sortedcontainers import SortedDict
except ImportError:  # the comparison is skipped
    SortedDict = None

RESULTS = Path(__file__).parent / "results" / "bench_lob.json"
TARGET_ORDERS = 1000
MID = 100_000

# -- the baseline: a straightforward SortedDict-of-deques book ------------------------------------


class SortedDictBook:
    """Price-time priority with a SortedDict of deques per side (same API as OrderBook)."""

    def __init__(self) -> None:
        self.bids: Any = SortedDict()  # price -> deque of [order_id, quantity, owner, time]
        self.asks: Any = SortedDict()
        self.orders: dict[int, tuple[Side, int, list[Any]]] = {}
        self.next_id = 1
        self.time = 0.0
        self.last_price: int | None = None

    def limit(
        self, side: Side, price: int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int | None, list[Fill]]:
        order_id = self.next_id
        self.next_id += 1
        if side == Side.BID:
            quantity, fills = self._match(
                self.asks, 0, lambda p: p <= price, quantity, order_id, owner, side
            )
            book = self.bids
        else:
            quantity, fills = self._match(
                self.bids, -1, lambda p: p >= price, quantity, order_id, owner, side
            )
            book = self.asks
        if quantity == 0:
            return None, fills
        entry = [order_id, quantity, owner, self.time]
        if price not in book:
            book[price] = deque()
        book[price].append(entry)
        self.orders[order_id] = (side, price, entry)
        return order_id, fills

    def market(self, side: Side, quantity: int, owner: int = BACKGROUND) -> tuple[int, list[Fill]]:
        order_id = self.next_id
        self.next_id += 1
        if side == Side.BID:
            left, fills = self._match(self.asks, 0, lambda p: True, quantity, order_id, owner, side)
        else:
            left, fills = self._match(
                self.bids, -1, lambda p: True, quantity, order_id, owner, side
            )
        return quantity - left, fills

    def _match(
        self,
        book: Any,
        best: int,
        crosses: Callable[[int], bool],
        quantity: int,
        order_id: int,
        owner: int,
        side: Side,
    ) -> tuple[int, list[Fill]]:
        fills: list[Fill] = []
        while quantity and book:
            price, queue = book.peekitem(best)
            if not crosses(price):
                break
            while quantity and queue:
                entry = queue[0]
                traded = min(quantity, entry[1])
                entry[1] -= traded
                quantity -= traded
                fills.append(
                    Fill(price, traded, entry[0], order_id, entry[2], owner, side, self.time)
                )
                if entry[1] == 0:
                    queue.popleft()
                    del self.orders[entry[0]]
            if not queue:
                del book[price]
        if fills:
            self.last_price = fills[-1].price
        return quantity, fills

    def cancel(self, order_id: int) -> bool:
        found = self.orders.pop(order_id, None)
        if found is None:
            return False
        side, price, entry = found
        book = self.bids if side == Side.BID else self.asks
        queue = book[price]
        queue.remove(entry)
        if not queue:
            del book[price]
        return True

    def depth(self, levels: int) -> tuple[list[int], list[int], list[int], list[int]]:
        bids = list(reversed(self.bids.keys()))[:levels]
        asks = list(self.asks.keys())[:levels]
        return (
            bids,
            [sum(e[1] for e in self.bids[p]) for p in bids],
            asks,
            [sum(e[1] for e in self.asks[p]) for p in asks],
        )


# -- the stream ---------------------------------------------------------------------------------

Event = tuple[int, tuple[Any, ...]]  # (0 limit | 1 cancel | 2 market, arguments)


def make_stream(n_events: int, seed: int = 0) -> tuple[list[Event], list[Event]]:
    """The (prefix, mixed) events; generated against an OrderBook that tracks the state."""
    rng = np.random.default_rng(seed)
    book = OrderBook()
    prefix: list[Event] = []
    for i in range(TARGET_ORDERS):
        side = Side.BID if i % 2 == 0 else Side.ASK
        offset = 1 + int(rng.geometric(0.08))
        price = MID - offset if side is Side.BID else MID + offset
        args = (side, price, int(rng.geometric(1 / 3)))
        book.limit(*args)
        prefix.append((0, args))
    kinds = rng.choice(3, size=n_events, p=[0.65, 0.20, 0.15]).tolist()
    u = rng.random((n_events, 3)).tolist()
    events: list[Event] = []
    for kind, (u_side, u_price, u_size) in zip(kinds, u, strict=True):
        side = Side.BID if u_side < 0.5 else Side.ASK
        if kind == 0:
            if side is Side.BID:
                ref = book.best_ask() or (book.best_bid() or MID) + 1
            else:
                ref = book.best_bid() or (book.best_ask() or MID) - 1
            # 5% cross the opposite quote by 0-2 ticks; the rest sit 1, 2, ... ticks behind it.
            if u_price < 0.05:
                offset = -int(u_price * 60)
            else:
                offset = 1 + int(math.log((u_price - 0.05) / 0.95 + 1e-300) / math.log(0.92))
            price = max(1, ref - offset) if side is Side.BID else ref + offset
            size = 1 + int(math.log(1 - u_size) / math.log(2 / 3))
            event: Event = (0, (side, price, size))
            book.limit(side, price, size)
        elif kind == 1:
            n = book.n_orders_of(BACKGROUND)
            if n == 0:
                event = (1, (-1,))
            else:
                event = (1, (book._nth_order_of(BACKGROUND, int(u_price * n)),))
                book.cancel(event[1][0])
        else:
            mean = 9.0 * (len(book) / TARGET_ORDERS) ** 2
            size = 1 + int(math.log(1 - u_size) / math.log1p(-1 / max(mean, 1.0)))
            event = (2, (side, size))
            book.market(side, size)
        events.append(event)
    return prefix, events


def _bound(book: Any, events: list[Event]) -> list[tuple[Callable[..., Any], tuple[Any, ...]]]:
    methods = (book.limit, book.cancel, book.market)
    return [(methods[kind], args) for kind, args in events]


def _fresh(factory: Callable[[], Any], prefix: list[Event]) -> Any:
    book = factory()
    for fn, args in _bound(book, prefix):
        fn(*args)
    return book


def check_same(prefix: list[Event], events: list[Event]) -> int:
    """Run both books on the stream; raise if any result differs. Returns the fill count."""
    ours, theirs = _fresh(OrderBook, prefix), _fresh(SortedDictBook, prefix)
    n_fills = 0
    for (fn_a, args), (fn_b, _) in zip(_bound(ours, events), _bound(theirs, events), strict=True):
        a, b = fn_a(*args), fn_b(*args)
        if a != b:
            raise AssertionError(f"books disagree on {fn_a.__name__}{args}: {a!r} != {b!r}")
        if isinstance(a, tuple):
            n_fills += len(a[1])
    depth = [d.tolist() for d in ours.depth(10)]
    other = theirs.depth(10)
    if [d[: len(other[0])] for d in depth[:2]] != list(other[:2]) or [
        d[: len(other[2])] for d in depth[2:]
    ] != list(other[2:]):
        raise AssertionError("books disagree on the final depth")
    return n_fills


def _throughput(book: Any, events: list[Event]) -> float:
    ops = _bound(book, events)
    gc.collect()
    start = time.perf_counter()
    for fn, args in ops:
        fn(*args)
    return len(ops) / (time.perf_counter() - start)


def _latencies(book: Any, events: list[Event]) -> list[int]:
    ops = _bound(book, events)
    out = [0] * len(ops)
    clock = time.perf_counter_ns
    gc.collect()
    for i, (fn, args) in enumerate(ops):
        start = clock()
        fn(*args)
        out[i] = clock() - start
    return out


def measure(
    factories: dict[str, Callable[[], Any]], prefix: list[Event], events: list[Event], repeats: int
) -> dict[str, dict[str, float]]:
    best = dict.fromkeys(factories, 0.0)
    lat: dict[str, list[int]] = {}
    for _ in range(repeats):
        for name, factory in factories.items():
            rate = _throughput(_fresh(factory, prefix), events)
            best[name] = max(best[name], rate)
    for name, factory in factories.items():
        lat[name] = sorted(_latencies(_fresh(factory, prefix), events))
    report: dict[str, dict[str, float]] = {}
    for name in factories:
        ns = lat[name]
        report[name] = {
            "events_per_s": best[name],
            "mean_us": 1e6 / best[name],
            "p50_us": ns[len(ns) // 2] / 1e3,
            "p99_us": ns[int(len(ns) * 0.99)] / 1e3,
            "p999_us": ns[int(len(ns) * 0.999)] / 1e3,
            "max_us": ns[-1] / 1e3,
        }
    return report


def _verdict(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    n_events, repeats = (100_000, 3) if quick else (400_000, 5)
    prefix, events = make_stream(n_events)
    kinds = np.bincount([kind for kind, _ in events], minlength=3) / len(events)
    probe = _fresh(OrderBook, prefix)
    sizes = []
    for i, (fn, args) in enumerate(_bound(probe, events)):
        fn(*args)
        if i % 1000 == 0:
            sizes.append((len(probe), probe.n_levels(Side.BID), probe.n_levels(Side.ASK)))
    resting, bid_levels, ask_levels = np.mean(sizes, axis=0)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sortedcontainers": None
        if SortedDict is None
        else sys.modules["sortedcontainers"].__version__,
        "events": n_events,
        "mix": {"limit": kinds[0], "cancel": kinds[1], "market": kinds[2]},
        "mean_resting_orders": resting,
        "mean_levels": [bid_levels, ask_levels],
    }
    factories: dict[str, Callable[[], Any]] = {"sekai": OrderBook}
    if SortedDict is not None:
        report["fills"] = check_same(prefix, events)
        factories["sorteddict"] = SortedDictBook
    report.update(measure(factories, prefix, events, repeats))
    report["timing"] = (
        "events/s: best wall time of interleaved passes over the stream; latencies: "
        "perf_counter_ns around each event of one more pass"
    )
    print(
        f"python {report['python']}, numpy {report['numpy']}, sortedcontainers "
        f"{report['sortedcontainers']}; {n_events} events (limit {kinds[0]:.1%}, cancel "
        f"{kinds[1]:.1%}, market {kinds[2]:.1%}), ~{resting:.0f} resting orders, "
        f"~{bid_levels:.0f}/{ask_levels:.0f} levels"
    )
    for name in factories:
        r = report[name]
        print(
            f"{name:<11} {r['events_per_s'] / 1e3:8.0f}k events/s | p50 {r['p50_us']:5.2f} us | "
            f"p99 {r['p99_us']:5.2f} us | p99.9 {r['p999_us']:6.2f} us | max {r['max_us']:7.1f} us"
        )
    s = report["sekai"]
    print(
        f"sekai: >= 250k events/s: {_verdict(s['events_per_s'] >= 250e3)} | "
        f"p99 < 25 us: {_verdict(s['p99_us'] < 25)}"
    )
    if "sorteddict" in report:
        ratio = s["events_per_s"] / report["sorteddict"]["events_per_s"]
        report["ratio_vs_sorteddict"] = ratio
        print(f"sekai / sorteddict: {ratio:.2f}x (>= 1.5x: {_verdict(ratio >= 1.5)})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
