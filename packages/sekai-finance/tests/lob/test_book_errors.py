"""OrderBook misuse: unknown order ids and a clock that must only move forward."""

from __future__ import annotations

import copyreg
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai.error import OrderNotFound, SekaiError
from sekai.finance.lob import (
    BACKGROUND,
    LOBSTER_MESSAGE_DTYPE,
    LobsterReplay,
    OrderBook,
    Side,
    ZeroIntelligenceFlow,
)


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


class _PickledBefore:
    """Pickles as an OrderBook pickled while ``time`` was a plain attribute."""

    def __init__(self, state: dict[str, object]) -> None:
        self.state = state

    def __reduce__(self) -> tuple[object, ...]:
        # How pickle rebuilds an instance of a plain class and then sets its state.
        return (copyreg._reconstructor, (OrderBook, object, None), self.state)  # type: ignore[attr-defined]


@given(st.floats(0.0, 1e9))
def test_a_book_pickled_with_a_time_attribute_unpickles(when: float) -> None:
    book = OrderBook()
    book.time = when
    resting, _ = book.limit(Side.BID, 99, 3, owner=1)
    assert resting is not None
    old_state = dict(vars(book))
    old_state["time"] = old_state.pop("_time")  # what the state held before
    restored = pickle.loads(pickle.dumps(_PickledBefore(old_state)))
    assert type(restored) is OrderBook and restored.time == when
    assert "time" not in vars(restored)
    assert restored.queue_ahead(resting) == 0 and restored.best_bid() == 99
    restored.time = when + 1.0  # the setter works on it
    with pytest.raises(ValueError, match="only moves forward"):
        restored.time = when / 2
    assert pickle.loads(pickle.dumps(book)).time == when  # today's state too


def _messages(times: list[float]) -> np.ndarray:
    messages = np.zeros(len(times), dtype=LOBSTER_MESSAGE_DTYPE)
    messages["time"] = times
    messages["type"] = 1
    messages["order_id"] = np.arange(len(times))
    messages["size"] = 10
    messages["price"] = 1_000_000
    messages["direction"] = 1
    return messages


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0])
def test_a_replay_refuses_a_time_the_book_would_refuse_when_built(bad: float) -> None:
    # It used to fail at that message, half way through the replay.
    with pytest.raises(ValueError, match=rf"finite and >= 0 .*got {bad!r} at row 2"):
        LobsterReplay(_messages([34200.0, bad, 34201.0]))


def test_a_replay_onto_a_book_already_past_its_messages_raises() -> None:
    book = OrderBook()
    book.time = 50_000.0
    replay = LobsterReplay(_messages([34200.0, 34201.0]), book)
    with pytest.raises(ValueError, match="only moves forward"):
        replay.run()
    replay = LobsterReplay(_messages([34200.0, 34200.0, 34201.5]))
    replay.step_until(34200.0)
    assert replay.book.time == 34200.0
    replay.run()
    assert replay.book.time == 34201.5 and replay.book.n_orders_of(BACKGROUND) == 3
