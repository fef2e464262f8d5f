"""Trading-v0's kernel: one config, one step, the same in the single env and the native env.

`TradingEnv` runs the kernel's one-row path (`TradingKernel.step_one`),
`TradingVecEnv` its batched step; for the same seed and actions both must give,
bit for bit, what ``SyncVecEnv`` over single envs gives, autoresets included,
on a history and on a model, with every kind of cost input.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.registry as registry
from sekai.envs import TradingEnv, TradingVecEnv
from sekai.envs.finance._trading_config import TradingConfig
from sekai.finance import MarketData, RewardFunction, SpreadCost, SquareRootImpact, StepOutcome

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
