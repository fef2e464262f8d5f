"""The same seed and actions give the same results on every backend."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.core import TimeLimit
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv


def _assert_info_equal(a: Any, b: Any) -> None:
    assert isinstance(a, dict) and isinstance(b, dict)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], dict):
            _assert_info_equal(a[key], b[key])
        else:
            np.testing.assert_array_equal(a[key], b[key])


def _run(vec: VecEnv[Any, Any], seed: int | None, actions: list[list[int]]) -> list[Any]:
    trace: list[Any] = []
    reset = vec.reset(seed=seed)
    trace.append((reset.observations, reset.infos))
    for batch in actions:
        r = vec.step(np.array(batch))
        trace.append((r.observations, r.rewards, r.terminated, r.truncated, r.infos))
    vec.close()
    return trace


def _assert_traces_equal(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for step_a, step_b in zip(a, b, strict=True):
        for field_a, field_b in zip(step_a, step_b, strict=True):
            if isinstance(field_a, list):
                for info_a, info_b in zip(field_a, field_b, strict=True):
                    _assert_info_equal(info_a, info_b)
            else:
                assert np.asarray(field_a).dtype == np.asarray(field_b).dtype
                np.testing.assert_array_equal(field_a, field_b)


scenario = st.integers(1, 4).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 4), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=1, max_size=12),
        st.booleans(),
        st.one_of(st.none(), st.integers(1, 4)),
        st.integers(0, 2**32),
    )
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario)
def test_sync_and_async_agree(kit: Any, case: Any) -> None:
    lengths, actions, autoreset, truncate_after, seed = case
    fns = kit.counting_fns(lengths, truncate_after=truncate_after, random_start=True)
    sync = _run(SyncVecEnv(fns, autoreset=autoreset), seed, actions)
    async_ = _run(AsyncVecEnv(fns, autoreset=autoreset), seed, actions)
    _assert_traces_equal(sync, async_)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario)
def test_native_agrees_with_sync_on_a_deterministic_env(kit: Any, case: Any) -> None:
    lengths, actions, autoreset, truncate_after, seed = case
    fns = kit.counting_fns(lengths, truncate_after=truncate_after)
    sync = _run(SyncVecEnv(fns, autoreset=autoreset), seed, actions)
    native = kit.CountingNativeVecEnv(
        len(lengths), lengths, truncate_after=truncate_after, autoreset=autoreset
    )
    _assert_traces_equal(sync, _run(native, seed, actions))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario, st.integers(1, 5))
def test_native_time_limit_matches_time_limit_wrapper(kit: Any, case: Any, limit: int) -> None:
    lengths, actions, autoreset, _, seed = case
    fns = [lambda n=n: TimeLimit(kit.CountingEnv(n), limit) for n in lengths]
    sync = _run(SyncVecEnv(fns, autoreset=autoreset), seed, actions)
    native = kit.CountingNativeVecEnv(
        len(lengths), lengths, autoreset=autoreset, max_episode_steps=limit
    )
    _assert_traces_equal(sync, _run(native, seed, actions))


# -- the registered envs: every backend, native included --------------------------------------

FORK = "fork" in multiprocessing.get_all_start_methods()
MODES = ("sync", "async", "proc", "native")


def _assert_same(a: Any, b: Any, where: str = "") -> None:
    """``a`` and ``b`` hold the same values, recursively (dicts, lists, tuples, arrays)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    else:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)


def _registered_vec(env_id: str, n: int, mode: str, kwargs: dict[str, Any]) -> Any:
    pytest.importorskip("sekai.envs")  # registers the envs; absent when sekai-vector runs alone
    from sekai.registry import make_vec

    vector_kwargs: dict[str, Any] = {"context": "fork"} if mode == "proc" and FORK else {}
    return make_vec(env_id, n, vectorization_mode=mode, vector_kwargs=vector_kwargs, **kwargs)


def _session(
    vec: VecEnv[Any, Any], seeds: list[Callable[[], Any]], actions: list[Any]
) -> list[Any]:
    """Reset with each seed in turn (built afresh per backend) and play ``actions`` after each."""
    trace: list[Any] = []
    with vec:
        for make_seed in seeds:
            reset = vec.reset(seed=make_seed())
            trace.append(("reset", reset.observations, reset.infos))
            for batch in actions:
                r = vec.step(batch)
                trace.append(("step", r.observations, r.rewards, r.terminated, r.truncated))
                trace.append(("infos", r.infos))
    return trace


def _cartpole_case(n: int) -> tuple[str, dict[str, Any], list[Any]]:
    rng = np.random.default_rng(2024)
    # Random play lasts about 22 steps: every sub-env autoresets several times.
    return "CartPole-v1", {}, [rng.integers(0, 2, size=n) for _ in range(90)]


def _portfolio_case(n: int) -> tuple[str, dict[str, Any], list[Any]]:
    from sekai.envs.samplers import RegimeSwitchingSampler

    rng = np.random.default_rng(2025)
    kwargs = {
        "sampler": RegimeSwitchingSampler(3, halt_probability=0.05, resume_probability=0.4),
        "lookback": 3,
        "episode_length": 7,
    }
    actions = []
    for _ in range(24):  # three episodes, two autoresets per sub-env
        batch = rng.random((n, 4)).astype(np.float32)
        batch[rng.random((n, 4)) < 0.3] = 0.0
        actions.append(batch)
    return "Portfolio-v0", kwargs, actions


SEED_PLANS: dict[str, list[Callable[[], Any]]] = {
    "int": [lambda: 123],
    "list": [
        lambda: 5,
        # ints re-seed, None continues, a Generator is adopted (a fresh one per backend)
        lambda: [7, None, np.random.default_rng(11), 2**40],
    ],
    "none-continues": [lambda: 3, lambda: None, lambda: [None, None, None, None]],
}


@pytest.mark.parametrize("plan", sorted(SEED_PLANS))
@pytest.mark.parametrize("case", [_cartpole_case, _portfolio_case], ids=["cartpole", "portfolio"])
def test_registered_envs_give_the_same_trajectories_on_every_backend(
    case: Callable[[int], tuple[str, dict[str, Any], list[Any]]], plan: str
) -> None:
    pytest.importorskip("sekai.envs")
    n = 4
    env_id, kwargs, actions = case(n)
    traces = {
        mode: _session(_registered_vec(env_id, n, mode, kwargs), SEED_PLANS[plan], actions)
        for mode in MODES
    }
    finals = sum(
        "final_observation" in info
        for entry in traces["sync"]
        if entry[0] == "infos"
        for info in entry[1]
    )
    assert finals >= 2 * n * len(SEED_PLANS[plan])  # autoresets are covered
    for mode in MODES[1:]:
        _assert_same(traces["sync"], traces[mode], mode)
