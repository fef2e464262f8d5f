"""LimitOrderBookMarket: traders on one book, each on its own clock."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance.lob_env import LimitOrderBookMarket
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.lob import Side, ZeroIntelligenceFlow
from sekai.utils import check_env
from sekai.utils.seeding import SeedType

HOLD, BUY = 1, 2
STILL = ZeroIntelligenceFlow(limit_rate=0.0, market_rate=0.0, cancel_rate=0.0)


def _action(bid: int, ask: int, market: int = HOLD) -> np.ndarray:
    return np.array([bid, ask, market], dtype=np.int64)


def _random_actions(env: LimitOrderBookMarket, rng: np.random.Generator) -> dict[str, Any]:
    return {agent: rng.integers(0, env.action_space(agent).nvec) for agent in env.agents}


def test_agents_and_spaces() -> None:
    env = LimitOrderBookMarket(3)
    assert env.possible_agents == ["trader_0", "trader_1", "trader_2"]
    assert env.intervals == dict.fromkeys(env.possible_agents, 1.0) and env.jitter == 0.0
    result = env.reset(seed=0)
    assert env.agents == env.possible_agents and env.acting == env.possible_agents
    for agent in env.agents:
        assert result.observations[agent] in env.observation_space(agent)
        assert result.info[agent]["acting"] is True
    assert env.observation_space("trader_0") is env.observation_space("trader_0")
    assert env.action_space("trader_0") is not env.action_space("trader_1")


def test_each_trader_decides_on_its_own_clock() -> None:
    env = LimitOrderBookMarket(2, decision_intervals=[1.0, 0.25], session_length=10.0)
    env.reset(seed=1)
    turns: Counter[str] = Counter()
    times = {agent: [] for agent in env.possible_agents}  # type: dict[str, list[float]]
    rng = np.random.default_rng(0)
    while env.agents:
        for agent in env.acting:
            turns[agent] += 1
            times[agent].append(env.next_decision[agent])
        result = env.step(_random_actions(env, rng))
        assert set(result.observations) == set(result.rewards) == set(env.possible_agents)
        for agent in env.possible_agents:
            assert result.info[agent]["acting"] == (agent in env.acting)
    assert turns == {"trader_0": 10, "trader_1": 40}
    assert np.allclose(np.diff(times["trader_1"]), 0.25)
    assert all(result.terminated.values()) and env.agents == [] and env.acting == []
    with pytest.raises(ResetRequired):
        env.step({})


def test_latency_jitter_delays_decisions() -> None:
    env = LimitOrderBookMarket(2, decision_intervals=[1.0, 2.0], jitter=0.5, session_length=60.0)
    env.reset(seed=2)
    last: dict[str, float] = {}
    gaps: dict[str, list[float]] = {agent: [] for agent in env.possible_agents}
    rng = np.random.default_rng(1)
    while env.agents:
        now = min(env.next_decision.values())
        for agent in env.acting:
            if agent in last:
                gaps[agent].append(now - last[agent])
            last[agent] = now
        env.step(_random_actions(env, rng))
    for agent, interval in (("trader_0", 1.0), ("trader_1", 2.0)):
        spread = np.array(gaps[agent]) - interval
        assert spread.min() >= 0.0 and spread.max() < 0.5
        assert spread.std() > 0.1  # uniform on [0, 0.5): about 0.14


def test_actions_are_all_checked_before_any_is_carried_out() -> None:
    env = LimitOrderBookMarket(2, flow=STILL)
    env.reset(seed=0)
    orders = len(env.book)
    with pytest.raises(InvalidAction, match="trader_1"):
        env.step({"trader_0": _action(1, 1), "trader_1": _action(9, 1)})
    with pytest.raises(InvalidAction, match="no action for \\['trader_1'\\]"):
        env.step({"trader_0": _action(1, 1)})
    with pytest.raises(InvalidAction, match="unknown traders"):
        env.step({"trader_0": _action(1, 1), "trader_1": _action(1, 1), "trader_9": _action(0, 0)})
    with pytest.raises(InvalidAction, match="dict"):
        env.step([_action(1, 1)])  # type: ignore[arg-type]
    assert len(env.book) == orders and env.traders["trader_0"].bid_id is None


def test_a_trader_acts_only_on_its_turn() -> None:
    env = LimitOrderBookMarket(2, decision_intervals=[1.0, 0.5], flow=STILL)
    env.reset(seed=0)
    env.step({"trader_0": _action(0, 0), "trader_1": _action(0, 0)})
    assert env.acting == ["trader_1"]
    result = env.step({"trader_0": _action(0, 0, BUY), "trader_1": _action(0, 0)})
    assert result.info["trader_0"]["inventory"] == 0  # not its turn: ignored
    assert env.acting == ["trader_0", "trader_1"]


def test_traders_share_one_book_and_trade_with_each_other() -> None:
    env = LimitOrderBookMarket(2, flow=STILL, order_size=30, max_inventory=60)
    env.reset(seed=0)
    best_ask = env.book.best_ask()
    assert best_ask is not None
    background = env.book.volume_at(Side.ASK, best_ask)
    assert background < 30
    # trader_0 joins the best ask, behind the background's orders there
    result = env.step({"trader_0": _action(0, 1), "trader_1": _action(0, 0)})
    assert result.observations["trader_1"]["book"][0, 3] == background + 30  # it sees the ask
    # trader_1 buys 30 lots: the background's first, then part of trader_0's ask
    result = env.step({"trader_0": _action(0, 1), "trader_1": _action(0, 0, BUY)})
    crossed = [f for f in result.info["trader_0"]["fills"] if f.taker_owner == 1]
    assert len(crossed) == 1 and crossed[0].maker_owner == 0 and crossed[0].price == best_ask
    assert crossed[0].quantity == 30 - background
    assert env.traders["trader_0"].inventory == background - 30
    assert env.traders["trader_1"].inventory == 30
    assert env.traders["trader_0"].cash == best_ask * (30 - background)


def test_rewards_add_up_to_wealth_minus_penalties() -> None:
    env = LimitOrderBookMarket(
        3, decision_intervals=[1.0, 0.7, 1.3], jitter=0.1, session_length=40.0
    )
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    penalties = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        result = env.step(_random_actions(env, rng))
        for agent in env.possible_agents:
            info = result.info[agent]
            penalty = 0.01 * info["inventory"] ** 2 * info["dt"]
            assert result.rewards[agent] == pytest.approx(info["pnl"] - penalty)
            returns[agent] += result.rewards[agent]
            penalties[agent] += penalty
            assert abs(info["inventory"]) <= 20
    for agent in env.possible_agents:
        wealth = result.info[agent]["wealth"]
        assert returns[agent] == pytest.approx(wealth - penalties[agent])
    assert result.info["trader_0"]["timestamp"] == 40.0


def test_seeding_replays_a_session() -> None:
    env = LimitOrderBookMarket(2, decision_intervals=[1.0, 0.5], jitter=0.3, session_length=20.0)

    def run(seed: int) -> list[Any]:
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        while env.agents:
            result = env.step(_random_actions(env, rng))
            out.append((tuple(env.acting), result.info["trader_1"]["mid_price"]))
        return out

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_masks_and_baseline_per_trader() -> None:
    env = LimitOrderBookMarket(2, flow=STILL, max_inventory=1)
    env.reset(seed=0)
    env.step({"trader_0": _action(0, 0, BUY), "trader_1": _action(0, 0)})
    bid, _, market = env.action_mask("trader_0")
    assert bid.tolist() == [1, 0, 0, 0, 0, 0] and market.tolist() == [1, 1, 0]
    assert env.baseline_action("trader_0").tolist() == [0, 1, 1]
    assert env.baseline_action("trader_1").tolist() == [1, 1, 1]
    with pytest.raises(KeyError, match="trader_5"):
        env.action_mask("trader_5")


def test_errors() -> None:
    with pytest.raises(ValueError, match="n_agents"):
        LimitOrderBookMarket(0)
    with pytest.raises(ValueError, match="one entry per trader"):
        LimitOrderBookMarket(2, decision_intervals=[1.0])
    with pytest.raises(ValueError, match=r"decision_intervals\[1\]"):
        LimitOrderBookMarket(2, decision_intervals=[1.0, 0.0])
    with pytest.raises(TypeError, match="decision_intervals"):
        LimitOrderBookMarket(2, decision_intervals="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="jitter"):
        LimitOrderBookMarket(2, jitter=-1.0)


class _TraderView(Env[Any, Any]):
    """One trader of the market as a single-agent env; the others play the baseline."""

    def __init__(self, market: LimitOrderBookMarket, agent: str) -> None:
        self.market, self.agent = market, agent
        self.observation_space = market.observation_space(agent)
        self.action_space = market.action_space(agent)

    def action_mask(self) -> Any:
        return self.market.action_mask(self.agent)

    def reset(self, *, seed: SeedType = None, options: dict[str, Any] | None = None) -> Any:
        result = self.market.reset(seed=seed, options=options)
        return ResetResult(result.observations[self.agent], result.info[self.agent])

    def step(self, action: Any) -> StepResult[Any]:
        market = self.market
        actions = {agent: market.baseline_action(agent) for agent in market.agents}
        actions[self.agent] = action
        result = market.step(actions)
        a = self.agent
        return StepResult(
            result.observations[a],
            result.rewards[a],
            result.terminated[a],
            result.truncated[a],
            result.info[a],
        )


@pytest.mark.parametrize("agent", ["trader_0", "trader_1"])
def test_check_env_is_clean_for_each_trader(agent: str) -> None:
    market = LimitOrderBookMarket(2, decision_intervals=[1.0, 0.4], jitter=0.1, session_length=20.0)
    assert check_env(_TraderView(market, agent), n_steps=150, check_determinism=True) == []
