"""The market simulation on its own: seeding, accounting, episode ends, validation."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from rest_market.simulator import EpisodeOver, MarketConfig, MarketSimulator, StepOutcome


def run(simulator: MarketSimulator, seed: int | None, actions: list[int]) -> list[StepOutcome]:
    simulator.reset(seed)
    return [simulator.step(action) for action in actions]


def test_same_seed_and_actions_give_the_same_outcomes_bit_for_bit() -> None:
    actions = [2, 2, 0, 1, 0, 2, 1, 1]
    first = run(MarketSimulator(), 7, actions)
    second = run(MarketSimulator(), 7, actions)
    for a, b in zip(first, second, strict=True):
        assert a.observation.tobytes() == b.observation.tobytes()
        assert (a.reward, a.terminated, a.truncated, a.info) == (
            b.reward,
            b.terminated,
            b.truncated,
            b.info,
        )
    other = run(MarketSimulator(), 8, actions)
    assert [o.info["price"] for o in other] != [o.info["price"] for o in first]


def test_a_reset_without_seed_continues_the_stream() -> None:
    simulator = MarketSimulator()
    seeded = simulator.reset(3).observation
    continued = simulator.reset().observation
    assert not np.array_equal(seeded, continued)
    np.testing.assert_array_equal(simulator.reset(3).observation, seeded)


def test_rewards_are_the_change_of_equity_and_costs_are_proportional() -> None:
    config = MarketConfig(cost_rate=0.002, max_steps=50, max_loss=1e6)
    simulator = MarketSimulator(config)
    first = simulator.reset(11)
    equity = first.info["equity"]
    assert equity == config.initial_cash
    # Go long from flat: one unit traded at the initial price.
    outcome = simulator.step(2)
    assert outcome.info["cost"] == pytest.approx(0.002 * config.initial_price)
    assert outcome.info["position"] == 1
    assert outcome.observation[-1] == 1.0
    # Flip to short: two units traded at the price reached after the first step.
    price = outcome.info["price"]
    total = outcome.reward
    outcome = simulator.step(0)
    assert outcome.info["cost"] == pytest.approx(0.002 * 2 * price)
    assert outcome.reward == pytest.approx(-(outcome.info["price"] - price) - 0.004 * price)
    total += outcome.reward
    for action in [1, 1, 2, 0, 2]:
        outcome = simulator.step(action)
        total += outcome.reward
    assert total == pytest.approx(outcome.info["equity"] - equity)


def test_the_observation_holds_the_recent_log_returns_and_the_position() -> None:
    simulator = MarketSimulator(MarketConfig(lookback=3, max_position=2))
    simulator.reset(0)
    prices = [simulator.config.initial_price]
    for action in [4, 3, 0, 2]:
        outcome = simulator.step(action)
        prices.append(outcome.info["price"])
    expected = np.diff(np.log(prices))[-3:]
    np.testing.assert_allclose(outcome.observation[:3], expected, rtol=1e-9)
    assert outcome.observation[3] == 0.0  # action 2 of 5: flat
    assert outcome.observation.dtype == np.float64


def test_episodes_end_by_stop_out_or_step_limit_and_then_refuse_steps(kit: SimpleNamespace) -> None:
    config: MarketConfig = kit.SHORT
    simulator = MarketSimulator(config)
    ends = {"terminated": 0, "truncated": 0}
    for seed in range(30):
        simulator.reset(seed)
        for k in range(config.max_steps):
            outcome = simulator.step(kit.action_of(seed, k))
            if outcome.terminated or outcome.truncated:
                break
        assert outcome.terminated != outcome.truncated
        if outcome.terminated:
            assert outcome.info["equity"] <= config.initial_cash - config.max_loss
            ends["terminated"] += 1
        else:
            assert outcome.info["t"] == config.max_steps
            ends["truncated"] += 1
        with pytest.raises(EpisodeOver, match="reset"):
            simulator.step(1)
    assert ends["terminated"] > 0
    assert ends["truncated"] > 0


def test_a_step_before_any_reset_is_refused() -> None:
    with pytest.raises(EpisodeOver):
        MarketSimulator().step(1)


@pytest.mark.parametrize("action", [-1, 3, 1.0, True, "1", None])
def test_invalid_actions_are_refused(action: object) -> None:
    simulator = MarketSimulator()
    simulator.reset(0)
    with pytest.raises(ValueError, match=r"action must be an int in \[0, 2\]"):
        simulator.step(action)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("seed", "error"), [(-1, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)]
)
def test_invalid_seeds_are_refused(seed: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="seed"):
        MarketSimulator().reset(seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"lookback": 0}, ValueError, "lookback must be an int >= 1"),
        ({"max_steps": 2.0}, TypeError, "max_steps must be an int"),
        ({"initial_price": 0.0}, ValueError, "initial_price must be finite and > 0"),
        ({"volatility": -0.1}, ValueError, "volatility"),
        ({"max_loss": math.inf}, ValueError, "max_loss"),
        ({"drift": math.nan}, ValueError, "drift must be finite"),
        ({"cost_rate": "0.1"}, TypeError, "cost_rate must be a real number"),
    ],
)
def test_invalid_configs_are_refused(
    changes: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        MarketConfig(**changes)  # type: ignore[arg-type]


def test_a_config_travels_as_json() -> None:
    config = MarketConfig(lookback=5, volatility=0.02)
    assert MarketConfig.from_json(config.to_json()) == config
    assert MarketConfig.from_json({}) == MarketConfig()
    with pytest.raises(ValueError, match=r"unknown keys \['spread'\]"):
        MarketConfig.from_json({"spread": 1})
    with pytest.raises(TypeError, match="JSON object"):
        MarketConfig.from_json([1, 2])
