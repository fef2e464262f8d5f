"""sekai.finance.lob keeps the public surface sekai 0.2 code uses (names, signatures, fields)."""

from __future__ import annotations

import dataclasses
import enum
import inspect
import pickle
from typing import Any

import pytest

import sekai.finance.lob as lob
from sekai.finance.lob import BACKGROUND, Fill, Order, OrderBook, Side, ZeroIntelligenceFlow

EMPTY = inspect.Parameter.empty


def _parameters(function: Any) -> list[tuple[str, str, Any]]:
    return [
        (p.name, p.kind.name, p.default) for p in inspect.signature(function).parameters.values()
    ]


def test_the_names_of_the_0_2_listing_are_exported() -> None:
    for name in ("BACKGROUND", "Fill", "Order", "OrderBook", "Side", "ZeroIntelligenceFlow"):
        assert name in lob.__all__ and hasattr(lob, name)
    assert all(hasattr(lob, name) for name in lob.__all__)
    assert BACKGROUND == -1


def test_classes_present_themselves_under_sekai_finance_lob() -> None:
    for cls in (Fill, Order, OrderBook, Side, ZeroIntelligenceFlow, lob.LobsterReplay):
        assert cls.__module__ == "sekai.finance.lob"
    assert pickle.loads(pickle.dumps(Side.ASK)) is Side.ASK
    flow = ZeroIntelligenceFlow(limit_rate=3.0)
    assert pickle.loads(pickle.dumps(flow)) == flow


def test_side_is_an_int_enum_with_bid_and_ask() -> None:
    assert issubclass(Side, enum.IntEnum)
    assert [member.name for member in Side] == ["BID", "ASK"]


@pytest.mark.parametrize(
    ("cls", "fields", "frozen"),
    [
        (Order, ["order_id", "side", "price", "quantity", "owner", "time"], False),
        (
            Fill,
            [
                "price",
                "quantity",
                "maker_order_id",
                "taker_order_id",
                "maker_owner",
                "taker_owner",
                "taker_side",
                "time",
            ],
            True,
        ),
        (
            ZeroIntelligenceFlow,
            ["limit_rate", "market_rate", "cancel_rate", "max_offset", "offset_decay", "mean_size"],
            True,
        ),
    ],
)
def test_dataclass_fields(cls: type, fields: list[str], frozen: bool) -> None:
    assert [f.name for f in dataclasses.fields(cls)] == fields
    assert cls.__dataclass_params__.frozen is frozen  # type: ignore[attr-defined]
    assert cls.__hash__ is not None  # all three support __eq__ and __hash__


def test_order_is_mutable_like_in_0_2() -> None:
    order = Order(1, Side.BID, 100, 5, -1, 0.0)
    order.quantity = 4
    assert order == Order(1, Side.BID, 100, 4, -1, 0.0)


P, K = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY"


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (
            "limit",
            [
                ("self", P, EMPTY),
                ("side", P, EMPTY),
                ("price", P, EMPTY),
                ("quantity", P, EMPTY),
                ("owner", P, -1),
            ],
        ),
        (
            "market",
            [("self", P, EMPTY), ("side", P, EMPTY), ("quantity", P, EMPTY), ("owner", P, -1)],
        ),
        ("cancel", [("self", P, EMPTY), ("order_id", P, EMPTY)]),
        ("reduce", [("self", P, EMPTY), ("order_id", P, EMPTY), ("quantity", P, EMPTY)]),
        ("get", [("self", P, EMPTY), ("order_id", P, EMPTY)]),
        ("queue_ahead", [("self", P, EMPTY), ("order_id", P, EMPTY)]),
        ("depth", [("self", P, EMPTY), ("levels", P, EMPTY)]),
        ("orders_of", [("self", P, EMPTY), ("owner", P, EMPTY)]),
        ("n_orders_of", [("self", P, EMPTY), ("owner", P, EMPTY)]),
        ("volume_at", [("self", P, EMPTY), ("side", P, EMPTY), ("price", P, EMPTY)]),
        ("n_levels", [("self", P, EMPTY), ("side", P, EMPTY)]),
        ("best_bid", [("self", P, EMPTY)]),
        ("best_ask", [("self", P, EMPTY)]),
        ("mid", [("self", P, EMPTY)]),
        ("spread", [("self", P, EMPTY)]),
        ("clear", [("self", P, EMPTY)]),
    ],
)
def test_order_book_signatures(method: str, expected: list[tuple[str, str, Any]]) -> None:
    assert _parameters(getattr(OrderBook, method)) == expected


def test_order_book_attributes_and_len() -> None:
    book = OrderBook()
    assert _parameters(OrderBook) == []
    assert book.time == 0.0 and book.last_price is None and len(book) == 0


def test_flow_signatures() -> None:
    assert _parameters(ZeroIntelligenceFlow.advance) == [
        ("self", P, EMPTY),
        ("book", P, EMPTY),
        ("rng", P, EMPTY),
        ("until", P, EMPTY),
    ]
    assert _parameters(ZeroIntelligenceFlow.initialise) == [
        ("self", P, EMPTY),
        ("book", P, EMPTY),
        ("rng", P, EMPTY),
        ("mid", K, EMPTY),
        ("levels", K, 10),
        ("orders_per_level", K, 3),
    ]
    assert _parameters(ZeroIntelligenceFlow) == [
        ("limit_rate", P, 10.0),
        ("market_rate", P, 2.0),
        ("cancel_rate", P, 0.5),
        ("max_offset", P, 10),
        ("offset_decay", P, 0.5),
        ("mean_size", P, 3.0),
    ]


def test_used_the_0_2_way() -> None:
    """A market-making loop written against 0.2: quote, let the flow run, read fills."""
    import numpy as np

    rng = np.random.default_rng(0)
    book = OrderBook()
    flow = ZeroIntelligenceFlow()
    flow.initialise(book, rng, mid=10_000, levels=5)
    agent = 0
    inventory = 0
    for step in range(1, 30):
        for order in book.orders_of(agent):
            book.cancel(order.order_id)
        bid, ask = book.best_bid(), book.best_ask()
        if bid is not None:
            book.limit(Side.BID, bid, 1, owner=agent)
        if ask is not None:
            book.limit(Side.ASK, ask, 1, owner=agent)
        for fill in flow.advance(book, rng, float(step)):
            if fill.maker_owner == agent:
                inventory += 1 if fill.taker_side is Side.ASK else -1
        prices, sizes, _, _ = book.depth(5)
        assert prices.shape == sizes.shape == (5,)
    assert book.time == 29.0
    assert book.n_orders_of(agent) <= 2
    assert isinstance(inventory, int)
