"""The shared machinery of the order-book envs: the market and its traders (private).

`MarketCore` owns one [`OrderBook`][sekai.finance.OrderBook], the order flow
(any [`OrderFlow`][sekai.finance.lob.OrderFlow]) that drives it, the session
clock and the tape of recent trades; it routes every fill to the
`Trader` it concerns. A `Trader` is one agent: its account
(inventory and cash, in lots and ticks), its two resting quotes, how an
action of ``MultiDiscrete([K + 1, K + 1, 3])`` becomes orders, its action
mask and its observation. ``LimitOrderBookEnv`` is one trader on a core,
``LimitOrderBookMarket`` several.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real
from sekai.error import InvalidAction
from sekai.finance._lob_flow import is_order_flow
from sekai.finance.lob import Fill, OrderBook, OrderFlow, Side, ZeroIntelligenceFlow
from sekai.spaces import Box, Dict, MaskedBox, MultiDiscrete

__all__ = [
    "BUY",
    "HOLD",
    "MAX_WARMUP_SESSIONS",
    "SELL",
    "LobConfig",
    "MarketCore",
    "Trader",
    "read_action",
]

SELL, HOLD, BUY = 0, 1, 2
"""The values of an action's third entry: a market sell, no market order, a market buy."""

_BID = Side.BID
_ASK = Side.ASK
_SEED_LEVELS = 10  # price levels per side the flow seeds the book with at a reset
_SEED_ORDERS = 3  # orders per seeded level
MAX_WARMUP_SESSIONS = 100
"""The longest warmup, in sessions: the flow runs through all of it at every reset."""


class LobConfig:
    """The checked constructor arguments shared by the two order-book envs.

    Attributes hold the arguments under their own names; ``flow`` is the
    default `ZeroIntelligenceFlow` when none is given, and may be any
    [`OrderFlow`][sekai.finance.lob.OrderFlow] (e.g. a ``LobsterReplay``).
    """

    def __init__(
        self,
        owner: str,
        *,
        flow: Any,
        mid_price: Any,
        session_length: Any,
        levels: Any,
        max_quote_offset: Any,
        order_size: Any,
        max_inventory: Any,
        inventory_penalty: Any,
        max_trades: Any,
        warmup: Any,
    ) -> None:
        if flow is None:
            flow = ZeroIntelligenceFlow()
        elif not is_order_flow(flow):
            raise TypeError(
                f"{owner}: flow must be an order flow (a sekai.finance.lob.OrderFlow: an object "
                "with methods initialise(book, rng, *, mid, levels, orders_per_level) and "
                "advance(book, rng, until), such as ZeroIntelligenceFlow or LobsterReplay) or "
                f"None, got {flow!r} of type {type(flow).__qualname__}"
            )
        self.flow: OrderFlow = flow
        self.mid_price = check_int(mid_price, f"{owner}: mid_price", minimum=_SEED_LEVELS + 1)
        highest = OrderBook.MAX_PRICE - _SEED_LEVELS
        if self.mid_price > highest:
            raise ValueError(
                f"{owner}: mid_price must be <= {highest}, so that the book seeded "
                f"{_SEED_LEVELS} ticks above it stays at most OrderBook.MAX_PRICE = "
                f"{OrderBook.MAX_PRICE}, got {self.mid_price}"
            )
        self.session_length = check_real(
            session_length, f"{owner}: session_length", minimum=0.0, min_open=True
        )
        self.levels = check_int(levels, f"{owner}: levels", minimum=1)
        self.max_quote_offset = check_int(max_quote_offset, f"{owner}: max_quote_offset", minimum=1)
        self.order_size = check_int(
            order_size, f"{owner}: order_size", minimum=1, maximum=OrderBook.MAX_QUANTITY
        )
        self.max_inventory = check_int(
            max_inventory, f"{owner}: max_inventory", minimum=self.order_size
        )
        self.inventory_penalty = check_real(
            inventory_penalty, f"{owner}: inventory_penalty", minimum=0.0
        )
        self.max_trades = check_int(max_trades, f"{owner}: max_trades", minimum=1)
        longest = MAX_WARMUP_SESSIONS * self.session_length
        self.warmup = check_real(
            warmup,
            f"{owner}: warmup",
            minimum=0.0,
            maximum=longest,
            expected=(
                f"a time in [0, {longest:g}], at most {MAX_WARMUP_SESSIONS} times the "
                f"session_length ({self.session_length:g}): the flow runs through the whole "
                "warmup at every reset, before the first observation, so a longer one makes "
                f"each reset cost more than {MAX_WARMUP_SESSIONS} sessions"
            ),
        )

    def action_space(self) -> MultiDiscrete:
        """``MultiDiscrete([K + 1, K + 1, 3])``: bid level, ask level, market order."""
        k = self.max_quote_offset + 1
        return MultiDiscrete(np.array([k, k, 3], dtype=np.int64))

    def observation_space(self) -> Dict:
        """The Dict of ``"book"``, ``"trades"`` and ``"agent"`` (see ``LimitOrderBookEnv``)."""
        inf = np.inf
        book = Box(
            np.tile(np.array([-inf, 0.0, -inf, 0.0], dtype=np.float32), (self.levels, 1)),
            np.full((self.levels, 4), inf, dtype=np.float32),
            dtype=np.float32,
        )
        trades = MaskedBox(
            np.array([-inf, 0.0, -1.0], dtype=np.float32),
            np.array([inf, inf, 1.0], dtype=np.float32),
            (3,),
            max_size=self.max_trades,
        )
        agent = Box(
            np.array([-1.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32),
            np.array([1.0, 1.0, 1.0, 1.0, inf, inf], dtype=np.float32),
            dtype=np.float32,
        )
        return Dict({"book": book, "trades": trades, "agent": agent})


def read_action(action: Any, levels: int, owner: str) -> tuple[int, int, int]:
    """``(bid_level, ask_level, market)`` from an action, or ``InvalidAction``.

    Args:
        action: Three integers (a sequence or an int array of shape ``(3,)``).
        levels: ``K + 1``, the number of choices of a quote level.
        owner: Who is asking, for the error.
    """
    array = np.asarray(action)
    if array.shape == (3,) and array.dtype.kind in "iu":
        bid, ask, market = array.tolist()
        if 0 <= bid < levels and 0 <= ask < levels and 0 <= market < 3:
            return bid, ask, market
    raise InvalidAction(
        f"{owner} expects 3 ints: a bid level and an ask level in [0, {levels - 1}] and a "
        f"market order in {{0 (sell), 1 (none), 2 (buy)}}, got {action!r}"
    )


class Trader:
    """One agent on the book: its account, its quotes and how its actions become orders.

    Prices are in ticks, quantities in lots. ``inventory`` changes by
    ``side * quantity`` at every fill, ``cash`` by ``-side * price *
    quantity``; the trader never holds more than ``max_inventory`` lots long
    or short (a buy that could pass the limit is not sent, see
    `act`).

    Attributes:
        owner: The trader's owner id in the book.
        inventory: Lots held (negative when short).
        cash: Cash in ticks (0 at the start).
        bid_id: The id of the resting bid quote, ``None`` if none.
        ask_id: The id of the resting ask quote, ``None`` if none.
        fills: The trader's fills since `begin_step` (maker or taker).
    """

    def __init__(self, owner: int, config: LobConfig) -> None:
        self.owner = owner
        self.order_size = config.order_size
        self.max_inventory = config.max_inventory
        self.max_quote_offset = config.max_quote_offset
        self.inventory = 0
        self.cash = 0.0
        self.bid_id: int | None = None
        self.ask_id: int | None = None
        self.fills: list[Fill] = []

    def reset(self) -> None:
        """Flat, no cash, no quotes (the book is cleared by the core)."""
        self.inventory = 0
        self.cash = 0.0
        self.bid_id = self.ask_id = None
        self.fills = []

    def begin_step(self) -> None:
        """Forget the fills of the previous step."""
        self.fills = []

    def on_fill(self, side: Side, fill: Fill) -> None:
        """Book a fill in which the trader's order of ``side`` traded."""
        quantity = fill.quantity
        if side is _BID:
            self.inventory += quantity
            self.cash -= fill.price * quantity
        else:
            self.inventory -= quantity
            self.cash += fill.price * quantity
        self.fills.append(fill)

    def wealth(self, mid: float) -> float:
        """Mark-to-market wealth in ticks, ``cash + inventory * mid``."""
        return self.cash + self.inventory * mid

    def can_buy(self) -> bool:
        """Whether a buy of ``order_size`` keeps the inventory within the limit."""
        return self.inventory + self.order_size <= self.max_inventory

    def can_sell(self) -> bool:
        """Whether a sale of ``order_size`` keeps the inventory within the limit."""
        return self.inventory - self.order_size >= -self.max_inventory

    def action_mask(self) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int8]]:
        """The valid choices: buying (bid quotes, market buy) off at the long limit, etc."""
        levels = self.max_quote_offset + 1
        bid = np.ones(levels, dtype=np.int8)
        ask = np.ones(levels, dtype=np.int8)
        market = np.ones(3, dtype=np.int8)
        if not self.can_buy():
            bid[1:] = 0
            market[BUY] = 0
        if not self.can_sell():
            ask[1:] = 0
            market[SELL] = 0
        return bid, ask, market

    def baseline_action(self) -> NDArray[np.int64]:
        """Quote both sides at the touch, backing off the side that adds to the inventory.

        The side that would grow ``|inventory|`` steps back one tick per
        ``max_inventory / K`` lots held (at most ``K - 1``); a side at the
        inventory limit is withdrawn; no market orders.
        """
        k = self.max_quote_offset
        back = min(k - 1, abs(self.inventory) * k // self.max_inventory)
        bid = 1 + (back if self.inventory > 0 else 0)
        ask = 1 + (back if self.inventory < 0 else 0)
        return np.array(
            [bid if self.can_buy() else 0, ask if self.can_sell() else 0, HOLD], dtype=np.int64
        )

    def act(self, core: MarketCore, bid_level: int, ask_level: int, market: int) -> None:
        """Carry out one decision: the market order first, then the two quotes.

        A market order first cancels the trader's own opposite quote (so it
        cannot trade with itself). Quote levels are measured from the best
        price of the *other* traders on the same side (1 joins it, ``k`` sits
        ``k - 1`` ticks behind; 0 withdraws the quote). A quote whose price
        does not change keeps its place in the queue. A choice that could
        take the inventory past ``±max_inventory`` (judged after the market
        order) is carried out as "none".
        """
        size = self.order_size
        if market == BUY and self.can_buy():
            self._cancel(core, _ASK)
            core.settle(core.book.market(_BID, size, self.owner)[1])
        elif market == SELL and self.can_sell():
            self._cancel(core, _BID)
            core.settle(core.book.market(_ASK, size, self.owner)[1])
        self._quote(core, _BID, bid_level if self.can_buy() else 0)
        self._quote(core, _ASK, ask_level if self.can_sell() else 0)

    def _cancel(self, core: MarketCore, side: Side) -> None:
        order_id = self.bid_id if side is _BID else self.ask_id
        if order_id is not None:
            core.book.cancel(order_id)
        if side is _BID:
            self.bid_id = None
        else:
            self.ask_id = None

    def _quote(self, core: MarketCore, side: Side, level: int) -> None:
        if level == 0:
            self._cancel(core, side)
            return
        book = core.book
        order_id = self.bid_id if side is _BID else self.ask_id
        own = None if order_id is None else book.get(order_id)
        reference = core.reference_price(side, own)
        price = reference - (level - 1) if side is _BID else reference + (level - 1)
        price = min(max(price, 1), OrderBook.MAX_PRICE)  # the book's price range
        if own is not None and own.price == price:
            return  # unchanged: keep the queue position
        if order_id is not None:
            book.cancel(order_id)
        resting, fills = book.limit(side, price, self.order_size, self.owner)
        if side is _BID:
            self.bid_id = resting
        else:
            self.ask_id = resting
        core.settle(fills)

    def observe(self, core: MarketCore, time_left: float) -> NDArray[np.float32]:
        """``[inventory / max, time left, bid resting, ask resting, queue ahead of each]``."""
        book = core.book
        values = [self.inventory / self.max_inventory, time_left, 0.0, 0.0, 0.0, 0.0]
        for column, order_id in ((2, self.bid_id), (3, self.ask_id)):
            if order_id is not None and book.get(order_id) is not None:
                values[column] = 1.0
                values[column + 2] = float(book.queue_ahead(order_id))
        return np.array(values, dtype=np.float32)


class MarketCore:
    """One book, its background flow, the session clock and the trade tape.

    Every `start` makes a new [`OrderBook`][sekai.finance.OrderBook]
    (read `book` again after a reset).

    The book's ``time`` runs from 0 at a reset; the session starts after
    ``warmup`` (so ``session_time = book.time - warmup``). `mid` is the
    last two-sided mid-price (the start's until the book has one).

    Attributes:
        book: The [`OrderBook`][sekai.finance.OrderBook].
        flow: The background order flow (an [`OrderFlow`][sekai.finance.lob.OrderFlow]).
        traders: The traders by owner id.
        trades: The last ``max_trades`` fills on the book, oldest first.
        mid: The last known mid-price, in ticks.
    """

    def __init__(self, config: LobConfig) -> None:
        self.config = config
        self.book = OrderBook()
        self.flow = config.flow
        self.traders: dict[int, Trader] = {}
        self.trades: deque[Fill] = deque(maxlen=config.max_trades)
        self.mid = float(config.mid_price)
        self._rng: np.random.Generator | None = None

    @property
    def session_time(self) -> float:
        """The time since the session started (after the warm-up)."""
        return self.book.time - self.config.warmup

    def start(self, rng: np.random.Generator) -> None:
        """A fresh book seeded by the flow, run through the warm-up; traders reset."""
        self._rng = rng
        # A new book, not a cleared one: order ids then start from 1 again, so a
        # seeded session repeats exactly (fills included).
        self.book = book = OrderBook()
        self.trades.clear()
        for trader in self.traders.values():
            trader.reset()
        self.mid = float(self.config.mid_price)
        self.flow.initialise(
            book, rng, mid=self.config.mid_price, levels=_SEED_LEVELS, orders_per_level=_SEED_ORDERS
        )
        self.settle(self.flow.advance(book, rng, until=self.config.warmup))

    def advance(self, session_time: float) -> None:
        """Run the background flow until ``session_time``, routing its fills."""
        if self._rng is None:
            raise RuntimeError("MarketCore.advance before start")
        until = self.config.warmup + session_time
        if until > self.book.time:
            self.settle(self.flow.advance(self.book, self._rng, until=until))

    def settle(self, fills: list[Fill]) -> None:
        """Record ``fills`` on the tape, book them to the traders involved, update the mid."""
        traders = self.traders
        for fill in fills:
            self.trades.append(fill)
            maker = traders.get(fill.maker_owner)
            if maker is not None:
                maker.on_fill(fill.taker_side.opposite, fill)
            taker = traders.get(fill.taker_owner)
            if taker is not None:
                taker.on_fill(fill.taker_side, fill)
        mid = self.book.mid()
        if mid is not None:
            self.mid = mid

    def refresh_mid(self) -> float:
        """The mid after the latest orders (the last known one if a side is empty)."""
        mid = self.book.mid()
        if mid is not None:
            self.mid = mid
        return self.mid

    def spread(self) -> float:
        """Best ask minus best bid in ticks, NaN when a side is empty."""
        spread = self.book.spread()
        return math.nan if spread is None else float(spread)

    def reference_price(self, side: Side, own: Any) -> int:
        """The best price of ``side`` among the orders of everyone but ``own``'s owner.

        ``own`` is the trader's resting order on that side (an ``Order``
        snapshot) or ``None``. A trader keeps at most one order per side, so
        the two best levels suffice. When no one else quotes that side, the
        reference is one tick inside the other side's best, or the mid.
        """
        best = self._best_of_others(side, own)
        if best is not None:
            return best
        other = self._best_of_others(side.opposite, None)
        if other is not None:
            return other - 1 if side is _BID else other + 1
        mid = self.mid
        return max(math.ceil(mid) - 1, 1) if side is _BID else math.floor(mid) + 1

    def _best_of_others(self, side: Side, own: Any) -> int | None:
        bid_prices, bid_sizes, ask_prices, ask_sizes = self.book.depth(2)
        prices, sizes = (bid_prices, bid_sizes) if side is _BID else (ask_prices, ask_sizes)
        for price, size in zip(prices.tolist(), sizes.tolist(), strict=True):
            if size == 0:
                return None
            if own is not None and price == own.price:
                size -= own.quantity
            if size > 0:
                return int(price)
        return None

    def observe_book(self) -> NDArray[np.float32]:
        """``(levels, 4)``: bid price - mid, bid size, ask price - mid, ask size (0s when empty)."""
        levels = self.config.levels
        bid_prices, bid_sizes, ask_prices, ask_sizes = self.book.depth(levels)
        mid = self.mid
        out = np.zeros((levels, 4), dtype=np.float32)
        bids = bid_sizes > 0
        asks = ask_sizes > 0
        out[:, 0] = np.where(bids, bid_prices - mid, 0.0)
        out[:, 1] = bid_sizes
        out[:, 2] = np.where(asks, ask_prices - mid, 0.0)
        out[:, 3] = ask_sizes
        return out

    def observe_trades(self) -> dict[str, NDArray[Any]]:
        """The tape as a MaskedBox value: (price - mid, size, aggressor side), oldest first."""
        size = self.config.max_trades
        values = np.zeros((size, 3), dtype=np.float32)
        mask = np.zeros(size, dtype=np.int8)
        mid = self.mid
        for row, fill in enumerate(self.trades):
            values[row] = (fill.price - mid, fill.quantity, int(fill.taker_side))
            mask[row] = 1
        return {"values": values, "mask": mask}
