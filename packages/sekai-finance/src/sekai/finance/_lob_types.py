"""The values the order book deals in: sides, orders and fills (private: see ``lob``)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sekai._internal.validation import check_int, is_int

__all__ = [
    "BACKGROUND",
    "MAX_PRICE",
    "MAX_QUANTITY",
    "MAX_VOLUME",
    "Fill",
    "Order",
    "Side",
    "checked_id",
    "checked_price",
    "checked_quantity",
    "checked_side",
]

BACKGROUND = -1
"""The owner of orders that belong to no one in particular (the default owner)."""

MAX_PRICE = (1 << 62) - 1
"""The highest price the book takes, in ticks.

The book keys an ask by its negated price and lets a market order cross every
key above ``-2**62``, and `OrderBook.depth` reports prices as int64: a
price must stay below ``2**62`` for both.
"""

MAX_QUANTITY = (1 << 62) - 1
"""The largest quantity of one limit order (it rests, and is summed into its level)."""

MAX_VOLUME = (1 << 63) - 1
"""The largest total quantity at one price: `OrderBook.depth` reports it as int64."""


class Side(enum.IntEnum):
    """The side of an order: ``BID`` (buy, ``1``) or ``ASK`` (sell, ``-1``).

    The values are the signs of the position change of the order's owner, as
    in LOBSTER's direction column: ``side * quantity`` is what a fill adds to
    the position of that side's trader.
    """

    BID = 1
    ASK = -1

    @property
    def opposite(self) -> Side:
        """The other side."""
        return _ASK if self is _BID else _BID


_BID = Side.BID
_ASK = Side.ASK


@dataclass(unsafe_hash=True)
class Order:
    """A snapshot of a resting limit order, as returned by the book's queries.

    The book never changes an ``Order`` it has returned: ask again for the
    current state. As in sekai 0.2 it is a mutable dataclass; it compares and
    hashes by value, so do not change one while it sits in a set or is a key.

    Attributes:
        order_id: The id the book gave the order.
        side: ``Side.BID`` or ``Side.ASK``.
        price: The limit price, in ticks.
        quantity: The quantity still resting (after partial fills and reductions).
        owner: Who placed it (``BACKGROUND``, -1, unless given).
        time: The book's ``time`` when the order arrived (its time priority).
    """

    order_id: int
    side: Side
    price: int
    quantity: int
    owner: int
    time: float


@dataclass(frozen=True)
class Fill:
    """One trade: a resting (maker) order met an incoming (taker) order.

    Attributes:
        price: The trade price in ticks: the maker's limit price.
        quantity: The quantity traded.
        maker_order_id: The id of the resting order.
        taker_order_id: The id of the incoming order (-1 when unknown, as for
            executions replayed from a LOBSTER file).
        maker_owner: The owner of the resting order.
        taker_owner: The owner of the incoming order.
        taker_side: The side of the incoming order (the aggressor): ``Side.BID``
            for a buy that lifted an offer, ``Side.ASK`` for a sell that hit a bid.
        time: The book's ``time`` when the trade happened.
    """

    price: int
    quantity: int
    maker_order_id: int
    taker_order_id: int
    maker_owner: int
    taker_owner: int
    taker_side: Side
    time: float


def checked_side(side: object, what: str) -> Side:
    """``side`` as a Side member: a member, or a (numpy) int 1 or -1; bools are refused."""
    if isinstance(side, Side):
        return side
    if is_int(side) and int(side) in (1, -1):
        return _BID if int(side) == 1 else _ASK
    error = ValueError if is_int(side) else TypeError
    raise error(f"{what} must be Side.BID or Side.ASK (1 or -1), got {side!r}")


def checked_price(price: object, what: str) -> int:
    """``price`` as an int in ``[1, MAX_PRICE]`` (see ``sekai._internal.validation.check_int``)."""
    return check_int(
        price,
        what,
        minimum=1,
        maximum=MAX_PRICE,
        expected=f"an int >= 1 and <= {MAX_PRICE} (2**62 - 1; a price in ticks)",
    )


def checked_quantity(quantity: object, what: str, *, bounded: bool = False) -> int:
    """``quantity`` as an int >= 1, and <= ``MAX_QUANTITY`` when ``bounded``.

    Bounded are the quantities that may rest in the book (limit orders); a
    market order or a reduction only takes quantity out, so any int >= 1 does.
    """
    if not bounded:
        return check_int(quantity, what, minimum=1, expected="an int >= 1")
    return check_int(
        quantity,
        what,
        minimum=1,
        maximum=MAX_QUANTITY,
        expected=f"an int >= 1 and <= {MAX_QUANTITY} (2**62 - 1)",
    )


def checked_id(order_id: object, what: str) -> int:
    """``order_id`` as an int (any value: unknown ids are the caller's business)."""
    return check_int(order_id, what, expected="an int (an order id)")
