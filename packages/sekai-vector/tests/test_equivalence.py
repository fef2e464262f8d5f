"""The same seed and actions give the same results on every backend."""

from __future__ import annotations

from typing import Any

import numpy as np
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
