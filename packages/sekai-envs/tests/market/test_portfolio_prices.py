"""Portfolio-v0 with sekai 0.2's constructor: prices, models, shorts, leverage, costs."""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.envs.finance.portfolio as finance_portfolio
from sekai.envs import PortfolioEnv, PortfolioVecEnv, equal_weight
from sekai.envs.samplers import Episode, HistoricalSampler, RegimeSwitchingSampler
from sekai.error import InvalidAction, LookAheadError
from sekai.finance import (
    GBM,
    DifferentialSharpe,
    MarketData,
    RandomStart,
    SequentialStart,
    SquareRootImpact,
)
from sekai.registry import EnvRegistry
from sekai.utils import check_env


def _prices(seed: int, rows: int, n: int, volatility: float = 0.02) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, volatility, (rows, n)), axis=0))


@pytest.mark.parametrize("kwargs", [{}, {"mu": 0.05}, {"sampler": "random"}])
def test_zero_two_defaults_with_a_simulated_market(kwargs: dict[str, Any]) -> None:
    env = PortfolioEnv(**kwargs)
    assert isinstance(env.model, GBM) and env.n_assets == 5 and env.lookback == 30
    assert env.capital == 1_000_000.0 and env.sampler is None and env.data is None
    corr = env.model.corr
    assert corr.shape == (5, 5) and corr[0, 1] == 0.3 and corr[2, 2] == 1.0
    result = env.reset(seed=0)
    assert result.observation["returns"].shape == (30, 5)
    np.testing.assert_array_equal(result.observation["weights"], [0, 0, 0, 0, 0, 1])
    assert result.info == {"portfolio_value": 1_000_000.0}
    assert env.timestamp == 30 and env.price_history is not None
    three = PortfolioEnv(sigma=[0.1, 0.2, 0.3])
    assert three.n_assets == 3 and three.model is not None
    np.testing.assert_array_equal(three.model.sigma, [0.1, 0.2, 0.3])
    assert finance_portfolio.PortfolioEnv is PortfolioEnv


def test_a_price_history_from_pandas(indices: MarketData) -> None:
    env = PortfolioEnv(data=indices, lookback=10, episode_length=50)
    assert env.n_assets == 2 and env.data is indices and env.dt == pytest.approx(1 / 252)
    np.testing.assert_array_equal(env.prices, indices.prices)
    env.reset(options={"start": "2010-01-04"})
    assert env.timestamp == np.datetime64("2010-01-04")
    step = env.step(np.array([1.0, 1.0, 0.0], np.float32))
    row = indices.index_of("2010-01-04")
    expected = indices.prices[row + 1] / indices.prices[row] - 1.0
    np.testing.assert_array_equal(step.info["asset_returns"], expected)
    assert step.info["timestamp"] == np.datetime64("2010-01-05")
    assert set(step.info) == {
        "portfolio_value",
        "equity",
        "weights",
        "turnover",
        "cost",
        "log_return",
        "asset_returns",
        "untradable",
        "liquidated",
        "timestamp",
        "dt",
    }


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 4),
    rate=st.floats(0.0, 0.01),
    short=st.booleans(),
    leverage=st.sampled_from([0.5, 1.0, 1.5, 3.0]),
)
def test_accounting_on_prices_is_exact(
    seed: int, n: int, rate: float, short: bool, leverage: float
) -> None:
    lookback, length = 2, 10
    prices = _prices(seed, lookback + length + 1, n)
    env = PortfolioEnv(
        prices,
        lookback=lookback,
        episode_length=length,
        transaction_cost=rate,
        allow_short=short,
        max_leverage=leverage,
        capital=10.0,
    )
    rng = np.random.default_rng(seed)
    env.reset(options={"start": lookback})
    weights, value = np.zeros(n), 10.0
    for step in range(length):
        t = lookback + step
        if short:
            action = rng.uniform(-1.0, 1.0, n).astype(np.float32)
            target = action.astype(np.float64)
            gross = np.abs(target).sum()
            if gross > leverage:
                target = target * (leverage / gross)
        else:
            action = (rng.random(n + 1) * (rng.random(n + 1) < 0.8)).astype(np.float32)
            scores = action.astype(np.float64)
            target = leverage * scores[:n] / scores.sum() if scores.sum() > 0 else np.zeros(n)
        np.testing.assert_allclose(env.action_to_weights(action)[:n], target, atol=1e-12)
        r = prices[t + 1] / prices[t] - 1.0
        turnover = np.abs(target - weights).sum()
        growth = (1.0 - rate * turnover) * (1.0 + target @ r)
        result = env.step(action)
        if growth <= 0.0:
            assert result.terminated
            return
        value *= growth
        weights = target * (1.0 + r) / (1.0 + target @ r)
        assert result.reward == pytest.approx(np.log(growth), abs=1e-12)
        assert result.info["turnover"] == pytest.approx(turnover, abs=1e-12)
        assert result.info["cost"] == pytest.approx(rate * turnover, abs=1e-14)
        assert result.info["portfolio_value"] == pytest.approx(value, rel=1e-11)
        np.testing.assert_allclose(env.weights[:n], weights, atol=1e-12)
        assert env.weights.sum() == pytest.approx(1.0, abs=1e-12)
        assert result.observation in env.observation_space
        assert result.truncated is (step == length - 1)


def test_shorts_and_leverage_spaces_and_projection() -> None:
    env = PortfolioEnv(mu=0.05, n_assets=3, allow_short=True, lookback=5, episode_length=5)
    assert env.action_space.shape == (3,) and env.action_space.low.min() == -1.0
    assert np.isinf(env.observation_space["weights"].high).all()
    env.reset(seed=0)
    np.testing.assert_allclose(
        env.action_to_weights([1.0, 1.0, -1.0]), [1 / 3, 1 / 3, -1 / 3, 2 / 3]
    )
    np.testing.assert_allclose(env.action_to_weights([0.2, -0.3, 0.0]), [0.2, -0.3, 0.0, 1.1])
    assert env.action_mask().shape == (3,) and env.action_mask().all()
    levered = PortfolioEnv(mu=0.05, n_assets=2, max_leverage=2.0, lookback=5, episode_length=5)
    levered.reset(seed=0)
    np.testing.assert_allclose(levered.action_to_weights([1.0, 1.0, 0.0]), [1.0, 1.0, -1.0])
    np.testing.assert_allclose(levered.action_to_weights([1.0, 1.0, 2.0]), [0.5, 0.5, 0.0])
    with pytest.raises(InvalidAction, match="finite"):
        env.step(np.array([np.nan, 0.0, 0.0]))


def test_halted_assets_keep_their_weight_with_shorts() -> None:
    halted = np.zeros((4, 2), bool)
    halted[2, 0] = True  # asset 0 halted at time 2
    episode = Episode(np.zeros((4, 2)), halted)
    env = PortfolioEnv(
        sampler=RegimeSwitchingSampler(2), lookback=1, episode_length=3, allow_short=True, cost=0.0
    )
    env.reset(options={"episode": episode})
    env.step(np.array([0.5, -0.25], np.float32))
    np.testing.assert_allclose(env.weights, [0.5, -0.25, 0.75])
    np.testing.assert_array_equal(env.action_mask(), [True, True])
    env.step(np.array([0.2, 0.2], np.float32))
    np.testing.assert_array_equal(env.action_mask(), [False, True])
    env.step(np.array([-1.0, 1.0], np.float32))  # asset 0 cannot be traded: only asset 1 moves
    np.testing.assert_allclose(env.weights, [0.2, 1.0, -0.2])


def test_point_in_time_on_prices(indices: MarketData) -> None:
    prices = indices.prices[:300].copy()
    start, length, lookback = 40, 30, 10
    rng = np.random.default_rng(0)
    actions = rng.random((length, 3)).astype(np.float32)

    def play(table: np.ndarray) -> list[Any]:
        env = PortfolioEnv(table, lookback=lookback, episode_length=length)
        out = [env.reset(options={"start": start}).observation]
        out += [env.step(action).observation for action in actions]
        return out

    base = play(prices)
    for step in (0, 7, 29):
        t = start + step
        changed = prices.copy()
        changed[t + 1 :] *= 1.05
        other = play(changed)
        for k in range(step + 1):
            np.testing.assert_array_equal(other[k]["returns"], base[k]["returns"])
            np.testing.assert_array_equal(other[k]["weights"], base[k]["weights"])
        assert not np.array_equal(other[step + 1]["weights"], base[step + 1]["weights"])
    env = PortfolioEnv(prices, lookback=lookback, episode_length=length)
    env.reset(options={"start": start})
    history = env.price_history
    assert history is not None and history.shape == (start + 1, 2)
    with pytest.raises(LookAheadError):
        history[start + 1]


def test_volume_reaches_the_impact_model(indices: MarketData) -> None:
    env = PortfolioEnv(
        data=indices, lookback=5, episode_length=5, transaction_cost=SquareRootImpact(0.5)
    )
    env.reset(options={"start": 1000})
    row = 1000
    returns = np.log(indices.prices[row - 4 : row + 1] / indices.prices[row - 5 : row])
    volatility = returns.std(axis=0, ddof=1)
    trade = np.array([0.5, 0.5])
    equity = 1_000_000.0
    participation = trade * equity / (indices.prices[row] * indices.field("volume")[row])
    expected = (0.5 * volatility * trade * np.sqrt(participation)).sum()
    assert env.step(np.array([1.0, 1.0, 0.0], np.float32)).info["cost"] == pytest.approx(
        expected, rel=1e-10
    )


def test_equal_weight_baseline_on_real_indices(indices: MarketData) -> None:
    env = PortfolioEnv(data=indices, lookback=5, episode_length=60, transaction_cost=0.0)
    result = env.reset(options={"start": "2004-01-02"})
    row = indices.index_of("2004-01-02")
    value = 1_000_000.0
    while not result.done:
        action = equal_weight(env)
        np.testing.assert_array_equal(action, [1.0, 1.0, 0.0])
        result = env.step(action)
        r = indices.prices[row + 1] / indices.prices[row] - 1.0
        value *= 1.0 + r.mean()  # rebalanced to 1/2 each period, no costs
        row += 1
        assert result.info["portfolio_value"] == pytest.approx(value, rel=1e-10)
    short = PortfolioEnv(mu=0.05, n_assets=4, allow_short=True)
    short.reset(seed=0)
    np.testing.assert_array_equal(equal_weight(short), [0.25] * 4)
    halted = PortfolioEnv(sampler=RegimeSwitchingSampler(2), lookback=1, episode_length=2)
    flags = np.array([[False, True], [False, False], [False, False]])
    halted.reset(options={"episode": Episode(np.zeros((3, 2)), flags)})
    np.testing.assert_array_equal(equal_weight(halted), [1.0, 0.0, 0.0])


def test_arguments_are_checked(indices: MarketData) -> None:
    prices = _prices(0, 100, 2)
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"prices": prices, "mu": 0.1}, ValueError, "cannot be combined with prices"),
        ({"prices": prices, "sampler": HistoricalSampler(np.zeros((50, 2)))}, ValueError, "window"),
        ({"data": indices, "n_assets": 3}, ValueError, "needs 3 asset"),
        ({"prices": prices, "transaction_cost": 0.01, "cost": 0.01}, ValueError, "not both"),
        ({"prices": np.where(prices > 0, np.nan, 0.0)}, ValueError, "finite and > 0"),
        ({"prices": prices, "sampler": object()}, TypeError, "sampler"),
        ({"mu": 0.05, "max_leverage": 0.0}, ValueError, "max_leverage"),
        ({"mu": 0.05, "capital": -1.0}, ValueError, "capital"),
        ({"mu": 0.05, "allow_short": 1}, TypeError, "allow_short"),
        ({"prices": prices, "episode_length": 90}, ValueError, "needs 121 rows"),
    ]
    for kwargs, error, match in cases:
        with pytest.raises(error, match=match):
            PortfolioEnv(**kwargs)
    env = PortfolioEnv(prices, lookback=5, episode_length=10)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"episode": None})


def _portfolio_cases(indices: MarketData) -> dict[str, dict[str, Any]]:
    return {
        "gbm": {"mu": 0.05, "n_assets": 3, "lookback": 3, "episode_length": 6},
        "history": {
            "data": indices,
            "lookback": 4,
            "episode_length": 5,
            "sampler": RandomStart(),
            "transaction_cost": SquareRootImpact(0.3),
        },
        "sequential-shorts": {
            "data": indices,
            "lookback": 2,
            "episode_length": 5,
            "sampler": SequentialStart(),
            "allow_short": True,
            "max_leverage": 1.5,
            "reward": DifferentialSharpe(0.3),
        },
        # leveraged and volatile: some sub-envs are wiped out (terminated)
        "wipe-outs": {
            "mu": 0.0,
            "sigma": 4.0,
            "n_assets": 2,
            "dt": 1 / 12,
            "lookback": 2,
            "episode_length": 6,
            "max_leverage": 4.0,
        },
    }


@pytest.mark.parametrize("case", ["gbm", "history", "sequential-shorts", "wipe-outs"])
def test_vector_env_gives_the_sync_trajectories(
    case: str, indices: MarketData, registry: EnvRegistry, assert_same: Callable[..., None]
) -> None:
    kwargs = _portfolio_cases(indices)[case]
    traces = {}
    for mode in ("native", "sync"):
        vec = registry.make_vec("Portfolio-v0", 3, vectorization_mode=mode, **kwargs)
        assert isinstance(vec, PortfolioVecEnv) is (mode == "native")
        rng = np.random.default_rng(0)
        shape = (3, *vec.action_space.shape)
        trace: list[Any] = []
        for seed in (0, None, [4, None, np.random.default_rng(2)]):
            trace.append(vec.reset(seed=seed).observations)
            for _ in range(3 * kwargs["episode_length"]):
                actions = rng.random(shape).astype(np.float32)
                if kwargs.get("allow_short"):
                    actions = actions * 2.0 - 1.0
                result = vec.step(actions)
                trace += [result.observations, result.rewards, result.terminated]
                trace += [result.truncated, result.infos, vec.call("action_mask")]
        vec.close()
        traces[mode] = trace
    assert_same(traces["native"], traces["sync"])
    if case == "wipe-outs":
        assert any(entry.any() for entry in traces["sync"][3::6])


def test_check_env_and_gymnasium(indices: MarketData) -> None:
    envs = [
        PortfolioEnv(mu=0.05, lookback=5, episode_length=20),
        PortfolioEnv(data=indices, lookback=10, episode_length=50),
        PortfolioEnv(mu=0.05, allow_short=True, max_leverage=2.0, episode_length=30),
    ]
    for env in envs:
        assert check_env(env, n_steps=200, check_determinism=True) == []
        copy = pickle.loads(pickle.dumps(env))
        a, b = env.reset(seed=4).observation, copy.reset(seed=4).observation
        np.testing.assert_array_equal(a["returns"], b["returns"])
    gym_checker = pytest.importorskip("gymnasium.utils.env_checker")
    to_gymnasium = pytest.importorskip("sekai.compat").to_gymnasium
    for env in envs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gym_checker.check_env(to_gymnasium(env), skip_render_check=True)
        assert all("infinity" in str(item.message) for item in caught), caught
