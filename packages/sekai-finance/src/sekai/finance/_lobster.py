"""LOBSTER message files: reading them and replaying them into an OrderBook (private).

LOBSTER (lobsterdata.com) reconstructs NASDAQ books from its ITCH feed; a
*message file* is a header-less CSV with one event per row::

    time, type, order id, size, price, direction

``time`` is in seconds after midnight, ``price`` in units of 1/10000 dollar,
``direction`` 1 for a buy limit order and -1 for a sell limit order (for an
execution, the side of the *resting* order). The types are 1 new limit order,
2 partial cancellation (``size`` shares taken off), 3 deletion, 4 execution of
a visible order, 5 execution of a hidden order, 6 cross trade (auction) and 7
trading halt (price -1 halt, 0 quoting resumes, 1 trading resumes).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_int, check_real
from sekai.finance._lob_book import OrderBook
from sekai.finance._lob_types import BACKGROUND, MAX_PRICE, MAX_QUANTITY, Fill, Side

__all__ = ["LOBSTER_MESSAGE_DTYPE", "LobsterReplay", "read_lobster_messages"]

LOBSTER_MESSAGE_DTYPE = np.dtype(
    [
        ("time", np.float64),
        ("type", np.int64),
        ("order_id", np.int64),
        ("size", np.int64),
        ("price", np.int64),
        ("direction", np.int64),
    ]
)
"""The structured dtype of the messages `read_lobster_messages` returns."""

_KNOWN_TYPES = (1, 2, 3, 4, 5, 6, 7)


def read_lobster_messages(
    source: str | os.PathLike[str] | IO[str] | Iterable[str],
) -> NDArray[np.void]:
    """Read a LOBSTER message file into a structured array.

    Args:
        source: A path, an open text file or an iterable of lines. Columns
            after the sixth (some exports add one) are ignored.

    Returns:
        One record per message with the fields of ``LOBSTER_MESSAGE_DTYPE``:
        ``time`` (float64 seconds), ``type``, ``order_id``, ``size``, ``price``
        (1/10000 dollar) and ``direction`` (int64). An empty file gives an
        empty array.

    Raises:
        ValueError: A row has fewer than six columns, a non-numeric or
            non-integral value where an integer is due, an unknown message
            type or a direction other than 1 / -1 for an order message.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*[Ee]mpty input.*")
        warnings.filterwarnings("ignore", message=".*input contained no data.*")
        raw = np.loadtxt(source, delimiter=",", dtype=np.float64, ndmin=2, usecols=range(6))
    if raw.size == 0:
        return np.zeros(0, dtype=LOBSTER_MESSAGE_DTYPE)
    integral = raw[:, 1:]
    bad = ~np.isfinite(raw[:, 0]) | np.any(integral != np.round(integral), axis=1)
    _reject(bad, raw, "a finite time and integral type, order id, size, price and direction")
    messages = np.zeros(len(raw), dtype=LOBSTER_MESSAGE_DTYPE)
    for column, name in enumerate(LOBSTER_MESSAGE_DTYPE.names or ()):
        messages[name] = raw[:, column]
    _reject(~np.isin(messages["type"], _KNOWN_TYPES), raw, "a type in 1..7")
    orders = messages["type"] <= 5
    _reject(orders & ~np.isin(messages["direction"], (1, -1)), raw, "a direction of 1 or -1")
    _reject(orders & (messages["size"] < 0), raw, "a size >= 0")
    return messages


def _reject(bad: NDArray[np.bool_], raw: NDArray[np.float64], expected: str) -> None:
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(
            f"read_lobster_messages: row {row + 1} must have {expected}, got {raw[row].tolist()!r}"
        )


class LobsterReplay:
    """Apply LOBSTER messages to an `OrderBook`, in order, up to a time.

    A new limit order (type 1) enters the book as ``book.limit`` with owner
    ``owner``; the book gives it its own id and the replay remembers which
    LOBSTER id it stands for. A partial cancellation (2) is ``book.reduce``, a
    deletion (3) ``book.cancel``, and a visible execution (4) trades ``size``
    of that very order, reported as a `Fill` at its price whose taker
    is unknown (``taker_order_id`` -1, ``taker_owner`` ``BACKGROUND``, the
    taker side opposite to ``direction``). Hidden executions (5) and cross
    trades (6) leave the visible book unchanged; halts (7) set `halted`.

    Messages about orders the book does not hold (orders placed before the
    file starts, which LOBSTER gives in its separate order book file) change
    nothing and are counted in `n_unknown`. Before each message the
    book's ``time`` is set to the message time.

    Args:
        messages: Records from `read_lobster_messages` (or any array
            with the same fields), in time order.
        book: The book to replay into; a new empty `OrderBook` by default.
        tick_size: The price tick in LOBSTER units (1/10000 dollar): 100 (the
            default) makes one tick one cent. Every limit order price must be
            a multiple of it.
        owner: The owner given to replayed orders.

    Raises:
        ValueError: A message type is not in 1..7, an order message's
            direction is not 1 or -1, a limit order price is not a positive
            multiple of ``tick_size`` or is above ``OrderBook.MAX_PRICE``
            ticks, a limit order size is not in ``[1, OrderBook.MAX_QUANTITY]``,
            a time is negative, NaN or infinite, or the messages are not in
            time order.

    Attributes:
        book: The book the messages are applied to.
        tick_size: The tick size in LOBSTER price units.
        owner: The owner of the replayed orders.
        halted: Whether trading is halted (between a halt message with price
            -1 and one with price 1).
        n_unknown: How many messages referred to orders the book did not hold.
        counts: How many messages of each type were applied so far.

    Examples:
        >>> messages = read_lobster_messages([
        ...     "34200.1,1,7,100,1000000,1",  # buy 100 @ $100.00
        ...     "34200.2,1,8,40,1000200,-1",  # sell 40 @ $100.02
        ...     "34200.3,4,7,25,1000000,1",  # 25 of order 7 executed
        ... ])
        >>> replay = LobsterReplay(messages)  # one tick = one cent
        >>> (fill,) = replay.run()
        >>> fill.price, fill.quantity, fill.taker_side.name
        (10000, 25, 'ASK')
        >>> replay.book.best_bid(), replay.book.volume_at(Side.BID, 10000)
        (10000, 75)
    """

    def __init__(
        self,
        messages: NDArray[np.void],
        book: OrderBook | None = None,
        *,
        tick_size: int = 100,
        owner: int = BACKGROUND,
    ) -> None:
        self.tick_size = check_int(tick_size, "LobsterReplay: tick_size", minimum=1)
        self.owner = check_int(owner, "LobsterReplay: owner")
        self.book = OrderBook() if book is None else book
        names = messages.dtype.names or ()
        missing = [name for name in LOBSTER_MESSAGE_DTYPE.names or () if name not in names]
        if missing:
            raise ValueError(
                f"LobsterReplay: messages must have the fields of LOBSTER_MESSAGE_DTYPE, "
                f"missing {missing!r}"
            )
        times = np.asarray(messages["time"], dtype=np.float64)
        bad = ~np.isfinite(times) | (times < 0)
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"LobsterReplay: message times must be finite and >= 0 (seconds after "
                f"midnight), got {float(times[row])!r} at row {row + 1}"
            )
        if np.any(np.diff(times) < 0):
            row = int(np.argmax(np.diff(times) < 0)) + 1
            raise ValueError(
                f"LobsterReplay: messages must be in time order, got time {float(times[row])!r} "
                f"at row {row + 1} after {float(times[row - 1])!r}"
            )
        kinds = np.asarray(messages["type"], dtype=np.int64)
        directions = np.asarray(messages["direction"], dtype=np.int64)
        if not np.isin(kinds, _KNOWN_TYPES).all():
            row = int(np.argmax(~np.isin(kinds, _KNOWN_TYPES)))
            raise ValueError(
                f"LobsterReplay: message types must be in 1..7, got {int(kinds[row])} "
                f"at row {row + 1}"
            )
        bad = (kinds <= 5) & (directions != 1) & (directions != -1)
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"LobsterReplay: order messages must have a direction of 1 or -1, "
                f"got {int(directions[row])} at row {row + 1}"
            )
        prices = np.asarray(messages["price"], dtype=np.int64)
        new = kinds == 1
        bad = new & ((prices <= 0) | (prices % self.tick_size != 0))
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"LobsterReplay: limit order prices must be positive multiples of tick_size "
                f"{self.tick_size}, got {int(prices[row])} at row {row + 1}"
            )
        bad = new & (prices // self.tick_size > MAX_PRICE)
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"LobsterReplay: limit order prices must be at most {MAX_PRICE} (2**62 - 1) "
                f"ticks of {self.tick_size}, got {int(prices[row])} at row {row + 1}"
            )
        sizes = np.asarray(messages["size"], dtype=np.int64)
        bad = new & ((sizes < 1) | (sizes > MAX_QUANTITY))
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"LobsterReplay: limit order sizes must be in [1, {MAX_QUANTITY}] (2**62 - 1), "
                f"got {int(sizes[row])} at row {row + 1}"
            )
        self._rows: list[tuple[Any, ...]] = list(
            zip(
                times.tolist(),
                kinds.tolist(),
                np.asarray(messages["order_id"]).tolist(),
                np.asarray(messages["size"]).tolist(),
                prices.tolist(),
                directions.tolist(),
                strict=True,
            )
        )
        self._position = 0
        self._ids: dict[int, int] = {}
        self.halted = False
        self.n_unknown = 0
        self.counts: dict[int, int] = dict.fromkeys(_KNOWN_TYPES, 0)

    def __len__(self) -> int:
        """The number of messages, applied or not."""
        return len(self._rows)

    @property
    def position(self) -> int:
        """How many messages have been applied."""
        return self._position

    @property
    def done(self) -> bool:
        """Whether every message has been applied."""
        return self._position == len(self._rows)

    @property
    def next_time(self) -> float | None:
        """The time of the next message, ``None`` when all are applied."""
        return None if self.done else float(self._rows[self._position][0])

    def book_id(self, lobster_id: int) -> int | None:
        """The book's id for the resting order LOBSTER calls ``lobster_id``, if it rests."""
        book_id = self._ids.get(lobster_id)
        if book_id is None or self.book.get(book_id) is None:
            return None
        return book_id

    def step_until(self, until: float) -> list[Fill]:
        """Apply every message stamped at or before ``until``; return their fills.

        The book's ``time`` ends at ``until`` (if that is later than the last
        message applied).
        """
        until = check_real(until, "LobsterReplay.step_until: until")
        fills: list[Fill] = []
        rows, book = self._rows, self.book
        while self._position < len(rows) and rows[self._position][0] <= until:
            fills += self._apply(rows[self._position])
            self._position += 1
        if until > book.time:
            book.time = until
        return fills

    # -- as an order flow (sekai.finance.lob.OrderFlow) ---------------------------------------

    def initialise(
        self,
        book: OrderBook,
        rng: np.random.Generator | None = None,
        *,
        mid: int | None = None,
        levels: int = 10,
        orders_per_level: int = 3,
    ) -> None:
        """Start the replay over, on ``book``: the `OrderFlow` protocol's first call.

        The replay then applies its messages to ``book`` from the first one:
        `position`, `counts`, `n_unknown`, `halted` and the map of LOBSTER
        ids start afresh, so every env reset replays the same messages. The
        messages alone make the book: ``rng``, ``mid``, ``levels`` and
        ``orders_per_level`` are accepted for the protocol and not used.

        Args:
            book: The book to replay into from now on (it becomes `book`).
            rng: Not used (a replay draws nothing).
            mid: Not used.
            levels: Not used.
            orders_per_level: Not used.

        Raises:
            TypeError: ``book`` is not an `OrderBook`.
        """
        if not isinstance(book, OrderBook):
            raise TypeError(
                f"LobsterReplay.initialise: book must be a sekai.finance.lob.OrderBook, "
                f"got {book!r}"
            )
        self.book = book
        self._position = 0
        self._ids.clear()
        self.halted = False
        self.n_unknown = 0
        self.counts = dict.fromkeys(_KNOWN_TYPES, 0)

    def advance(self, book: OrderBook, rng: np.random.Generator | None, until: float) -> list[Fill]:
        """`step_until` ``until`` on ``book``: the `OrderFlow` protocol's later calls.

        Message times are the book's times: to replay LOBSTER's seconds after
        midnight in an env whose clock starts at 0 at each reset, shift them
        first (e.g. ``messages["time"] -= 34200.0`` to start at the open).

        Args:
            book: The replay's `book` (the one given to `initialise`).
            rng: Not used (a replay draws nothing).
            until: Apply every message stamped at or before this time.

        Returns:
            The fills of the executions applied.

        Raises:
            ValueError: ``book`` is not the replay's book.
        """
        if book is not self.book:
            raise ValueError(
                "LobsterReplay.advance: book must be the replay's own book (the one given "
                "to the constructor or to initialise)"
            )
        return self.step_until(until)

    def run(self) -> list[Fill]:
        """Apply every remaining message; return their fills."""
        fills: list[Fill] = []
        rows = self._rows
        while self._position < len(rows):
            fills += self._apply(rows[self._position])
            self._position += 1
        return fills

    def _apply(self, row: tuple[Any, ...]) -> list[Fill]:
        time, kind, lobster_id, size, price, direction = row
        book = self.book
        if time >= book._time:
            # Finite and >= 0 (checked when the replay was built) and not before
            # the book's time: what the setter checks, at the cost of one comparison.
            book._time = time
        else:
            book.time = time  # raises: something moved the book past this message
        self.counts[kind] += 1
        if kind == 1:
            side = Side.BID if direction == 1 else Side.ASK
            book_id, fills = book.limit(side, price // self.tick_size, size, self.owner)
            if book_id is not None:
                self._ids[lobster_id] = book_id
            return fills
        if kind in (2, 3, 4):
            book_id = self._ids.get(lobster_id)
            if book_id is None:
                self.n_unknown += 1
                return []
            if kind == 4:
                fill = book._execute(book_id, size) if size > 0 else None
                if book_id not in book._orders:
                    del self._ids[lobster_id]
                if fill is None:
                    self.n_unknown += 1
                    return []
                return [fill]
            if kind == 3:
                done = book.cancel(book_id)
            else:
                done = book.reduce(book_id, size) if size > 0 else book_id in book._orders
            if not done:
                self.n_unknown += 1
            if book_id not in book._orders:
                del self._ids[lobster_id]
            return []
        if kind == 7:
            if price == -1:
                self.halted = True
            elif price == 1:
                self.halted = False
        return []
