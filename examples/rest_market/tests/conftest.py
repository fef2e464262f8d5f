"""Fixtures of the REST market example: a server on 127.0.0.1 and small helpers.

The example is not a distribution: the ``examples`` directory goes on
``sys.path`` here so that ``import rest_market`` works.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

EXAMPLES = Path(__file__).resolve().parents[2]
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

from rest_market.server import HOST, Latency, serve_in_thread  # noqa: E402
from rest_market.simulator import MarketConfig  # noqa: E402

# Short, volatile episodes: within a dozen steps some end by the stop-out
# (terminated) and some by the step limit (truncated).
SHORT = MarketConfig(lookback=4, volatility=0.05, max_loss=15.0, max_steps=12, cost_rate=0.01)


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def accepts_connections(port: int) -> bool:
    """Whether something listens on 127.0.0.1:``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        return probe.connect_ex((HOST, port)) == 0


def action_of(env_index: int, k: int, num_actions: int = 3) -> int:
    """The ``k``-th action of sub-env ``env_index``: a fixed, irregular function of both."""
    return (7 * env_index + k * k + 3 * k) % num_actions


def live_sessions(url: str) -> int:
    """How many sessions the server holds (``GET /health``, never delayed)."""
    with urllib.request.urlopen(f"{url}/health", timeout=10) as response:
        return int(json.load(response)["sessions"])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A server with a heavy-tailed latency (lognormal, mean 1 ms); its port is closed after."""
    with serve_in_thread(Latency(mean=1e-3, sigma=1.0), seed=0) as url:
        assert accepts_connections(port_of(url))
        yield url
        assert live_sessions(url) == 0, "a test left a server session behind"
    assert not accepts_connections(port_of(url))


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers of this conftest (test modules cannot import it by name)."""
    return SimpleNamespace(
        SHORT=SHORT,
        port_of=port_of,
        accepts_connections=accepts_connections,
        action_of=action_of,
        live_sessions=live_sessions,
    )
