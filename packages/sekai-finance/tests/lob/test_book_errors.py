"""OrderBook misuse: unknown order ids and a clock that must only move forward."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.error import OrderNotFound, SekaiError
from sekai.finance.lob import OrderBook, Side, ZeroIntelligenceFlow


def test_queue_ahead_of_an_unknown_id_raises_order_not_found_naming_it() -> None:
    book = OrderBook()
    with pytest.raises(OrderNotFound, match="no resting order has id 42") as caught:
        book.queue_ahead(42)
    assert caught.value.order_id == 42  # type: ignore[attr-defined]
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, SekaiError)
    assert "given out no id yet" in str(caught.value)
    resting, _ = book.limit(Side.BID, 99, 1)
    assert resting is not None
    book.cancel(resting)
    with pytest.raises(OrderNotFound, match=f"id {resting} .*filled or cancelled"):
        book.queue_ahead(resting)
    with pytest.raises(OrderNotFound, match="given out ids 1 to 1 only"):
        book.queue_ahead(7)


@given(st.lists(st.floats(0.0, 1e9, allow_nan=False), min_size=1, max_size=10))
def test_time_accepts_any_non_decreasing_sequence(times: list[float]) -> None:
    book = OrderBook()
    for when in sorted(times):
        book.time = when
        assert book.time == when
    order_id, _ = book.limit(Side.ASK, 101, 1)
    assert order_id is not None
    order = book.get(order_id)
    assert order is not None and order.time == max(times)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (math.nan, ValueError, "got nan"),
        (math.inf, ValueError, "a finite real number >= 0.0, got inf"),
        (-1.0, ValueError, "got -1.0"),
        (True, TypeError, "got True"),
        ("3", TypeError, "got '3'"),
        (np.float64(4.0), None, ""),
        (5, None, ""),
    ],
)
def test_time_refuses_what_is_not_a_time(
    value: object, error: type[Exception] | None, message: str
) -> None:
    book = OrderBook()
    if error is None:
        book.time = value  # type: ignore[assignment]
        assert book.time == float(value) and type(book.time) is float  # type: ignore[arg-type]
        return
    with pytest.raises(error, match=f"OrderBook.time must be .*{message}"):
        book.time = value  # type: ignore[assignment]
    assert book.time == 0.0


@given(st.floats(1.0, 1e6), st.floats(0.0, 0.999))
def test_time_never_goes_backwards(now: float, fraction: float) -> None:
    book = OrderBook()
    book.time = now
    earlier = now * fraction
    with pytest.raises(ValueError, match=f"only moves forward: it is {now!r}, got {earlier!r}"):
        book.time = earlier
    assert book.time == now
    book.clear()  # the documented way back to 0
    assert book.time == 0.0


def test_the_flow_still_advances_the_clock() -> None:
    book = OrderBook()
    rng = np.random.default_rng(0)
    flow = ZeroIntelligenceFlow()
    flow.initialise(book, rng, mid=1000)
    flow.advance(book, rng, until=5.0)
    assert book.time == 5.0
    with pytest.raises(ValueError, match=r"until must be >= book\.time"):
        flow.advance(book, rng, until=4.0)
