"""Market-v0's native vector env against the single env and SyncVecEnv, step for step."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import sekai.registry as registry
from sekai.envs import MarketEnv, MarketVecEnv, equal_weight
from sekai.envs.finance import default_market
from sekai.envs.finance._market_config import MarketConfig
from sekai.envs.finance._market_slots import SlotTable
from sekai.envs.finance.vector import MarketVecEnv as VectorPathMarketVecEnv
from sekai.error import InvalidAction
from sekai.finance import (
    DifferentialSharpe,
    Heston,
    ListingProcess,
    MarketData,
    SlotMap,
    SpreadCost,
    SquareRootImpact,
)
from sekai.vector import SyncVecEnv
from sekai.wrappers import TimeLimit

NAN = float("nan")


def _history(rows: int = 90) -> MarketData:
    """Eight assets that list, delist and have gaps; spread and volume fields; exogenous series."""
    rng = np.random.default_rng(11)
    prices = 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.03, (rows, 8)), axis=0))
    prices[20:, 1] = NAN  # delists
    prices[:12, 2] = NAN  # lists
    prices[:30, 3] = NAN
    prices[55:, 4] = NAN
    prices[35:41, 5] = NAN  # a gap: delists, then lists again
    prices[47, :6] = NAN  # six assets missing on one row at once
    prices[:5, 6] = NAN
    shape = prices.shape
    fields = {"spread": np.full(shape, 0.002), "volume": rng.uniform(1e5, 1e6, shape)}
    data = MarketData(prices, assets=list("ABCDEFGH"), fields=fields)
    return data.with_exogenous(rate=np.linspace(0.01, 0.05, rows), pair=rng.normal(size=(rows, 2)))


HISTORY = _history()

# Each case: MarketEnv's keywords (small windows, so every run goes through autoresets).
CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "default-universe": lambda: {"lookback": 3, "episode_length": 5},
    "history": lambda: {
        "data": HISTORY,
        "max_assets": 4,
        "lookback": 2,
        "episode_length": 6,
        "delisting_return": -0.4,
    },
    "history-features-exogenous-costs": lambda: {
        "data": HISTORY,
        "max_assets": 6,
        "lookback": 3,
        "episode_length": 5,
        "features": ("momentum_2", "volume"),
        "exogenous": ("rate", "pair"),
        "transaction_cost": SpreadCost(),
    },
    "history-short-financing": lambda: {
        "data": HISTORY,
        "lookback": 4,
        "episode_length": 7,
        "allow_short": True,
        "max_leverage": 1.5,
        "cash_rate": 0.03,
        "borrow_rate": 0.02,
        "transaction_cost": SquareRootImpact(fallback_volatility=0.02),
        "reward": DifferentialSharpe(0.2),
    },
    "simulated-features-state": lambda: {
        "model": ListingProcess(
            Heston(n_assets=4), initial_listed=0.5, listing_rate=20.0, delisting_rate=20.0
        ),
        "max_assets": 3,
        "lookback": 2,
        "episode_length": 6,
        "features": ("volatility_2",),
        "privileged_state": True,
        "max_leverage": 2.0,
        "margin_rate": 0.05,
    },
    # volatile enough that leveraged portfolios are wiped out (terminated early)
    "wipe-outs": lambda: {
        "model": default_market(3, dt=4.0),
        "lookback": 2,
        "episode_length": 6,
        "allow_short": True,
        "max_leverage": 4.0,
    },
}


def _actions(rng: np.random.Generator, vec: Any, steps: int) -> np.ndarray:
    shape = (steps, vec.num_envs, *vec.action_space.shape)
    actions = rng.random(shape).astype(np.float32)
    if vec.config.account.allow_short:  # signed weights, many at the bounds
        actions = np.clip(3.0 * (2.0 * actions - 1.0), -1.0, 1.0)
    actions[::4] = 0.0  # all cash now and then
    return actions


def _trace(vec: Any, seeds: list[int], actions: np.ndarray) -> list[Any]:
    reset = vec.reset(seed=seeds)
    trace: list[Any] = [(reset.observations, reset.infos)]
    for action in actions:
        result = vec.step(action)
        trace.append(
            (result.observations, result.rewards, result.terminated, result.truncated, result.infos)
        )
    return trace


def _single_trace(kwargs: dict[str, Any], seeds: list[int], actions: np.ndarray) -> list[Any]:
    """What a vector env of MarketEnvs shows, played by hand with one env per seed."""
    envs = [MarketEnv(**kwargs) for _ in seeds]
    resets = [env.reset(seed=seed) for env, seed in zip(envs, seeds, strict=True)]
    trace: list[Any] = [(_stack([r.observation for r in resets]), [r.info for r in resets])]
    for action in actions:
        observations, rewards, terminated, truncated, infos = [], [], [], [], []
        for env, row in zip(envs, action, strict=True):
            result = env.step(row)
            info, observation = result.info, result.observation
            if result.done:
                again = env.reset()
                info = {
                    **info,
                    "final_observation": observation,
                    "final_info": info,
                    "reset_info": again.info,
                }
                observation = again.observation
            observations.append(observation)
            rewards.append(result.reward)
            terminated.append(result.terminated)
            truncated.append(result.truncated)
            infos.append(info)
        trace.append((_stack(observations), rewards, terminated, truncated, infos))
    return trace


def _stack(observations: list[Any]) -> Any:
    if isinstance(observations[0], dict):
        return {key: _stack([o[key] for o in observations]) for key in observations[0]}
    return np.stack(observations)


def test_the_single_env_signature_is_the_configs() -> None:
    single = list(inspect.signature(MarketEnv.__init__).parameters.values())[1:]
    config = [
        parameter
        for name, parameter in inspect.signature(MarketConfig.from_arguments).parameters.items()
        if name != "owner"
    ]
    assert single == config


def _agree(case: str, seed: int, num_envs: int, assert_same: Callable[..., None]) -> list[Any]:
    """Play ``case`` on MarketVecEnv, SyncVecEnv and single envs; assert they agree; the trace."""
    kwargs = CASES[case]()
    native = MarketVecEnv(num_envs, **kwargs)
    sync = SyncVecEnv([lambda: MarketEnv(**CASES[case]())] * num_envs)
    seeds = [seed + i for i in range(num_envs)]
    steps = 2 * kwargs["episode_length"] + 2  # at least one autoreset per sub-env
    actions = _actions(np.random.default_rng(seed), native, steps)
    traces = {
        "native": _trace(native, seeds, actions),
        "sync": _trace(sync, seeds, actions),
        "single": _single_trace(CASES[case](), seeds, actions),
    }
    assert_same(traces["native"], traces["sync"])
    assert_same(traces["native"], traces["single"])
    finals = sum("final_observation" in info for entry in traces["sync"][1:] for info in entry[4])
    assert finals >= num_envs
    # The state read through attributes agrees too.
    for name in ("equity", "weights", "slot_assets", "timestamp"):
        assert_same(native.get_attr(name), sync.get_attr(name), name)
    assert_same(native.call("action_mask"), sync.call("action_mask"))
    native.close()
    sync.close()
    return traces["native"]


# assert_same is a pure function: sharing it between examples is safe.
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=st.sampled_from(sorted(CASES)),
    seed=st.integers(0, 2**31 - 1),
    num_envs=st.integers(1, 3),
)
def test_single_native_and_sync_agree_step_for_step(
    case: str, seed: int, num_envs: int, assert_same: Callable[..., None]
) -> None:
    _agree(case, seed, num_envs, assert_same)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(1, 4),
    slots=st.integers(1, 6),
    assets=st.integers(1, 9),
    seed=st.integers(0, 2**31 - 1),
)
def test_slot_table_follows_slot_map_per_sub_env(
    n: int, slots: int, assets: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    table = SlotTable(n, slots, assets)
    maps = [SlotMap(slots) for _ in range(n)]
    for step in range(25):
        listed = rng.random((n, assets)) < rng.random()
        keep = rng.random(n) < 0.3 if step % 3 else None  # rows left alone (frozen)
        changed = table.place(listed, keep)
        for i, slot_map in enumerate(maps):
            expected = np.zeros(slots, dtype=bool)
            if keep is None or not keep[i]:
                slot_map.update(np.flatnonzero(listed[i]).tolist())
                expected = slot_map.changed
            held = tuple(None if column < 0 else int(column) for column in table.columns[i])
            assert held == slot_map.assets
            got = np.zeros(slots, dtype=bool) if changed is None else changed[i]
            assert got.tolist() == expected.tolist()
            assert table.count[i] == len(slot_map)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_case_agrees(case: str, assert_same: Callable[..., None]) -> None:
    trace = _agree(case, 5, 3, assert_same)
    if case == "wipe-outs":
        assert any(entry[2].any() for entry in trace[1:])  # some sub-env was wiped out


def test_make_vec_builds_the_native_env(assert_same: Callable[..., None]) -> None:
    vec = registry.make_vec("Market-v0", 4, lookback=3, episode_length=5)
    assert isinstance(vec, MarketVecEnv) and VectorPathMarketVecEnv is MarketVecEnv
    assert vec.max_assets == vec.n_total == 10 and vec.lookback == 3
    sync = registry.make_vec(
        "Market-v0", 4, vectorization_mode="sync", lookback=3, episode_length=5
    )
    assert not isinstance(sync, MarketVecEnv)
    first, second = vec.reset(seed=2), sync.reset(seed=2)
    assert_same(first.observations, second.observations)
    assert first.observations["assets"]["values"].shape == (4, 10, 3, 2)
    action = np.stack([equal_weight(env) for env in sync.envs])  # type: ignore[attr-defined]
    assert_same(vec.step(action).infos, sync.step(action).infos)
    vec.close()
    sync.close()


def test_frozen_sub_envs_keep_their_final_state(assert_same: Callable[..., None]) -> None:
    vec = MarketVecEnv(2, data=HISTORY, lookback=2, episode_length=3, autoreset=False)
    vec.reset(seed=0, options=[{"start": 40}, {"start": 10}])
    action = np.full((2, 9), 1.0, np.float32)
    results = [vec.step(action) for _ in range(5)]
    assert [bool(r.truncated[0]) for r in results] == [False, False, True, True, True]
    assert results[3].rewards.tolist() == [0.0, 0.0] and results[3].infos == [{}, {}]
    assert_same(results[4].observations, results[2].observations)
    single = MarketEnv(data=HISTORY, lookback=2, episode_length=3)
    single.reset(options={"start": 40})
    for _ in range(3):
        last = single.step(action[0])
    assert vec.equity[0] == last.info["equity"] == single.equity
    assert vec.slot_assets[0] == single.slot_assets
    assert vec.timestamp[0] == single.timestamp == HISTORY.timestamps[43]
    vec.reset(seed=0)
    assert vec.equity.tolist() == [1_000_000.0, 1_000_000.0]


def test_partial_resets_with_options_per_sub_env(assert_same: Callable[..., None]) -> None:
    kwargs: dict[str, Any] = {"data": HISTORY, "max_assets": 5, "lookback": 2, "episode_length": 9}
    options = [{"start": 8}, None, {"start": 44}]
    limits = [2, 3, 5]  # sub-envs finish, and reset, at different steps
    results = {}
    for kind in ("native", "sync"):
        if kind == "native":
            vec: Any = MarketVecEnv(3, max_episode_steps=limits, **kwargs)
        else:
            vec = SyncVecEnv(
                [lambda limit=limit: TimeLimit(MarketEnv(**kwargs), limit) for limit in limits]
            )
        reset = vec.reset(seed=[4, 5, 6], options=options)
        action = np.tile(np.linspace(0.0, 1.0, 6, dtype=np.float32), (3, 1))
        steps = [vec.step(action) for _ in range(7)]
        results[kind] = (reset, steps)
        vec.close()
    native, sync = results["native"], results["sync"]
    assert_same(native[0].observations, sync[0].observations)
    assert_same(native[0].infos, sync[0].infos)
    for a, b in zip(native[1], sync[1], strict=True):
        assert_same(
            (a.observations, a.rewards, a.truncated, a.infos),
            (b.observations, b.rewards, b.truncated, b.infos),
        )
    assert native[0].infos[0]["timestamp"] == 8 and native[0].infos[2]["timestamp"] == 44
    truncated = [result.truncated.tolist() for result in native[1]]
    assert truncated[1] == [True, False, False] and truncated[2] == [False, True, False]


def test_arguments_and_actions_are_checked() -> None:
    with pytest.raises(TypeError, match=r"MarketVecEnv got .*'no_such_keyword'"):
        MarketVecEnv(2, no_such_keyword=1)
    with pytest.raises(ValueError, match="MarketVecEnv: max_assets"):
        MarketVecEnv(2, data=HISTORY, max_assets=0)
    vec = MarketVecEnv(2, data=HISTORY, lookback=2, episode_length=4)
    vec.reset(seed=0)
    with pytest.raises(InvalidAction, match="MarketVecEnv actions"):
        vec.step(np.full((2, 9), -1.0, np.float32))
    with pytest.raises(ValueError, match="unknown reset option"):
        vec.reset(options={"begin": 3})
    assert vec.samplers is not None and len({id(s) for s in vec.samplers}) == 2
    assert vec.latent_state is None and vec.target_weights(np.ones((2, 9))).shape == (2, 8)


def test_a_snapshot_of_now_from_before_a_reset_refuses_to_show_a_replaced_path() -> None:
    vec = registry.make_vec("Market-v0", 2, lookback=3, episode_length=2)
    vec.reset(seed=0)
    before = vec.now
    np.testing.assert_array_equal(before.prices.latest(), vec.now.prices.latest())
    space = vec.action_space
    space.seed(0)
    for _ in range(2):  # the episodes end and restart on new paths
        vec.step(np.stack([space.sample() for _ in range(2)]))
    with pytest.raises(RuntimeError, match="with_paths replaced"):
        before.prices.latest()
    assert vec.now.prices.latest().shape == (2, vec.n_total)
