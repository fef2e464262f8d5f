"""The native Portfolio vector env against SyncVecEnv of single envs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.envs._registration import register_envs
from sekai.envs.finance.portfolio_vector import PortfolioVecEnv
from sekai.envs.samplers import HistoricalSampler, RegimeSwitchingSampler
from sekai.error import InvalidAction
from sekai.registry import EnvRegistry


def _registry() -> EnvRegistry:
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    return registry


def _assert_same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            _assert_same(a[key], b[key])
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("n_assets", [3, 11])
def test_exactly_identical_to_sync_with_a_deterministic_sampler(n_assets: int) -> None:
    rng = np.random.default_rng(n_assets)
    table = rng.normal(0.0, 0.02, size=(40, n_assets))
    halted = rng.random((40, n_assets)) < 0.2
    kwargs: dict[str, Any] = {
        "sampler": HistoricalSampler(table, halted, start=5),
        "lookback": 3,
        "episode_length": 6,
        "cost": 0.002,
        "risk_free_rate": 0.0001,
    }
    registry = _registry()
    native = registry.make_vec("Portfolio-v0", 4, **kwargs)
    sync = registry.make_vec("Portfolio-v0", 4, vectorization_mode="sync", **kwargs)
    assert isinstance(native, PortfolioVecEnv)
    a, b = native.reset(seed=0), sync.reset(seed=0)
    _assert_same(a.observations, b.observations)
    assert a.infos == b.infos
    for _ in range(15):  # crosses two episode boundaries (autoreset)
        masks = native.call("action_mask")
        for mask, other in zip(masks, sync.call("action_mask"), strict=True):
            np.testing.assert_array_equal(mask, other)
        actions = rng.random((4, n_assets + 1)).astype(np.float32)
        actions[rng.random((4, n_assets + 1)) < 0.3] = 0.0
        x, y = native.step(actions), sync.step(actions)
        _assert_same(x.observations, y.observations)
        np.testing.assert_array_equal(x.rewards, y.rewards)
        np.testing.assert_array_equal(x.terminated, y.terminated)
        np.testing.assert_array_equal(x.truncated, y.truncated)
        assert len(x.infos) == len(y.infos)
        for p, q in zip(x.infos, y.infos, strict=True):
            assert p.keys() == q.keys()
            for key in p:
                _assert_same(p[key], q[key])
    sync.close()


def test_exactly_identical_to_sync_with_the_random_sampler() -> None:
    # Each sub-env draws its episodes from its own stream, as the single env does.
    sampler = RegimeSwitchingSampler(2, halt_probability=0.05, resume_probability=0.4)
    kwargs: dict[str, Any] = {"sampler": sampler, "lookback": 2, "episode_length": 5}
    registry = _registry()
    traces: list[list[Any]] = []
    for mode in ("sync", "native"):
        vec = registry.make_vec("Portfolio-v0", 3, vectorization_mode=mode, **kwargs)
        rng = np.random.default_rng(0)
        trace: list[Any] = []
        for seed in (0, None, [4, None, np.random.default_rng(2)]):
            trace.append(vec.reset(seed=seed).observations)
            for _ in range(12):  # two autoresets per sub-env
                trace.append(vec.call("action_mask"))
                result = vec.step(rng.random((3, 3)).astype(np.float32))
                trace += [result.observations, result.rewards, result.truncated, result.infos]
        vec.close()
        traces.append(trace)
    assert len(traces[0]) == len(traces[1])
    for a, b in zip(*traces, strict=True):
        if isinstance(a, list):
            assert len(a) == len(b)
            for x, y in zip(a, b, strict=True):
                _assert_same(x, y)
        else:
            _assert_same(a, b)


def test_identical_in_distribution_to_sync() -> None:
    sampler = RegimeSwitchingSampler(3, halt_probability=0.05, resume_probability=0.3)
    kwargs: dict[str, Any] = {"sampler": sampler, "lookback": 2, "episode_length": 40}
    registry = _registry()

    def collect(mode: str) -> tuple[np.ndarray[Any, Any], float]:
        vec = registry.make_vec("Portfolio-v0", 24, vectorization_mode=mode, **kwargs)
        vec.reset(seed=1)
        returns, halts = [], []
        action = np.full((24, 4), 0.25, np.float32)
        for _ in range(100):
            result = vec.step(action)
            returns.append(np.asarray(result.observations["returns"])[:, -1])
            halts.append(np.array(vec.call("action_mask"))[:, :-1])
        vec.close()
        return np.concatenate(returns).ravel(), 1.0 - float(np.mean(halts))

    native, native_halted = collect("native")
    sync, sync_halted = collect("sync")
    assert abs(native.std() - sync.std()) < 0.1 * sync.std()
    assert abs(native.mean() - sync.mean()) < 0.25 * sync.std() / np.sqrt(50)
    assert native_halted == pytest.approx(sync_halted, abs=0.04)
    assert 0.05 < native_halted < 0.25


def test_samplers_are_spawned_per_sub_env() -> None:
    sampler = RegimeSwitchingSampler(2)
    vec = PortfolioVecEnv(3, sampler=sampler)
    assert vec.samplers is not None
    assert len(vec.samplers) == 3 and len({id(s) for s in vec.samplers}) == 3
    assert all(s is not sampler for s in vec.samplers)
    obs = vec.reset(seed=0).observations
    assert obs["returns"].shape == (3, 30, 2) and obs["weights"].shape == (3, 3)
    assert not np.array_equal(obs["returns"][0], obs["returns"][1])  # independent episodes
    again = PortfolioVecEnv(3, sampler=sampler).reset(seed=0).observations
    np.testing.assert_array_equal(again["returns"], obs["returns"])


def test_frozen_sub_envs_do_not_read_past_their_data() -> None:
    sampler = RegimeSwitchingSampler(4)
    vec = PortfolioVecEnv(2, sampler=sampler, episode_length=3, lookback=2, autoreset=False)
    vec.reset(seed=0)
    action = np.ones((2, 5), np.float32)
    results = [vec.step(action) for _ in range(5)]
    assert [bool(r.truncated[0]) for r in results] == [False, False, True, True, True]
    assert results[3].rewards.tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(vec.time, [4, 4])
    _assert_same(results[4].observations, results[2].observations)


def test_default_make_vec_and_errors() -> None:
    # sekai 0.2's defaults: correlated GBM over 5 assets, lookback 30, capital 1,000,000.
    vec = _registry().make_vec("Portfolio-v0", 2)
    assert isinstance(vec, PortfolioVecEnv)
    assert vec.episode_length == 252 and vec.n_assets == 5 and vec.lookback == 30
    assert vec.samplers is None and vec.capital == 1_000_000.0
    first = vec.reset(seed=0)
    assert first.observations["returns"].shape == (2, 30, 5)
    assert [info["portfolio_value"] for info in first.infos] == [1_000_000.0] * 2
    assert vec.action_mask().shape == (2, 6)
    with pytest.raises(InvalidAction, match="non-negative"):
        vec.step(np.full((2, 6), -1.0, np.float32))
    with pytest.raises(ValueError, match="shape"):
        vec.step(np.ones((3, 6), np.float32))


def test_the_default_is_identical_to_sync() -> None:
    registry = _registry()
    kwargs: dict[str, Any] = {"episode_length": 4}
    native = registry.make_vec("Portfolio-v0", 3, **kwargs)
    sync = registry.make_vec("Portfolio-v0", 3, vectorization_mode="sync", **kwargs)
    a, b = native.reset(seed=7), sync.reset(seed=7)
    _assert_same(a.observations, b.observations)
    rng = np.random.default_rng(0)
    for _ in range(10):  # two autoresets
        actions = rng.random((3, 6)).astype(np.float32)
        x, y = native.step(actions), sync.step(actions)
        _assert_same(x.observations, y.observations)
        np.testing.assert_array_equal(x.rewards, y.rewards)
        np.testing.assert_array_equal(x.truncated, y.truncated)
    sync.close()


def test_make_vec_sync_gives_each_sub_env_a_spawned_sampler() -> None:
    sampler = RegimeSwitchingSampler(2)
    vec = _registry().make_vec("Portfolio-v0", 3, vectorization_mode="sync", sampler=sampler)
    samplers = vec.get_attr("sampler")
    assert len({id(s) for s in samplers}) == 3 and all(s is not sampler for s in samplers)
    vec.close()
