"""Order flow: the protocol the order-book envs drive, and zero-intelligence flow.

Private: import from `sekai.finance.lob`.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol, runtime_checkable

import numpy as np

from sekai._internal.validation import check_int, check_real
from sekai.finance._lob_book import OrderBook
from sekai.finance._lob_types import BACKGROUND, MAX_PRICE, Fill, Side

__all__ = ["OrderFlow", "ZeroIntelligenceFlow", "is_order_flow"]

_BID = Side.BID
_ASK = Side.ASK
_MAX_CHUNK = 4096  # rows of uniforms drawn at a time


@runtime_checkable
class OrderFlow(Protocol):
    """What moves a book besides the agents: the two methods the order-book envs call.

    `LimitOrderBookEnv` and `LimitOrderBookMarket` (``sekai.envs``) take any
    object with these methods as their ``flow``: at every reset they make a
    new empty `OrderBook` (``time`` 0.0), call `initialise` once and `advance`
    up to the end of the warm-up, and then `advance` after every decision.
    `ZeroIntelligenceFlow` simulates one; `LobsterReplay` replays a LOBSTER
    message file as one. A class needs no base class to be an order flow:
    having both methods is enough (``isinstance(obj, OrderFlow)`` checks that
    much).
    """

    def initialise(
        self,
        book: OrderBook,
        rng: np.random.Generator,
        *,
        mid: int,
        levels: int = 10,
        orders_per_level: int = 3,
    ) -> None:
        """Start the flow on ``book``, for instance by seeding it with orders.

        Args:
            book: The book the flow will act on from now on.
            rng: The source of randomness (the env's generator, seeded by ``reset``).
            mid: The price in ticks the session starts around.
            levels: How many price levels a side to seed (a hint; a flow may ignore it).
            orders_per_level: How many orders a level to seed (a hint, likewise).
        """
        ...

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        """Act on ``book`` from its ``time`` up to ``until``; return the fills caused.

        The flow sets the book's ``time`` as its events happen, and leaves it
        at ``until`` or earlier (the env does not move the book's clock itself).
        """
        ...


def is_order_flow(value: object) -> bool:
    """Whether ``value`` is an `OrderFlow`: callable ``initialise`` and ``advance`` methods.

    A class is not one (its methods are not bound to a flow): pass an instance.
    """
    return (
        not isinstance(value, type)
        and isinstance(value, OrderFlow)
        and callable(getattr(value, "initialise", None))
        and callable(getattr(value, "advance", None))
    )


@dataclass(frozen=True)
class ZeroIntelligenceFlow:
    """Background order flow with no strategy: Poisson arrivals of random orders.

    Three kinds of events arrive as independent Poisson processes (in the
    units of the book's ``time``):

    - limit orders at rate ``limit_rate``, buy or sell with probability 1/2,
      priced ``k`` ticks from the best *opposite* quote (a buy at best ask - k,
      a sell at best bid + k), with ``k`` in ``1..max_offset`` drawn with
      probability proportional to ``offset_decay ** (k - 1)``: ``k = 1``
      improves the quote inside a wide spread or joins the best price, so the
      flow's limit orders never trade on arrival;
    - market orders at rate ``market_rate``, buy or sell with probability 1/2;
    - cancellations at rate ``cancel_rate`` *per resting background order*
      (owner ``BACKGROUND``), each removing one of them chosen uniformly. Orders
      of other owners (agents) are never cancelled by the flow.

    Order sizes follow a geometric distribution on 1, 2, ... with mean
    ``mean_size``. When a side is empty, a limit order is measured from its
    own side's best price (a buy from best bid + 1, a sell from best ask - 1),
    and from ``last_price`` when both are; prices below 1 tick are raised to 1,
    and prices above ``OrderBook.MAX_PRICE`` lowered to it.

    All randomness comes from the generator passed to `initialise` and
    `advance`: the same seed and the same calls give the same book.

    Attributes:
        limit_rate: Limit order arrivals per unit of time (>= 0).
        market_rate: Market order arrivals per unit of time (>= 0).
        cancel_rate: Cancellations per resting background order per unit of time (>= 0).
        max_offset: The largest limit offset from the opposite quote, in ticks (>= 1).
        offset_decay: The ratio of the probabilities of offsets k + 1 and k, in (0, 1].
        mean_size: The mean order size (>= 1); 1 makes every order size 1.

    Examples:
        >>> import numpy as np
        >>> from sekai.finance.lob import OrderBook
        >>> flow = ZeroIntelligenceFlow(limit_rate=10.0, market_rate=2.0, cancel_rate=0.5)
        >>> rng = np.random.default_rng(0)
        >>> book = OrderBook()
        >>> flow.initialise(book, rng, mid=1000, levels=5, orders_per_level=2)
        >>> len(book), book.best_bid(), book.best_ask()
        (20, 999, 1001)
        >>> fills = flow.advance(book, rng, until=30.0)
        >>> book.time, all(f.taker_owner == BACKGROUND for f in fills)
        (30.0, True)
    """

    limit_rate: float = 10.0
    market_rate: float = 2.0
    cancel_rate: float = 0.5
    max_offset: int = 10
    offset_decay: float = 0.5
    mean_size: float = 3.0

    def __post_init__(self) -> None:
        owner = type(self).__name__
        for name in ("limit_rate", "market_rate", "cancel_rate"):
            rate = check_real(getattr(self, name), f"{owner}: {name}", minimum=0.0)
            object.__setattr__(self, name, rate)
        object.__setattr__(
            self, "max_offset", check_int(self.max_offset, f"{owner}: max_offset", minimum=1)
        )
        decay = check_real(
            self.offset_decay, f"{owner}: offset_decay", minimum=0.0, maximum=1.0, min_open=True
        )
        object.__setattr__(self, "offset_decay", decay)
        size = check_real(self.mean_size, f"{owner}: mean_size", minimum=1.0)
        object.__setattr__(self, "mean_size", size)

    # -- random draws from uniforms ----------------------------------------------------------

    def _offset_table(self) -> list[float]:
        """Cumulative probabilities of offsets 1..max_offset (the last one is exactly 1)."""
        weights = [self.offset_decay**k for k in range(self.max_offset)]
        total = sum(weights)
        table = [w / total for w in accumulate(weights)]
        table[-1] = 1.0
        return table

    def _size_scale(self) -> float:
        """``1 / log(1 - p)`` for the geometric size with ``p = 1 / mean_size`` (0: always 1)."""
        p = 1.0 / self.mean_size
        return 0.0 if p >= 1.0 else 1.0 / math.log1p(-p)

    @staticmethod
    def _size(u: float, scale: float) -> int:
        # Inverse CDF of the geometric distribution on 1, 2, ...: 1 - u lies in (0, 1].
        return 1 + int(math.log(1.0 - u) * scale)

    # -- public API --------------------------------------------------------------------------

    def initialise(
        self,
        book: OrderBook,
        rng: np.random.Generator,
        *,
        mid: int,
        levels: int = 10,
        orders_per_level: int = 3,
    ) -> None:
        """Seed ``book`` with background orders around ``mid``.

        Bids rest at ``mid - 1, ..., mid - levels`` and asks at ``mid + 1, ...,
        mid + levels`` (a spread of 2 ticks around ``mid``), ``orders_per_level``
        orders of random size at each price, owned by ``BACKGROUND`` and stamped
        with the book's current ``time``. Orders already in the book stay; start
        from an empty book (``book.clear()``) for a fresh market.

        Args:
            book: The book to fill.
            rng: The source of randomness (the sizes).
            mid: The middle price in ticks; ``mid - levels`` must be >= 1 and
                ``mid + levels`` at most ``OrderBook.MAX_PRICE``.
            levels: Price levels per side, an int >= 1.
            orders_per_level: Orders at each price, an int >= 1.

        Raises:
            TypeError: An argument has the wrong type.
            ValueError: An argument is out of range.
        """
        what = "ZeroIntelligenceFlow.initialise"
        levels = check_int(levels, f"{what}: levels", minimum=1)
        orders_per_level = check_int(orders_per_level, f"{what}: orders_per_level", minimum=1)
        mid = check_int(mid, f"{what}: mid", minimum=levels + 1)
        if mid > MAX_PRICE - levels:
            raise ValueError(
                f"{what}: mid must be <= {MAX_PRICE - levels}, so that the asks up to mid + "
                f"levels ({levels}) stay at most OrderBook.MAX_PRICE = {MAX_PRICE}, got {mid}"
            )
        scale = self._size_scale()
        size = self._size
        draws = rng.random((levels, 2, orders_per_level)).tolist()
        limit = book.limit
        for i, level in enumerate(draws, start=1):
            for side, price, row in ((_BID, mid - i, level[0]), (_ASK, mid + i, level[1])):
                for u in row:
                    limit(side, price, size(u, scale), BACKGROUND)

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        """Run the flow on ``book`` from its ``time`` up to ``until``.

        Events are simulated one at a time (the rates of cancellation change
        with the number of resting background orders); before each one the
        book's ``time`` is set to the event's time, and at the end to
        ``until``. The flow acts through the book's public ``limit``,
        ``market`` and ``cancel`` methods.

        Args:
            book: The book to act on.
            rng: The source of randomness.
            until: The time to stop at, a finite number >= ``book.time``.

        Returns:
            The fills of the flow's market orders, in order.

        Raises:
            ValueError: ``until`` is before ``book.time``, or a limit order has
                no price to refer to (an empty book that never traded).
        """
        what = "ZeroIntelligenceFlow.advance"
        until = check_real(until, f"{what}: until")
        now = float(book.time)
        if until < now:
            raise ValueError(f"{what}: until must be >= book.time ({now!r}), got {until!r}")
        limit_rate, market_rate, cancel_rate = self.limit_rate, self.market_rate, self.cancel_rate
        arrivals = limit_rate + market_rate
        table = self._offset_table()
        scale = self._size_scale()
        size = self._size
        log = math.log
        fills: list[Fill] = []
        draws: list[list[float]] = []
        position = 0
        background = book.n_orders_of(BACKGROUND)
        while True:
            total = arrivals + cancel_rate * background
            if total <= 0.0:
                break
            if position == len(draws):
                expected = total * (until - now)
                chunk = min(_MAX_CHUNK, int(expected * 1.1) + 16)
                draws = rng.random((chunk, 5)).tolist()
                position = 0
            u_time, u_kind, u_side, u_offset, u_size = draws[position]
            position += 1
            now -= log(1.0 - u_time) / total
            if now > until:
                break
            book._time = now  # later than book.time and finite: the setter's checks hold
            x = u_kind * total
            if x < limit_rate:
                offset = bisect_right(table, u_offset) + 1
                if u_side < 0.5:
                    price = _reference(book, _BID, what) - offset
                    book.limit(_BID, price if price > 1 else 1, size(u_size, scale), BACKGROUND)
                else:
                    price = _reference(book, _ASK, what) + offset
                    book.limit(
                        _ASK,
                        price if price < MAX_PRICE else MAX_PRICE,
                        size(u_size, scale),
                        BACKGROUND,
                    )
            elif x < arrivals:
                side = _BID if u_side < 0.5 else _ASK
                fills += book.market(side, size(u_size, scale), BACKGROUND)[1]
            elif background:
                index = min(int(u_side * background), background - 1)
                book.cancel(book._nth_order_of(BACKGROUND, index))
            background = book.n_orders_of(BACKGROUND)
        book.time = until
        return fills


def _reference(book: OrderBook, side: Side, what: str) -> int:
    """The price a limit order of ``side`` is offset from (see ZeroIntelligenceFlow)."""
    if side is _BID:
        ask = book.best_ask()
        if ask is not None:
            return ask
        bid = book.best_bid()
        if bid is not None:
            return bid + 1
    else:
        bid = book.best_bid()
        if bid is not None:
            return bid
        ask = book.best_ask()
        if ask is not None:
            return ask - 1
    if book.last_price is None:
        raise ValueError(
            f"{what}: the book is empty and has never traded, so a limit order has no price "
            "to refer to; seed it first (ZeroIntelligenceFlow.initialise)"
        )
    return book.last_price
