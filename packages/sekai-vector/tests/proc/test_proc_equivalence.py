"""ProcVecEnv gives exactly what SyncVecEnv gives, for every configuration and space."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult, TimeLimit
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Sequence, Tuple
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv


def _assert_equal(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            _assert_equal(a[key], b[key])
    elif isinstance(a, (list, tuple)) and not isinstance(a, np.ndarray):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_equal(x, y)
    else:
        assert type(a) is type(b), (a, b)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def _run(vec: VecEnv[Any, Any], seed: Any, options: Any, actions: list[Any]) -> list[Any]:
    reset = vec.reset(seed=seed, options=options)
    trace: list[Any] = [(reset.observations, reset.infos)]
    for batch in actions:
        r = vec.step(batch)
        trace.append((r.observations, r.rewards, r.terminated, r.truncated, r.infos))
    vec.close()
    return trace


scenario = st.integers(1, 4).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 4), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=1, max_size=10),
        st.booleans(),
        st.one_of(st.none(), st.integers(1, 4)),
        st.one_of(st.none(), st.integers(0, 2**32)),
        st.integers(1, n),
        st.sampled_from([None, False]),
        st.sampled_from(["int64", "int32", "list"]),
    )
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario)
def test_counting_envs_agree_with_sync(kit: Any, proc: Any, case: Any) -> None:
    lengths, actions, autoreset, truncate_after, seed, workers, shared, kind = case
    # Unseeded random starts differ from run to run: random only with a seed.
    fns = kit.counting_fns(lengths, truncate_after=truncate_after, random_start=seed is not None)
    batches = [np.array(a, dtype=kind) if kind != "list" else a for a in actions]
    expected = _run(SyncVecEnv(fns, autoreset=autoreset), seed, None, batches)
    vec = proc(fns, autoreset=autoreset, num_workers=workers, shared_memory=shared)
    assert vec.shared_memory is (shared is None)
    _assert_equal(expected, _run(vec, seed, None, batches))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(scenario, st.integers(1, 5))
def test_time_limit_and_options_agree_with_sync(kit: Any, proc: Any, case: Any, limit: int) -> None:
    lengths, actions, autoreset, _, seed, workers, shared, _ = case
    fns = [lambda n=n: TimeLimit(kit.CountingEnv(n), limit) for n in lengths]
    options = [{"start": float(i)} for i in range(len(lengths))]
    expected = _run(SyncVecEnv(fns, autoreset=autoreset), seed, options, actions)
    vec = proc(fns, autoreset=autoreset, num_workers=workers, shared_memory=shared)
    _assert_equal(expected, _run(vec, seed, options, actions))


def _seed_arg(n: int) -> st.SearchStrategy[Any]:
    """Every form of reset seed that gives a reproducible run: an int, or a list of ints
    and Generators (a Generator entry is written ``("rng", seed)``, see :func:`_seed`)."""
    entry = st.one_of(st.integers(0, 2**32), st.tuples(st.just("rng"), st.integers(0, 2**32)))
    return st.one_of(st.integers(0, 2**32), st.lists(entry, min_size=n, max_size=n))


def _seed(arg: Any) -> Any:
    """The seed argument of one run: fresh Generators, since a sub-env adopts its own."""
    if isinstance(arg, list):
        return [np.random.default_rng(e[1]) if isinstance(e, tuple) else e for e in arg]
    return arg


def _options_arg(n: int) -> st.SearchStrategy[Any]:
    """Every form of reset options: None, one dict, or a list of dicts and Nones."""
    start = st.builds(lambda x: {"start": float(x)}, st.integers(0, 9))
    return st.one_of(
        st.none(), start, st.lists(st.one_of(st.none(), start), min_size=n, max_size=n)
    )


backends_scenario = st.integers(1, 3).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(1, 3), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=1, max_size=8),
        st.booleans(),
        _seed_arg(n),
        _options_arg(n),
        _options_arg(n),
        st.integers(1, n),
    )
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(backends_scenario)
def test_sync_async_and_proc_give_identical_trajectories(kit: Any, proc: Any, case: Any) -> None:
    """One seed (an int, or a list of ints and Generators) and one options argument
    (a dict, a list or None) give the same trajectory on Sync, Async and Proc, with
    autoreset on or off, including the random streams that autoreset and a later
    ``reset(seed=None)`` continue."""
    lengths, actions, autoreset, seed, options, later_options, workers = case
    fns = kit.counting_fns(lengths, random_start=True)

    def run(vec: VecEnv[Any, Any]) -> list[Any]:
        trace = _run_open(vec, _seed(seed), options, actions)
        trace += _run_open(vec, None, later_options, actions)
        vec.close()
        return trace

    expected = run(SyncVecEnv(fns, autoreset=autoreset))
    _assert_equal(expected, run(AsyncVecEnv(fns, autoreset=autoreset)))
    _assert_equal(expected, run(proc(fns, autoreset=autoreset, num_workers=workers)))


def _run_open(vec: VecEnv[Any, Any], seed: Any, options: Any, actions: list[Any]) -> list[Any]:
    reset = vec.reset(seed=seed, options=options)
    trace: list[Any] = [(reset.observations, reset.infos)]
    for batch in actions:
        r = vec.step(np.array(batch))
        trace.append((r.observations, r.rewards, r.terminated, r.truncated, r.infos))
    return trace


class BoxActionEnv(Env[Any, Any]):
    """Adds Box actions to its state; reports the action's dtype (it must be what was sent)."""

    def __init__(self, observation_space: Any = None) -> None:
        self.action_space = Box(-1, 1, (2,), np.float32)
        self.observation_space = observation_space or Box(-100, 100, (2,), np.float64)
        self.state = np.zeros(2)

    def _obs(self) -> Any:
        space = self.observation_space
        if isinstance(space, MaskedBox):
            return {
                "values": np.array([[self.state[0]], [self.state[1]]], dtype=np.float32),
                "mask": np.array([1, int(self.state[1] > 0)], dtype=np.int8),
            }
        if isinstance(space, Dict):
            return {"pos": self.state.copy(), "n": int(abs(self.state[0] * 10)) % 5}
        if isinstance(space, Tuple):
            return (self.state.copy(), int(abs(self.state[1] * 10)) % 5)
        if isinstance(space, Sequence):
            return tuple(float(x) for x in self.state[: 1 + int(self.state[0] > 0)])
        return self.state.copy()

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.state = self.rng.uniform(-1, 1, 2)
        return ResetResult(self._obs(), {"start": self.state.copy()})

    def step(self, action: Any) -> StepResult[Any]:
        self.state = self.state + action
        info = {"dtype": str(action.dtype), "action": action}
        return StepResult(
            self._obs(), float(self.state.sum()), bool(self.state[0] > 2), False, info
        )


SPACES = {
    "box": None,
    "dict": Dict({"pos": Box(-100, 100, (2,), np.float64), "n": Discrete(5)}),
    "tuple": Tuple((Box(-100, 100, (2,), np.float64), Discrete(5))),
    "masked-box": MaskedBox(-100, 100, (1,), max_size=2),
    "sequence": Sequence(Box(-100, 100, (), np.float64)),
}


@pytest.mark.parametrize("space", sorted(SPACES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spaces_and_action_dtypes_agree_with_sync(proc: Any, space: str, dtype: Any) -> None:
    rng = np.random.default_rng(0)
    actions = [rng.uniform(-1, 1, (3, 2)).astype(dtype) for _ in range(8)]
    fns = [lambda: BoxActionEnv(SPACES[space])] * 3
    expected = _run(SyncVecEnv(fns), 7, None, actions)
    vec = proc(fns, num_workers=2)
    assert vec.shared_memory is (space != "sequence")
    trace = _run(vec, 7, None, actions)
    _assert_equal(expected, trace)
    assert trace[1][4][0]["dtype"] == np.dtype(dtype).name


def test_dict_actions_agree_with_sync(kit: Any, proc: Any) -> None:
    actions = [
        {"move": np.full((3, 2), 0.5, np.float32), "mode": np.array([0, 3, 1])},
        {"move": np.full((3, 2), -1.0, np.float32), "mode": np.array([2, 2, 3])},
        {"move": np.zeros((3, 2), np.float32), "mode": np.array([1, 1, 1])},
    ]
    fns = [kit.DictEnv] * 3
    expected = _run(SyncVecEnv(fns), 1, None, actions)
    vec = proc(fns, num_workers=2)
    assert vec.shared_memory
    _assert_equal(expected, _run(vec, 1, None, actions))


def test_returned_observations_own_their_memory(proc: Any) -> None:
    vec = proc([lambda: BoxActionEnv(SPACES["dict"])] * 2)
    first = vec.reset(seed=0).observations
    kept = {key: value.copy() for key, value in first.items()}
    second = vec.step(np.ones((2, 2), np.float32)).observations
    for batch in (first, second):
        assert all(leaf.flags.owndata for leaf in batch.values())
    for key in kept:
        np.testing.assert_array_equal(first[key], kept[key])
