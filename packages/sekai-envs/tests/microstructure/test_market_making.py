"""MarketMaking-v0 (Avellaneda & Stoikov): spaces, fills, accounting, the closed form, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box
from sekai.utils import check_env


def test_spaces_and_defaults_are_the_papers() -> None:
    env = MarketMakingEnv()
    assert (env.s0, env.sigma, env.total_time, env.n_steps) == (100.0, 2.0, 1.0, 200)
    assert (env.A, env.k, env.risk_aversion, env.dt) == (140.0, 1.5, 0.1, 0.005)
    assert isinstance(env.observation_space, Box) and env.observation_space.shape == (2,)
    action_space = env.action_space
    assert isinstance(action_space, Box) and action_space.shape == (2,)
    assert action_space.dtype == np.float32
    assert float(action_space.low[0]) == 0.0 and float(action_space.high[0]) == 5.0
    result = env.reset(seed=0)
    np.testing.assert_array_equal(result.observation, np.array([0.0, 1.0], np.float32))
    assert result.info["mid_price"] == 100.0 and result.info["wealth"] == 0.0
    assert math.isnan(result.info["bid"]) and result.info["timestamp"] == 0.0


def test_check_env_is_clean() -> None:
    assert check_env(MarketMakingEnv(n_steps=30), n_steps=200, check_determinism=True) == []


def test_a_step_fills_at_the_quotes_then_moves_the_mid() -> None:
    env = MarketMakingEnv(sigma=0.0, fill_intensity=1e6)  # every quote fills, the mid stays
    env.reset(seed=1)
    result = env.step(np.array([0.5, 1.0], np.float32))
    info = result.info
    assert info["bid"] == 99.5 and info["ask"] == 101.0
    assert info["bid_filled"] and info["ask_filled"]
    assert info["inventory"] == 0 and info["cash"] == pytest.approx(1.5)
    assert result.reward == pytest.approx(1.5) and info["pnl"] == pytest.approx(1.5)
    assert env.bid == 99.5 and env.ask_filled is True


def test_reward_is_the_wealth_change_minus_the_inventory_penalty() -> None:
    env = MarketMakingEnv(fill_intensity=400.0)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    total_reward = total_penalty = 0.0
    previous_mid, previous_wealth = env.mid, env.wealth
    for _ in range(env.n_steps):
        result = env.step(rng.uniform(0, 2, 2).astype(np.float32))
        info = result.info
        assert info["wealth"] == pytest.approx(info["cash"] + info["inventory"] * info["mid_price"])
        assert info["pnl"] == pytest.approx(info["wealth"] - previous_wealth)
        penalty = 0.5 * 0.1 * 2.0**2 * env.dt * info["inventory"] ** 2
        assert result.reward == pytest.approx(info["pnl"] - penalty)
        # a fill trades at its quote, placed around the mid before the move
        if info["bid_filled"]:
            assert info["bid"] < previous_mid
        previous_mid, previous_wealth = info["mid_price"], info["wealth"]
        total_reward += result.reward
        total_penalty += penalty
    assert result.terminated and not result.truncated
    assert total_reward == pytest.approx(env.wealth - total_penalty)
    assert result.observation[1] == 0.0


@pytest.mark.parametrize("offset", [0.0, 0.6, 2.0])
def test_fills_happen_with_the_papers_probability(offset: float) -> None:
    env = MarketMakingEnv(max_inventory=10_000)
    expected = env.fill_probability(offset)
    assert expected == pytest.approx(min(1.0, 140.0 * math.exp(-1.5 * offset) * 0.005))
    fills = trials = 0
    for seed in range(20):
        env.reset(seed=seed)
        for _ in range(env.n_steps):
            info = env.step(np.array([offset, offset], np.float32)).info
            fills += int(info["bid_filled"]) + int(info["ask_filled"])
            trials += 2
    tolerance = 4.0 * math.sqrt(expected * (1 - expected) / trials) + 1e-12
    assert fills / trials == pytest.approx(expected, abs=tolerance)


def test_the_mid_is_the_papers_binomial_walk() -> None:
    # each step the mid moves by +-sigma sqrt(dt), up or down with probability 1/2
    env = MarketMakingEnv(sigma=3.0, n_steps=100, total_time=2.0)
    scale = 3.0 * math.sqrt(0.02)
    ups = n = 0
    for seed in range(40):
        env.reset(seed=seed)
        mid = env.mid
        for _ in range(env.n_steps):
            env.step(np.array([1.0, 1.0], np.float32))
            move = env.mid - mid
            assert abs(move) == pytest.approx(scale, rel=1e-9)
            ups += move > 0
            n += 1
            mid = env.mid
    assert ups / n == pytest.approx(0.5, abs=4 * math.sqrt(0.25 / n))


def test_a_side_at_the_inventory_limit_is_not_quoted() -> None:
    # the bid at 0.1 always fills, the ask at 5 (almost) never
    env = MarketMakingEnv(max_inventory=2, fill_intensity=1e4, fill_decay=10.0, sigma=0.0)
    env.reset(seed=0)
    inventories = []
    for _ in range(4):  # bid only: the ask is too far to be lifted
        info = env.step(np.array([0.1, 5.0], np.float32)).info
        inventories.append(info["inventory"])
    assert inventories == [1, 2, 2, 2]
    assert math.isnan(info["bid"]) and not info["bid_filled"]
    observation = env.step(np.array([0.0, 0.0], np.float32)).observation  # the ask fills
    np.testing.assert_allclose(observation, [0.5, 0.975], rtol=1e-7)


def test_avellaneda_stoikov_action_is_the_closed_form() -> None:
    env = MarketMakingEnv()
    env.reset(seed=0)
    # the paper's simulations: the spread (2 / gamma) log(1 + gamma / k), 1.29
    half = math.log(1 + 0.1 / 1.5) / 0.1
    assert 2 * half == pytest.approx(1.29, abs=0.005)
    np.testing.assert_allclose(env.avellaneda_stoikov_action(), [half, half], rtol=1e-6)
    # formula (30) adds gamma sigma**2 (T - t) to the spread
    with_time_term = half + 0.5 * 0.1 * 4.0 * 1.0
    np.testing.assert_allclose(
        env.avellaneda_stoikov_action(spread_time_term=True),
        [with_time_term, with_time_term],
        rtol=1e-6,
    )
    env.inventory = 1  # long: lower both quotes (reservation price below the mid)
    bid, ask = env.avellaneda_stoikov_action().tolist()
    skew = 1 * 0.1 * 4.0 * 1.0
    assert bid == pytest.approx(half + skew, rel=1e-6)
    assert ask == pytest.approx(half - skew, rel=1e-6)
    bid, ask = env.avellaneda_stoikov_action(spread_time_term=True).tolist()
    assert bid == pytest.approx(with_time_term + skew, rel=1e-6)
    assert ask == pytest.approx(with_time_term - skew, rel=1e-6)
    env.inventory = 2  # the ask would sit below the mid: clipped to 0
    assert env.avellaneda_stoikov_action()[1] == 0.0
    env.inventory = -40
    assert env.avellaneda_stoikov_action()[1] == 5.0  # clipped to max_offset
    for _ in range(env.n_steps - 1):
        env.step(np.array([1.0, 1.0], np.float32))
    assert env.time_remaining == pytest.approx(env.dt)


def test_seeding_replays_a_session() -> None:
    env = MarketMakingEnv()

    def run(seed: int) -> list[float]:
        env.reset(seed=seed)
        return [env.step(env.avellaneda_stoikov_action()).reward for _ in range(50)]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_errors() -> None:
    env = MarketMakingEnv(n_steps=2)
    with pytest.raises(ResetRequired):
        env.step(np.zeros(2, np.float32))
    env.reset(seed=0)
    for bad in ([1.0], [-0.1, 1.0], [1.0, 5.5], [math.nan, 1.0], [[0.5, 0.5]], "ab"):
        with pytest.raises(InvalidAction, match=r"2 numbers in \[0, 5\]"):
            env.step(bad)  # type: ignore[arg-type]
    env.step(np.zeros(2, np.float32))
    env.step([0.5, 0.5])  # type: ignore[arg-type]
    with pytest.raises(ResetRequired):
        env.step(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="n_steps"):
        MarketMakingEnv(n_steps=0)
    with pytest.raises(ValueError, match="max_inventory"):
        MarketMakingEnv(order_size=3, max_inventory=2)
    with pytest.raises(ValueError, match="fill_decay"):
        MarketMakingEnv(fill_decay=0.0)
    with pytest.raises(TypeError, match="sigma"):
        MarketMakingEnv(sigma="2")  # type: ignore[arg-type]


def test_risk_neutral_quotes_are_one_over_k() -> None:
    env = MarketMakingEnv(risk_aversion=0.0)
    env.reset(seed=0)
    env.inventory = 5
    np.testing.assert_allclose(env.avellaneda_stoikov_action(), [1 / 1.5, 1 / 1.5], rtol=1e-6)
