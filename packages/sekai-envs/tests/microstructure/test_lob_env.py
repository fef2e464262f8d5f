"""LimitOrderBook-v0: one agent on the real order book, its orders, mask and accounting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.lob import OrderBook, Side, ZeroIntelligenceFlow
from sekai.spaces import Box, Dict, MaskedBox, MultiDiscrete
from sekai.utils import check_env, get_action_mask, supports_action_mask

NONE, SELL, HOLD, BUY = 0, 0, 1, 2
STILL = ZeroIntelligenceFlow(limit_rate=0.0, market_rate=0.0, cancel_rate=0.0)
"""A flow that only seeds the book: nothing moves unless the agent trades."""
TOP = 2**62 - 1
"""The book's highest price (``OrderBook.MAX_PRICE``), spelled out so the module loads anywhere."""


def _action(bid: int, ask: int, market: int = HOLD) -> np.ndarray:
    return np.array([bid, ask, market], dtype=np.int64)


def test_spaces() -> None:
    env = LimitOrderBookEnv()
    assert env.AGENT == 0 and env.n_steps == 300 and env.decision_interval == 1.0
    assert isinstance(env.action_space, MultiDiscrete)
    assert env.action_space.nvec.tolist() == [6, 6, 3]
    space = env.observation_space
    assert isinstance(space, Dict) and list(space.spaces) == ["book", "trades", "agent"]
    assert isinstance(space["book"], Box) and space["book"].shape == (5, 4)
    assert isinstance(space["trades"], MaskedBox) and space["trades"].max_size == 16
    assert isinstance(space["agent"], Box) and space["agent"].shape == (6,)
    result = env.reset(seed=0)
    assert result.observation in space
    book = result.observation["book"]
    assert bool(np.all(book[book[:, 1] > 0, 0] < 0)) and bool(np.all(book[book[:, 3] > 0, 2] > 0))
    assert result.observation["trades"]["mask"].sum() > 0  # the warm-up traded
    assert result.info["inventory"] == 0 and result.info["timestamp"] == 0.0


def test_check_env_is_clean() -> None:
    env = LimitOrderBookEnv(session_length=40.0)
    assert check_env(env, n_steps=200, check_determinism=True) == []
    assert supports_action_mask(env)


def test_quote_levels_are_measured_from_the_other_traders_best_price() -> None:
    env = LimitOrderBookEnv(flow=STILL)
    env.reset(seed=0)
    best_bid, best_ask = env.book.best_bid(), env.book.best_ask()
    assert best_bid is not None and best_ask is not None
    env.step(_action(1, 3))
    trader = env.trader
    assert trader.bid_id is not None and trader.ask_id is not None
    bid, ask = env.book.get(trader.bid_id), env.book.get(trader.ask_id)
    assert bid is not None and ask is not None
    assert (bid.price, ask.price) == (best_bid, best_ask + 2)
    # joining again keeps the order (and its place): the agent's own bid is not "the others"
    queue = env.book.queue_ahead(trader.bid_id)
    behind = env.book.volume_at(Side.ASK, best_ask + 2) - 1  # the agent's ask is last there
    first_id = trader.bid_id
    observation = env.step(_action(1, 3)).observation
    assert trader.bid_id == first_id and env.book.queue_ahead(first_id) == queue
    expected = [0.0, pytest.approx(298 / 300), 1.0, 1.0, queue, behind]
    assert observation["agent"].tolist() == expected
    env.step(_action(2, 0))  # one tick behind; no ask
    moved = env.book.get(trader.bid_id)
    assert trader.bid_id != first_id and moved is not None and moved.price == best_bid - 1
    assert trader.ask_id is None and env.book.n_orders_of(env.AGENT) == 1


def test_a_market_order_first_cancels_the_agents_opposite_quote() -> None:
    env = LimitOrderBookEnv(flow=STILL)
    env.reset(seed=0)
    best_ask = env.book.best_ask()
    env.step(_action(0, 1))  # the agent joins the best ask
    result = env.step(_action(0, 0, BUY))
    fills = result.info["fills"]
    assert [fill.taker_owner for fill in fills] == [0] and fills[0].maker_owner != 0
    assert fills[0].price == best_ask
    assert result.info["inventory"] == 1 and result.info["cash"] == -best_ask
    assert env.book.n_orders_of(env.AGENT) == 0


def test_the_mask_and_the_limit_on_inventory() -> None:
    env = LimitOrderBookEnv(flow=STILL, max_inventory=2)
    env.reset(seed=0)
    bid, ask, market = get_action_mask(env)
    assert bid.tolist() == [1] * 6 and ask.tolist() == [1] * 6 and market.tolist() == [1, 1, 1]
    for _ in range(2):
        env.step(_action(0, 0, BUY))
    bid, ask, market = env.action_mask()
    assert bid.tolist() == [1, 0, 0, 0, 0, 0] and ask.tolist() == [1] * 6
    assert market.tolist() == [1, 1, 0]
    result = env.step(_action(1, 0, BUY))  # both masked: carried out as "none"
    assert result.info["inventory"] == 2 and result.info["fills"] == []
    assert env.trader.bid_id is None
    for _ in range(4):
        env.step(_action(0, 0, SELL))
    assert env.trader.inventory == -2 and env.action_mask()[2].tolist() == [0, 1, 1]
    sampled = [env.action_space.sample(mask=env.action_mask()) for _ in range(50)]
    assert all(action[1] == 0 and action[2] != SELL for action in sampled)


def test_the_inventory_never_leaves_its_limits() -> None:
    env = LimitOrderBookEnv(
        flow=ZeroIntelligenceFlow(market_rate=6.0), max_inventory=3, order_size=2
    )
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    inventories = []
    for _ in range(env.n_steps):  # random actions, masks ignored
        action = rng.integers(0, env.action_space.nvec)
        inventories.append(env.step(action).info["inventory"])
    assert max(inventories) <= 3 and min(inventories) >= -3
    assert max(inventories) >= 2 and min(inventories) <= -2  # the limits were reached


def test_accounting_matches_the_fills() -> None:
    env = LimitOrderBookEnv(session_length=120.0, inventory_penalty=0.05)
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    cash = 0.0
    inventory = 0
    returns = penalties = 0.0
    passive = 0
    for _ in range(env.n_steps):
        result = env.step(rng.integers(0, env.action_space.nvec))
        info = result.info
        for fill in info["fills"]:
            side = fill.taker_side if fill.taker_owner == 0 else fill.taker_side.opposite
            inventory += int(side) * fill.quantity
            cash -= int(side) * fill.price * fill.quantity
            passive += fill.maker_owner == 0
        assert (info["inventory"], info["cash"]) == (inventory, cash)
        assert info["wealth"] == pytest.approx(cash + inventory * info["mid_price"])
        penalty = 0.05 * inventory**2 * info["dt"]
        assert result.reward == pytest.approx(info["pnl"] - penalty)
        returns += result.reward
        penalties += penalty
    assert result.terminated and info["timestamp"] == 120.0
    assert returns == pytest.approx(info["wealth"] - penalties)
    assert passive > 0  # background market orders hit the agent's quotes


def test_the_baseline_makes_markets_within_its_limits() -> None:
    env = LimitOrderBookEnv(max_inventory=6)
    env.reset(seed=4)
    inventories = []
    fills = 0
    while True:
        action = env.baseline_action()
        assert action in env.action_space
        mask = env.action_mask()
        assert all(mask[i][action[i]] == 1 for i in range(3))
        result = env.step(action)
        inventories.append(result.info["inventory"])
        fills += len(result.info["fills"])
        if result.terminated:
            break
    assert fills > 20 and max(map(abs, inventories)) <= 6


def test_session_clock() -> None:
    env = LimitOrderBookEnv(session_length=10.0, decision_interval=3.0)
    assert env.n_steps == 4
    env.reset(seed=0)
    stamps = [env.step(_action(0, 0)).info for _ in range(4)]
    assert [info["timestamp"] for info in stamps] == [3.0, 6.0, 9.0, 10.0]
    assert [info["dt"] for info in stamps] == [3.0, 3.0, 3.0, 1.0]
    assert env.elapsed_steps == 4 and env.book.time == pytest.approx(30.0)  # 20 of warm-up
    with pytest.raises(ResetRequired):
        env.step(_action(0, 0))


def test_seeding_replays_a_session() -> None:
    env = LimitOrderBookEnv(session_length=30.0)

    def run(seed: int) -> list[tuple[float, int]]:
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(env.n_steps):
            info = env.step(rng.integers(0, env.action_space.nvec)).info
            out.append((info["mid_price"], info["inventory"], len(info["fills"])))
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_errors() -> None:
    env = LimitOrderBookEnv()
    with pytest.raises(ResetRequired):
        env.step(_action(0, 0))
    env.reset(seed=0)
    for bad in ([6, 0, 1], [0, 0, 3], [-1, 0, 1], [0, 0], [0.0, 1.0, 1.0], "abc"):
        with pytest.raises(InvalidAction, match="expects 3 ints"):
            env.step(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="flow"):
        LimitOrderBookEnv(flow="zi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mid_price"):
        LimitOrderBookEnv(mid_price=5)
    with pytest.raises(ValueError, match="decision_interval"):
        LimitOrderBookEnv(decision_interval=0.0)
    with pytest.raises(ValueError, match="max_inventory"):
        LimitOrderBookEnv(order_size=5, max_inventory=4)


@settings(max_examples=25, deadline=None)
@given(mid_price=st.integers(TOP - 9, 2**80))
def test_a_mid_price_whose_seeded_book_leaves_the_price_range_is_refused(mid_price: int) -> None:
    highest = TOP - 10
    message = rf"mid_price must be <= {highest}, so that the book .*, got {mid_price}"
    with pytest.raises(ValueError, match=rf"LimitOrderBookEnv: {message}"):
        LimitOrderBookEnv(mid_price=mid_price)
    with pytest.raises(ValueError, match=rf"LimitOrderBookMarket: {message}"):
        LimitOrderBookMarket(mid_price=mid_price)


def test_the_highest_mid_price_runs_and_quotes_stay_in_range() -> None:
    assert OrderBook.MAX_PRICE == TOP
    env = LimitOrderBookEnv(flow=STILL, mid_price=TOP - 10, max_quote_offset=20)
    env.reset(seed=0)
    assert env.book.best_ask() == TOP - 9
    result = env.step(_action(1, 20))  # 19 ticks behind the best ask: past the top, so at it
    ask = env.book.get(env.trader.ask_id or 0)
    assert ask is not None and ask.price == TOP
    assert result.observation in env.observation_space  # the book's depth did not overflow


def test_an_order_size_past_the_book_range_is_refused() -> None:
    with pytest.raises(ValueError, match=rf"order_size must be an int in \[1, {TOP}\]"):
        LimitOrderBookEnv(order_size=2**62, max_inventory=2**63)
