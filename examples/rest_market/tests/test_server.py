"""The web service: its API against the simulator, errors, latency, starting and stopping."""

from __future__ import annotations

import asyncio
import re
import time
from types import SimpleNamespace
from typing import Any

import aiohttp
import numpy as np
import pytest

from rest_market.server import HOST, Latency, serve_in_subprocess, serve_in_thread
from rest_market.simulator import MarketConfig, MarketSimulator


async def _call(
    url: str, method: str, path: str, payload: Any = None, *, data: str | None = None
) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http:
        kwargs: dict[str, Any] = {"data": data} if data is not None else {"json": payload}
        async with http.request(method, url + path, **kwargs) as response:
            if response.status == 204:
                return 204, None
            return response.status, await response.json(content_type=None)


def call(url: str, method: str, path: str, payload: Any = None, **kwargs: Any) -> tuple[int, Any]:
    """One HTTP request, on a loop of its own; the status and the decoded JSON body."""
    return asyncio.run(_call(url, method, path, payload, **kwargs))


def create(url: str, config: MarketConfig | None = None) -> str:
    body = {} if config is None else {"config": config.to_json()}
    status, answer = call(url, "POST", "/sessions", body)
    assert status == 201, answer
    return str(answer["id"])


def test_the_api_serves_the_simulators_outcomes(server: str, kit: SimpleNamespace) -> None:
    config: MarketConfig = kit.SHORT
    session = create(server, config)
    reference = MarketSimulator(config)
    status, answer = call(server, "POST", f"/sessions/{session}/reset", {"seed": 5})
    first = reference.reset(5)
    assert status == 200
    assert answer == {"observation": first.observation.tolist(), "info": first.info}
    for k in range(config.max_steps):
        status, answer = call(
            server, "POST", f"/sessions/{session}/step", {"action": kit.action_of(0, k)}
        )
        outcome = reference.step(kit.action_of(0, k))
        assert status == 200
        assert answer == {
            "observation": outcome.observation.tolist(),
            "reward": outcome.reward,
            "terminated": outcome.terminated,
            "truncated": outcome.truncated,
            "info": outcome.info,
        }
        if outcome.terminated or outcome.truncated:
            break
    assert call(server, "DELETE", f"/sessions/{session}") == (204, None)
    status, answer = call(server, "POST", f"/sessions/{session}/step", {"action": 1})
    assert status == 404
    assert session in answer["error"]


def test_sessions_are_independent_and_counted(server: str) -> None:
    before = call(server, "GET", "/health")[1]["sessions"]
    a, b = create(server), create(server)
    assert call(server, "GET", "/health") == (200, {"sessions": before + 2})
    first_a = call(server, "POST", f"/sessions/{a}/reset", {"seed": 1})[1]
    call(server, "POST", f"/sessions/{b}/reset", {"seed": 2})
    call(server, "POST", f"/sessions/{b}/step", {"action": 2})
    assert call(server, "POST", f"/sessions/{a}/reset", {"seed": 1})[1] == first_a
    for session in (a, b):
        call(server, "DELETE", f"/sessions/{session}")
    assert call(server, "GET", "/health") == (200, {"sessions": before})


@pytest.mark.parametrize(
    ("path", "payload", "status", "match"),
    [
        ("/reset", {"seed": -1}, 400, "seed must be a non-negative int"),
        ("/reset", {"seed": "1"}, 400, "seed must be a non-negative int"),
        ("/step", {"action": 3}, 400, r"action must be an int in \[0, 2\]"),
        ("/step", {"action": 1.0}, 400, "action must be an int"),
        ("/step", {"move": 1}, 400, "must hold an 'action'"),
        ("/step", [1], 400, "must be a JSON object"),
    ],
)
def test_bad_requests_are_answered_400(
    server: str, path: str, payload: Any, status: int, match: str
) -> None:
    session = create(server)
    call(server, "POST", f"/sessions/{session}/reset", {"seed": 0})
    got, answer = call(server, "POST", f"/sessions/{session}{path}", payload)
    assert got == status
    assert answer["error"]
    assert re.search(match, answer["error"])
    call(server, "DELETE", f"/sessions/{session}")


def test_bodies_that_are_not_json_and_bad_configs_are_answered_400(server: str) -> None:
    status, answer = call(server, "POST", "/sessions", data="{not json")
    assert status == 400
    assert "not JSON" in answer["error"]
    status, answer = call(server, "POST", "/sessions", {"config": {"lookback": 0}})
    assert status == 400
    assert "lookback must be an int >= 1" in answer["error"]
    status, answer = call(server, "POST", "/sessions", {"config": {"spread": 1}})
    assert status == 400
    assert "unknown keys" in answer["error"]


def test_steps_outside_an_episode_are_answered_409(server: str) -> None:
    session = create(server, MarketConfig(max_steps=1))
    status, answer = call(server, "POST", f"/sessions/{session}/step", {"action": 1})
    assert status == 409
    assert "reset" in answer["error"]
    call(server, "POST", f"/sessions/{session}/reset", {"seed": 0})
    assert call(server, "POST", f"/sessions/{session}/step", {"action": 1})[1]["truncated"]
    assert call(server, "POST", f"/sessions/{session}/step", {"action": 1})[0] == 409
    call(server, "DELETE", f"/sessions/{session}")


def test_unknown_sessions_are_answered_404(server: str) -> None:
    for method, path, payload in [
        ("POST", "/sessions/nope/reset", {}),
        ("POST", "/sessions/nope/step", {"action": 1}),
        ("DELETE", "/sessions/nope", None),
    ]:
        status, answer = call(server, method, path, payload)
        assert status == 404
        assert answer == {"error": "no session 'nope'"}


# -- latency ------------------------------------------------------------------------------------


def test_latency_draws_are_lognormal_with_the_given_mean_and_a_heavy_tail() -> None:
    latency = Latency(mean=2e-3, sigma=1.0)
    rng = np.random.default_rng(0)
    draws = np.array([latency.sample(rng) for _ in range(200_000)])
    assert draws.min() > 0
    assert draws.mean() == pytest.approx(2e-3, rel=0.02)
    # Lognormal with sigma 1: 1% of the draws exceed exp(2.326) = 10.2x the median,
    # that is 6.2x the mean.
    tail = np.mean(draws > 6.2 * 2e-3)
    assert 0.008 < tail < 0.012
    again = np.random.default_rng(0)
    assert [latency.sample(again) for _ in range(5)] == draws[:5].tolist()


def test_a_latency_of_mean_zero_or_sigma_zero_is_constant() -> None:
    rng = np.random.default_rng(0)
    assert Latency().sample(rng) == 0.0
    assert Latency(mean=0.25, sigma=0.0).sample(rng) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"mean": -1.0}, ValueError),
        ({"sigma": float("inf")}, ValueError),
        ({"mean": "1"}, TypeError),
    ],
)
def test_invalid_latencies_are_refused(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error, match="Latency"):
        Latency(**kwargs)


def test_the_server_waits_out_each_requests_latency_concurrently() -> None:
    delay = 0.2
    with serve_in_thread(Latency(mean=delay, sigma=0.0)) as url:

        async def timed_requests() -> tuple[float, float]:
            async with aiohttp.ClientSession() as http:

                async def health() -> None:
                    async with http.get(f"{url}/health") as response:
                        assert response.status == 200

                async def create() -> None:
                    async with http.post(f"{url}/sessions", json={}) as response:
                        assert response.status == 201

                start = time.perf_counter()
                await create()
                one = time.perf_counter() - start
                start = time.perf_counter()
                await asyncio.gather(*(create() for _ in range(8)), health())
                return one, time.perf_counter() - start

        one, eight = asyncio.run(timed_requests())
    assert one >= delay
    # Eight delayed requests at once take one delay, not eight: the server
    # awaits each delay without blocking the others.
    assert delay <= eight < 4 * delay


# -- starting and stopping ----------------------------------------------------------------------


def test_a_thread_server_listens_on_loopback_and_closes_its_port(kit: SimpleNamespace) -> None:
    with serve_in_thread() as url:
        assert url.startswith(f"http://{HOST}:")
        port = kit.port_of(url)
        assert kit.accepts_connections(port)

        async def keep_a_connection_open() -> aiohttp.ClientSession:
            http = aiohttp.ClientSession()
            async with http.get(f"{url}/health") as response:
                assert await response.json() == {"sessions": 0}
            return http

        loop = asyncio.new_event_loop()
        http = loop.run_until_complete(keep_a_connection_open())
    # The idle keep-alive connection did not keep the server running.
    assert not kit.accepts_connections(port)
    loop.run_until_complete(http.close())
    loop.close()


def test_servers_get_distinct_ports(kit: SimpleNamespace) -> None:
    with serve_in_thread() as first, serve_in_thread() as second:
        assert kit.port_of(first) != kit.port_of(second)
        assert call(first, "GET", "/health") == (200, {"sessions": 0})
        assert call(second, "GET", "/health") == (200, {"sessions": 0})


def test_a_subprocess_server_serves_the_same_market_and_stops(kit: SimpleNamespace) -> None:
    with serve_in_subprocess(Latency(mean=1e-3, sigma=1.0), seed=0) as url:
        port = kit.port_of(url)
        assert url == f"http://{HOST}:{port}"
        session = create(url)
        answer = call(url, "POST", f"/sessions/{session}/reset", {"seed": 9})[1]
        assert answer["observation"] == MarketSimulator().reset(9).observation.tolist()
    assert not kit.accepts_connections(port)
