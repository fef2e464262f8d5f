"""Partial batches: ``send`` / ``recv`` with ``batch_size < num_envs``.

The central property: whatever order the sub-envs become ready in, and
whichever of them a learner sends actions to, every sub-env's trajectory is
the one it has under full-batch stepping with the same seed and actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.error import (
    AsyncCallPending,
    InvalidAction,
    NothingInFlight,
    ResetRequired,
    VecEnvClosed,
    VecEnvWorkerError,
)
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Space, Tuple
from sekai.vector import (
    AsyncVecEnv,
    ProcVecEnv,
    SyncVecEnv,
    VecEnv,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
    VecStepResult,
)

KINDS = ("box", "dict", "tuple", "masked")
# Workers fork (fast to start) where the platform can; elsewhere this module
# travels to them by value (it is not importable by name there).
CONTEXT = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
with contextlib.suppress(ImportError, ValueError):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _space(kind: str) -> Space[Any]:
    if kind == "box":
        return Box(-1e9, 1e9, (2,), np.float64)
    if kind == "dict":
        return Dict({"x": Box(-1e9, 1e9, (1,), np.float64), "t": Discrete(1000)})
    if kind == "tuple":
        return Tuple((Box(-1e9, 1e9, (1,), np.float64), Discrete(1000)))
    return MaskedBox(-1e9, 1e9, (1,), max_size=3)


class Walk(Env[Any, int]):
    """A seeded random walk whose episodes end at random; its async step waits ``delays``.

    ``delays[t % len(delays)]`` is how many times step ``t`` yields to the
    event loop (``spin``: how long it computes, for worker processes):
    different sub-envs finish their steps in different orders.
    """

    def __init__(
        self, kind: str = "box", delays: tuple[int, ...] = (0,), spin: bool = False
    ) -> None:
        self.kind = kind
        self.delays = delays
        self.spin = spin
        self.observation_space = _space(kind)
        self.action_space = Discrete(3)
        self.x = 0.0
        self.t = 0

    def _obs(self) -> Any:
        x, t = self.x, self.t % 1000
        if self.kind == "box":
            return np.array([x, t], dtype=np.float64)
        if self.kind == "dict":
            return {"x": np.array([x]), "t": t}
        if self.kind == "tuple":
            return (np.array([x]), t)
        size = t % 4
        values = np.zeros((3, 1))
        values[:size, 0] = x
        return {"values": values, "mask": (np.arange(3) < size).astype(np.int8)}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.x, self.t = float(self.rng.normal()), 0
        return ResetResult(self._obs(), {"start": self.x})

    def step(self, action: int) -> StepResult[Any]:
        if self.spin:
            sum(range(20_000 * self.delays[self.t % len(self.delays)]))
        self.t += 1
        self.x += float(action) - 1.0 + float(self.rng.normal())
        terminated = bool(self.rng.random() < 0.15)
        truncated = self.t >= 9
        return StepResult(self._obs(), self.x, terminated, truncated, {"t": self.t})

    async def async_step(self, action: int) -> StepResult[Any]:
        for _ in range(self.delays[self.t % len(self.delays)]):
            await asyncio.sleep(0)
        return self.step(action)


def _action(env_id: int, k: int) -> int:
    return (3 * env_id + k * k) % 3


def _row(result: VecStepResult[Any], k: int, space: Space[Any]) -> tuple[Any, ...]:
    """Row ``k`` of a result, as comparable plain values (final observation included)."""
    from sekai.vector._rows import get_row

    info = result.infos[k]
    final = info.get("final_observation")
    return (
        repr(get_row(result.observations, k, space)),
        float(result.rewards[k]),
        bool(result.terminated[k]),
        bool(result.truncated[k]),
        repr(final),
        info.get("t"),
    )


def _full_trajectories(
    make: Callable[[], VecEnv[Any, Any]], seed: int, steps: int
) -> list[list[tuple[Any, ...]]]:
    vec = make()
    n = vec.num_envs
    vec.reset(seed=seed)
    rows: list[list[tuple[Any, ...]]] = [[] for _ in range(n)]
    for k in range(steps):
        result = vec.step(np.array([_action(i, k) for i in range(n)]))
        for i in range(n):
            rows[i].append(_row(result, i, vec.observation_space))
    vec.close()
    return rows


def _partial_trajectories(
    vec: VecEnv[Any, Any], seed: int, steps: int, shuffle: np.random.Generator
) -> list[list[tuple[Any, ...]]]:
    n = vec.num_envs
    vec.reset(seed=seed)
    rows: list[list[tuple[Any, ...]]] = [[] for _ in range(n)]
    ids = shuffle.permutation(n)  # any order of sending works
    vec.send(np.array([_action(int(i), 0) for i in ids]), ids)
    while True:
        result = vec.recv()
        assert result.env_ids is not None and len(result.env_ids) == vec.batch_size
        for k, i in enumerate(result.env_ids.tolist()):
            rows[i].append(_row(result, k, vec.observation_space))
        again = [i for i in result.env_ids.tolist() if len(rows[i]) < steps]
        if len(again) < len(result.env_ids):
            break  # stop before any sub-env runs past the reference
        vec.send(np.array([_action(i, len(rows[i])) for i in again]), again)
    return rows


def _make(
    backend: str,
    kind: str,
    n: int,
    batch: int | None,
    delays: list[tuple[int, ...]],
    num_workers: int | None = None,
) -> Callable[[], VecEnv[Any, Any]]:
    patterns = [delays[i % len(delays)] for i in range(n)]
    if backend == "proc":
        fns = [lambda d=d: Walk(kind, d, spin=True) for d in patterns]
        return lambda: ProcVecEnv(fns, batch_size=batch, context=CONTEXT, num_workers=num_workers)
    cls = SyncVecEnv if backend == "sync" else AsyncVecEnv
    fns = [lambda d=d: Walk(kind, d) for d in patterns]
    return lambda: cls(fns, batch_size=batch)


@pytest.mark.parametrize("backend", ["sync", "async", "proc"])
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 6),
    data=st.data(),
    seed=st.integers(0, 2**16),
    delays=st.lists(st.tuples(*[st.integers(0, 4)] * 3), min_size=1, max_size=6),
)
def test_every_sub_env_follows_its_full_batch_trajectory(
    backend: str,
    kind: str,
    n: int,
    data: st.DataObject,
    seed: int,
    delays: list[tuple[int, ...]],
) -> None:
    if backend == "proc":
        pytest.importorskip("cloudpickle")
    batch = data.draw(st.integers(1, n), label="batch_size")
    workers = data.draw(st.sampled_from([None, 1, 2]), label="num_workers")
    steps = 12
    # The reference is full-batch stepping on SyncVecEnv: every backend gives
    # the same trajectories for one seed (the cross-backend equivalence tests).
    reference = _full_trajectories(_make("sync", kind, n, None, delays), seed, steps)
    vec = _make(backend, kind, n, batch, delays, workers)()
    partial = _partial_trajectories(vec, seed, steps, np.random.default_rng(seed))
    vec.close()
    for i in range(n):
        assert partial[i] == reference[i][: len(partial[i])], f"sub-env {i}"
    assert sum(len(rows) for rows in partial) >= steps  # the loop really ran


def test_async_hands_back_the_first_to_finish() -> None:
    # Sub-env 0 yields many times per step, sub-env 2 never: 2 and 1 come first.
    fns = [lambda d=d: Walk("box", (d,)) for d in (6, 3, 0)]
    vec = AsyncVecEnv(fns, batch_size=2)
    vec.reset(seed=0)
    vec.send(np.zeros(3, dtype=np.int64))
    assert vec.recv().env_ids.tolist() == [2, 1]
    vec.send(np.zeros(2, dtype=np.int64))  # to 2 and 1 again
    assert vec.recv().env_ids.tolist() == [0, 2]
    vec.close()


def test_async_recv_under_await() -> None:
    async def main() -> list[list[int]]:
        fns = [lambda d=d: Walk("box", (d,)) for d in (3, 0, 1, 2)]
        vec = AsyncVecEnv(fns, batch_size=2)
        await vec.async_reset(seed=3)
        vec.send(np.zeros(4, dtype=np.int64))
        seen = []
        for _ in range(5):
            result = await vec.async_recv()
            seen.append(result.env_ids.tolist())
            vec.send(np.ones(2, dtype=np.int64))
        vec.close()
        return seen

    seen = asyncio.run(main())
    assert seen[0] == [1, 2]
    assert all(len(ids) == 2 and len(set(ids)) == 2 for ids in seen)


def _proc(fns: Any, **kwargs: Any) -> VecEnv[Any, Any]:
    pytest.importorskip("cloudpickle")
    return ProcVecEnv(fns, context=CONTEXT, num_workers=2, **kwargs)


BACKEND_CLASSES = [SyncVecEnv, AsyncVecEnv, _proc]


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
def test_full_batch_step_is_unchanged(cls: Any) -> None:
    vec = cls([Walk] * 3, batch_size=2)
    assert vec.batch_size == 2
    vec.reset(seed=1)
    result = vec.step(np.zeros(3, dtype=np.int64))
    assert result.env_ids is None and result.num_envs == 3
    vec.close()


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
def test_misuse_raises_clear_errors(cls: Any) -> None:
    vec = cls([Walk] * 4, batch_size=2)
    with pytest.raises(ResetRequired):
        vec.send(np.zeros(4, dtype=np.int64))
    vec.reset(seed=0)
    with pytest.raises(NothingInFlight, match="batch_size=2"):
        vec.recv()
    vec.send(np.zeros(1, dtype=np.int64), [3])
    with pytest.raises(NothingInFlight, match="1 were sent"):
        vec.recv()
    with pytest.raises(ValueError, match="not received yet"):
        vec.send(np.zeros(1, dtype=np.int64), [3])
    with pytest.raises(ValueError, match="twice"):
        vec.send(np.zeros(2, dtype=np.int64), [0, 0])
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        vec.send(np.zeros(1, dtype=np.int64), [4])
    with pytest.raises(InvalidAction, match=r"shape \(2,\)"):  # three actions, two sub-envs
        vec.send(np.zeros(3, dtype=np.int64), [0, 1])
    with pytest.raises(AsyncCallPending, match="recv"):
        vec.step(np.zeros(4, dtype=np.int64))
    vec.send(np.zeros(3, dtype=np.int64))  # None: every sub-env not in flight (0, 1, 2)
    assert sorted(vec.recv().env_ids.tolist() + vec.recv().env_ids.tolist()) == [0, 1, 2, 3]
    vec.close()
    with pytest.raises(VecEnvClosed):
        vec.send(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
@pytest.mark.parametrize("batch_size", [0, 5, 1.5, "2"])
def test_batch_size_is_checked(cls: Any, batch_size: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="batch_size"):
        cls([Walk] * 4, batch_size=batch_size)


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
def test_reset_drops_what_is_in_flight(cls: Any) -> None:
    vec = cls([Walk] * 3, batch_size=1)
    first = vec.reset(seed=5)
    vec.send(np.zeros(3, dtype=np.int64))
    vec.recv()
    again = vec.reset(seed=5)
    assert again == first
    result = vec.step(np.zeros(3, dtype=np.int64))  # nothing left in flight
    assert result.num_envs == 3
    vec.close()


def test_frozen_sub_envs_report_their_final_row() -> None:
    vec = SyncVecEnv([Walk] * 2, autoreset=False, batch_size=1)
    vec.reset(seed=2)
    vec.send(np.zeros(2, dtype=np.int64))
    seen_done: dict[int, tuple[Any, ...]] = {}
    for _ in range(40):
        result = vec.recv()
        i = int(result.env_ids[0])
        row = _row(result, 0, vec.observation_space)
        if i in seen_done:
            assert result.rewards[0] == 0.0
            assert row[0] == seen_done[i][0] and row[2:4] == seen_done[i][2:4]
            assert vec.frozen[i]
        elif result.terminated[0] or result.truncated[0]:
            seen_done[i] = row
        vec.send(np.zeros(1, dtype=np.int64))
    assert seen_done  # an episode ended within 40 steps (truncation at 9)
    vec.close()


class Failing(Walk):
    def step(self, action: int) -> StepResult[Any]:
        if action == 2:
            raise RuntimeError("boom")
        return super().step(action)


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
def test_a_failing_sub_env_needs_a_reset(cls: Any) -> None:
    vec = cls([Failing] * 3, batch_size=2)
    vec.reset(seed=0)
    vec.send(np.array([2, 0, 0]))

    def run_until_it_fails() -> None:
        while True:  # the failing sub-env may not be among the first to answer
            vec.recv()
            vec.send(np.zeros(2, dtype=np.int64))

    with pytest.raises(RuntimeError, match="boom") as caught:
        run_until_it_fails()
    if cls is _proc:
        assert isinstance(caught.value, VecEnvWorkerError) and caught.value.index == 0
    with pytest.raises(ResetRequired):
        vec.recv()
    vec.reset(seed=0)
    vec.send(np.zeros(3, dtype=np.int64))
    assert len(vec.recv().env_ids) == 2
    vec.close()


# -- vector wrappers on partial batches ------------------------------------------------


def _run_partial(vec: VecEnv[Any, Any], rounds: int) -> list[VecStepResult[Any]]:
    vec.reset(seed=11)
    vec.send(np.zeros(vec.num_envs, dtype=np.int64))
    results = []
    for _ in range(rounds):
        result = vec.recv()
        results.append(result)
        vec.send(np.ones(len(result.env_ids), dtype=np.int64))
    return results


def test_episode_statistics_are_kept_per_sub_env() -> None:
    rounds = 60
    inner = SyncVecEnv([Walk] * 4, batch_size=3)
    vec = VecRecordEpisodeStatistics(inner)
    results = _run_partial(vec, rounds)
    # Rebuild each sub-env's episodes from the raw rows and compare.
    returns = np.zeros(4)
    lengths = np.zeros(4, dtype=int)
    expected = []
    for result in results:
        assert result.env_ids is not None
        for k, i in enumerate(result.env_ids.tolist()):
            returns[i] += result.rewards[k]
            lengths[i] += 1
            if result.terminated[k] or result.truncated[k]:
                stats = result.infos[k]["episode"]
                expected.append((returns[i], lengths[i]))
                assert stats.episode_return == pytest.approx(returns[i])
                assert stats.episode_length == lengths[i]
                returns[i], lengths[i] = 0.0, 0
            else:
                assert "episode" not in result.infos[k]
    assert len(expected) == vec.episode_count > 0
    vec.close()


def test_reward_normaliser_keeps_one_return_per_sub_env() -> None:
    gamma = 0.9
    vec = VecNormalizeReward(SyncVecEnv([Walk] * 3, batch_size=2), gamma=gamma)
    results = _run_partial(vec, 20)
    returns = np.zeros(3)
    seen: list[float] = []
    raw_rewards = _run_partial(SyncVecEnv([Walk] * 3, batch_size=2), 20)
    for result, raw in zip(results, raw_rewards, strict=True):
        assert result.env_ids is not None
        for k, i in enumerate(result.env_ids.tolist()):
            returns[i] = returns[i] * gamma + raw.rewards[k]
            seen.append(returns[i])
            if raw.terminated[k] or raw.truncated[k]:
                returns[i] = 0.0
    # RunningMeanStd starts from a tiny prior count (1e-4): agreement to ~1e-5.
    assert vec.return_rms.mean == pytest.approx(np.mean(seen), rel=1e-4)
    assert vec.return_rms.var == pytest.approx(np.var(seen), rel=1e-4)
    vec.close()


def test_observation_normaliser_updates_on_the_rows_it_sees() -> None:
    vec = VecNormalizeObservation(SyncVecEnv([Walk] * 3, batch_size=2))
    raw = _run_partial(SyncVecEnv([Walk] * 3, batch_size=2), 15)
    _run_partial(vec, 15)
    rows = [raw_result.observations for raw_result in raw]
    first = SyncVecEnv([Walk] * 3, batch_size=2)
    start = first.reset(seed=11).observations
    first.close()
    everything = np.concatenate([start, *rows])
    assert vec.obs_rms.count == pytest.approx(len(everything) + 1e-4, rel=1e-3)
    assert np.allclose(vec.obs_rms.mean, everything.mean(axis=0), atol=1e-6)
    vec.close()


# -- make_vec --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_passes_batch_size(mode: str) -> None:
    pytest.importorskip("sekai.envs")  # registers CartPole; absent when sekai-vector runs alone
    from sekai.registry import make_vec

    vec = make_vec("CartPole-v1", 4, vectorization_mode=mode, batch_size=3)
    assert vec.batch_size == 3
    vec.reset(seed=0)
    vec.send(np.zeros(4, dtype=np.int64))
    assert len(vec.recv().env_ids) == 3
    vec.close()


def test_make_vec_rejects_partial_batches_of_a_native_env() -> None:
    pytest.importorskip("sekai.envs")
    from sekai.registry import make_vec

    with pytest.raises(ValueError, match="native vector env steps all its sub-envs"):
        make_vec("CartPole-v1", 4, batch_size=2)
    with pytest.raises(ValueError, match="batch_size"):
        make_vec("CartPole-v1", 4, vectorization_mode="sync", batch_size=5)
    native = make_vec("CartPole-v1", 4, batch_size=4)  # a full batch works everywhere
    native.reset(seed=0)
    native.send(np.zeros(4, dtype=np.int64))
    result = native.recv()
    assert result.env_ids is not None and result.env_ids.tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="every sub-env at once"):
        native.send(np.zeros(2, dtype=np.int64), [0, 1])
    native.close()


class Echo(Walk):
    """Observes the last action it received (and its step count)."""

    def step(self, action: int) -> StepResult[Any]:
        super().step(action)
        return StepResult(np.array([float(action), self.t]), 0.0, False, False, {})

    async def async_step(self, action: int) -> StepResult[Any]:
        for _ in range(self.delays[self.t % len(self.delays)]):
            await asyncio.sleep(0)
        return self.step(action)


@pytest.mark.parametrize("cls", BACKEND_CLASSES)
def test_send_without_ids_follows_the_rows_of_the_last_recv(cls: Any) -> None:
    # On Async, sub-env 0 is the slowest: rows come back out of id order. The
    # action of row k must reach the sub-env of row k.
    fns = [lambda d=d: Echo("box", (d,), spin=True) for d in (6, 3, 0)]
    vec = cls(fns, batch_size=2)
    vec.reset(seed=4)
    vec.send(np.zeros(3, dtype=np.int64))
    checked = 0
    expected: dict[int, int] = {}
    for _ in range(10):
        result = vec.recv()
        for k, i in enumerate(result.env_ids.tolist()):
            if i in expected:
                assert result.observations[k][0] == expected.pop(i), f"sub-env {i}"
                checked += 1
        ids = result.env_ids.tolist()
        actions = np.array([i % 3 for i in ids])  # each sub-env's own action
        expected.update(zip(ids, actions.tolist(), strict=True))
        vec.send(actions)
    vec.close()
    assert checked >= 10
