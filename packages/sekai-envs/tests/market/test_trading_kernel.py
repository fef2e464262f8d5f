"""Trading-v0's kernel: one config, one step, the same in the single env and the native env.

`TradingEnv` runs the kernel's one-row path (`TradingKernel.step_one`),
`TradingVecEnv` its batched step; for the same seed and actions both must give,
bit for bit, what ``SyncVecEnv`` over single envs gives, autoresets included,
on a history and on a model, with every kind of cost input.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.registry as registry
from sekai.envs import TradingEnv, TradingVecEnv
from sekai.envs.finance._account_step import accruals
from sekai.envs.finance._trading_config import TradingConfig
from sekai.finance import MarketData, RewardFunction, SpreadCost, SquareRootImpact, StepOutcome
from sekai.finance.account import AccountConfig

N = 3  # sub-envs


def _parameters(function: Callable[..., Any], skip: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [
        (name, parameter.kind, parameter.default, parameter.annotation)
        for name, parameter in inspect.signature(function).parameters.items()
        if name not in skip
    ]


def test_the_env_signature_is_the_configs() -> None:
    # from_arguments declares the keywords; the env repeats them for readers and type checkers.
    assert _parameters(TradingEnv.__init__, ("self",)) == _parameters(
        TradingConfig.from_arguments, ("owner",)
    )
    vector = inspect.signature(TradingVecEnv.__init__).parameters
    assert list(vector) == ["self", "num_envs", "autoreset", "max_episode_steps", "kwargs"]


def _history(rows: int, seed: int) -> MarketData:
    rng = np.random.default_rng(seed)
    prices = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.03, rows)))
    stamps = np.datetime64("2021-01-01") + np.arange(rows).astype("timedelta64[D]")
    data = MarketData(prices[:, None], timestamps=stamps)
    return data.with_fields(spread=np.full((rows, 1), 0.0005))


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    source=st.sampled_from(["model", "history"]),
    cost=st.sampled_from(["rate", "spread", "volatility", "none"]),
    lookback=st.integers(1, 4),
    episode_length=st.integers(1, 6),
    positions=st.sampled_from([(-1.0, 0.0, 1.0), (0.0, 0.5, 1.0), (-2.0, 2.0)]),
)
def test_single_native_and_sync_agree(
    seed: int,
    source: str,
    cost: str,
    lookback: int,
    episode_length: int,
    positions: tuple[float, ...],
) -> None:
    costs: dict[str, Any] = {
        "rate": 0.002,
        "spread": SpreadCost(),
        "volatility": SquareRootImpact(),
        "none": None,
    }
    if cost == "volatility":
        lookback = max(lookback, 2)  # the volatility of a window needs two returns
    kwargs: dict[str, Any] = {
        "lookback": lookback,
        "episode_length": episode_length,
        "positions": positions,
        "transaction_cost": costs[cost],
    }
    if source == "history":
        kwargs["data"] = _history(60, seed)
    elif cost == "spread":
        kwargs["transaction_cost"] = 0.001  # a model has no spread field
    native = registry.make_vec("Trading-v0", N, **kwargs)
    # SyncVecEnv steps N single envs: they run the kernel's one-row path.
    sync = registry.make_vec("Trading-v0", N, vectorization_mode="sync", **kwargs)
    assert isinstance(native, TradingVecEnv)
    a, b = native.reset(seed=seed), sync.reset(seed=seed)
    _same(a.observations, b.observations, "reset")
    _same(a.infos, b.infos, "reset infos")
    rng = np.random.default_rng(seed)
    for step in range(3 * episode_length + 2):  # through autoresets
        actions = rng.integers(0, len(positions), N)
        x, y = native.step(actions), sync.step(actions)
        for name in ("observations", "rewards", "terminated", "truncated"):
            _same(getattr(x, name), getattr(y, name), f"step {step} {name}")
        _same(x.infos, y.infos, f"step {step} infos")
    native.close()
    sync.close()


class FloatReward(RewardFunction):
    """A reward written for one account: it returns a Python float."""

    def __call__(self, outcome: StepOutcome) -> float:
        return float(outcome.log_return) * 100.0


def test_the_single_env_hands_its_reward_one_accounts_outcome() -> None:
    env = TradingEnv(reward=FloatReward(), lookback=3, episode_length=5)
    env.reset(seed=0)
    result = env.step(2)
    assert isinstance(result.reward, float)
    assert result.reward == pytest.approx(100.0 * np.log(result.info["equity"] / env.capital))


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "Market-v0"])
def test_parameters_are_read_from_the_config_and_say_how_to_change_them(env_id: str) -> None:
    env = registry.make(env_id).unwrapped
    assert env.capital == env.config.capital and env.dt == env.config.dt
    with pytest.raises(AttributeError, match=r"capital is read-only: build a new env"):
        env.capital = 5.0
    env.lookback = 7  # the episode settings are replaced through the config, checked again
    assert env.config.lookback == 7 and env.observation_space.shape != ()
    with pytest.raises(ValueError, match="lookback"):
        env.lookback = 0
    assert env.config.lookback == 7


def _traded_history(rows: int, seed: int, volume: bool) -> MarketData:
    """A dated history with opens (some missing), a spread and, optionally, gaps in volume."""
    rng = np.random.default_rng(seed)
    closes = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.04, rows)))
    opens = closes * np.exp(rng.normal(0.0, 0.01, rows))
    opens[rng.random(rows) < 0.1] = np.nan  # no open: the row fills at its close
    stamps = np.datetime64("2021-01-01") + np.cumsum(rng.integers(1, 4, rows)).astype(
        "timedelta64[D]"
    )
    fields: dict[str, Any] = {"open": opens[:, None], "spread": np.full((rows, 1), 0.0005)}
    if volume:
        volumes = rng.uniform(1e3, 1e4, rows)
        volumes[rng.random(rows) < 0.15] = 0.0  # untradable rows: the position is kept
        fields["volume"] = volumes[:, None]
    return MarketData(closes[:, None], timestamps=stamps).with_fields(**fields)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    execution=st.sampled_from(["close", "next_open", "next_close"]),
    cost=st.sampled_from([0.0, 0.002, None, "spread"]),
    rates=st.sampled_from([(0.0, None, 0.0), (0.03, 0.08, 0.02), (-0.01, None, 0.05)]),
    positions=st.sampled_from([(-1.0, 0.0, 1.0), (0.0, 0.5, 1.0), (-2.0, 0.5, 2.0)]),
    hold_action=st.booleans(),
    volume=st.booleans(),
    dated=st.booleans(),
    margin=st.sampled_from([None, 0.25]),
)
def test_the_single_env_steps_as_the_vector_kernel_with_one_row(
    seed: int,
    execution: str,
    cost: float | str | None,
    rates: tuple[float, float | None, float],
    positions: tuple[float, ...],
    hold_action: bool,
    volume: bool,
    dated: bool,
    margin: float | None,
) -> None:
    # The single env's Python-float path (none or a proportional rate, no margin) and its
    # general path (a cost model with inputs, a margin) against the batched kernel with one
    # row: every observation, reward, flag and info the same, bit for bit, over episodes.
    cash_rate, margin_rate, borrow_rate = rates
    kwargs: dict[str, Any] = {
        "data": _traded_history(80, seed, volume),
        "lookback": 3,
        "episode_length": 7,
        "positions": positions,
        "transaction_cost": SpreadCost() if cost == "spread" else cost,
        "execution": execution,
        "cash_rate": cash_rate,
        "margin_rate": margin_rate,
        "borrow_rate": borrow_rate,
        "hold_action": hold_action,
        "maintenance_margin": None if margin is None or max(positions) > 2.0 else margin,
    }
    if not dated:
        kwargs["dt"] = 1 / 252
    native = registry.make_vec("Trading-v0", 1, **kwargs)
    # SyncVecEnv seeds its one single env as the native env seeds its row.
    sync = registry.make_vec("Trading-v0", 1, vectorization_mode="sync", **kwargs)
    single = sync.envs[0].unwrapped
    assert isinstance(native, TradingVecEnv) and isinstance(single, TradingEnv)
    a, b = native.reset(seed=seed), sync.reset(seed=seed)
    _same(a.observations, b.observations, "reset")
    _same(a.infos, b.infos, "reset infos")
    floats = cost != "spread" and kwargs["maintenance_margin"] is None
    rng = np.random.default_rng(seed)
    for step in range(30):  # several episodes, through autoresets
        actions = rng.integers(0, single.action_space.n, 1)
        x, y = native.step(actions), sync.step(actions)
        assert (single._kernel._read is not None) == floats  # the path under test
        for name in ("observations", "rewards", "terminated", "truncated"):
            _same(getattr(x, name), getattr(y, name), f"step {step} {name}")
        _same(x.infos, y.infos, f"step {step} infos")
    native.close()
    sync.close()


def test_the_single_env_reports_python_numbers_on_its_float_path() -> None:
    env = TradingEnv(lookback=3, episode_length=4, transaction_cost=0.001, cash_rate=0.02)
    env.reset(seed=0)
    result = env.step(2)
    assert env._kernel is not None and env._kernel._read is not None  # the float path
    assert type(result.reward) is float and result.observation.dtype == np.float32
    assert result.observation[-1] == np.float32(env.position)
    kinds = {key: type(value) for key, value in result.info.items()}
    assert kinds == {
        "equity": float,
        "position": float,
        "price": float,
        "asset_return": float,
        "cost": float,
        "turnover": float,
        "fill_price": float,
        "untradable": bool,
        "liquidated": bool,
        "timestamp": np.int64,
        "dt": float,
    }


def test_one_rows_accruals_are_the_batched_settlements() -> None:
    # The float path's accruals over a period of dt years are the ones the
    # batched settlement computes for an array of periods (numpy's expm1),
    # also where math.expm1 would differ in the last bit.
    candidates = np.random.default_rng(11).uniform(0.0, 0.5, 200_000)
    differing = [x for x in candidates.tolist() if math.expm1(x) != float(np.expm1(x))][:20]
    for rate in differing or candidates[:20].tolist():
        config = AccountConfig(cash_rate=rate, margin_rate=rate, borrow_rate=rate)
        one = accruals(config, 1.0)
        assert one is not None
        batched = np.expm1(np.array([rate, rate, rate]) * np.ones(3)).tolist()
        assert list(one) == batched, rate
