"""Market-v0: slots over a changing universe, delistings, financing, point in time, checkers."""

from __future__ import annotations

import math
import pickle
import warnings
from typing import Any

import numpy as np
import pytest

from sekai.envs import MarketEnv, equal_weight
from sekai.envs.finance import default_market
from sekai.error import InvalidAction, LookAheadError, ResetRequired
from sekai.finance import GBM, Heston, ListingProcess, MarketData, RegimeSwitching
from sekai.finance.features import register_feature
from sekai.registry import EnvRegistry
from sekai.spaces import MaskedBox
from sekai.utils import check_env

NAN = math.nan


def _universe(rows: int = 30) -> MarketData:
    """A listed all along; B delists at row 12; C lists at row 8; D lists at row 15."""
    rng = np.random.default_rng(7)
    prices = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (rows, 4)), axis=0))
    prices[12:, 1] = NAN
    prices[:8, 2] = NAN
    prices[:15, 3] = NAN
    return MarketData(prices, assets=["A", "B", "C", "D"])


def test_spaces_and_first_observation() -> None:
    data = _universe()
    env = MarketEnv(data, max_assets=3, lookback=3, episode_length=10, features=("momentum_2",))
    space = env.observation_space
    assert isinstance(space["assets"], MaskedBox)
    assert space["assets"]["values"].shape == (3, 3, 3)
    assert space["portfolio"].shape == (4,) and space["account"].shape == (2,)
    assert "market" not in space.spaces and "state" not in space.spaces
    assert env.action_space.shape == (4,)
    result = env.reset(options={"start": 5})
    assert env.slot_assets == ("A", "B", None)  # C is not listed yet at row 5
    obs = result.observation
    np.testing.assert_array_equal(obs["assets"]["mask"], [1, 1, 0])
    returns = np.log(data.prices[3:6, :2] / data.prices[2:5, :2]).T.astype(np.float32)
    np.testing.assert_array_equal(obs["assets"]["values"][:2, :, 0], returns)
    np.testing.assert_array_equal(obs["assets"]["values"][:2, :, 1], 1.0)
    momentum = np.log(data.prices[3:6, :2] / data.prices[1:4, :2]).T.astype(np.float32)
    np.testing.assert_allclose(obs["assets"]["values"][:2, :, 2], momentum, rtol=1e-6)
    assert not obs["assets"]["values"][2].any()
    np.testing.assert_array_equal(obs["portfolio"], [0, 0, 0, 1])
    np.testing.assert_array_equal(obs["account"], [0, 0])
    assert result.info == {"equity": 1_000_000.0, "n_assets": 2, "timestamp": 5}
    np.testing.assert_array_equal(env.action_mask(), [1, 1, 0, 1])


def test_listings_and_delistings_move_through_the_slots() -> None:
    data = _universe()
    env = MarketEnv(
        data,
        max_assets=3,
        lookback=2,
        episode_length=20,
        transaction_cost=0.0,
        delisting_return=-0.5,
    )
    env.reset(options={"start": 7})
    assert env.slot_assets == ("A", "B", None)
    result = env.step(np.array([0.0, 1.0, 0.0, 0.0], np.float32))  # all in B
    assert env.slot_assets == ("A", "B", "C")  # C listed at row 8, in the free slot
    np.testing.assert_array_equal(result.observation["assets"]["mask"], [1, 1, 1])
    # C's window starts before its listing: availability 0 then 1, return 0 where unknown
    np.testing.assert_array_equal(result.observation["assets"]["values"][2, :, 1], [0, 1])
    np.testing.assert_array_equal(result.observation["assets"]["values"][2, :, 0], [0, 0])
    for _ in range(3):  # decisions at rows 8, 9, 10: stay in B
        env.step(np.array([0.0, 1.0, 0.0, 0.0], np.float32))
    equity = env.equity
    result = env.step(np.array([0.0, 1.0, 0.0, 0.0], np.float32))  # row 11; B delists at 12
    assert result.info["equity"] == pytest.approx(equity * 0.5)  # the delisting return
    assert env.slot_assets == ("A", None, "C")
    np.testing.assert_allclose(result.info["weights"], [0, 0, 0, 1], atol=1e-15)
    np.testing.assert_array_equal(env.action_mask(), [1, 0, 1, 1])
    assert result.info["n_assets"] == 2
    for _ in range(3):  # rows 12, 13, 14: B's slot is ignored
        np.testing.assert_allclose(env.target_weights([1, 1, 1, 0]), [0.5, 0.0, 0.5])
        result = env.step(np.array([1.0, 1.0, 1.0, 0.0], np.float32))
    assert env.slot_assets == ("A", "D", "C")  # D took the slot B freed, at row 15
    assert result.info["weights"][1] == 0.0  # a new asset starts without a position
    with pytest.raises(InvalidAction, match="Market action"):
        env.step(np.array([1.0, -1.0, 0.0, 0.0]))


def test_financing_follows_the_account_rates() -> None:
    flat = MarketData(np.full((20, 2), 50.0))
    dt = 1 / 252
    cash = MarketEnv(flat, lookback=1, episode_length=5, cash_rate=0.05, dt=dt)
    cash.reset(options={"start": 1})
    result = cash.step(np.zeros(3, np.float32))  # all cash
    assert result.reward == pytest.approx(0.05 * dt, rel=1e-9)
    assert result.info["financing"] == pytest.approx(-math.expm1(0.05 * dt))
    margin = MarketEnv(
        flat,
        lookback=1,
        episode_length=5,
        max_leverage=2.0,
        margin_rate=0.08,
        transaction_cost=0.0,
        dt=dt,
    )
    margin.reset(options={"start": 1})
    result = margin.step(np.array([1.0, 0.0, 0.0], np.float32))  # 200% in asset 0
    growth = 1.0 - math.expm1(0.08 * dt)  # interest on the 100% borrowed
    assert result.info["equity"] == pytest.approx(1_000_000.0 * growth, rel=1e-12)
    assert result.info["gross_exposure"] == pytest.approx(2.0 / growth, rel=1e-12)
    short = MarketEnv(
        flat,
        lookback=1,
        episode_length=5,
        allow_short=True,
        borrow_rate=0.03,
        cash_rate=0.01,
        transaction_cost=0.0,
        dt=dt,
    )
    short.reset(options={"start": 1})
    result = short.step(np.array([-1.0, 0.0], np.float32))  # short 100%: cash is 200%
    growth = 1.0 - math.expm1(0.03 * dt) + 2.0 * math.expm1(0.01 * dt)
    assert result.info["equity"] == pytest.approx(1_000_000.0 * growth, rel=1e-12)


def test_point_in_time_and_causal_features() -> None:
    data = _universe(40)
    kwargs: dict[str, Any] = {"lookback": 4, "episode_length": 20, "features": ("volatility_3",)}
    actions = np.random.default_rng(0).random((20, 5)).astype(np.float32)

    def play(prices: np.ndarray) -> list[Any]:
        env = MarketEnv(MarketData(prices, assets=data.assets), max_assets=4, **kwargs)
        out = [env.reset(options={"start": 10}).observation]
        out += [env.step(action).observation for action in actions]
        return out

    base = play(np.array(data.prices))
    for step in (0, 5, 19):
        t = 10 + step
        changed = np.array(data.prices)
        changed[t + 1 :] *= 1.1
        other = play(changed)
        for k in range(step + 1):
            for key in ("portfolio", "account"):
                np.testing.assert_array_equal(other[k][key], base[k][key])
            np.testing.assert_array_equal(other[k]["assets"]["values"], base[k]["assets"]["values"])
        assert not np.array_equal(other[step + 1]["account"], base[step + 1]["account"])

    def peek(data: MarketData, window: int) -> np.ndarray:
        prices = np.asarray(data.prices)
        ahead = np.full(prices.shape, np.nan)
        ahead[:-window] = prices[window:] / prices[:-window]
        return ahead

    register_feature("test_peek_ahead", peek, default_window=1, override=True)
    with pytest.raises(LookAheadError, match="test_peek_ahead"):
        MarketEnv(data, features=("test_peek_ahead",), lookback=2, episode_length=5)
    with pytest.raises(LookAheadError, match="test_peek_ahead"):
        MarketEnv(features=("test_peek_ahead_3",), lookback=2, episode_length=5)
    env = MarketEnv(data, lookback=2, episode_length=5)
    env.reset(options={"start": 20})
    with pytest.raises(LookAheadError):
        env.now.prices[21]


def test_exogenous_series_are_joined_as_of_each_row() -> None:
    data = _universe().with_exogenous(rate=np.linspace(0.01, 0.03, 30), pair=np.ones((30, 2)))
    env = MarketEnv(data, exogenous=("rate", "pair"), lookback=3, episode_length=5)
    assert env.observation_space["market"].shape == (3, 3)
    obs = env.reset(options={"start": 9}).observation
    expected = np.column_stack([np.linspace(0.01, 0.03, 30)[7:10], np.ones((3, 2))])
    np.testing.assert_allclose(obs["market"], expected.astype(np.float32))


def test_simulation_latent_state_and_privileged_observation() -> None:
    model = ListingProcess(Heston(n_assets=3), initial_listed=1.0, delisting_rate=0.0)
    env = MarketEnv(model=model, lookback=2, episode_length=5, privileged_state=True)
    assert env.observation_space["state"].shape == (3,)
    result = env.reset(seed=3)
    simulation = model.simulate(np.random.default_rng(3), 7)
    latent = env.latent_state
    assert latent is not None
    np.testing.assert_array_equal(latent["variance"], simulation.state["variance"][2])
    np.testing.assert_array_equal(
        result.observation["state"], simulation.state["variance"][2].astype(np.float32)
    )
    step = env.step(equal_weight(env))
    np.testing.assert_array_equal(
        step.info["latent_state"]["variance"], simulation.state["variance"][3]
    )
    regimes = RegimeSwitching([GBM(0.1, 0.1), GBM(-0.1, 0.3)], [[0.9, 0.1], [0.2, 0.8]])
    switching = MarketEnv(model=regimes, lookback=2, episode_length=5, privileged_state=True)
    assert switching.reset(seed=0).observation["state"].shape == (1,)


def test_default_market_lists_and_delists() -> None:
    model = default_market(6)
    assert isinstance(model, ListingProcess) and model.n_assets == 6
    env = MarketEnv(lookback=5, episode_length=252)
    assert env.max_assets == 10 and env.n_total == 10
    counts = []
    changes = 0
    result = env.reset(seed=0)
    assets = env.slot_assets
    while not result.done:
        result = env.step(equal_weight(env))
        counts.append(result.info["n_assets"])
        changes += env.slot_assets != assets
        assets = env.slot_assets
    assert min(counts) >= 1 and max(counts) <= 10 and changes > 0


def test_equal_weight_on_a_real_universe(sp500_frame: Any) -> None:
    pd = pytest.importorskip("pandas")
    nasdaq = pytest.importorskip("arch.data.nasdaq").load()
    close = pd.concat(
        {"sp500": sp500_frame["Adj Close"], "nasdaq": nasdaq["Adj Close"]}, axis=1, sort=True
    )
    close.loc[:"2004-12-31", "nasdaq"] = np.nan  # NASDAQ joins the universe in 2005
    data = MarketData.from_pandas(close)
    env = MarketEnv(data, lookback=5, episode_length=40, transaction_cost=0.0, features=("rsi",))
    result = env.reset(options={"start": "2004-12-01"})
    row = data.index_of("2004-12-01")
    equity = 1_000_000.0
    while not result.done:
        listed = data.mask[row]
        result = env.step(equal_weight(env))
        r = data.prices[row + 1][listed] / data.prices[row][listed] - 1.0
        equity *= 1.0 + r.mean()
        row += 1
        assert result.info["equity"] == pytest.approx(equity, rel=1e-10)
    assert env.slot_assets == ("sp500", "nasdaq")
    assert check_env(env, n_steps=200, check_determinism=True) == []


def test_arguments_are_checked() -> None:
    data = _universe()
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"data": data, "model": GBM()}, ValueError, "at most one"),
        ({"model": GBM(), "exogenous": ("rate",)}, ValueError, "exogenous series come with data"),
        ({"data": data, "exogenous": ("rate",)}, ValueError, "no exogenous series 'rate'"),
        ({"data": data, "privileged_state": True}, ValueError, "privileged_state"),
        ({"model": GBM(), "privileged_state": True}, ValueError, "no latent state"),
        ({"data": data, "features": ("no_such_feature",)}, ValueError, "no feature"),
        ({"data": data, "features": "momentum"}, TypeError, "sequence of names"),
        ({"data": data, "delisting_return": -1.5}, ValueError, "delisting_return"),
        ({"data": data, "max_assets": 0}, ValueError, "max_assets"),
        ({"data": data, "lookback": 5, "episode_length": 30}, ValueError, "needs 36 rows"),
    ]
    for kwargs, error, match in cases:
        with pytest.raises(error, match=match):
            MarketEnv(**kwargs)
    env = MarketEnv(data, lookback=2, episode_length=5)
    with pytest.raises(ResetRequired):
        env.step(np.zeros(5, np.float32))
    with pytest.raises(ResetRequired):
        env.timestamp  # noqa: B018


def test_registered_check_env_and_gymnasium(registry: EnvRegistry) -> None:
    env = registry.make("Market-v0", lookback=5, episode_length=40, features=("momentum_5",))
    assert isinstance(env.unwrapped, MarketEnv)
    cases = [
        env,
        MarketEnv(lookback=5, episode_length=30, allow_short=True, max_leverage=2.0),
        MarketEnv(model=default_market(4), max_assets=2, lookback=3, episode_length=30),
    ]
    for case in cases:
        assert check_env(case, n_steps=200, check_determinism=True) == []
        copy = pickle.loads(pickle.dumps(case))
        a, b = case.reset(seed=4).observation, copy.reset(seed=4).observation
        np.testing.assert_array_equal(a["assets"]["values"], b["assets"]["values"])
    gym_checker = pytest.importorskip("gymnasium.utils.env_checker")
    to_gymnasium = pytest.importorskip("sekai.compat").to_gymnasium
    for case in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            gym_checker.check_env(to_gymnasium(case), skip_render_check=True)
        assert all("infinity" in str(item.message) for item in caught), caught
