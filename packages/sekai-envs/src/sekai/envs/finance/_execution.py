"""When a market env's decision fills, and how long its period lasts (private).

Trading-v0, Portfolio-v0 and Market-v0 decide at row ``t``, having seen the
close ``P_t``, and end the step at row ``t + 1``'s close ``P_{t+1}``. The
``execution`` argument says where in between the decision fills:

- ``"close"``: at ``P_t``, the close the agent has just seen (a
  market-on-close order; sekai 0.2's convention and the default). The new
  position earns the whole move ``P_{t+1} / P_t``.
- ``"next_open"``: at row ``t + 1``'s ``open`` field. The old position earns
  the overnight move ``O_{t+1} / P_t``, the new one ``P_{t+1} / O_{t+1}``. A
  row without an open fills at its close; a row with an open but no close
  (an asset halted after it opened) fills nothing.
- ``"next_close"``: at ``P_{t+1}``, one bar of latency. The old position earns
  the whole move; the new one starts at the end of the step.

A step is therefore two legs around the fill (`Fill`): the position held
before the decision is carried to the fill price, then the account trades at
the fill price (the cost model is told that price), then the new position is
carried to ``P_{t+1}``. With ``"close"`` the first leg is empty.

Financing accrues over the step's length on the positions held overnight,
through the close of row ``t``: the new positions with ``"close"``, the old ones
otherwise (a broker charges interest on the balances it holds at the end of
the day). The length is ``dt`` years per row, or, for a history stamped with
dates and no ``dt`` argument, the calendar time from row ``t`` to row
``t + 1`` (`calendar_years`): a weekend earns three days of interest.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "EXECUTIONS",
    "Fill",
    "calendar_years",
    "check_execution",
    "check_opens",
    "fill",
    "fill_one",
]

F64 = NDArray[np.float64]

EXECUTIONS = ("close", "next_open", "next_close")
"""The fill conventions, the default first."""

_YEAR_NS = 365.25 * 86_400 * 1e9  # a Julian year in nanoseconds


def check_opens(opens: NDArray[np.float64], owner: str) -> None:
    """Refuse an ``open`` field that cannot be traded at: a value <= 0 or infinite.

    NaN is allowed (no open: the row fills at its close).

    Raises:
        ValueError: The message names the first bad row and column.
    """
    bad = ~np.isnan(opens) & ~((opens > 0.0) & (opens < np.inf))
    if bad.any():
        row, column = (int(index[0]) for index in np.nonzero(bad))
        raise ValueError(
            f"{owner}: execution='next_open' fills at the 'open' field, which must be > 0 and "
            f"finite (or NaN: no open); row {row}, column {column} holds {opens[row, column]!r}"
        )


def check_execution(value: object, owner: str, *, opens: str | None) -> str:
    """The ``execution`` argument, checked against what the data can fill at.

    Args:
        value: The argument.
        owner: The env's name, for messages.
        opens: None when the data has an ``open`` field; else why it has none
            (for the message: ``"the data's fields are ['volume']"``, ...).

    Raises:
        TypeError: ``value`` is not a str.
        ValueError: An unknown convention, or ``"next_open"`` without opens.
    """
    if not isinstance(value, str):
        raise TypeError(f"{owner}: execution must be one of {EXECUTIONS}, got {value!r}")
    if value not in EXECUTIONS:
        raise ValueError(f"{owner}: execution must be one of {EXECUTIONS}, got {value!r}")
    if value == "next_open" and opens is not None:
        raise ValueError(
            f"{owner}: execution='next_open' fills at the next row's open, which needs an 'open' "
            f"field; {opens}. Give data with one (MarketData(..., fields={{'open': ...}})) or "
            "use execution='close' or 'next_close'"
        )
    return value


class Fill(NamedTuple):
    """A step's two legs around its fill, one entry per asset (and row).

    Attributes:
        before: Simple returns from the decision price to the fill price,
            over which the old position is held; None when the fill is at the
            decision price (``"close"``).
        after: Simple returns from the fill price to the next row's price,
            over which the new position is held.
        price: The fill prices (what the cost model is told).
    """

    before: F64 | None
    after: F64
    price: F64


def fill(execution: str, decision: F64, following: F64, opens: F64 | None) -> Fill:
    """The legs of a step under ``execution``.

    Args:
        execution: One of `EXECUTIONS` (checked).
        decision: The prices the agent has seen, ``P_t``.
        following: The next row's prices, ``P_{t+1}``.
        opens: The next row's opens, ``O_{t+1}`` (``"next_open"`` only).
    """
    if execution == "close":
        return Fill(None, following / decision - 1.0, decision)
    if execution == "next_close":
        return Fill(following / decision - 1.0, np.zeros_like(following), following)
    if opens is None:
        raise ValueError("fill: execution='next_open' needs the next row's opens, got None")
    # A row without an open fills at its close; one with an open but no close (halted after
    # it opened) fills nothing: its fill price is NaN, as its close is.
    price = np.where(np.isnan(opens), following, opens)
    if np.isnan(following).any():
        price = np.where(np.isnan(following), np.nan, price)
    return Fill(price / decision - 1.0, following / price - 1.0, price)


def fill_one(
    execution: str, decision: float, following: float, open_: float | None
) -> tuple[float | None, float, float]:
    """`fill` for one asset of one account, on Python floats: ``(before, after, price)``.

    The same operations in the same order as `fill`, so every leg agrees
    with it bit for bit; a single env's step calls this instead of paying
    numpy's per-call cost on one-element arrays.
    """
    if execution == "close":
        return None, following / decision - 1.0, decision
    if execution == "next_close":
        return following / decision - 1.0, 0.0, following
    if open_ is None:
        raise ValueError("fill_one: execution='next_open' needs the next row's open, got None")
    price = following if math.isnan(open_) else open_
    if math.isnan(following):
        price = math.nan
    return price / decision - 1.0, following / price - 1.0, price


def calendar_years(timestamps: NDArray[np.datetime64]) -> F64:
    """``(n_rows,)`` years from each row to the next (the last row: 0), on the calendar.

    A Julian year of 365.25 days; rows stamped closer than the clock's unit
    count as 0.
    """
    nanoseconds = np.diff(timestamps.astype("datetime64[ns]")).astype(np.int64)
    years: F64 = np.zeros(len(timestamps))
    years[:-1] = nanoseconds / _YEAR_NS
    return years
