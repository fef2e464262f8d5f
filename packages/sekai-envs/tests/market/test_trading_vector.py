"""The native Trading vector env against SyncVecEnv of single envs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import TradingEnv, TradingVecEnv
from sekai.envs.finance.vector import TradingVecEnv as VectorPathTradingVecEnv
from sekai.error import InvalidAction
from sekai.finance import (
    DifferentialSharpe,
    MarketData,
    RandomStart,
    SequentialStart,
    SpreadCost,
    SquareRootImpact,
)
from sekai.registry import EnvRegistry

SEED_PLANS: dict[str, list[Callable[[], Any]]] = {
    "int": [lambda: 123],
    "list": [lambda: 5, lambda: [7, None, np.random.default_rng(11), 2**40]],
    "none-continues": [lambda: 3, lambda: None, lambda: [None, None, None, None]],
}


def _cases(sp500: MarketData) -> dict[str, dict[str, Any]]:
    spread = np.full(sp500.n_steps, 0.0004)
    quoted = sp500.with_fields(spread=spread)
    return {
        "gbm": {"lookback": 4, "episode_length": 7},
        "history": {"data": sp500, "lookback": 3, "episode_length": 6, "sampler": RandomStart()},
        "sequential": {
            "data": sp500,
            "lookback": 5,
            "episode_length": 4,
            "sampler": SequentialStart(),
        },
        "costs-and-reward": {
            "data": quoted,
            "lookback": 4,
            "episode_length": 5,
            "sampler": RandomStart(),
            "transaction_cost": SpreadCost(),
            "reward": DifferentialSharpe(0.2),
        },
        "impact": {"lookback": 5, "episode_length": 6, "transaction_cost": SquareRootImpact()},
        # volatile enough that leveraged positions get wiped out (terminated)
        "wipe-outs": {
            "lookback": 2,
            "episode_length": 8,
            "positions": (-4.0, 0.0, 4.0),
            "sigma": 3.0,
            "dt": 1 / 12,
        },
    }


def _trace(vec: Any, plan: list[Callable[[], Any]], steps: int) -> list[Any]:
    rng = np.random.default_rng(0)
    trace: list[Any] = []
    for seed in plan:
        reset = vec.reset(seed=seed())
        trace.append((reset.observations, reset.infos))
        for _ in range(steps):
            result = vec.step(rng.integers(0, 3, size=vec.num_envs))
            trace.append(
                (
                    result.observations,
                    result.rewards,
                    result.terminated,
                    result.truncated,
                    result.infos,
                )
            )
    vec.close()
    return trace


@pytest.mark.parametrize("plan", sorted(SEED_PLANS))
@pytest.mark.parametrize(
    "case", ["gbm", "history", "sequential", "costs-and-reward", "impact", "wipe-outs"]
)
def test_same_trajectories_as_sync(
    case: str,
    plan: str,
    sp500: MarketData,
    registry: EnvRegistry,
    assert_same: Callable[..., None],
) -> None:
    kwargs = _cases(sp500)[case]
    length = kwargs["episode_length"]
    traces = {}
    for mode in ("native", "sync"):
        vec = registry.make_vec("Trading-v0", 4, vectorization_mode=mode, **kwargs)
        assert isinstance(vec, TradingVecEnv) is (mode == "native")
        traces[mode] = _trace(vec, SEED_PLANS[plan], 3 * length)
    assert_same(traces["native"], traces["sync"])
    finals = sum(
        "final_observation" in info
        for entry in traces["sync"]
        if len(entry) == 5
        for info in entry[4]
    )
    assert finals >= 2 * 4 * len(SEED_PLANS[plan])  # at least two autoresets per sub-env
    if case == "wipe-outs":
        assert any(entry[2].any() for entry in traces["sync"] if len(entry) == 5)


def test_per_env_start_options_and_time_limit(
    sp500: MarketData, registry: EnvRegistry, assert_same: Callable[..., None]
) -> None:
    kwargs = {"data": sp500, "lookback": 5, "episode_length": 50}
    options = [{"start": 10}, None, {"start": "2008-09-15"}]
    results = {}
    for mode in ("native", "sync"):
        vec = registry.make_vec(
            "Trading-v0", 3, vectorization_mode=mode, max_episode_steps=4, **kwargs
        )
        reset = vec.reset(seed=1, options=options)
        steps = [vec.step(np.array([2, 0, 1])) for _ in range(5)]
        results[mode] = (reset.infos, [(s.truncated, s.infos, s.rewards) for s in steps])
        vec.close()
    assert_same(results["native"], results["sync"])
    infos = results["native"][0]
    assert infos[0]["timestamp"] == sp500.timestamps[10]
    assert infos[2]["timestamp"] == np.datetime64("2008-09-15")
    truncated = [flags.tolist() for flags, _, _ in results["native"][1]]
    assert truncated[3] == [True, True, True] and truncated[:3] == [[False] * 3] * 3
    assert results["native"][1][0][1][0]["elapsed_steps"] == 1


def test_frozen_sub_envs_keep_their_final_state() -> None:
    vec = TradingVecEnv(2, lookback=2, episode_length=3, autoreset=False)
    vec.reset(seed=0)
    results = [vec.step(np.array([2, 1])) for _ in range(5)]  # long, flat
    assert [bool(r.truncated[0]) for r in results] == [False, False, True, True, True]
    assert results[3].rewards.tolist() == [0.0, 0.0] and results[3].infos == [{}, {}]
    np.testing.assert_array_equal(results[4].observations, results[2].observations)
    equity = vec.equity
    np.testing.assert_array_equal(equity, [results[2].infos[0]["equity"], 1_000_000.0])
    vec.reset(seed=0)
    assert vec.equity.tolist() == [1_000_000.0, 1_000_000.0]


def test_matches_single_envs_step_by_step(sp500: MarketData) -> None:
    vec = TradingVecEnv(3, data=sp500, lookback=4, episode_length=30)
    singles = [TradingEnv(data=sp500, lookback=4, episode_length=30) for _ in range(3)]
    starts = [{"start": 100}, {"start": 2000}, {"start": 4000}]
    batch = vec.reset(options=starts)
    for env, option, obs in zip(singles, starts, batch.observations, strict=True):
        np.testing.assert_array_equal(env.reset(options=option).observation, obs)
    rng = np.random.default_rng(3)
    for _ in range(20):
        actions = rng.integers(0, 3, size=3)
        result = vec.step(actions)
        for i, env in enumerate(singles):
            single = env.step(int(actions[i]))
            np.testing.assert_array_equal(single.observation, result.observations[i])
            assert single.reward == result.rewards[i]
        np.testing.assert_array_equal(vec.price, [env.price for env in singles])
        np.testing.assert_array_equal(vec.position, [env.position for env in singles])


def test_actions_are_checked_and_paths_agree(registry: EnvRegistry) -> None:
    assert VectorPathTradingVecEnv is TradingVecEnv
    vec = registry.make_vec("Trading-v0", 2)
    assert isinstance(vec, TradingVecEnv) and vec.episode_length == 252 and vec.lookback == 30
    vec.reset(seed=0)
    with pytest.raises(InvalidAction, match="TradingVecEnv"):
        vec.step(np.array([0.0, 1.0]))
    with pytest.raises(InvalidAction, match="TradingVecEnv"):
        vec.step(np.array([0, 3]))
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.array([0, 1, 2]))
    samplers = TradingVecEnv(3, prices=np.linspace(100, 200, 300), sampler="sequential").samplers
    assert samplers is not None and len({id(s) for s in samplers}) == 3
