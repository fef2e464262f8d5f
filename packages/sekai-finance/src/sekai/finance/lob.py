"""Limit order book: price-time priority matching, order flow and LOBSTER replay.

The book (`OrderBook`) keeps resting limit orders at integer price
ticks and matches incoming orders by price, then time priority.

Examples:
    >>> from sekai.finance.lob import OrderBook, Side
    >>> book = OrderBook()
    >>> book.limit(Side.ASK, 101, 5)  # rests: (its id, no fills)
    (1, [])
    >>> taken, fills = book.market(Side.BID, 3)  # lifts 3 of the 5 lots at 101
    >>> taken, fills[0].price, fills[0].maker_order_id
    (3, 101, 1)
    >>> [a.tolist() for a in book.depth(2)]  # bid prices, bid sizes, ask prices, ask sizes
    [[0, 0], [0, 0], [101, 0], [2, 0]]

Semantics in brief:

- prices are ints from 1 to ``OrderBook.MAX_PRICE`` (2**62 - 1), a limit
  order's quantity an int from 1 to ``OrderBook.MAX_QUANTITY`` (2**62 - 1)
  and the quantity at one price at most ``OrderBook.MAX_VOLUME`` (2**63 - 1):
  every number of the book fits int64; anything else is refused (ValueError).
- ``limit`` returns ``(resting id or None, fills)``, ``market`` returns
  ``(quantity traded, fills)``; the unfilled part of a market order is
  dropped. Each trade is one `Fill` at the resting (maker) order's
  price, naming maker and taker ids and owners and the taker's side.
- ``cancel`` removes an order in O(1), ``reduce`` takes quantity off an order
  without losing its queue position; both return whether the order rested.
- ``depth(n)`` gives ``(bid_prices, bid_sizes, ask_prices, ask_sizes)``, each
  an int64 array of shape ``(n,)``, best first, padded with zeros.
- ``time`` is set by whoever drives the book and stamps orders and fills;
  ``last_price`` is the price of the latest fill.

Order flow: `ZeroIntelligenceFlow` simulates Poisson limit, market and
cancel arrivals; `read_lobster_messages` and `LobsterReplay`
replay LOBSTER message files into a book. Both are an `OrderFlow`, the
protocol the order-book envs of ``sekai.envs`` drive their book with.
"""

from __future__ import annotations

from sekai.finance._lob_book import OrderBook
from sekai.finance._lob_flow import OrderFlow, ZeroIntelligenceFlow
from sekai.finance._lob_types import BACKGROUND, Fill, Order, Side
from sekai.finance._lobster import LOBSTER_MESSAGE_DTYPE, LobsterReplay, read_lobster_messages

__all__ = [  # noqa: RUF022 (grouped by topic)
    # the book
    "BACKGROUND",
    "Fill",
    "Order",
    "OrderBook",
    "Side",
    # order flow
    "OrderFlow",
    "ZeroIntelligenceFlow",
    # LOBSTER replay
    "LOBSTER_MESSAGE_DTYPE",
    "LobsterReplay",
    "read_lobster_messages",
]

# The public names live in private modules; they present themselves (reprs,
# pickles, docs) under the module users import them from.
for _obj in (Fill, Order, OrderBook, Side, OrderFlow, ZeroIntelligenceFlow, LobsterReplay):
    _obj.__module__ = __name__
read_lobster_messages.__module__ = __name__
del _obj
