"""The market simulator as a web service: an aiohttp server on 127.0.0.1.

The server keeps one :class:`~rest_market.simulator.MarketSimulator` per
client session. Every request under ``/sessions`` first waits a simulated
network and queueing delay, drawn per request from a heavy-tailed lognormal
distribution (:class:`Latency`) with the server's own seeded generator, and
awaited with :func:`asyncio.sleep`, so one slow request never holds up the
others. The delay never changes the simulation: prices come from each
session's generator, seeded by the client.

API (JSON in and out; an error is ``{"error": message}`` with a 4xx status):

==========================  ==========================  =========================================
Request                     Body                        Answer
==========================  ==========================  =========================================
``POST /sessions``          ``{"config": {...}}``       201 ``{"id": ..., "config": {...}}``
``POST /sessions/{id}/      ``{"seed": int | null}``    ``{"observation": [...], "info": {...}}``
reset``
``POST /sessions/{id}/      ``{"action": int}``         ``{"observation", "reward", "terminated",
step``                                                  "truncated", "info"}``
``DELETE /sessions/{id}``                               204
``GET /health``                                         ``{"sessions": n}`` (no simulated delay)
==========================  ==========================  =========================================

A step before a reset or after the episode ended answers 409; an unknown
session 404; a malformed body, config, seed or action 400.

Run a server with :func:`serve_in_thread` (its own event loop in a background
thread: what the tests do) or :func:`serve_in_subprocess` (a separate Python
process: what a benchmark does, so the server's CPU time is not the
client's), or from a shell with ``python -m rest_market.server``. Both
helpers listen on an OS-assigned port of 127.0.0.1 only, yield the base URL
and stop the server (closing its port) when the ``with`` block ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web

from .simulator import EpisodeOver, MarketConfig, MarketSimulator

__all__ = [
    "HOST",
    "Latency",
    "MarketService",
    "main",
    "make_app",
    "serve_in_subprocess",
    "serve_in_thread",
]

HOST = "127.0.0.1"
"""The only interface the server listens on: no traffic leaves the machine."""

CLIENT_CLOSED_REQUEST = 499
"""The status logged for a request whose client disconnected mid-body (as nginx does)."""

_EXAMPLES_DIR = Path(__file__).resolve().parent.parent
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Latency:
    """The simulated handling delay of each request: lognormal, so heavy-tailed.

    Attributes:
        mean: Mean delay in seconds (>= 0); 0 disables the delay.
        sigma: Standard deviation of the delay's logarithm (>= 0): the tail's
            weight. With ``sigma=1`` about 1 request in 100 takes more than
            6 times the mean; ``sigma=0`` is a constant delay.
    """

    mean: float = 0.0
    sigma: float = 1.0

    def __post_init__(self) -> None:
        for name in ("mean", "sigma"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"Latency: {name} must be a real number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"Latency: {name} must be finite and >= 0, got {value!r}")

    def sample(self, rng: np.random.Generator) -> float:
        """Draw one delay in seconds from ``rng``."""
        if self.mean == 0:
            return 0.0
        # E[exp(N(mu, sigma**2))] = exp(mu + sigma**2 / 2) = mean.
        mu = math.log(self.mean) - 0.5 * self.sigma**2
        return float(rng.lognormal(mu, self.sigma))


class MarketService:
    """The server's state: the sessions and the latency generator.

    Args:
        latency: The delay of each request under ``/sessions``.
        seed: Seed of the latency generator (``None``: OS entropy).
    """

    def __init__(self, latency: Latency | None = None, seed: int | None = None) -> None:
        self.latency = latency if latency is not None else Latency()
        self.sessions: dict[str, MarketSimulator] = {}
        self._latency_rng = np.random.default_rng(seed)

    def delay(self) -> float:
        """The next request's simulated delay, in seconds."""
        return self.latency.sample(self._latency_rng)


SERVICE = web.AppKey("service", MarketService)


def make_app(latency: Latency | None = None, seed: int | None = None) -> web.Application:
    """The aiohttp application serving the API described in the module docstring.

    Args:
        latency: The simulated delay of each request under ``/sessions``.
        seed: Seed of the server's latency generator.
    """
    app = web.Application(middlewares=[_simulated_latency])
    app[SERVICE] = MarketService(latency, seed)
    app.router.add_get("/health", _health)
    app.router.add_post("/sessions", _create)
    app.router.add_post("/sessions/{id}/reset", _reset)
    app.router.add_post("/sessions/{id}/step", _step)
    app.router.add_delete("/sessions/{id}", _delete)
    return app


# -- handlers ---------------------------------------------------------------------------------


@web.middleware
async def _simulated_latency(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Wait the drawn delay, then handle the request (``/health`` is not delayed)."""
    if request.path.startswith("/sessions"):
        delay = request.app[SERVICE].delay()
        if delay > 0:
            await asyncio.sleep(delay)
    try:
        return await handler(request)
    except ConnectionResetError:
        # The client went away before sending the whole body (e.g. a vector
        # env dropped a step it had in flight): nothing was done, and the
        # answer goes nowhere.
        return web.Response(status=CLIENT_CLOSED_REQUEST)


def _error(kind: type[web.HTTPError], message: str) -> web.HTTPError:
    return kind(text=json.dumps({"error": message}), content_type="application/json")


async def _body(request: web.Request) -> dict[str, Any]:
    if not request.can_read_body:
        return {}
    try:
        body = await request.json()
    except ValueError as error:
        raise _error(web.HTTPBadRequest, f"the body is not JSON: {error}") from None
    if not isinstance(body, dict):
        raise _error(web.HTTPBadRequest, f"the body must be a JSON object, got {body!r}")
    return body


def _simulator(request: web.Request) -> MarketSimulator:
    session_id = request.match_info["id"]
    simulator = request.app[SERVICE].sessions.get(session_id)
    if simulator is None:
        raise _error(web.HTTPNotFound, f"no session {session_id!r}")
    return simulator


async def _health(request: web.Request) -> web.Response:
    return web.json_response({"sessions": len(request.app[SERVICE].sessions)})


async def _create(request: web.Request) -> web.Response:
    body = await _body(request)
    try:
        config = MarketConfig.from_json(body.get("config", {}))
    except (TypeError, ValueError) as error:
        raise _error(web.HTTPBadRequest, str(error)) from None
    session_id = uuid.uuid4().hex
    request.app[SERVICE].sessions[session_id] = MarketSimulator(config)
    return web.json_response({"id": session_id, "config": config.to_json()}, status=201)


async def _reset(request: web.Request) -> web.Response:
    simulator = _simulator(request)
    body = await _body(request)
    try:
        first = simulator.reset(seed=body.get("seed"))
    except (TypeError, ValueError) as error:
        raise _error(web.HTTPBadRequest, str(error)) from None
    return web.json_response({"observation": first.observation.tolist(), "info": first.info})


async def _step(request: web.Request) -> web.Response:
    simulator = _simulator(request)
    body = await _body(request)
    if "action" not in body:
        raise _error(web.HTTPBadRequest, f"the body must hold an 'action', got {body!r}")
    try:
        outcome = simulator.step(body["action"])
    except ValueError as error:
        raise _error(web.HTTPBadRequest, str(error)) from None
    except EpisodeOver as error:
        raise _error(web.HTTPConflict, str(error)) from None
    return web.json_response(
        {
            "observation": outcome.observation.tolist(),
            "reward": outcome.reward,
            "terminated": outcome.terminated,
            "truncated": outcome.truncated,
            "info": outcome.info,
        }
    )


async def _delete(request: web.Request) -> web.Response:
    _simulator(request)
    del request.app[SERVICE].sessions[request.match_info["id"]]
    return web.Response(status=204)


# -- running a server -----------------------------------------------------------------------------


async def _start(app: web.Application, port: int = 0) -> tuple[web.AppRunner, str]:
    """Start serving ``app`` on ``HOST:port`` (0: OS-assigned); return the runner and base URL."""
    # A short grace period on shutdown: a handler still waiting out its
    # simulated delay is cancelled rather than awaited for a minute.
    runner = web.AppRunner(app, shutdown_timeout=2.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, HOST, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    bound_port = runner.addresses[0][1]
    return runner, f"http://{HOST}:{bound_port}"


@contextmanager
def serve_in_thread(
    latency: Latency | None = None,
    seed: int | None = None,
    *,
    port: int = 0,
    app: web.Application | None = None,
    startup_timeout: float = 30.0,
) -> Iterator[str]:
    """Run a market server on its own event loop in a background thread.

    Yields the base URL (``http://127.0.0.1:<port>``) once the server
    accepts connections. On exit the server stops: the port is closed,
    open connections are closed, and the thread and its loop end.

    Args:
        latency: The simulated delay of each request under ``/sessions``.
        seed: Seed of the server's latency generator.
        port: The port to listen on; 0 (the default) lets the OS pick a free
            one. A fixed port lets a server be restarted where its clients
            expect it (the address is reused at once).
        app: The application to serve instead of ``make_app(latency, seed)``
            (e.g. one with an extra middleware, in a test).
        startup_timeout: Seconds to wait for the server to listen.

    Raises:
        RuntimeError: The server did not start (the cause is chained).
    """
    loop = asyncio.new_event_loop()
    started = threading.Event()
    state: dict[str, Any] = {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            served = app if app is not None else make_app(latency, seed)
            state["runner"], state["url"] = loop.run_until_complete(_start(served, port))
        except BaseException as error:
            state["error"] = error
            started.set()
            loop.close()
            return
        started.set()
        try:
            loop.run_forever()
        finally:
            try:
                loop.run_until_complete(state["runner"].cleanup())
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    thread = threading.Thread(target=run, name="rest-market-server", daemon=True)
    thread.start()
    if not started.wait(startup_timeout):
        loop.call_soon_threadsafe(loop.stop)
        raise RuntimeError(f"the market server did not start within {startup_timeout} s")
    if "error" in state:
        thread.join()
        raise RuntimeError("the market server could not start") from state["error"]
    try:
        yield state["url"]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()


@contextmanager
def serve_in_subprocess(
    latency: Latency | None = None, seed: int | None = None, *, startup_timeout: float = 60.0
) -> Iterator[str]:
    """Run a market server in a child Python process (``python -m rest_market.server``).

    Yields the base URL once the child prints it (it does so when it
    listens). On exit the child is sent SIGTERM, stops its server and exits;
    it is killed if it has not exited within 10 s.

    Args:
        latency: The simulated delay of each request under ``/sessions``.
        seed: Seed of the server's latency generator.
        startup_timeout: Seconds to wait for the child to listen.

    Raises:
        RuntimeError: The child exited, or printed nothing in time.
    """
    latency = latency if latency is not None else Latency()
    command = [
        sys.executable,
        "-m",
        "rest_market.server",
        "--latency-mean",
        repr(latency.mean),
        "--latency-sigma",
        repr(latency.sigma),
    ]
    if seed is not None:
        command += ["--seed", str(seed)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_EXAMPLES_DIR), *filter(None, [env.get("PYTHONPATH")])]
    )
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    try:
        ready, _, _ = select.select([child.stdout], [], [], startup_timeout)
        line = child.stdout.readline() if ready else ""
        if not line.startswith("http://"):
            raise RuntimeError(
                f"the market server process did not start within {startup_timeout} s "
                f"(exit code {child.poll()!r}, printed {line!r})"
            )
        yield line.strip()
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdout.close()


async def _serve_until_signalled(port: int, latency: Latency, seed: int | None) -> None:
    runner, url = await _start(make_app(latency, seed), port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    print(url, flush=True)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGINT / SIGTERM; print the base URL on the first line of stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m rest_market.server", description="Serve the market simulator on 127.0.0.1."
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: OS-assigned)")
    parser.add_argument("--latency-mean", type=float, default=0.0, help="mean delay, seconds")
    parser.add_argument("--latency-sigma", type=float, default=1.0, help="lognormal sigma")
    parser.add_argument("--seed", type=int, default=None, help="seed of the latency generator")
    args = parser.parse_args(argv)
    latency = Latency(args.latency_mean, args.latency_sigma)
    asyncio.run(_serve_until_signalled(args.port, latency, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
