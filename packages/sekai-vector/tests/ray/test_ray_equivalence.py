"""RayVecEnv gives exactly what SyncVecEnv gives for the same seeds, options and actions.

Each test builds one RayVecEnv (sub-envs spread over several actors) and runs
many scenarios on it, since every reset with a seed starts the trajectories
afresh: starting actors is what costs time here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("ray")

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Sequence, Space, Tuple
from sekai.vector import SyncVecEnv, VecEnv


def _assert_same(a: Any, b: Any) -> None:
    """Equal values, types and dtypes, all the way down."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            _assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _assert_same(x, y)
    else:
        assert type(a) is type(b), (a, b)
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def _trace(vec: VecEnv[Any, Any], seed: Any, options: Any, actions: list[Any]) -> list[Any]:
    reset = vec.reset(seed=seed, options=options)
    trace: list[Any] = [(reset.observations, reset.infos)]
    for batch in actions:
        r = vec.step(batch)
        trace.append((r.observations, r.rewards, r.terminated, r.truncated, r.infos))
    return trace


def _fresh(seed: Any) -> Any:
    """A seed argument with fresh Generators (a sub-env adopts the Generator it is given)."""
    if isinstance(seed, list):
        return [np.random.default_rng(e[1]) if isinstance(e, tuple) else e for e in seed]
    return seed


N = 4  # sub-envs, over 2 actors
_seed = st.one_of(
    st.none(),
    st.integers(0, 2**32),
    st.lists(
        st.one_of(st.integers(0, 2**32), st.tuples(st.just("rng"), st.integers(0, 2**32))),
        min_size=N,
        max_size=N,
    ),
)
_start = st.builds(lambda x: {"start": float(x)}, st.integers(0, 9))
_options = st.one_of(
    st.none(), _start, st.lists(st.one_of(st.none(), _start), min_size=N, max_size=N)
)
_actions = st.lists(st.lists(st.integers(0, 2), min_size=N, max_size=N), min_size=1, max_size=8)


@pytest.mark.parametrize("autoreset", [True, False])
def test_counting_envs_agree_with_sync(ray_vec: Any, kit: Any, autoreset: bool) -> None:
    """Any seed (int, list of ints and Generators, None), options and actions, with autoreset
    on or off: the same trajectories as SyncVecEnv, including the streams that autoreset and
    later unseeded resets continue."""
    fns = kit.counting_fns((1, 2, 4, 3), truncate_after=3, random_start=True)
    vec = ray_vec(fns, autoreset=autoreset, num_workers=2)
    sync = SyncVecEnv(fns, autoreset=autoreset)
    # Both start unseeded: one seeded reset puts them in step before any None seed.
    sync.reset(seed=0)
    vec.reset(seed=0)

    @settings(
        max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(seed=_seed, options=_options, actions=_actions, later=_actions)
    def check(seed: Any, options: Any, actions: list[Any], later: list[Any]) -> None:
        batches = [np.array(a) for a in actions]
        expected = _trace(sync, _fresh(seed), options, batches)
        _assert_same(expected, _trace(vec, _fresh(seed), options, batches))
        more = [np.array(a) for a in later]  # an unseeded reset continues each stream
        _assert_same(_trace(sync, None, None, more), _trace(vec, None, None, more))
        _assert_same(sync.frozen, vec.frozen)

    check()
    sync.close()


class Wander(Env[Any, Any]):
    """A noisy walk observed through a structured space; Dict actions for the ``"dict"`` kind."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.observation_space = _space(kind)
        move = Box(-1, 1, (2,), np.float32)
        self.action_space = Dict({"move": move, "mode": Discrete(3)}) if kind == "dict" else move
        self.x = np.zeros(2)
        self.t = 0

    def _obs(self) -> Any:
        x, t = self.x, self.t % 5
        if self.kind == "dict":  # a Dict holding a Tuple and a MaskedBox
            masked = {"values": x[:, None].copy(), "mask": np.array([1, t % 2], dtype=np.int8)}
            return {"x": (x.astype(np.float32), t), "masked": masked}
        return tuple(float(v) for v in x[: 1 + t % 2])  # a Sequence: not stackable

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.x, self.t = self.rng.normal(size=2), 0
        return ResetResult(self._obs(), {"start": self.x.copy()})

    def step(self, action: Any) -> StepResult[Any]:
        move = action["move"] * (1 + action["mode"]) if self.kind == "dict" else action
        self.t += 1
        self.x = self.x + move + self.rng.normal(scale=0.1, size=2)
        info = {"t": self.t, "dtype": str(move.dtype)}
        terminated = bool(self.rng.random() < 0.2)
        return StepResult(self._obs(), float(self.x.sum()), terminated, self.t >= 6, info)


def _space(kind: str) -> Space[Any]:
    if kind == "dict":
        return Dict(
            {
                "x": Tuple((Box(-1e9, 1e9, (2,), np.float32), Discrete(5))),
                "masked": MaskedBox(-1e9, 1e9, max_size=2),
            }
        )
    return Sequence(Box(-1e9, 1e9, (), np.float64))


def _batch_actions(kind: str, rng: np.random.Generator) -> Any:
    move = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    return {"move": move, "mode": rng.integers(0, 3, 3)} if kind == "dict" else move


@pytest.mark.parametrize(("kind", "autoreset"), [("dict", False), ("sequence", True)])
def test_structured_spaces_agree_with_sync(ray_vec: Any, kind: str, autoreset: bool) -> None:
    """Dict / Tuple / MaskedBox observations (stacked in the actors) and Dict actions, and
    Sequence observations (sent as lists), over two actors."""
    fns = [lambda: Wander(kind)] * 3
    vec = ray_vec(fns, autoreset=autoreset, num_workers=2)
    sync = SyncVecEnv(fns, autoreset=autoreset)
    rng = np.random.default_rng(0)
    actions = [_batch_actions(kind, rng) for _ in range(12)]
    for seed in (0, 1, 2):
        trace = _trace(vec, seed, None, actions)
        _assert_same(_trace(sync, seed, None, actions), trace)
        assert trace[1][4][0]["dtype"] == "float32"  # the action kept its dtype
    if kind == "dict":  # batches are new, writable arrays, not views of Ray's buffers
        observations = trace[-1][0]
        leaves = [*observations["x"], *observations["masked"].values()]
        assert all(leaf.flags.owndata and leaf.flags.writeable for leaf in leaves)
    sync.close()
