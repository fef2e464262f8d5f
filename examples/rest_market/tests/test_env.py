"""RestMarketEnv against LocalMarketEnv: the same market over HTTP and in process."""

from __future__ import annotations

import asyncio
import gc
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from rest_market.env import LocalMarketEnv, MarketServerError, RestMarketEnv
from rest_market.server import serve_in_thread
from rest_market.simulator import MarketConfig
from sekai.core import Env, StepResult
from sekai.error import InvalidAction, ResetRequired, SyncCallInEventLoop
from sekai.utils.checker import check_env


def episodes(env: Env[Any, Any], kit: SimpleNamespace, seed: int, count: int) -> list[Any]:
    """``count`` episodes (the first seeded, the next continuing the stream), every result."""
    results: list[Any] = [env.reset(seed=seed)]
    for episode in range(count):
        if episode:
            results.append(env.reset())
        for k in range(100):
            result = env.step(kit.action_of(episode, k))
            results.append(result)
            if result.terminated or result.truncated:
                break
    return results


def test_the_rest_env_and_the_local_env_give_identical_results(
    server: str, kit: SimpleNamespace
) -> None:
    with RestMarketEnv(server, kit.SHORT) as rest:
        remote = episodes(rest, kit, seed=3, count=4)
    local = episodes(LocalMarketEnv(kit.SHORT), kit, seed=3, count=4)
    assert remote == local  # observations compared element by element, infos by value
    assert isinstance(remote[1], StepResult)
    assert remote[1].observation.dtype == np.float32
    assert remote[1].observation.shape == (kit.SHORT.lookback + 1,)
    assert any(result.terminated for result in remote[1:] if isinstance(result, StepResult))
    assert any(result.truncated for result in remote[1:] if isinstance(result, StepResult))


def test_the_async_api_gives_the_same_results(server: str, kit: SimpleNamespace) -> None:
    async def run() -> list[Any]:
        env = RestMarketEnv(server, kit.SHORT)
        try:
            results: list[Any] = [await env.async_reset(seed=4)]
            for k in range(kit.SHORT.max_steps):
                results.append(await env.async_step(kit.action_of(1, k)))
                if results[-1].terminated or results[-1].truncated:
                    break
            return results
        finally:
            await env.aclose()

    remote = asyncio.run(run())
    local_env = LocalMarketEnv(kit.SHORT)
    local: list[Any] = [local_env.reset(seed=4)]
    local += [local_env.step(kit.action_of(1, k)) for k in range(len(remote) - 1)]
    assert remote == local


# check_env runs the async API under asyncio.run, whose loop closes with a pooled
# connection open (see RestMarketEnv): its socket is collected inside the test.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_both_envs_pass_check_env(server: str, kit: SimpleNamespace) -> None:
    with RestMarketEnv(server, kit.SHORT) as rest:
        assert check_env(rest, n_steps=40, check_determinism=True) == []
    assert check_env(LocalMarketEnv(kit.SHORT), n_steps=40, check_determinism=True) == []
    gc.collect()


def test_a_generator_seed_is_turned_into_an_int_seed_the_same_way(server: str) -> None:
    with RestMarketEnv(server) as rest:
        remote = rest.reset(seed=np.random.default_rng(12))
    local = LocalMarketEnv().reset(seed=np.random.default_rng(12))
    assert remote == local
    assert remote != LocalMarketEnv().reset(seed=12)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_the_env_moves_between_event_loops(server: str, kit: SimpleNamespace) -> None:
    # Sync calls (the env's loop), then asyncio.run (a new loop), then sync again.
    local = LocalMarketEnv(kit.SHORT)
    rest = RestMarketEnv(server, kit.SHORT)
    with rest:
        assert rest.reset(seed=8) == local.reset(seed=8)
        assert rest.step(2) == local.step(2)

        async def two_steps() -> list[StepResult[Any]]:
            return [await rest.async_step(0), await rest.async_step(1)]

        assert asyncio.run(two_steps()) == [local.step(0), local.step(1)]
        assert rest.step(2) == local.step(2)
    # asyncio.run closed its loop with a pooled connection still open: the
    # documented leak, collected here rather than in another test.
    gc.collect()


def test_steps_outside_an_episode_raise_reset_required(server: str) -> None:
    config = MarketConfig(max_steps=2)
    for env in (RestMarketEnv(server, config), LocalMarketEnv(config)):
        with env:
            with pytest.raises(ResetRequired, match="reset"):
                env.step(1)
            env.reset(seed=0)
            env.step(1)
            assert env.step(1).truncated
            with pytest.raises(ResetRequired, match="reset"):
                env.step(1)


def test_a_step_before_reset_sends_nothing(server: str, kit: SimpleNamespace) -> None:
    sessions = kit.live_sessions(server)
    env = RestMarketEnv(server)
    with env:
        with pytest.raises(ResetRequired):
            env.step(1)
        assert env.session_id is None
        assert kit.live_sessions(server) == sessions


@pytest.mark.parametrize("action", [3, -1, 1.0, np.array([1]), "2"])
def test_invalid_actions_raise_before_anything_is_sent(
    server: str, action: Any, kit: SimpleNamespace
) -> None:
    with RestMarketEnv(server) as env:
        env.reset(seed=0)
        with pytest.raises(InvalidAction, match=r"action must be an int in \[0, 2\]"):
            env.step(action)
        assert env.step(np.int64(1)).info["t"] == 1  # the episode did not advance


def test_close_deletes_the_server_session_once(server: str, kit: SimpleNamespace) -> None:
    sessions = kit.live_sessions(server)
    env = RestMarketEnv(server)
    env.reset(seed=0)
    assert kit.live_sessions(server) == sessions + 1
    env.close()
    assert kit.live_sessions(server) == sessions
    env.close()
    with pytest.raises(ResetRequired, match="closed"):
        env.step(1)
    with pytest.raises(ResetRequired, match="closed"):
        env.reset()


def test_close_inside_the_clients_event_loop_still_deletes_the_session(
    server: str, kit: SimpleNamespace
) -> None:
    sessions = kit.live_sessions(server)

    async def run() -> None:
        env = RestMarketEnv(server)
        await env.async_reset(seed=0)
        await env.async_step(2)
        env.close()  # cannot await: the session is deleted from a helper thread

    asyncio.run(run())
    assert kit.live_sessions(server) == sessions


def test_aclose_closes_everything_before_returning(server: str, kit: SimpleNamespace) -> None:
    sessions = kit.live_sessions(server)

    async def run() -> RestMarketEnv:
        env = RestMarketEnv(server)
        await env.async_reset(seed=0)
        client = env._http
        assert client is not None
        await env.aclose()
        assert client.closed
        return env

    env = asyncio.run(run())
    assert kit.live_sessions(server) == sessions
    env.close()  # idempotent


def test_the_sync_api_refuses_to_run_inside_an_event_loop(server: str) -> None:
    async def run() -> None:
        with RestMarketEnv(server) as env, pytest.raises(SyncCallInEventLoop, match="async_reset"):
            env.reset(seed=0)

    asyncio.run(run())


def test_an_unreachable_server_raises_market_server_error(kit: SimpleNamespace) -> None:
    with serve_in_thread() as url:
        pass  # started and stopped: nothing listens on its port any more
    assert not kit.accepts_connections(kit.port_of(url))
    with RestMarketEnv(url, timeout=5.0) as env, pytest.raises(MarketServerError, match="failed"):
        env.reset(seed=0)


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="http"):
        RestMarketEnv("127.0.0.1:8080")
