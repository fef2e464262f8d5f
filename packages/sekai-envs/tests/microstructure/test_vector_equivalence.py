"""MarketMakingVecEnv and OptimalExecutionVecEnv give SyncVecEnv's trajectories exactly."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sekai.core import TimeLimit
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution_vector import OptimalExecutionVecEnv
from sekai.error import InvalidAction
from sekai.vector import SyncVecEnv

NUM_ENVS = 6


@dataclass(frozen=True)
class Case:
    name: str
    single: Callable[..., Any]
    native: Callable[..., Any]
    kwargs: dict[str, Any]
    actions: Callable[[np.random.Generator, int], np.ndarray]

    def __str__(self) -> str:
        return self.name


def _quotes(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(0.0, 1.5, (n, 2)).astype(np.float32)


def _fractions(rng: np.random.Generator, n: int) -> np.ndarray:
    # often 0 or 1, so that some sub-envs finish early and reset alone
    fractions = rng.choice([0.0, 0.1, 0.3, 1.0], size=(n, 1), p=[0.3, 0.3, 0.3, 0.1])
    return fractions.astype(np.float32)


CASES = [
    Case("market-making", MarketMakingEnv, MarketMakingVecEnv, {"n_steps": 9}, _quotes),
    # the inventory limit binds: sides stop being quoted
    Case(
        "market-making-limits",
        MarketMakingEnv,
        MarketMakingVecEnv,
        {"n_steps": 12, "max_inventory": 2, "fill_intensity": 600.0, "order_size": 2},
        _quotes,
    ),
    Case("execution", OptimalExecutionEnv, OptimalExecutionVecEnv, {"n_steps": 7}, _fractions),
    Case(
        "execution-no-volatility",
        OptimalExecutionEnv,
        OptimalExecutionVecEnv,
        {"n_steps": 4, "sigma": 0.0},
        _fractions,
    ),
]


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


def _compare(case: Case, sync: Any, native: Any, steps: int, seed: Any = 5) -> None:
    first, second = sync.reset(seed=seed), native.reset(seed=seed)
    np.testing.assert_array_equal(first.observations, second.observations)
    for i in range(NUM_ENVS):
        _same(first.infos[i], second.infos[i], f"reset info {i}")
    rng = np.random.default_rng(1)
    for step in range(steps):
        actions = case.actions(rng, NUM_ENVS)
        a, b = sync.step(actions), native.step(actions)
        np.testing.assert_array_equal(a.observations, b.observations, err_msg=f"step {step}")
        np.testing.assert_array_equal(a.rewards, b.rewards, err_msg=f"step {step}")
        np.testing.assert_array_equal(a.terminated, b.terminated, err_msg=f"step {step}")
        np.testing.assert_array_equal(a.truncated, b.truncated, err_msg=f"step {step}")
        for i in range(NUM_ENVS):
            _same(a.infos[i], b.infos[i], f"step {step} info {i}")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_trajectories_as_sync_with_autoreset(case: Case) -> None:
    sync = SyncVecEnv([lambda: case.single(**case.kwargs)] * NUM_ENVS)
    native = case.native(NUM_ENVS, **case.kwargs)
    _compare(case, sync, native, steps=40)
    # seeds per sub-env, then a continued stream
    _compare(case, sync, native, steps=15, seed=[3, None, 4, 5, None, 6])
    _compare(case, sync, native, steps=15, seed=None)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_trajectories_as_sync_when_finished_envs_freeze(case: Case) -> None:
    sync = SyncVecEnv([lambda: case.single(**case.kwargs)] * NUM_ENVS, autoreset=False)
    native = case.native(NUM_ENVS, autoreset=False, **case.kwargs)
    _compare(case, sync, native, steps=20)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_same_trajectories_as_sync_under_a_time_limit(case: Case) -> None:
    sync = SyncVecEnv([lambda: TimeLimit(case.single(**case.kwargs), 3)] * NUM_ENVS)
    native = case.native(NUM_ENVS, max_episode_steps=3, **case.kwargs)
    _compare(case, sync, native, steps=20)


def test_market_making_state_and_baseline_per_sub_env() -> None:
    kwargs = {"n_steps": 20}
    native = MarketMakingVecEnv(NUM_ENVS, **kwargs)
    singles = [MarketMakingEnv(**kwargs) for _ in range(NUM_ENVS)]
    seeds = list(range(100, 100 + NUM_ENVS))
    native.reset(seed=seeds)
    for single, seed in zip(singles, seeds, strict=True):
        single.reset(seed=seed)
    for _ in range(15):
        batch = native.avellaneda_stoikov_action()
        with_time_term = native.avellaneda_stoikov_action(spread_time_term=True)
        for i, single in enumerate(singles):
            np.testing.assert_array_equal(batch[i], single.avellaneda_stoikov_action())
            np.testing.assert_array_equal(
                with_time_term[i], single.avellaneda_stoikov_action(spread_time_term=True)
            )
            single.step(batch[i])
        native.step(batch)
    assert native.get_attr("inventory") == [single.inventory for single in singles]
    np.testing.assert_array_equal(native.wealth, [single.wealth for single in singles])
    np.testing.assert_array_equal(native.time_remaining, [s.time_remaining for s in singles])
    assert native.fill_probability(0.5) == singles[0].fill_probability(0.5)


def test_execution_closed_forms_are_shared_by_every_sub_env() -> None:
    native = OptimalExecutionVecEnv(3, n_steps=3)
    single = OptimalExecutionEnv(n_steps=3)
    schedules = native.get_attr("almgren_chriss_trajectory")
    assert len(schedules) == 3
    for schedule in native.call("almgren_chriss_trajectory"):
        np.testing.assert_array_equal(schedule, single.almgren_chriss_trajectory())
    actions = native.call("almgren_chriss_actions")
    assert all(a.shape == (3, 1) for a in actions)
    native.reset(seed=0)
    np.testing.assert_allclose(native.twap_action(), np.full((3, 1), 1 / 3), rtol=1e-7)
    native.step(native.almgren_chriss_actions()[native.elapsed_steps])
    np.testing.assert_allclose(native.twap_action(), np.full((3, 1), 0.5))
    trades = np.full(3, 1e6 / 3)
    assert native.expected_shortfall(trades) == single.expected_shortfall(trades)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_bad_action_batches_are_refused(case: Case) -> None:
    native = case.native(2, **case.kwargs)
    native.reset(seed=0)
    good = case.actions(np.random.default_rng(0), 2)
    bad = good.copy()
    bad[1, 0] = 7.0
    with pytest.raises(InvalidAction, match="expects"):
        native.step(bad)
    with pytest.raises(InvalidAction):
        native.step(good[:1])
