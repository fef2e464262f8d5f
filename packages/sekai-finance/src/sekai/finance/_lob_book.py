"""The limit order book behind `sekai.finance.lob` (private: import from there).

Layout, chosen for speed in pure Python:

- an order is a list ``[quantity, order_id, owner, time, side, price, prev, next]``
  (a *record*), shared by the id index, the owner index and its price level;
- a price level is a list ``[volume, n_orders, head, tail]``: its records form a
  doubly linked list in time priority (``prev`` / ``next`` are the neighbouring
  records, ``None`` at the ends), so that a new order is appended at the tail,
  matching takes records off the head and a cancel unlinks its record where it
  is, each in O(1) whatever the queue's length; the queue holds exactly the
  resting orders (nothing to skip, nothing to compact);
- the active prices of a side are a plain sorted list of *keys* (``price`` for
  bids, ``-price`` for asks), so that the best price of either side is the last
  key: the best level is read and removed at the end of the list, and a new
  level (usually near the best) is inserted with a short ``bisect.insort``.

The links make the records a chain as long as a queue, which ``pickle`` and
``copy`` would follow one recursive call per record: a book is pickled as its
resting orders instead (oldest first, in six columns without the links) and
rebuilt from them.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from itertools import islice
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real
from sekai.error import OrderNotFound
from sekai.finance._lob_types import (
    BACKGROUND,
    MAX_PRICE,
    MAX_QUANTITY,
    MAX_VOLUME,
    Fill,
    Order,
    Side,
    checked_id,
    checked_price,
    checked_quantity,
    checked_side,
)

__all__ = ["OrderBook"]

_BID = Side.BID
_ASK = Side.ASK

_MIN_KEY = -(1 << 62)  # below every price key (asks are -MAX_PRICE and up): a market
# order crosses every level

# A Fill built without its dataclass __init__ (which sets its 8 frozen fields one
# object.__setattr__ at a time): about half the cost, the same object.
_new = object.__new__
_set = object.__setattr__


class OrderBook:
    """A limit order book with integer price ticks and price-time priority.

    Incoming orders trade against the best opposite price first and, at one
    price, against the oldest resting order first; each trade is at the resting
    order's price and is reported as a `Fill`. Whatever is left of a
    limit order rests in the book, whatever is left of a market order is
    dropped. Every limit and market order takes the next order id (1, 2, ...;
    ids are never reused, not even after `clear`), so fills can name
    their taker.

    Prices are ints from 1 to `MAX_PRICE` (ticks), quantities ints >= 1
    (at most `MAX_QUANTITY` for a limit order), owners ints
    (``BACKGROUND`` = -1 by default). Numpy integers are accepted; bools,
    floats and other types raise ``TypeError``, values out of range
    ``ValueError``, both naming the argument, the value given and the range.
    The total quantity resting at one price is at most `MAX_VOLUME`: a
    limit order that would take its level past it is refused. The bounds
    keep every price key and every number `depth` reports inside int64;
    a refused order changes nothing and takes no order id.

    The book has no clock of its own: ``time`` is set by whoever drives it
    (e.g. `ZeroIntelligenceFlow` or a replay) and stamps new orders and
    fills. It only moves forward: setting it to NaN, an infinity, a negative
    number or a time before the current one raises ``ValueError`` (and a
    value that is not a real number ``TypeError``); `clear` sets it back
    to 0. Orders of one owner can trade with each other; preventing that is
    the caller's choice.

    Attributes:
        last_price: The price of the most recent fill, ``None`` before the first.
        MAX_PRICE: The highest price, ``2**62 - 1`` ticks (a class constant).
        MAX_QUANTITY: The largest quantity of a limit order, ``2**62 - 1``.
        MAX_VOLUME: The largest total quantity at one price, ``2**63 - 1``
            (int64's maximum).

    Examples:
        >>> book = OrderBook()
        >>> bid, _ = book.limit(Side.BID, 99, 4, owner=1)
        >>> book.limit(Side.BID, 99, 2)
        (2, [])
        >>> order_id, fills = book.limit(Side.ASK, 99, 5)  # crosses: 4 + 1 lots at 99
        >>> order_id, [(f.maker_order_id, f.quantity) for f in fills]
        (None, [(1, 4), (2, 1)])
        >>> book.best_bid(), book.volume_at(Side.BID, 99), book.last_price
        (99, 1, 99)
    """

    MAX_PRICE: ClassVar[int] = MAX_PRICE
    MAX_QUANTITY: ClassVar[int] = MAX_QUANTITY
    MAX_VOLUME: ClassVar[int] = MAX_VOLUME

    def __init__(self) -> None:
        self._time = 0.0
        self.last_price: int | None = None
        self._next_id = 1
        self._reset()

    def __getstate__(self) -> dict[str, Any]:
        # The resting orders, oldest first and unlinked, stand for the whole
        # structure (ids, owners, levels, price keys), which __setstate__ rebuilds.
        # Six columns (quantities, ids, owners, times, sides, prices) pickle and
        # load faster than a list per order.
        state = {key: value for key, value in self.__dict__.items() if key not in _STRUCTURE}
        state["_resting"] = list(zip(*self._orders.values(), strict=True))[:6]  # in id order
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        # A book pickled while ``time`` was a plain attribute holds it as
        # ``time``; the property reads ``_time``.
        if "time" in state:
            state.setdefault("_time", state.pop("time"))
        resting = state.pop("_resting", None)
        if resting is None:
            # The state of an earlier layout (levels of deques) or the attributes
            # themselves: the resting orders are the values of the id index.
            rows = sorted(state.get("_orders", {}).values(), key=_id_of)
            resting = list(zip(*(row[:6] for row in rows), strict=True))
            if resting:
                resting[4] = tuple(Side(side) for side in resting[4])
        for key in _STRUCTURE:
            state.pop(key, None)
        self.__dict__.update(state)
        self._reset()
        self._rebuild(resting)

    def _rebuild(self, resting: list[tuple[Any, ...]]) -> None:
        """Rest the orders given as columns (quantities, ids, owners, times, sides, prices).

        The orders are in id order (an empty list: no order).
        """
        orders, owners, bids, asks = self._orders, self._owners, self._bids, self._asks
        for quantity, order_id, owner, when, side, price in zip(*resting, strict=True):
            levels = bids if side is _BID else asks
            level = levels.get(price)
            if level is None:
                record = [quantity, order_id, owner, when, side, price, None, None]
                levels[price] = [quantity, 1, record, record]
            else:
                tail = level[3]
                record = [quantity, order_id, owner, when, side, price, tail, None]
                tail[7] = record
                level[3] = record
                level[0] += quantity
                level[1] += 1
            orders[order_id] = record
            mine = owners.get(owner)
            if mine is None:
                owners[owner] = {order_id: record}
            else:
                mine[order_id] = record
        self._bid_keys[:] = sorted(bids)
        self._ask_keys[:] = sorted(-price for price in asks)

    def _reset(self) -> None:
        self._orders: dict[int, list[Any]] = {}
        self._owners: dict[int, dict[int, list[Any]]] = {}
        self._bids: dict[int, list[Any]] = {}
        self._asks: dict[int, list[Any]] = {}
        self._bid_keys: list[int] = []  # bid prices, ascending: the best bid is last
        self._ask_keys: list[int] = []  # ask prices negated, ascending: the best ask is last

    @property
    def time(self) -> float:
        """The current time, a float set by the caller (0.0 initially); it never goes back.

        Raises:
            TypeError: The new time is not a real number (a bool is not one).
            ValueError: The new time is NaN, infinite, negative or before the
                current time.
        """
        return self._time

    @time.setter
    def time(self, value: float) -> None:
        when = check_real(value, "OrderBook.time", minimum=0.0)
        if when < self._time:
            raise ValueError(
                f"OrderBook.time only moves forward: it is {self._time!r}, got {value!r} "
                "(clear() sets it back to 0)"
            )
        self._time = when

    # -- orders --------------------------------------------------------------------------------

    def limit(
        self, side: Side, price: int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int | None, list[Fill]]:
        """Submit a limit order: trade what crosses, rest the remainder.

        The order first trades against opposite orders priced at ``price`` or
        better (best price first, oldest first at a price, each trade at the
        resting price); what is left rests at ``price`` behind the orders
        already there.

        Args:
            side: ``Side.BID`` to buy, ``Side.ASK`` to sell (or 1 / -1).
            price: The limit price in ticks, an int from 1 to `MAX_PRICE`.
            quantity: The quantity, an int from 1 to `MAX_QUANTITY`.
            owner: Who places the order (an int; ``BACKGROUND`` by default).

        Returns:
            The id of the resting order (``None`` if the order was filled
            entirely and nothing rests) and the fills, in the order they
            happened (empty if nothing crossed).

        Raises:
            TypeError: An argument has the wrong type (e.g. a float price).
            ValueError: An argument is out of range (e.g. a quantity of 0 or
                a price of ``2**62``), or the order would take the quantity
                resting at its price past `MAX_VOLUME`. The book is then
                unchanged.
        """
        if type(price) is not int or price < 1 or price > MAX_PRICE:
            price = checked_price(price, "OrderBook.limit: price")
        if type(quantity) is not int or quantity < 1 or quantity > MAX_QUANTITY:
            quantity = checked_quantity(quantity, "OrderBook.limit: quantity", bounded=True)
        if type(owner) is not int:
            owner = check_int(owner, "OrderBook.limit: owner")
        order_id = self._next_id
        if side is _BID:
            self._next_id = order_id + 1
            opposite = self._ask_keys
            if opposite and -opposite[-1] <= price:
                quantity, fills = self._match(
                    opposite, self._asks, -1, -price, quantity, order_id, owner, side
                )
                if not quantity:
                    return None, fills
            else:
                fills = []
            levels, keys, key = self._bids, self._bid_keys, price
        elif side is _ASK:
            self._next_id = order_id + 1
            opposite = self._bid_keys
            if opposite and opposite[-1] >= price:
                quantity, fills = self._match(
                    opposite, self._bids, 1, price, quantity, order_id, owner, side
                )
                if not quantity:
                    return None, fills
            else:
                fills = []
            levels, keys, key = self._asks, self._ask_keys, -price
        else:
            return self.limit(checked_side(side, "OrderBook.limit: side"), price, quantity, owner)
        level = levels.get(price)
        if level is not None and level[0] > MAX_VOLUME - quantity:
            # A level of the order's own side at its price means the order crossed
            # nothing (the book is never crossed): only the id is to be given back.
            self._next_id = order_id
            name = "bid" if side is _BID else "ask"
            raise ValueError(
                f"OrderBook.limit: the {name}s at price {price} hold {level[0]} and cannot take "
                f"a quantity of {quantity} more: the quantity at one price must stay <= "
                f"{MAX_VOLUME} (2**63 - 1, int64's maximum)"
            )
        if level is None:
            record = [quantity, order_id, owner, self._time, side, price, None, None]
            levels[price] = [quantity, 1, record, record]
            if keys and key < keys[-1]:
                insort(keys, key)
            else:
                keys.append(key)
        else:
            tail = level[3]
            record = [quantity, order_id, owner, self._time, side, price, tail, None]
            tail[7] = record
            level[3] = record
            level[0] += quantity
            level[1] += 1
        self._orders[order_id] = record
        mine = self._owners.get(owner)
        if mine is None:
            self._owners[owner] = {order_id: record}
        else:
            mine[order_id] = record
        return order_id, fills

    def market(self, side: Side, quantity: int, owner: int = BACKGROUND) -> tuple[int, list[Fill]]:
        """Submit a market order: trade up to ``quantity`` at the best prices.

        The order walks the opposite side from its best price (oldest first at
        a price) until ``quantity`` is traded or the side is empty; what cannot
        be traded is dropped, nothing rests. It takes an order id all the same
        (the ``taker_order_id`` of its fills).

        Args:
            side: ``Side.BID`` to buy (lift asks), ``Side.ASK`` to sell (hit bids).
            quantity: The quantity wanted, an int >= 1.
            owner: Who places the order (an int; ``BACKGROUND`` by default).

        Returns:
            The quantity traded (0 when the opposite side is empty) and the fills.

        Raises:
            TypeError: An argument has the wrong type.
            ValueError: An argument is out of range.
        """
        if type(quantity) is not int or quantity < 1:
            quantity = checked_quantity(quantity, "OrderBook.market: quantity")
        if type(owner) is not int:
            owner = check_int(owner, "OrderBook.market: owner")
        order_id = self._next_id
        if side is _BID:
            self._next_id = order_id + 1
            keys, levels, sign = self._ask_keys, self._asks, -1
        elif side is _ASK:
            self._next_id = order_id + 1
            keys, levels, sign = self._bid_keys, self._bids, 1
        else:
            return self.market(checked_side(side, "OrderBook.market: side"), quantity, owner)
        if not keys:
            return 0, []
        left, fills = self._match(keys, levels, sign, _MIN_KEY, quantity, order_id, owner, side)
        return quantity - left, fills

    def _match(
        self,
        keys: list[int],
        levels: dict[int, list[Any]],
        sign: int,
        limit_key: int,
        quantity: int,
        taker_id: int,
        taker_owner: int,
        taker_side: Side,
    ) -> tuple[int, list[Fill]]:
        """Trade ``quantity`` against the side whose levels are given; return what is left.

        ``keys`` are the side's price keys (``price * sign``), the best last;
        levels whose key is below ``limit_key`` do not cross.
        """
        orders = self._orders
        owners = self._owners
        time = self._time
        fills: list[Fill] = []
        price = 0
        while quantity and keys and keys[-1] >= limit_key:
            price = keys[-1] * sign
            level = levels[price]
            record = level[2]
            while quantity:
                size = record[0]
                maker_id = record[1]
                maker_owner = record[2]
                if size <= quantity:
                    quantity -= size
                    del orders[maker_id]
                    mine = owners[maker_owner]
                    del mine[maker_id]
                    if not mine:
                        del owners[maker_owner]
                    level[0] -= size
                    level[1] -= 1
                    record = record[7]  # the next in the queue (None after the last)
                    level[2] = record
                    if record is not None:
                        record[6] = None
                else:
                    size = quantity
                    record[0] -= size
                    level[0] -= size
                    quantity = 0
                fill = _new(Fill)
                _set(
                    fill,
                    "__dict__",
                    {
                        "price": price,
                        "quantity": size,
                        "maker_order_id": maker_id,
                        "taker_order_id": taker_id,
                        "maker_owner": maker_owner,
                        "taker_owner": taker_owner,
                        "taker_side": taker_side,
                        "time": time,
                    },
                )
                fills.append(fill)
                if not level[1]:
                    del levels[price]
                    keys.pop()
                    break
        if fills:
            self.last_price = price
        return quantity, fills

    def cancel(self, order_id: int) -> bool:
        """Remove a resting order, in O(1).

        Args:
            order_id: The id `limit` returned.

        Returns:
            ``True`` if the order was resting and is now removed, ``False`` if
            no such order rests (it was filled, cancelled or never existed).

        Raises:
            TypeError: ``order_id`` is not an int.
        """
        if type(order_id) is not int:
            order_id = checked_id(order_id, "OrderBook.cancel: order_id")
        record = self._orders.pop(order_id, None)
        if record is None:
            return False
        self._unlink(record)
        return True

    def _unlink(self, record: list[Any]) -> None:
        """Take a record already removed from the id index out of its owner and level.

        O(1): the record is unlinked from its neighbours in the queue (or its
        level removed with it, the only step that depends on the book's size:
        finding the price key, at the end of the keys for the best price).
        """
        owner = record[2]
        mine = self._owners[owner]
        del mine[record[1]]
        if not mine:
            del self._owners[owner]
        price = record[5]
        levels = self._bids if record[4] is _BID else self._asks
        level = levels[price]
        count = level[1] - 1
        if count:
            level[0] -= record[0]
            level[1] = count
            before = record[6]
            after = record[7]
            if before is None:
                level[2] = after
            else:
                before[7] = after
            if after is None:
                level[3] = before
            else:
                after[6] = before
            return
        del levels[price]
        keys, key = (self._bid_keys, price) if record[4] is _BID else (self._ask_keys, -price)
        if keys[-1] == key:
            keys.pop()
        else:
            del keys[bisect_left(keys, key)]

    def reduce(self, order_id: int, quantity: int) -> bool:
        """Cancel part of a resting order, keeping its place in the queue.

        Args:
            order_id: The id of the resting order.
            quantity: How much to take off, an int >= 1. Taking off the whole
                remaining quantity (or more) cancels the order.

        Returns:
            ``True`` if the order was resting (and is now reduced or removed),
            ``False`` if no such order rests.

        Raises:
            TypeError: An argument is not an int.
            ValueError: ``quantity`` is below 1.
        """
        if type(order_id) is not int:
            order_id = checked_id(order_id, "OrderBook.reduce: order_id")
        if type(quantity) is not int or quantity < 1:
            quantity = checked_quantity(quantity, "OrderBook.reduce: quantity")
        record = self._orders.get(order_id)
        if record is None:
            return False
        if quantity >= record[0]:
            del self._orders[order_id]
            self._unlink(record)
        else:
            record[0] -= quantity
            levels = self._bids if record[4] is _BID else self._asks
            levels[record[5]][0] -= quantity
        return True

    def _execute(self, order_id: int, quantity: int, taker_owner: int = BACKGROUND) -> Fill | None:
        """Trade ``quantity`` (at most what rests) of one given resting order.

        For replays that name the executed order; the taker is unknown
        (``taker_order_id`` -1). ``None`` if the order does not rest.
        """
        record = self._orders.get(order_id)
        if record is None:
            return None
        size = min(quantity, record[0])
        if size == record[0]:
            del self._orders[order_id]
            self._unlink(record)
        else:
            record[0] -= size
            levels = self._bids if record[4] is _BID else self._asks
            levels[record[5]][0] -= size
        self.last_price = record[5]
        side: Side = record[4]
        return Fill(
            record[5], size, order_id, -1, record[2], taker_owner, side.opposite, self._time
        )

    def clear(self) -> None:
        """Remove every resting order; ``time`` returns to 0.0 and ``last_price`` to ``None``.

        Order ids keep counting from where they were, so an id held from
        before never names a new order.
        """
        self._reset()
        self._time = 0.0
        self.last_price = None

    # -- queries -------------------------------------------------------------------------------

    def __len__(self) -> int:
        """The number of resting orders."""
        return len(self._orders)

    def __repr__(self) -> str:
        return (
            f"OrderBook(best_bid={self.best_bid()}, best_ask={self.best_ask()}, "
            f"orders={len(self._orders)}, time={self._time})"
        )

    def best_bid(self) -> int | None:
        """The highest bid price, ``None`` if no bid rests."""
        keys = self._bid_keys
        return keys[-1] if keys else None

    def best_ask(self) -> int | None:
        """The lowest ask price, ``None`` if no ask rests."""
        keys = self._ask_keys
        return -keys[-1] if keys else None

    def mid(self) -> float | None:
        """The mean of the best bid and ask, ``None`` unless both sides have orders."""
        if self._bid_keys and self._ask_keys:
            return (self._bid_keys[-1] - self._ask_keys[-1]) / 2
        return None

    def spread(self) -> int | None:
        """Best ask minus best bid in ticks, ``None`` unless both sides have orders."""
        if self._bid_keys and self._ask_keys:
            return -self._ask_keys[-1] - self._bid_keys[-1]
        return None

    def n_levels(self, side: Side) -> int:
        """The number of prices at which orders of ``side`` rest."""
        side = checked_side(side, "OrderBook.n_levels: side")
        return len(self._bid_keys if side is _BID else self._ask_keys)

    def volume_at(self, side: Side, price: int) -> int:
        """The total quantity resting on ``side`` at ``price`` (0 if none)."""
        side = checked_side(side, "OrderBook.volume_at: side")
        price = checked_price(price, "OrderBook.volume_at: price")
        level = (self._bids if side is _BID else self._asks).get(price)
        return 0 if level is None else int(level[0])

    def depth(
        self, levels: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The best ``levels`` price levels of each side, as arrays for observations.

        Args:
            levels: How many levels per side, an int >= 1.

        Returns:
            ``(bid_prices, bid_sizes, ask_prices, ask_sizes)``, four int64 arrays
            of shape ``(levels,)``, best price first (bids descending, asks
            ascending); sizes are the total quantity at each price. A side with
            fewer levels is padded with price 0 and size 0 (a real level never
            has either). The four arrays are fresh (views of one new block).

        Raises:
            TypeError: ``levels`` is not an int.
            ValueError: ``levels`` is below 1.
        """
        if type(levels) is not int or levels < 1:
            levels = check_int(levels, "OrderBook.depth: levels", minimum=1)
        out = np.zeros((4, levels), dtype=np.int64)
        bids = self._bid_keys[: -levels - 1 : -1]
        if bids:
            n = len(bids)
            out[0, :n] = bids
            book = self._bids
            out[1, :n] = [book[price][0] for price in bids]
        asks = [-key for key in self._ask_keys[: -levels - 1 : -1]]
        if asks:
            n = len(asks)
            out[2, :n] = asks
            book = self._asks
            out[3, :n] = [book[price][0] for price in asks]
        return out[0], out[1], out[2], out[3]

    def get(self, order_id: int) -> Order | None:
        """A snapshot of the resting order ``order_id``, ``None`` if it does not rest."""
        if type(order_id) is not int:
            order_id = checked_id(order_id, "OrderBook.get: order_id")
        record = self._orders.get(order_id)
        return None if record is None else _snapshot(record)

    def queue_ahead(self, order_id: int) -> int:
        """The quantity resting at the order's price that will trade before it.

        Args:
            order_id: The id of a resting order.

        Returns:
            The total quantity of the older orders at the same price and side
            (0 for the order at the front of its queue).

        Raises:
            sekai.error.OrderNotFound: No order with this id rests in the book
                (a ``KeyError``; the message says whether the id was never
                given out or its order is gone).
        """
        if type(order_id) is not int:
            order_id = checked_id(order_id, "OrderBook.queue_ahead: order_id")
        record = self._orders.get(order_id)
        if record is None:
            raise self._not_resting(order_id, "OrderBook.queue_ahead")
        levels = self._bids if record[4] is _BID else self._asks
        level = levels[record[5]]
        head, tail = level[2], level[3]
        # A queue is in id order: walk from the end whose id is nearer the
        # order's (the back for an order that just arrived), summing the orders
        # ahead of it from the head, or the order and those behind it from the tail.
        order_id = record[1]
        if order_id - head[1] <= tail[1] - order_id:
            ahead = 0
            while head is not record:
                ahead += head[0]
                head = head[7]
            return ahead
        behind = record[0]
        while tail is not record:
            behind += tail[0]
            tail = tail[6]
        volume: int = level[0] - behind
        return volume

    def _not_resting(self, order_id: int, what: str) -> OrderNotFound:
        if 1 <= order_id < self._next_id:
            why = "it was filled or cancelled, or the book was cleared"
        elif self._next_id == 1:
            why = "the book has given out no id yet"
        else:
            why = f"the book has given out ids 1 to {self._next_id - 1} only"
        return OrderNotFound(
            f"{what}: no resting order has id {order_id} ({why})", order_id=order_id
        )

    def orders_of(self, owner: int) -> list[Order]:
        """Snapshots of the resting orders of ``owner``, oldest first."""
        if type(owner) is not int:
            owner = check_int(owner, "OrderBook.orders_of: owner")
        return [_snapshot(record) for record in self._owners.get(owner, {}).values()]

    def n_orders_of(self, owner: int) -> int:
        """The number of resting orders of ``owner``, in O(1)."""
        if type(owner) is not int:
            owner = check_int(owner, "OrderBook.n_orders_of: owner")
        mine = self._owners.get(owner)
        return 0 if mine is None else len(mine)

    def _nth_order_of(self, owner: int, index: int) -> int:
        """The id of the ``index``-th oldest resting order of ``owner`` (for samplers)."""
        return next(islice(self._owners[owner], index, None))


_STRUCTURE = frozenset(("_orders", "_owners", "_bids", "_asks", "_bid_keys", "_ask_keys"))
"""The attributes `OrderBook.__setstate__` rebuilds from the resting orders."""


def _id_of(record: list[Any]) -> int:
    return int(record[1])


def _snapshot(record: list[Any]) -> Order:
    return Order(record[1], record[4], record[5], record[0], record[2], record[3])
