"""AsyncVecEnv over RestMarketEnvs, with full and partial batches, against the market in process.

The reference is plain: each sub-env's market stepped alone in process by a
:class:`LocalMarketEnv`, seeded with the seed the vector seeding rule gives
that sub-env, reset when its episode ends (the vector autoreset contract).
The action of sub-env ``i`` at its ``k``-th step is a fixed function of
``(i, k)``, so a sub-env's trajectory does not depend on which other
sub-envs were stepped with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rest_market.env import LocalMarketEnv, RestMarketEnv
from rest_market.server import Latency, serve_in_thread
from rest_market.simulator import MarketConfig
from sekai.core import FINAL_INFO, FINAL_OBSERVATION, RESET_INFO, Env, StepResult
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv, VecStepResult

SEED = 2024


def rest_fns(url: str, config: MarketConfig, n: int) -> list[Callable[[], RestMarketEnv]]:
    return [lambda: RestMarketEnv(url, config)] * n


def async_vec(
    env_fns: Sequence[Callable[[], Env[Any, Any]]], **kwargs: Any
) -> AsyncVecEnv[Any, Any]:
    # VecEnv installs step / reset on AsyncVecEnv when the class is created,
    # which mypy cannot see: for it, they are still abstract.
    return AsyncVecEnv(env_fns, **kwargs)


def sync_vec(env_fns: Sequence[Callable[[], Env[Any, Any]]], **kwargs: Any) -> SyncVecEnv[Any, Any]:
    return SyncVecEnv(env_fns, **kwargs)  # as for async_vec


def solo_trajectory(
    config: MarketConfig, i: int, n: int, action_of: Callable[[int, int], int], steps: int
) -> list[StepResult[Any]]:
    """Sub-env ``i``'s first ``steps`` rows, stepped alone in process, with same-step autoreset.

    Seeded as the vector seeding rule seeds sub-env ``i`` of ``n`` for ``reset(seed=SEED)``.
    """
    env = LocalMarketEnv(config)
    env.reset(seed=make_seed_sequence(SEED, n)[i])
    rows = []
    for k in range(steps):
        result = env.step(action_of(i, k))
        if result.terminated or result.truncated:
            first = env.reset()
            info = {
                **result.info,
                FINAL_OBSERVATION: result.observation,
                FINAL_INFO: result.info,
                RESET_INFO: first.info,
            }
            result = StepResult(
                first.observation, result.reward, result.terminated, result.truncated, info
            )
        rows.append(result)
    return rows


def row(result: VecStepResult[Any], j: int) -> StepResult[Any]:
    """Row ``j`` of a vector step, as a single env's step result."""
    return StepResult(
        result.observations[j],
        float(result.rewards[j]),
        bool(result.terminated[j]),
        bool(result.truncated[j]),
        result.infos[j],
    )


# -- full batches -----------------------------------------------------------------------------


def test_full_batches_over_rest_equal_the_market_in_process(
    server: str, kit: SimpleNamespace
) -> None:
    config: MarketConfig = kit.SHORT
    n, steps = 6, 30
    actions = [np.array([kit.action_of(i, k) for i in range(n)]) for k in range(steps)]
    with async_vec(rest_fns(server, config, n)) as vec:
        remote_first = vec.reset(seed=SEED)
        remote = [vec.step(batch) for batch in actions]
    with sync_vec([lambda: LocalMarketEnv(config)] * n) as vec:
        assert vec.reset(seed=SEED) == remote_first
        local = [vec.step(batch) for batch in actions]
    assert remote == local  # observations, rewards, flags and infos (autoreset keys too)
    assert remote[0].observations.dtype == np.float32
    assert remote[0].observations.shape == (n, config.lookback + 1)

    for i in range(n):
        solo = solo_trajectory(config, i, n, kit.action_of, steps)
        assert [row(result, i) for result in remote] == solo
    ended = np.array([result.terminated | result.truncated for result in remote])
    assert ended.sum() >= n  # every sub-env was reset by autoreset at least once on average
    assert any(result.terminated.any() for result in remote)
    assert any(result.truncated.any() for result in remote)


def test_the_async_api_and_frozen_sub_envs_equal_the_market_in_process(
    server: str, kit: SimpleNamespace
) -> None:
    config: MarketConfig = kit.SHORT
    n, steps = 4, config.max_steps + 2
    actions = [np.array([kit.action_of(i, k) for i in range(n)]) for k in range(steps)]

    async def run() -> list[Any]:
        vec = async_vec(rest_fns(server, config, n), autoreset=False)
        try:
            results: list[Any] = [await vec.async_reset(seed=SEED)]
            for batch in actions:
                results.append(await vec.async_step(batch))
            return results
        finally:
            await asyncio.gather(*(env.aclose() for env in vec.envs))  # type: ignore[attr-defined]
            vec.close()

    remote = asyncio.run(run())
    with sync_vec([lambda: LocalMarketEnv(config)] * n, autoreset=False) as vec:
        local = [vec.reset(seed=SEED)] + [vec.step(batch) for batch in actions]
    assert remote == local
    assert (remote[-1].terminated | remote[-1].truncated).all()  # every sub-env is frozen


def test_sub_envs_wait_for_the_server_concurrently() -> None:
    delay, n = 0.1, 8
    with (
        serve_in_thread(Latency(mean=delay, sigma=0.0)) as url,
        async_vec(rest_fns(url, MarketConfig(), n)) as vec,
    ):
        vec.reset(seed=0)
        start = time.perf_counter()
        vec.step(np.ones(n, dtype=np.int64))
        elapsed = time.perf_counter() - start
    # One step of 8 sub-envs waits about one delay, not eight.
    assert delay <= elapsed < 4 * delay


# -- partial batches ----------------------------------------------------------------------------


def run_partial(
    vec: VecEnv[Any, Any], kit: SimpleNamespace, steps: int
) -> tuple[list[list[StepResult[Any]]], int]:
    """Send / recv until every sub-env made ``steps`` steps; each sub-env's rows, and the lead.

    The lead is the largest gap seen between the sub-envs' step counts: above
    1, some sub-envs made several steps while another one was still waiting.
    """
    n = vec.num_envs
    counts = [0] * n
    rows: list[list[StepResult[Any]]] = [[] for _ in range(n)]
    lead = 0
    vec.send(np.array([kit.action_of(i, 0) for i in range(n)]))
    while min(counts) < steps:
        result = vec.recv()
        ids = result.env_ids
        assert ids is not None
        assert ids.dtype == np.int64
        assert len(ids) == vec.batch_size == result.num_envs
        for j, i in enumerate(ids.tolist()):
            rows[i].append(row(result, j))
            counts[i] += 1
        lead = max(lead, max(counts) - min(counts))
        # env_ids given explicitly: the rows come in the order the sub-envs finished.
        vec.send(np.array([kit.action_of(i, counts[i]) for i in ids.tolist()]), ids)
    return rows, lead


@pytest.mark.parametrize("batch_size", [1, 3])
def test_partial_batches_over_rest_equal_each_sub_envs_market_in_process(
    server: str, kit: SimpleNamespace, batch_size: int
) -> None:
    config: MarketConfig = kit.SHORT
    n, steps = 3 * batch_size, 25
    with async_vec(rest_fns(server, config, n), batch_size=batch_size) as vec:
        assert vec.batch_size == batch_size
        vec.reset(seed=SEED)
        rows, lead = run_partial(vec, kit, steps)
    for i in range(n):
        solo = solo_trajectory(config, i, n, kit.action_of, len(rows[i]))
        assert rows[i] == solo, f"sub-env {i} diverged"
    # The heavy-tailed latency reordered the sub-envs: some ran ahead of others.
    assert lead >= 2
    assert sum(result.terminated for trajectory in rows for result in trajectory) > 0
    assert sum(result.truncated for trajectory in rows for result in trajectory) > 0


def test_partial_batches_with_the_async_api(server: str, kit: SimpleNamespace) -> None:
    config: MarketConfig = kit.SHORT
    n, batch_size, steps = 6, 2, 15

    async def run() -> list[list[StepResult[Any]]]:
        vec = async_vec(rest_fns(server, config, n), batch_size=batch_size)
        rows: list[list[StepResult[Any]]] = [[] for _ in range(n)]
        try:
            await vec.async_reset(seed=SEED)
            vec.send(np.array([kit.action_of(i, 0) for i in range(n)]))
            while min(map(len, rows)) < steps:
                result = await vec.async_recv()
                assert result.env_ids is not None
                ids = result.env_ids.tolist()
                for j, i in enumerate(ids):
                    rows[i].append(row(result, j))
                vec.send(np.array([kit.action_of(i, len(rows[i])) for i in ids]), ids)
            # Collect the n sub-envs still in flight: close() then finds the
            # clients idle (it would cancel the steps in flight otherwise).
            for _ in range(n // batch_size):
                await vec.async_recv()
        finally:
            vec.close()
        return rows

    rows = asyncio.run(run())
    for i in range(n):
        solo = solo_trajectory(config, i, n, kit.action_of, len(rows[i]))
        assert rows[i] == solo, f"sub-env {i} diverged"


def test_a_reset_with_sub_envs_in_flight_starts_every_sub_env_afresh(
    server: str, kit: SimpleNamespace
) -> None:
    config: MarketConfig = kit.SHORT
    n, batch_size = 6, 2
    with async_vec(rest_fns(server, config, n), batch_size=batch_size) as vec:
        vec.reset(seed=SEED)
        run_partial(vec, kit, 3)  # leaves four sub-envs in flight
        vec.reset(seed=SEED)
        rows, _ = run_partial(vec, kit, 5)
    for i in range(n):
        solo = solo_trajectory(config, i, n, kit.action_of, len(rows[i]))
        assert rows[i] == solo, f"sub-env {i} diverged"
