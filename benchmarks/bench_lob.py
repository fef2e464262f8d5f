"""Order book speed: sekai.finance's OrderBook against a sortedcontainers book.

Two streams of events, each drawn once (seed 0) and replayed into each book,
after a prefix of limit adds that builds the book (not timed):

- *mixed*: 65% limit adds, 20% cancels, 15% market orders. Limit prices sit
  a geometric number of ticks from the best opposite quote (5% of them cross
  it and trade), cancels pick a resting order uniformly, and market order
  sizes grow with the book so that it stays around ``TARGET_ORDERS`` resting
  orders (about 60 levels a side): short queues, the common case.
- *deep*: ``DEEP_LEVELS`` prices a side holding about ``DEEP_QUEUE`` orders
  each; about 43% cancels of a uniformly chosen resting order (more while
  the book is above its starting size, fewer below), 52% limit adds at one of
  those prices and 5% small market orders: long queues cancelled anywhere,
  where a cancel whose cost grows with its queue shows in the latency tail.

The peer, ``SortedDictBook``, is the book one would write with
``sortedcontainers``: a ``SortedDict`` of price -> deque of orders per side,
an id -> order dict, an O(1) cancel that leaves a tombstone in the queue,
fills built as :class:`Fill`. Both books must return the same results event
for event on both streams (checked first).

Measured in ``ROUNDS`` interleaved rounds (the books take turns, the first
one alternating), each round a fresh book per pass:

1. Throughput: events per second over a whole stream.
2. Latency: ``time.perf_counter_ns()`` around every event of another pass
   (the timer's own cost included): p50 / p99 / p99.9 of all events and of
   the cancels alone. With ``--thread-time`` the clock is
   ``time.thread_time_ns()``, the CPU time of the thread: on a loaded machine
   the time a descheduled process waits then stays out of the tail (the
   clock costs more per call, the same for both books). Also the cancel
   percentiles of each event's fastest time over the rounds, which leave out
   most of the delays that are not the book's own.

Reported: the median over the rounds of each figure, and the median of the
per-round ratios sekai / peer. Targets (issue 36): throughput >= 1.2x the
peer on both streams, cancel p99.9 <= 1.5x the peer's on the deep stream.

Needs ``sortedcontainers`` (the ``bench`` dependency group); without it only
the sekai book is measured. Run
``python benchmarks/bench_lob.py [--quick] [--thread-time]``;
results are printed and written to ``benchmarks/results/bench_lob.json``.
"""

from __future__ import annotations

import gc
import json
import math
import platform
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.finance.lob import BACKGROUND, Fill, OrderBook, Side

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

try:
    from sortedcontainers import SortedDict
except ImportError:  # the comparison is skipped
    SortedDict = None

RESULTS = Path(__file__).parent / "results" / "bench_lob.json"
TARGET_ORDERS = 1000
MID = 100_000
DEEP_LEVELS = 10  # prices a side in the deep stream
DEEP_QUEUE = 400  # orders per price in the deep stream

# -- the baseline: a straightforward SortedDict-of-deques book ------------------------------------


class SortedDictBook:
    """Price-time priority with a SortedDict of deques per side (same API as OrderBook).

    A cancel is O(1), as such books usually do it: the order leaves the id
    index and its entry stays in its queue with quantity 0 (a tombstone), to
    be dropped when it reaches the front; each level counts its live orders so
    that a level whose orders are all cancelled is removed at once.
    """

    def __init__(self) -> None:
        # price -> [live orders, deque of [order_id, quantity, owner, time]]
        self.bids: Any = SortedDict()
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
        level = book.get(price)
        if level is None:
            book[price] = [1, deque((entry,))]
        else:
            level[0] += 1
            level[1].append(entry)
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
            price, level = book.peekitem(best)
            if not crosses(price):
                break
            queue = level[1]
            while quantity and level[0]:
                entry = queue[0]
                if entry[1] == 0:  # cancelled
                    queue.popleft()
                    continue
                traded = min(quantity, entry[1])
                entry[1] -= traded
                quantity -= traded
                fills.append(
                    Fill(price, traded, entry[0], order_id, entry[2], owner, side, self.time)
                )
                if entry[1] == 0:
                    queue.popleft()
                    level[0] -= 1
                    del self.orders[entry[0]]
            if not level[0]:
                del book[price]
        if fills:
            self.last_price = fills[-1].price
        return quantity, fills

    def cancel(self, order_id: int) -> bool:
        found = self.orders.pop(order_id, None)
        if found is None:
            return False
        side, price, entry = found
        entry[1] = 0
        book = self.bids if side == Side.BID else self.asks
        level = book[price]
        level[0] -= 1
        if not level[0]:
            del book[price]
        return True

    def depth(self, levels: int) -> tuple[list[int], list[int], list[int], list[int]]:
        bids = list(reversed(self.bids.keys()))[:levels]
        asks = list(self.asks.keys())[:levels]
        return (
            bids,
            [sum(e[1] for e in self.bids[p][1]) for p in bids],
            asks,
            [sum(e[1] for e in self.asks[p][1]) for p in asks],
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


def make_deep_stream(n_events: int, seed: int = 0) -> tuple[list[Event], list[Event]]:
    """The (prefix, events) of the deep stream: long queues at a few prices, many cancels."""
    rng = np.random.default_rng(seed)
    book = OrderBook()
    prefix: list[Event] = []
    for i in range(2 * DEEP_LEVELS * DEEP_QUEUE):
        side = Side.BID if i % 2 == 0 else Side.ASK
        k = 1 + (i // 2) % DEEP_LEVELS
        args = (side, MID - k if side is Side.BID else MID + k, 1 + int(rng.integers(0, 5)))
        book.limit(*args)
        prefix.append((0, args))
    target = len(prefix)
    u = rng.random((n_events, 4)).tolist()
    events: list[Event] = []
    for u_kind, u_side, u_price, u_size in u:
        # 5% market orders; cancels 50% of the events while the book is at its
        # size or above, 40% below it; the rest limit adds.
        cancel_share = 0.5 if len(book) >= target else 0.4
        kind = 2 if u_kind < 0.05 else 1 if u_kind < 0.05 + cancel_share else 0
        side = Side.BID if u_side < 0.5 else Side.ASK
        if kind == 0:
            # Never crossing: bids below MID, asks above, at one of the deep prices.
            k = 1 + int(u_price * DEEP_LEVELS)
            event: Event = (
                0,
                (side, MID - k if side is Side.BID else MID + k, 1 + int(u_size * 5)),
            )
            book.limit(*event[1])
        elif kind == 1:
            n = book.n_orders_of(BACKGROUND)
            event = (1, (book._nth_order_of(BACKGROUND, int(u_price * n)) if n else -1,))
            book.cancel(event[1][0])
        else:
            event = (2, (side, 1 + int(u_size * 10)))
            book.market(*event[1])
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


def _latencies(book: Any, events: list[Event], clock: Callable[[], int]) -> list[int]:
    ops = _bound(book, events)
    out = [0] * len(ops)
    gc.collect()
    for i, (fn, args) in enumerate(ops):
        start = clock()
        fn(*args)
        out[i] = clock() - start
    return out


def _percentiles(ns: list[int]) -> dict[str, float]:
    ns = sorted(ns)
    n = len(ns)
    return {
        "p50_us": ns[n // 2] / 1e3,
        "p99_us": ns[int(n * 0.99)] / 1e3,
        "p999_us": ns[int(n * 0.999)] / 1e3,
    }


def measure(
    factories: dict[str, Callable[[], Any]],
    prefix: list[Event],
    events: list[Event],
    rounds: int,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> dict[str, Any]:
    """Interleaved rounds: per book the median figures, and the median ratios to the peer.

    Also, per book, the cancel percentiles of each event's fastest time over
    the rounds (``cancel_min_*``): an event replays the same work in every
    round, so a delay that is not the book's (another process running, an
    interrupt) rarely hits it in all of them, and these percentiles show the
    book's own tail even on a loaded machine.
    """
    cancels = [i for i, (kind, _) in enumerate(events) if kind == 1]
    names = list(factories)
    per_round: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    fastest: dict[str, list[int]] = {}
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            rate = _throughput(_fresh(factories[name], prefix), events)
            ns = _latencies(_fresh(factories[name], prefix), events, clock)
            best = fastest.setdefault(name, ns)
            fastest[name] = [min(a, b) for a, b in zip(best, ns, strict=True)]
            row = {"events_per_s": rate}
            row.update(_percentiles(ns))
            row.update(
                {f"cancel_{k}": v for k, v in _percentiles([ns[i] for i in cancels]).items()}
            )
            per_round[name].append(row)
    report: dict[str, Any] = {"rounds": rounds}
    for name in names:
        rows = per_round[name]
        report[name] = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        floor = _percentiles([fastest[name][i] for i in cancels])
        report[name].update({f"cancel_min_{k}": v for k, v in floor.items()})
    if "sorteddict" in per_round:
        pairs = list(zip(per_round["sekai"], per_round["sorteddict"], strict=True))
        report["ratio_vs_sorteddict"] = {
            # > 1 is better for sekai in the first, < 1 in the latency ratios.
            "throughput": statistics.median(
                a["events_per_s"] / b["events_per_s"] for a, b in pairs
            ),
            "p999_us": statistics.median(a["p999_us"] / b["p999_us"] for a, b in pairs),
            "cancel_p99_us": statistics.median(
                a["cancel_p99_us"] / b["cancel_p99_us"] for a, b in pairs
            ),
            "cancel_p999_us": statistics.median(
                a["cancel_p999_us"] / b["cancel_p999_us"] for a, b in pairs
            ),
            "cancel_min_p999_us": (
                report["sekai"]["cancel_min_p999_us"] / report["sorteddict"]["cancel_min_p999_us"]
            ),
        }
    return report


def _peer_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The Performance page's rows: the deep stream's cancel tail, both streams' throughput."""
    peer = f"SortedDict book (sortedcontainers {report['sortedcontainers']})"
    deep, mixed = report["deep"], report["mixed"]
    return [
        peer_row(
            "OrderBook cancel latency p99.9, deep queues",
            unit="us",
            sekai=deep["sekai"]["cancel_min_p999_us"],
            peer=deep["sorteddict"]["cancel_min_p999_us"],
            peer_name=peer,
            goal="<= 1.5",
            note=(
                "about 400 orders at each of 10 prices a side, 43% cancels; the p99.9 of each "
                "cancel's fastest time over the rounds, so that another process taking the "
                "core mid-event (noise, not either book's work) does not make the tail"
            ),
        ),
        peer_row(
            "OrderBook cancel latency p99.9, deep queues, wall clock",
            unit="us",
            sekai=deep["sekai"]["cancel_p999_us"],
            peer=deep["sorteddict"]["cancel_p999_us"],
            peer_name=peer,
            goal="<= 1.5",
            note="the median over the rounds of each round's p99.9, as a user would time it",
        ),
        peer_row(
            "OrderBook throughput, deep queues",
            unit="events/s",
            sekai=deep["sekai"]["events_per_s"],
            peer=deep["sorteddict"]["events_per_s"],
            peer_name=peer,
            goal=">= 1.2",
        ),
        peer_row(
            "OrderBook throughput, mixed stream",
            unit="events/s",
            sekai=mixed["sekai"]["events_per_s"],
            peer=mixed["sorteddict"]["events_per_s"],
            peer_name=peer,
            goal=">= 1.2",
            note="65% limit adds, 20% cancels, 15% market orders, about 30 levels a side",
        ),
    ]


def _verdict(ok: bool) -> str:
    return "ok" if ok else "BELOW TARGET"


def _shape(prefix: list[Event], events: list[Event]) -> dict[str, Any]:
    """The mix of a stream and the size of the book along it (sampled every 1000 events)."""
    kinds = np.bincount([kind for kind, _ in events], minlength=3) / len(events)
    probe = _fresh(OrderBook, prefix)
    sizes = []
    for i, (fn, args) in enumerate(_bound(probe, events)):
        fn(*args)
        if i % 1000 == 0:
            n_levels = probe.n_levels(Side.BID) + probe.n_levels(Side.ASK)
            sizes.append((len(probe), n_levels / 2, len(probe) / max(n_levels, 1)))
    resting, levels, queue = np.mean(sizes, axis=0)
    return {
        "events": len(events),
        "mix": {"limit": kinds[0], "cancel": kinds[1], "market": kinds[2]},
        "mean_resting_orders": resting,
        "mean_levels_per_side": levels,
        "mean_orders_per_level": queue,
    }


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    clock = time.thread_time_ns if "--thread-time" in argv else time.perf_counter_ns
    n_events, rounds = (60_000, 3) if quick else (200_000, 7)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sortedcontainers": None
        if SortedDict is None
        else sys.modules["sortedcontainers"].__version__,
        "timing": (
            "medians over interleaved rounds (the books take turns, the first alternating); "
            "events/s: wall time of a pass over the stream; latencies: "
            f"{clock.__name__} around each event of another pass; ratios: median of the "
            "per-round ratios"
        ),
    }
    factories: dict[str, Callable[[], Any]] = {"sekai": OrderBook}
    if SortedDict is not None:
        factories["sorteddict"] = SortedDictBook
    print(
        f"python {report['python']}, numpy {report['numpy']}, sortedcontainers "
        f"{report['sortedcontainers']}; {rounds} interleaved rounds, medians; latencies by "
        f"{clock.__name__}"
    )
    for stream, make in (("mixed", make_stream), ("deep", make_deep_stream)):
        prefix, events = make(n_events)
        result = _shape(prefix, events)
        if SortedDict is not None:
            result["fills"] = check_same(prefix, events)
        result.update(measure(factories, prefix, events, rounds, clock))
        report[stream] = result
        mix = result["mix"]
        print(
            f"-- {stream}: {n_events} events (limit {mix['limit']:.0%}, cancel "
            f"{mix['cancel']:.0%}, market {mix['market']:.0%}), "
            f"~{result['mean_resting_orders']:.0f} resting orders, "
            f"~{result['mean_levels_per_side']:.0f} levels a side, "
            f"~{result['mean_orders_per_level']:.0f} orders a level"
        )
        for name in factories:
            r = result[name]
            print(
                f"{name:<11} {r['events_per_s'] / 1e3:6.0f}k events/s | all p50 {r['p50_us']:5.2f} "
                f"p99 {r['p99_us']:5.2f} p99.9 {r['p999_us']:6.2f} us | cancel p50 "
                f"{r['cancel_p50_us']:5.2f} p99 {r['cancel_p99_us']:5.2f} p99.9 "
                f"{r['cancel_p999_us']:6.2f} us | fastest of the rounds: cancel p99 "
                f"{r['cancel_min_p99_us']:5.2f} p99.9 {r['cancel_min_p999_us']:6.2f} us"
            )
        ratio = result.get("ratio_vs_sorteddict")
        if ratio is not None:
            line = (
                f"sekai / sorteddict: throughput {ratio['throughput']:.2f}x "
                f"(>= 1.2x: {_verdict(ratio['throughput'] >= 1.2)}), cancel p99 "
                f"{ratio['cancel_p99_us']:.2f}x, cancel p99.9 {ratio['cancel_p999_us']:.2f}x, "
                f"cancel p99.9 of the fastest {ratio['cancel_min_p999_us']:.2f}x"
            )
            if stream == "deep":
                line += (
                    f" (<= 1.5x: {_verdict(ratio['cancel_p999_us'] <= 1.5)}, "
                    f"{_verdict(ratio['cancel_min_p999_us'] <= 1.5)})"
                )
            print(line)
    if SortedDict is not None:
        report["peer_rows"] = _peer_rows(report)
        print_rows(report["peer_rows"])
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
