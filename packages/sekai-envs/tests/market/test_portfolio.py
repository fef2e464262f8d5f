"""Portfolio-v0 on windows of log returns: accounting, no look-ahead, action mask, seeding.

The defaults (a simulated market of prices) are tested in test_portfolio_prices.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs.finance.portfolio import PortfolioEnv
from sekai.envs.samplers import Episode, HistoricalSampler, RegimeSwitchingSampler
from sekai.error import InvalidAction, ResetRequired
from sekai.utils import check_env


def _windows(n_assets: int = 4, **kwargs: Any) -> PortfolioEnv:
    """Portfolio-v0 on the windows of a regime-switching sampler, starting at value 1."""
    kwargs.setdefault("capital", 1.0)
    return PortfolioEnv(sampler=RegimeSwitchingSampler(n_assets), **kwargs)


def _episode(rng: np.random.Generator, n_periods: int, n_assets: int, halt: float = 0.0) -> Episode:
    returns = rng.normal(0.0, 0.02, size=(n_periods, n_assets))
    halted = rng.random((n_periods, n_assets)) < halt
    return Episode(returns, halted)


def test_check_env_passes() -> None:
    assert check_env(_windows(), n_steps=300, check_determinism=True) == []
    small = _windows(2, lookback=3, episode_length=5)
    assert check_env(small, n_steps=30, check_determinism=True) == []


def test_spaces_and_first_observation() -> None:
    env = _windows(3, lookback=7)
    returns = env.observation_space["returns"]
    weights = env.observation_space["weights"]
    assert returns.shape == (7, 3) and returns.dtype == np.float32
    assert weights.shape == (4,) and weights.dtype == np.float32
    assert env.action_space.shape == (4,)
    result = env.reset(seed=0)
    np.testing.assert_array_equal(result.observation["weights"], [0, 0, 0, 1])
    assert result.observation in env.observation_space
    assert result.info == {"portfolio_value": 1.0}


def test_observation_holds_returns_up_to_t_only() -> None:
    rng = np.random.default_rng(0)
    lookback, length, n = 4, 10, 3
    episode = _episode(rng, lookback + length, n)
    env = _windows(n, lookback=lookback, episode_length=length)
    obs = env.reset(options={"episode": episode}).observation
    data = episode.log_returns
    for step in range(length + 1):
        t = lookback - 1 + step
        assert env.time == t
        np.testing.assert_array_equal(
            obs["returns"], data[t - lookback + 1 : t + 1].astype(np.float32)
        )
        # An episode that differs only after t gives the same observation at t.
        future = data.copy()
        future[t + 1 :] = 0.5
        other = _windows(n, lookback=lookback, episode_length=length)
        other_obs = other.reset(options={"episode": Episode(future, episode.halted)}).observation
        for _ in range(step):
            other_obs = other.step(np.ones(n + 1, np.float32)).observation
        np.testing.assert_array_equal(other_obs["returns"], obs["returns"])
        if step < length:
            obs = env.step(np.ones(n + 1, np.float32)).observation


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 5),
    st.floats(0.0, 0.01),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 0.3),
)
def test_accounting_is_exact(n: int, cost: float, seed: int, halt: float) -> None:
    rng = np.random.default_rng(seed)
    lookback, length, rate = 2, 12, 0.0001
    episode = _episode(rng, lookback + length, n, halt)
    env = _windows(n, lookback=lookback, episode_length=length, cost=cost, risk_free_rate=rate)
    env.reset(options={"episode": episode})
    value, total_reward = 1.0, 0.0
    for step in range(length):
        t = lookback - 1 + step
        before = env.weights
        mask = env.action_mask()
        np.testing.assert_array_equal(mask[:-1], ~episode.halted[t])
        assert mask[-1]
        action = rng.random(n + 1).astype(np.float32) * (rng.random(n + 1) < 0.8)
        # expected target: halted assets keep their weight, the rest is split by score
        scores = np.where(mask, action.astype(np.float64), 0.0)
        kept = np.where(mask, 0.0, before)
        budget = 1.0 - kept.sum()
        if scores.sum() > 0:
            target = kept + budget * scores / scores.sum()
        else:
            target = kept.copy()
            target[-1] += budget
        turnover = np.abs(target[:-1] - before[:-1]).sum()
        growth = np.append(np.exp(episode.log_returns[t + 1]), np.exp(rate))
        gross = float(target @ growth)
        expected_reward = np.log(gross) + np.log(1.0 - cost * turnover)
        result = env.step(action)
        assert result.reward == pytest.approx(expected_reward, abs=1e-12)
        assert result.info["turnover"] == pytest.approx(turnover, abs=1e-12)
        assert result.info["cost"] == pytest.approx(cost * turnover, abs=1e-14)
        assert result.info["log_return"] == pytest.approx(np.log(gross), abs=1e-12)
        np.testing.assert_allclose(env.weights, target * growth / gross, atol=1e-12)
        assert env.weights.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(env.weights >= 0)
        # halted assets were not traded
        np.testing.assert_allclose(target[:-1][~mask[:-1]], before[:-1][~mask[:-1]], atol=0)
        value *= gross * (1.0 - cost * turnover)
        total_reward += result.reward
        assert result.info["portfolio_value"] == pytest.approx(value, rel=1e-10)
        assert result.truncated is (step == length - 1) and result.terminated is False
    assert total_reward == pytest.approx(np.log(value), abs=1e-10)


def test_costs_are_charged_on_turnover_only() -> None:
    n, lookback, length = 2, 1, 4
    flat = Episode(np.zeros((lookback + length, n)), np.zeros((lookback + length, n), bool))
    env = _windows(n, lookback=lookback, episode_length=length, cost=0.01)
    env.reset(options={"episode": flat})
    # cash -> 50/50 in the two assets: turnover 1, cost 1% of value
    step = env.step(np.array([1.0, 1.0, 0.0], np.float32))
    assert step.info["turnover"] == pytest.approx(1.0)
    assert step.reward == pytest.approx(np.log(0.99))
    # holding still costs nothing (prices do not move: weights unchanged)
    step = env.step(np.array([1.0, 1.0, 0.0], np.float32))
    assert step.info["turnover"] == 0.0 and step.reward == 0.0
    # swapping everything from asset 0 to asset 1: turnover 1 (0.5 out, 0.5 in)
    step = env.step(np.array([0.0, 1.0, 0.0], np.float32))
    assert step.info["turnover"] == pytest.approx(1.0)
    assert env.portfolio_value == pytest.approx(0.99 * 0.99)


def test_all_zero_action_means_cash_and_halted_assets_stay() -> None:
    n, lookback, length = 2, 1, 3
    halted = np.zeros((lookback + length, n), bool)
    halted[1, 0] = True  # asset 0 halted at time 1 (after the first step)
    returns = np.zeros((lookback + length, n))
    env = _windows(n, lookback=lookback, episode_length=length, cost=0.0)
    env.reset(options={"episode": Episode(returns, halted)})
    env.step(np.array([1.0, 1.0, 0.0], np.float32))
    np.testing.assert_allclose(env.weights, [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(env.action_mask(), [False, True, True])
    env.step(np.zeros(3, np.float32))  # all to cash, but asset 0 cannot be sold
    np.testing.assert_allclose(env.weights, [0.5, 0.0, 0.5])
    env.step(np.zeros(3, np.float32))
    np.testing.assert_allclose(env.weights, [0.0, 0.0, 1.0])


def test_same_seed_same_trajectory_and_default_sampler() -> None:
    def run(seed: int) -> list[Any]:
        env = _windows(lookback=5, episode_length=30)
        env.action_space.seed(1)
        out = [env.reset(seed=seed).observation["returns"]]
        for _ in range(30):
            step = env.step(env.action_space.sample())
            out.append(step.observation["returns"])
            out.append(step.reward)
        return out

    a, b, c = run(3), run(3), run(4)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0])
    # The defaults are sekai 0.2's whatever the data (see the class docstring).
    env = PortfolioEnv(sampler=RegimeSwitchingSampler(4))
    assert isinstance(env.sampler, RegimeSwitchingSampler) and env.config.windowed
    assert env.episode_length == 252 and env.n_assets == 4
    assert env.lookback == 30 and env.capital == 1_000_000.0
    first = env.reset(seed=0)
    assert first.observation["returns"].shape == (30, 4)
    assert first.info == {"portfolio_value": 1_000_000.0}


def test_episode_length_and_reset_required() -> None:
    env = _windows(episode_length=3)
    with pytest.raises(ResetRequired):
        env.step(np.ones(5, np.float32))
    with pytest.raises(ResetRequired):
        env.action_mask()
    env.reset(seed=0)
    flags = [env.step(np.ones(5, np.float32)).truncated for _ in range(3)]
    assert flags == [False, False, True]
    with pytest.raises(ResetRequired):
        env.step(np.ones(5, np.float32))


def test_invalid_actions_and_arguments() -> None:
    env = _windows(2)
    env.reset(seed=0)
    for bad in (np.ones(2), np.array([1.0, -0.1, 0.0]), np.array([np.nan, 1, 1]), "abc"):
        with pytest.raises(InvalidAction, match="Portfolio action"):
            env.step(bad)  # type: ignore[arg-type]
    env.step(np.array([2.0, 3.0, 0.0]))  # only proportions matter
    np.testing.assert_allclose(env.weights[:2].sum(), 1.0)
    with pytest.raises(ValueError, match="n_assets=3"):
        PortfolioEnv(n_assets=3, sampler=RegimeSwitchingSampler(2))
    with pytest.raises(ValueError, match="lookback"):
        PortfolioEnv(lookback=0)
    with pytest.raises(ValueError, match="cost"):
        PortfolioEnv(cost=0.6)
    with pytest.raises(TypeError, match="sampler"):
        PortfolioEnv(sampler=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"shape \(282, 2\)"):
        env.reset(options={"episode": _episode(np.random.default_rng(0), 10, 2)})


def test_historical_sampler() -> None:
    table = np.random.default_rng(0).normal(size=(50, 2))
    env = PortfolioEnv(sampler=HistoricalSampler(table, start=10), lookback=5, episode_length=20)
    assert env.n_assets == 2
    obs = env.reset(seed=0).observation
    np.testing.assert_array_equal(obs["returns"], table[10:15].astype(np.float32))
    free = PortfolioEnv(sampler=HistoricalSampler(table), lookback=5, episode_length=20)
    starts = set()
    for seed in range(30):
        first = free.reset(seed=seed).observation["returns"][0]
        starts.add(int(np.flatnonzero(np.all(table.astype(np.float32) == first, axis=1))[0]))
    assert min(starts) >= 0 and max(starts) <= 50 - 25 and len(starts) > 5
    with pytest.raises(ValueError, match="needs 60 rows, the table has 50"):
        PortfolioEnv(
            sampler=HistoricalSampler(table, start=35), lookback=5, episode_length=20
        ).reset(seed=0)
