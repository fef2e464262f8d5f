"""The order-book envs take any order flow: a LOBSTER replay, a class of one's own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.finance.lob import (
    BACKGROUND,
    LOBSTER_MESSAGE_DTYPE,
    Fill,
    LobsterReplay,
    OrderBook,
    OrderFlow,
    Side,
    ZeroIntelligenceFlow,
)

HOLD = 1
NO_QUOTES = np.array([0, 0, HOLD], dtype=np.int64)
JOIN_BID = np.array([1, 0, HOLD], dtype=np.int64)


def _messages(*rows: tuple[float, int, int, int, int, int]) -> np.ndarray:
    return np.array(list(rows), dtype=LOBSTER_MESSAGE_DTYPE)


# In the env's clock (0 at a reset, the session from the end of the 20-unit
# warm-up); prices in LOBSTER units, one tick = 100 units.
MESSAGES = _messages(
    (0.5, 1, 11, 5, 999_900, 1),  # bid 5 @ 9999
    (0.6, 1, 12, 4, 1_000_100, -1),  # ask 4 @ 10001
    (0.7, 1, 13, 2, 999_800, 1),  # bid 2 @ 9998
    (22.5, 4, 11, 2, 999_900, 1),  # 2 of order 11 executed (a seller hit it)
    (24.5, 3, 12, 4, 1_000_100, -1),  # order 12 deleted
    (24.6, 1, 14, 6, 1_000_300, -1),  # ask 6 @ 10003
)


def test_a_lobster_replay_drives_the_env() -> None:
    replay = LobsterReplay(MESSAGES)
    env = LimitOrderBookEnv(flow=replay, session_length=10.0, warmup=20.0)
    assert env.core.flow is replay
    result = env.reset(seed=0)
    observation, info = result.observation, result.info
    # The replay made the book: only its three orders, nothing seeded around mid_price.
    assert len(env.book) == 3 and replay.book is env.book and replay.position == 3
    assert observation["book"][:2].tolist() == [[-1.0, 5.0, 1.0, 4.0], [-2.0, 2.0, 0.0, 0.0]]
    assert info["mid_price"] == 10000.0 and info["spread"] == 2.0
    # The agent joins the best bid behind the replayed order 11 (5 lots ahead).
    observation = env.step(JOIN_BID).observation
    assert observation["agent"][2] == 1.0 and observation["agent"][4] == 5.0
    env.step(JOIN_BID)
    step = env.step(JOIN_BID)  # to 23.0: the execution happened
    observation, info = step.observation, step.info
    assert observation["agent"][4] == 3.0 and env.book.volume_at(Side.BID, 9999) == 4
    assert observation["trades"]["mask"].tolist()[:1] == [1]
    assert observation["trades"]["values"][0].tolist() == [-1.0, 2.0, -1.0]
    assert info["fills"] == []  # the agent's quote did not trade
    env.step(JOIN_BID)
    info = env.step(JOIN_BID).info  # to 25.0: ask 12 gone, ask 14 in
    assert env.book.best_ask() == 10003 and info["spread"] == 4.0
    assert replay.position == len(MESSAGES) and replay.n_unknown == 0
    for _ in range(5):
        terminated = env.step(NO_QUOTES).terminated
    assert terminated and env.book.time == 30.0
    # A reset replays the messages from the first, on a new book.
    first_book = env.book
    observation = env.reset(seed=1).observation
    assert env.book is not first_book and replay.book is env.book
    assert replay.position == 3 and replay.counts[1] == 3 and replay.counts[4] == 0
    assert observation["book"][:2].tolist() == [[-1.0, 5.0, 1.0, 4.0], [-2.0, 2.0, 0.0, 0.0]]


def test_a_lobster_replay_drives_the_multi_agent_market() -> None:
    env = LimitOrderBookMarket(2, flow=LobsterReplay(MESSAGES), session_length=10.0)
    for observation in env.reset(seed=0).observations.values():
        assert observation["book"][0].tolist() == [-1.0, 5.0, 1.0, 4.0]
    while env.agents:
        env.step(dict.fromkeys(env.agents, NO_QUOTES))
    assert env.core.book.best_ask() == 10003 and env.core.book.volume_at(Side.BID, 9999) == 3


class Drip:
    """A minimal order flow of its own: one lot each side, one market buy per unit of time."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def initialise(
        self,
        book: OrderBook,
        rng: np.random.Generator,
        *,
        mid: int,
        levels: int = 10,
        orders_per_level: int = 3,
    ) -> None:
        self.calls.append(("initialise", (mid, levels, orders_per_level)))
        book.limit(Side.BID, mid - 1, 1)
        book.limit(Side.ASK, mid + 1, 100)

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        self.calls.append(("advance", until))
        fills: list[Fill] = []
        while book.time + 1.0 <= until:
            book.time += 1.0
            fills += book.market(Side.BID, 1)[1]
        book.time = until
        return fills


def test_a_flow_class_of_ones_own_drives_the_env() -> None:
    flow = Drip()
    assert isinstance(flow, OrderFlow)
    env = LimitOrderBookEnv(flow=flow, mid_price=500, session_length=4.0, warmup=3.0)
    observation = env.reset(seed=0).observation
    assert flow.calls == [("initialise", (500, 10, 3)), ("advance", 3.0)]
    assert observation["book"][0].tolist() == [-1.0, 1.0, 1.0, 97.0]
    assert [f.quantity for f in env.core.trades] == [1, 1, 1]
    # The agent sells at the touch, behind the 97 lots of the flow: never reached.
    action = np.array([0, 1, HOLD], dtype=np.int64)
    rewards = []
    for t in range(4):
        step = env.step(action)
        rewards.append(step.reward)
        assert flow.calls[-1] == ("advance", 3.0 + t + 1)
        assert step.observation["agent"][5] == 97.0 - (t + 1) and step.info["fills"] == []
    terminated = step.terminated
    assert terminated and env.book.volume_at(Side.ASK, 501) == 94
    assert rewards == [0.0, 0.0, 0.0, 0.0]


class _OnlyInitialise:
    def initialise(self, book: OrderBook, rng: Any, **_: Any) -> None:
        pass


class _AdvanceNotCallable:
    advance = 3

    def initialise(self, book: OrderBook, rng: Any, **_: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("flow", "given"),
    [
        ("zi", "got 'zi' of type str"),
        (3, "got 3 of type int"),
        (_OnlyInitialise(), "of type _OnlyInitialise"),
        (_AdvanceNotCallable(), "of type _AdvanceNotCallable"),
        (ZeroIntelligenceFlow, "got <class 'sekai.finance.lob.ZeroIntelligenceFlow'> of type"),
        (OrderBook(), "of type OrderBook"),
    ],
)
def test_an_object_that_is_no_order_flow_is_refused(flow: Any, given: str) -> None:
    expected = (
        r"flow must be an order flow \(a sekai\.finance\.lob\.OrderFlow: an object with methods "
        r"initialise\(book, rng, \*, mid, levels, orders_per_level\) and advance\(book, rng, "
        r"until\), such as ZeroIntelligenceFlow or LobsterReplay\) or None, "
    )
    for make, owner in ((LimitOrderBookEnv, "LimitOrderBookEnv"), (LimitOrderBookMarket, "")):
        with pytest.raises(TypeError, match=f"{owner}.*{expected}.*{given}"):
            make(flow=flow)


def test_the_default_flow_is_zero_intelligence() -> None:
    assert isinstance(LimitOrderBookEnv().core.flow, ZeroIntelligenceFlow)
    assert isinstance(ZeroIntelligenceFlow(), OrderFlow)
    assert isinstance(LobsterReplay(MESSAGES), OrderFlow)
    assert LobsterReplay(MESSAGES).owner == BACKGROUND
