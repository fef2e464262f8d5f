"""MarketMicrostructure-v0: two agents, their spaces, fills, accounting, check_env per agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, MultiAgentEnv, ResetResult, StepResult
from sekai.envs._registration import register_envs
from sekai.envs.microstructure import MARKET_MAKER, TRADER, MarketMicrostructureEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.registry import EnvRegistry
from sekai.spaces import Box, Discrete
from sekai.utils import check_env
from sekai.utils.seeding import SeedType

HOLD = 1


class _AgentView(Env[Any, Any]):
    """One agent of a MultiAgentEnv as a single-agent Env; the other plays a fixed policy."""

    def __init__(self, env: MultiAgentEnv[Any, Any, str], agent: str, other: Callable[[], Any]):
        self.env, self.agent, self.other = env, agent, other
        self.observation_space = env.observation_space(agent)
        self.action_space = env.action_space(agent)
        self.partner = next(a for a in env.possible_agents if a != agent)

    def reset(self, *, seed: SeedType = None, options: dict[str, Any] | None = None) -> Any:
        result = self.env.reset(seed=seed, options=options)
        return ResetResult(result.observations[self.agent], result.info[self.agent])

    def step(self, action: Any) -> StepResult[Any]:
        result = self.env.step({self.agent: action, self.partner: self.other()})
        a = self.agent
        return StepResult(
            result.observations[a],
            result.rewards[a],
            result.terminated[a],
            result.truncated[a],
            result.info[a],
        )


def _play(env: MarketMicrostructureEnv, quotes: Any, order: int) -> Any:
    return env.step({MARKET_MAKER: np.asarray(quotes, np.float32), TRADER: order})


def test_check_env_passes_for_each_agent() -> None:
    env = MarketMicrostructureEnv(episode_length=40)
    mm_view = _AgentView(env, MARKET_MAKER, lambda: HOLD)
    assert check_env(mm_view, n_steps=100, check_determinism=True) == []
    quotes = np.array([0.1, 0.1], np.float32)
    assert check_env(_AgentView(env, TRADER, lambda: quotes), check_determinism=True) == []


def test_agents_have_different_spaces() -> None:
    env = MarketMicrostructureEnv()
    assert env.possible_agents == [MARKET_MAKER, TRADER]
    mm_obs, trader_obs = env.observation_space(MARKET_MAKER), env.observation_space(TRADER)
    assert isinstance(mm_obs, Box) and isinstance(trader_obs, Box)
    assert mm_obs.shape == (4,) and trader_obs.shape == (3,)
    assert mm_obs.dtype == trader_obs.dtype == np.float32
    quotes = env.action_space(MARKET_MAKER)
    assert isinstance(quotes, Box) and quotes.shape == (2,) and float(quotes.high[0]) == 0.5
    assert isinstance(env.action_space(TRADER), Discrete)
    result = env.reset(seed=0)
    assert env.agents == [MARKET_MAKER, TRADER]
    for agent in env.agents:
        assert result.observations[agent] in env.observation_space(agent)


def test_trades_at_the_quotes_and_zero_sum_without_noise() -> None:
    env = MarketMicrostructureEnv(noise_intensity=0.0, inventory_penalty=0.001)
    env.reset(seed=1)
    mid = env.mid_price
    result = _play(env, [0.2, 0.3], 0)  # the trader buys at the ask
    assert result.info[TRADER]["filled"] is True
    assert result.info[MARKET_MAKER]["inventory"] == -1
    assert result.info[MARKET_MAKER]["cash"] == pytest.approx(mid + 0.3)
    new_mid = env.mid_price
    assert result.rewards[TRADER] == pytest.approx(new_mid - (mid + 0.3))
    assert result.rewards[MARKET_MAKER] == pytest.approx((mid + 0.3) - new_mid - 0.001)
    rng = np.random.default_rng(0)
    for _ in range(50):
        quotes = rng.uniform(0, 0.5, 2)
        result = _play(env, quotes, int(rng.integers(0, 3)))
        inventory = result.info[MARKET_MAKER]["inventory"]
        assert inventory == -result.info[TRADER]["position"]
        total = result.rewards[MARKET_MAKER] + result.rewards[TRADER]
        assert total == pytest.approx(-0.001 * inventory**2)
        assert result.info[MARKET_MAKER]["pnl"] == pytest.approx(-result.info[TRADER]["pnl"])


def test_the_signal_predicts_the_price_and_pays_the_trader() -> None:
    env = MarketMicrostructureEnv(episode_length=500, noise_intensity=0.0)
    env.reset(seed=2)
    informed = 0.0
    for _ in range(500):
        order = 0 if env.signal > 0 else 2  # buy on a positive signal, sell otherwise
        informed += _play(env, [0.01, 0.01], order).rewards[TRADER]
    assert informed > 0
    env.reset(seed=2)
    signals, moves = [], []
    for _ in range(500):
        signals.append(env.signal)
        before = env.mid_price
        _play(env, [0.1, 0.1], HOLD)
        moves.append(env.mid_price - before)
    assert np.corrcoef(signals, moves)[0, 1] > 0.5


def test_noise_fills_decay_with_the_quoted_distance() -> None:
    def fill_rate(offset: float) -> float:
        env = MarketMicrostructureEnv(episode_length=2000, max_inventory=10_000)
        env.reset(seed=3)
        fills = sum(
            _play(env, [offset, offset], HOLD).info[MARKET_MAKER]["fills"] for _ in range(2000)
        )
        return fills / 4000  # two sides

    assert fill_rate(0.0) == pytest.approx(0.8, abs=0.03)
    assert fill_rate(0.2) == pytest.approx(0.8 * np.exp(-1.0), abs=0.03)


def test_the_state_properties_agree_with_the_info() -> None:
    env = MarketMicrostructureEnv(episode_length=200)
    env.reset(seed=4)
    assert env.elapsed_steps == 0 and np.isnan(env.bid) and np.isnan(env.ask)
    assert (env.bid_fills, env.ask_fills, env.trader_fill) == (0, 0, 0)
    assert env.pnl == {MARKET_MAKER: 0.0, TRADER: 0.0}
    rng = np.random.default_rng(4)
    sides = set()
    for step in range(1, 201):
        mid, quotes, order = env.mid_price, rng.uniform(0, 0.5, 2), int(rng.integers(0, 3))
        result = _play(env, quotes, order)
        maker, trader = result.info[MARKET_MAKER], result.info[TRADER]
        assert env.elapsed_steps == step
        quoted = np.asarray(quotes, np.float32).astype(float)
        assert (env.bid, env.ask) == (mid - quoted[0], mid + quoted[1])
        assert env.bid_fills + env.ask_fills == maker["fills"]
        fill = (1 if order == 0 else -1) if trader["filled"] else 0
        assert env.trader_fill == fill
        sides.add(fill)
        assert env.inventory == maker["inventory"] and env.cash == maker["cash"]
        assert env.position == trader["position"]
        assert env.pnl == {MARKET_MAKER: maker["pnl"], TRADER: trader["pnl"]}
    assert sides == {-1, 0, 1}
    env.reset(seed=4)
    assert env.elapsed_steps == 0 and np.isnan(env.bid) and env.trader_fill == 0


def test_position_and_inventory_caps() -> None:
    env = MarketMicrostructureEnv(noise_intensity=0.0, max_position=3, max_inventory=2)
    env.reset(seed=0)
    positions = [_play(env, [0.1, 0.1], 0).info[TRADER]["position"] for _ in range(5)]
    assert positions == [1, 2, 2, 2, 2]  # the market maker's inventory cap (-2) binds first
    env = MarketMicrostructureEnv(noise_intensity=0.0, max_position=3, max_inventory=10)
    env.reset(seed=0)
    positions = [_play(env, [0.1, 0.1], 2).info[TRADER]["position"] for _ in range(5)]
    assert positions == [-1, -2, -3, -3, -3]


def test_truncation_seeding_and_errors() -> None:
    env = MarketMicrostructureEnv(episode_length=3)
    with pytest.raises(ResetRequired):
        _play(env, [0.1, 0.1], HOLD)
    first = env.reset(seed=5)
    flags = [_play(env, [0.1, 0.1], HOLD).truncated for _ in range(3)]
    assert [f[MARKET_MAKER] and f[TRADER] for f in flags] == [False, False, True]
    assert env.agents == []
    with pytest.raises(ResetRequired):
        _play(env, [0.1, 0.1], HOLD)
    again = env.reset(seed=5)
    for agent in env.possible_agents:
        np.testing.assert_array_equal(first.observations[agent], again.observations[agent])
    with pytest.raises(InvalidAction, match="trader"):
        env.step({MARKET_MAKER: np.zeros(2, np.float32)})
    with pytest.raises(InvalidAction, match=r"offsets in \[0, 0.5\]"):
        _play(env, [0.6, 0.1], HOLD)
    with pytest.raises(InvalidAction, match="0 \\(buy\\)"):
        _play(env, [0.1, 0.1], 3)
    with pytest.raises(ValueError, match="episode_length"):
        MarketMicrostructureEnv(episode_length=0)
    with pytest.raises(ValueError, match="noise_intensity"):
        MarketMicrostructureEnv(noise_intensity=1.5)


def test_registered() -> None:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    env = registry.make("MarketMicrostructure-v0")
    assert isinstance(env, MarketMicrostructureEnv)
    assert env.spec is not None and env.spec.id == "MarketMicrostructure-v0"
