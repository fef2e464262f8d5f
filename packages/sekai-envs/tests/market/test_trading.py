"""Trading-v0: accounting, point in time, sources, costs, rewards, baseline, checkers."""

from __future__ import annotations

import math
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs.finance import TradingEnv, buy_and_hold
from sekai.error import InvalidAction, LookAheadError, ResetRequired
from sekai.finance import (
    GBM,
    DifferentialSharpe,
    Heston,
    MarketData,
    ProfitAndLoss,
    SequentialStart,
    SpreadCost,
    SquareRootImpact,
)
from sekai.finance.data import PointInTime
from sekai.utils import check_env

LOG_FLOOR = math.log(np.finfo(np.float64).tiny)


def _prices(seed: int, n: int, volatility: float = 0.02) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, volatility, n)))


def test_spaces_first_observation_and_reset_info() -> None:
    prices = _prices(0, 40)
    env = TradingEnv(prices, lookback=4, episode_length=10, positions=(-0.5, 0.0, 0.5, 1.0))
    assert env.observation_space.shape == (5,) and env.observation_space.dtype == np.float32
    assert env.action_space.n == 4
    result = env.reset(options={"start": 7})
    expected = np.log(prices[4:8] / prices[3:7]).astype(np.float32)
    np.testing.assert_array_equal(result.observation[:4], expected)
    assert result.observation[4] == 0.0
    assert result.observation in env.observation_space
    assert result.info == {
        "equity": 1_000_000.0,
        "position": 0.0,
        "price": prices[7],
        "timestamp": 7,
        "dt": 1 / 252,
    }
    assert env.price == prices[7] and env.timestamp == 7 and env.elapsed_steps == 0


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rate=st.floats(0.0, 0.01),
    positions=st.lists(st.floats(-2.0, 2.0), min_size=1, max_size=4),
    lookback=st.integers(1, 4),
)
def test_accounting_is_exact(seed: int, rate: float, positions: list[float], lookback: int) -> None:
    length = 15
    prices = _prices(seed, lookback + length + 1, 0.03)
    env = TradingEnv(
        prices,
        lookback=lookback,
        episode_length=length,
        positions=positions,
        transaction_cost=rate,
        capital=500.0,
    )
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    equity, position, total = 500.0, 0.0, 0.0
    for step in range(length):
        t = lookback + step
        action = int(rng.integers(len(positions)))
        target = positions[action]
        r = prices[t + 1] / prices[t] - 1.0
        cost = rate * abs(target - position)
        growth = (1.0 - cost) * (1.0 + target * r)
        result = env.step(action)
        assert result.info["turnover"] == pytest.approx(abs(target - position), abs=1e-12)
        if growth <= 0.0:  # a short squeeze or a leveraged crash wipes the account out
            assert result.terminated and not result.truncated
            assert result.reward == pytest.approx(LOG_FLOOR)
            assert result.info["equity"] == 0.0 and env.position == 0.0
            with pytest.raises(ResetRequired):
                env.step(action)
            return
        equity *= growth
        position = target * (1.0 + r) / (1.0 + target * r)
        total += result.reward
        assert result.reward == pytest.approx(np.log(growth), abs=1e-12)
        assert result.info["equity"] == pytest.approx(equity, rel=1e-12)
        assert result.info["position"] == pytest.approx(position, abs=1e-12)
        assert result.info["cost"] == pytest.approx(cost, abs=1e-15)
        assert result.info["asset_return"] == pytest.approx(r, rel=1e-12)
        assert result.info["price"] == prices[t + 1] and result.info["timestamp"] == t + 1
        window = np.log(prices[t + 2 - lookback : t + 2] / prices[t + 1 - lookback : t + 1])
        np.testing.assert_allclose(result.observation[:lookback], window, rtol=1e-6)
        assert result.observation[lookback] == np.float32(position)
        assert result.truncated is (step == length - 1) and result.terminated is False
    assert total == pytest.approx(np.log(equity / 500.0), abs=1e-10)


def test_a_short_squeeze_wipes_the_account_out() -> None:
    prices = np.array([100.0, 100.0, 100.0, 250.0, 260.0])
    env = TradingEnv(prices, lookback=1, episode_length=3, sampler=0)
    env.reset()
    assert env.step(0).info["position"] == -1.0  # short; the price does not move
    result = env.step(0)  # the price rises 150%: the short loses 1.5x the equity
    assert result.terminated and not result.truncated
    assert result.info["equity"] == 0.0 and result.reward == pytest.approx(LOG_FLOOR)
    assert np.isfinite(result.reward)
    with pytest.raises(ResetRequired):
        env.step(1)


def test_point_in_time_future_rows_change_nothing_before_them() -> None:
    prices = _prices(3, 60)
    lookback, length, start = 5, 20, 10
    actions = np.random.default_rng(0).integers(0, 3, size=length)

    def play(series: np.ndarray) -> tuple[list[np.ndarray], list[float]]:
        env = TradingEnv(series, lookback=lookback, episode_length=length)
        observations = [env.reset(options={"start": start}).observation]
        rewards = []
        for action in actions:
            result = env.step(int(action))
            observations.append(result.observation)
            rewards.append(result.reward)
        return observations, rewards

    base_obs, base_rewards = play(prices)
    for step in range(length + 1):
        t = start + step  # the decision row after `step` steps
        changed = prices.copy()
        noise = np.random.default_rng(step).normal(0.0, 0.05, len(prices) - t - 1)
        changed[t + 1 :] *= np.exp(noise)
        obs, rewards = play(changed)
        for k in range(step + 1):  # observations up to row t are the same
            np.testing.assert_array_equal(obs[k], base_obs[k])
        assert rewards[:step] == base_rewards[:step]  # rewards of trades executed by row t
        if step < length:
            assert not np.array_equal(obs[step + 1][:lookback], base_obs[step + 1][:lookback])


def test_reading_after_the_decision_row_raises_look_ahead_error() -> None:
    env = TradingEnv(_prices(1, 50), lookback=3, episode_length=10)
    env.reset(options={"start": 12})
    env.step(2)
    t = env.now.index
    assert t == 13 and len(env.price_history) == 14
    assert env.price_history[-1] == env.price == env.price_history[t]
    np.testing.assert_array_equal(np.asarray(env.price_history), env.prices[: t + 1])
    with pytest.raises(LookAheadError):
        env.price_history[t + 1]
    with pytest.raises(LookAheadError):
        env.price_history[t - 2 : t + 3]
    with pytest.raises(LookAheadError):
        env.now.field("close")[t + 1]
    with pytest.raises(LookAheadError, match="agent's view"):
        env.now.execution_price()  # what agents see has no execution side ...
    assert env.data is not None
    assert env.data.at(t).execution_price()[0] == env.prices[t + 1]  # ... the env's view has

    class Peeking(TradingEnv):
        """An env whose observation (wrongly) reads the next row."""

        def _observe(self, now: PointInTime) -> np.ndarray:
            now.prices[now.index + 1]
            return super()._observe(now)

    with pytest.raises(LookAheadError, match="reads after the decision row"):
        Peeking(_prices(1, 50), lookback=3, episode_length=10).reset(seed=0)


def test_sources_dt_timestamps_and_start_options(sp500: MarketData) -> None:
    env = TradingEnv(data=sp500, lookback=10, episode_length=20)
    assert env.dt == pytest.approx(1 / 252) and env.data is sp500 and env.model is None
    first = env.reset(options={"start": "2008-09-15"}).info
    assert first["timestamp"] == np.datetime64("2008-09-15")
    assert first["price"] == sp500.prices[sp500.index_of("2008-09-15"), 0]
    assert env.reset(options={"start": 100}).info["timestamp"] == sp500.timestamps[100]
    with pytest.raises(ValueError, match="valid first rows are 10 to"):
        env.reset(options={"start": 3})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"begin": 3})
    sequential = TradingEnv(data=sp500, lookback=10, episode_length=20, sampler="sequential")
    starts = [sequential.reset().info["timestamp"] for _ in range(3)]
    assert starts == [sp500.timestamps[10], sp500.timestamps[30], sp500.timestamps[50]]
    assert isinstance(sequential.sampler, SequentialStart)
    simulated = TradingEnv(lookback=3, episode_length=5)
    assert isinstance(simulated.model, GBM) and simulated.data is None and simulated.prices is None
    with pytest.raises(ValueError, match="unknown reset option"):
        simulated.reset(options={"start": 3})
    heston = TradingEnv(model=Heston(dt=1 / 52), lookback=3, episode_length=5)
    assert heston.dt == 1 / 52 and heston.reset(seed=0).info["dt"] == 1 / 52


def test_seeds_reproduce_simulated_episodes() -> None:
    def run(seed: int) -> list[Any]:
        env = TradingEnv(lookback=5, episode_length=30, mu=0.1, sigma=0.5, s0=50.0)
        out = [env.reset(seed=seed).observation]
        out += [env.step(i % 3).observation for i in range(30)]
        return out

    a, b, c = run(3), run(3), run(4)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0])
    env = TradingEnv(lookback=2, episode_length=3, s0=50.0)
    assert env.reset(seed=0).info["price"] != 50.0  # row `lookback` of a path from 50
    path = GBM(0.05, 0.2, s0=50.0).simulate(np.random.default_rng(9), 5).prices[:, 0]
    assert env.reset(seed=9).info["price"] == path[2]


def test_arguments_are_checked(sp500: MarketData) -> None:
    prices = _prices(0, 30)
    two = MarketData(np.ones((30, 2)))
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"prices": prices, "data": sp500}, ValueError, "at most one of prices=, data= and model="),
        ({"data": two}, ValueError, "needs 1 asset"),
        ({"model": GBM(n_assets=2)}, ValueError, "needs 1 asset"),
        ({"prices": np.append(prices, np.nan)}, ValueError, "finite and > 0"),
        (
            {"data": MarketData([1.0, np.nan, 2.0, 3.0])},
            ValueError,
            "needs a price for every asset",
        ),
        ({"prices": prices, "episode_length": 30}, ValueError, "needs 61 rows"),
        ({"lookback": 0}, ValueError, "lookback"),
        ({"positions": ()}, ValueError, "positions"),
        ({"positions": (0.0, "long")}, TypeError, r"positions\[1\]"),
        ({"positions": (0.0, math.inf)}, ValueError, r"positions\[1\]"),
        ({"transaction_cost": -0.1}, ValueError, "transaction_cost"),
        ({"reward": "log"}, TypeError, "RewardFunction"),
        ({"capital": 0.0}, ValueError, "capital"),
        ({"sampler": "shuffle", "prices": prices}, ValueError, "sampler"),
        ({"sampler": "shuffle"}, ValueError, "sampler"),  # checked with a model too
        ({"model": GBM(), "dt": 1 / 12}, ValueError, "differs from the model's dt"),
        ({"data": "prices.csv"}, TypeError, "MarketData"),
        ({"transaction_cost": SpreadCost()}, ValueError, "requires spread="),
        ({"transaction_cost": SquareRootImpact(), "lookback": 1}, ValueError, "lookback >= 2"),
    ]
    for kwargs, error, match in cases:
        with pytest.raises(error, match=match):
            TradingEnv(**kwargs)


def test_invalid_actions_and_reset_required() -> None:
    env = TradingEnv(lookback=2, episode_length=2)
    with pytest.raises(ResetRequired):
        env.step(1)
    env.reset(seed=0)
    for bad in (3, -1, 1.0, True, "1", np.array([1])):
        with pytest.raises(InvalidAction, match=r"Discrete\(3\)"):
            env.step(bad)  # type: ignore[arg-type]
    assert env.step(np.int64(1)).truncated is False
    assert env.step(np.array(2)).truncated is True
    with pytest.raises(ResetRequired):
        env.step(1)


def test_cost_models_read_the_data_point_in_time() -> None:
    prices = _prices(5, 40)
    spread = np.linspace(0.001, 0.004, 40)
    data = MarketData(prices, fields={"spread": spread})
    env = TradingEnv(data=data, lookback=3, episode_length=10, transaction_cost=SpreadCost())
    env.reset(options={"start": 5})
    # all in at row 5: half the quoted spread of row 5 on a trade of 1
    assert env.step(2).info["cost"] == pytest.approx(spread[5] / 2)
    assert env.position == 1.0  # a full position does not drift
    # long to short at row 6: a trade of 2 at half the spread of row 6
    assert env.step(0).info["cost"] == pytest.approx(spread[6] / 2 * 2)
    impact = TradingEnv(
        prices, lookback=5, episode_length=5, transaction_cost=SquareRootImpact(0.5)
    )
    impact.reset(options={"start": 5})
    volatility = np.std(np.log(prices[1:6] / prices[0:5]), ddof=1)
    assert impact.step(2).info["cost"] == pytest.approx(0.5 * volatility, rel=1e-12)
    fallback = TradingEnv(
        lookback=2, episode_length=2, transaction_cost=SpreadCost(fallback_spread=0.01)
    )
    fallback.reset(seed=0)
    assert fallback.step(2).info["cost"] == pytest.approx(0.005)


def test_reward_functions_and_their_state() -> None:
    prices = _prices(2, 30)
    pnl = TradingEnv(prices, lookback=2, episode_length=5, reward=ProfitAndLoss(), capital=100.0)
    pnl.reset(options={"start": 2})
    result = pnl.step(2)
    assert result.reward == pytest.approx(result.info["equity"] - 100.0)
    shared = DifferentialSharpe(0.1)
    a = TradingEnv(prices, lookback=2, episode_length=5, reward=shared)
    b = TradingEnv(prices, lookback=2, episode_length=5, reward=shared)
    assert a.reward_fn is not shared and a.reward_fn is not b.reward_fn  # own copies
    rewards = []
    for _ in range(2):  # the state starts afresh at every reset
        a.reset(options={"start": 2})
        rewards.append([a.step(i % 3).reward for i in range(5)])
    assert rewards[0] == rewards[1] and rewards[0][0] == 0.0
    a.reward_fn = ProfitAndLoss()
    a.reset(options={"start": 2})
    assert a.step(2).reward == pytest.approx(a.equity - 1_000_000.0)
    with pytest.raises(TypeError, match="RewardFunction"):
        a.reward_fn = None  # type: ignore[assignment]


def test_settable_lengths() -> None:
    env = TradingEnv(_prices(0, 60), lookback=5, episode_length=10)
    env.lookback = 8
    assert env.observation_space.shape == (9,)
    assert env.reset(seed=0).observation.shape == (9,)
    env.episode_length = 3
    env.reset(seed=0)
    assert [env.step(1).truncated for _ in range(3)] == [False, False, True]
    with pytest.raises(ValueError, match="needs 61 rows"):
        env.episode_length = 52
    assert env.episode_length == 3  # unchanged by the failed assignment


def test_buy_and_hold_earns_the_asset_return_net_of_one_trade(sp500: MarketData) -> None:
    env = TradingEnv(data=sp500, lookback=20, episode_length=252, transaction_cost=0.001)
    assert buy_and_hold(env) == 2
    result = env.reset(options={"start": "2003-01-02"})
    first = result.info["price"]
    total = 0.0
    while not result.done:
        result = env.step(buy_and_hold(env))
        total += result.reward
        assert result.info["position"] == 1.0
    growth = result.info["price"] / first
    assert result.info["equity"] == pytest.approx(1_000_000.0 * 0.999 * growth, rel=1e-10)
    assert total == pytest.approx(np.log(0.999 * growth), abs=1e-10)
    assert buy_and_hold(TradingEnv(positions=(0.5, -1.0, 2.0, 0.0))) == 2


def test_check_env_and_pickling(sp500: MarketData) -> None:
    assert check_env(TradingEnv(), n_steps=300, check_determinism=True) == []
    small = TradingEnv(lookback=3, episode_length=5, positions=(-2.0, 0.0, 2.0), sigma=2.0)
    assert check_env(small, n_steps=200, check_determinism=True) == []
    real = TradingEnv(data=sp500, lookback=10, episode_length=50, transaction_cost=0.0005)
    assert check_env(real, n_steps=200, check_determinism=True) == []
    copy = pickle.loads(pickle.dumps(real))
    np.testing.assert_array_equal(copy.reset(seed=4).observation, real.reset(seed=4).observation)


def test_gymnasium_checker_through_to_gymnasium(sp500: MarketData) -> None:
    gym_checker = pytest.importorskip("gymnasium.utils.env_checker")
    to_gymnasium = pytest.importorskip("sekai.compat").to_gymnasium
    for env in (TradingEnv(lookback=5, episode_length=20), TradingEnv(data=sp500)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gym_checker.check_env(to_gymnasium(env), skip_render_check=True)
        # Only Gymnasium's advice about unbounded observations (log returns are unbounded).
        assert all("infinity" in str(item.message) for item in caught), caught
