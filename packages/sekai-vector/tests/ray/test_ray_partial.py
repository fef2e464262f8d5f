"""Partial batches on RayVecEnv: ``send`` / ``recv`` with ``batch_size < num_envs``.

The envs, helpers and backend-generic tests of ``tests/test_partial_batches.py``
are reused: its tests that take a vector env class run here with a factory of
RayVecEnvs. The central property holds as on every backend: whatever order the
actors answer in, every sub-env's trajectory is its full-batch trajectory.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray")

from sekai.error import AsyncCallPending, ResetRequired, VecEnvWorkerError


def _partial_tests() -> ModuleType:
    path = Path(__file__).parents[1] / "test_partial_batches.py"
    name = "sekai_vector_ray_partial_tests"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # it registers itself with cloudpickle to travel by value
    spec.loader.exec_module(module)
    return module


P = _partial_tests()


@pytest.fixture
def factory(ray_vec: Any) -> Any:
    """RayVecEnvs over two actors, called as the backend classes of the shared tests are."""
    return lambda env_fns, **kwargs: ray_vec(env_fns, num_workers=2, **kwargs)


def test_every_sub_env_follows_its_full_batch_trajectory(factory: Any) -> None:
    kind, n, batch_size = "masked", 5, 2
    delays = [(0, 3, 1), (4,), (0,), (2, 0), (1, 1)]
    patterns = [delays[i % len(delays)] for i in range(n)]
    # Steps burn different amounts of CPU: the actors answer in varying orders, and
    # the actor holding two sub-envs gets actions while it is still busy.
    walk = P.Walk  # not P itself: the factories travel by value, the module need not
    vec = factory([lambda d=d: walk(kind, d, spin=True) for d in patterns], batch_size=batch_size)
    steps = 12
    for seed in (0, 1, 2):
        reference = P._full_trajectories(P._make("sync", kind, n, None, delays), seed, steps)
        partial = P._partial_trajectories(vec, seed, steps, np.random.default_rng(seed))
        for i in range(n):
            assert partial[i] == reference[i][: len(partial[i])], f"seed {seed}, sub-env {i}"
        assert sum(len(rows) for rows in partial) >= steps  # the loop really ran


def test_misuse_raises_clear_errors(factory: Any) -> None:
    P.test_misuse_raises_clear_errors(factory)


def test_reset_drops_what_is_in_flight(ray_vec: Any) -> None:
    P.test_reset_drops_what_is_in_flight(
        lambda fns, **kwargs: ray_vec(fns, num_workers=1, **kwargs)
    )


@pytest.mark.parametrize("batch_size", [0, 5, 1.5, "2"])
def test_batch_size_is_checked(factory: Any, batch_size: Any) -> None:
    P.test_batch_size_is_checked(factory, batch_size)


def test_a_failing_sub_env_raises_with_its_index_and_needs_a_reset(factory: Any) -> None:
    vec = factory([P.Failing] * 3, batch_size=2)
    vec.reset(seed=0)
    vec.send(np.array([0, 0, 2]))  # sub-env 2 is alone in the second actor

    def run_until_it_fails() -> None:
        while True:  # sub-env 2's actor may answer after the other one
            vec.recv()
            vec.send(np.zeros(2, dtype=np.int64))

    with pytest.raises(VecEnvWorkerError, match="sub-env 2 raised RuntimeError: boom") as caught:
        run_until_it_fails()
    assert caught.value.index == 2
    assert "in step" in (caught.value.worker_traceback or "")
    assert isinstance(caught.value.__cause__, RuntimeError)
    with pytest.raises(ResetRequired, match="recv"):
        vec.recv()
    vec.reset(seed=0)
    vec.send(np.zeros(3, dtype=np.int64))
    assert len(vec.recv().env_ids) == 2


def test_async_recv_with_frozen_sub_envs(factory: Any) -> None:
    vec = factory([P.Walk] * 3, autoreset=False, batch_size=1)

    async def main() -> dict[int, tuple[Any, ...]]:
        await vec.async_reset(seed=2)
        vec.send(np.zeros(3, dtype=np.int64))
        done: dict[int, tuple[Any, ...]] = {}
        received = 0
        # Which actor answers first is up to the machine: under load one can
        # lag for many rounds, so go on until every episode ended (and some
        # frozen rows came back), not for a fixed number of rounds.
        while len(done) < 3 or received < 45:
            assert received < 2000, f"episodes ended: {sorted(done)}"
            received += 1
            result = await vec.async_recv()
            assert result.env_ids is not None and len(result.env_ids) == 1
            i = int(result.env_ids[0])
            row = P._row(result, 0, vec.observation_space)
            if i in done:  # frozen: its final row again, reward 0, empty info
                assert row[0] == done[i][0] and row[2:4] == done[i][2:4]
                assert result.rewards[0] == 0.0 and result.infos[0] == {}
                assert vec.frozen[i]
            elif result.terminated[0] or result.truncated[0]:
                done[i] = row
            vec.send(np.ones(1, dtype=np.int64))
        return done

    done = asyncio.run(main())
    assert len(done) == 3  # every episode ended (truncation at 9 steps)
    with pytest.raises(AsyncCallPending, match="recv"):  # every sub-env is still in flight
        vec.step(np.zeros(3, dtype=np.int64))
    assert sorted(int(vec.recv().env_ids[0]) for _ in range(3)) == [0, 1, 2]
    full = vec.step(np.zeros(3, dtype=np.int64))
    assert full.env_ids is None and full.rewards.tolist() == [0.0, 0.0, 0.0]
