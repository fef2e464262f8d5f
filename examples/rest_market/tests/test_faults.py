"""What RestMarketEnv does when the server misbehaves: bad answers, error statuses, a restart.

The server is the real one on 127.0.0.1. To make it answer wrongly, a test
adds a middleware to its application that rewrites the body of one kind of
answer (the simulator still ran the request); to restart it, a test stops
it and starts a new one on the same port.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import numpy as np
import pytest
from aiohttp import web
from hypothesis import given, settings, strategies as st

from rest_market.env import (
    InvalidAnswer,
    LocalMarketEnv,
    MarketServerError,
    RestMarketEnv,
    SessionLost,
)
from rest_market.server import Handler, make_app, serve_in_thread
from rest_market.simulator import MarketConfig
from sekai.error import ResetRequired
from sekai.vector import AsyncVecEnv, SyncVecEnv

Rewrite = Callable[[Any], bytes]


@dataclass
class Tamper:
    """How the test server alters its answers: ``rewrite`` gets the decoded body of each
    answer whose path ends with ``suffix`` and returns the bytes sent instead."""

    suffix: str = "/step"
    rewrite: Rewrite | None = None
    drops: int = 0  # how many of the next such requests get their connection closed instead
    seen: list[str] = field(default_factory=list)  # the paths of every request, in order

    def set(self, suffix: str, rewrite: Rewrite | None, *, drops: int = 0) -> None:
        self.suffix, self.rewrite, self.drops = suffix, rewrite, drops


def tampering_app(tamper: Tamper) -> web.Application:
    """The market server's application, with answers rewritten as ``tamper`` says."""

    @web.middleware
    async def rewrite(request: web.Request, handler: Handler) -> web.StreamResponse:
        tamper.seen.append(f"{request.method} {request.path}")
        if tamper.drops and request.path.endswith(tamper.suffix) and request.transport:
            tamper.drops -= 1
            request.transport.close()  # before the simulator sees the request
            return web.Response(status=499)  # goes nowhere
        response = await handler(request)
        if (
            tamper.rewrite is None
            or not request.path.endswith(tamper.suffix)
            or not isinstance(response, web.Response)
            or not isinstance(response.body, bytes)
        ):
            return response
        body = tamper.rewrite(json.loads(response.body))
        return web.Response(body=body, status=response.status, content_type="application/json")

    app = make_app()
    app.middlewares.append(rewrite)
    return app


@pytest.fixture(scope="module")
def tampered() -> Iterator[tuple[str, Tamper]]:
    """A server without simulated latency whose answers a test can rewrite."""
    tamper = Tamper()
    with serve_in_thread(app=tampering_app(tamper)) as url:
        yield url, tamper


@pytest.fixture
def tamper(tampered: tuple[str, Tamper]) -> Iterator[Tamper]:
    """The server's tamper, reset to "rewrite nothing" after the test."""
    yield tampered[1]
    tampered[1].set("/step", None)
    tampered[1].seen.clear()


def with_field(path: tuple[str | int, ...], value: Any) -> Rewrite:
    """A rewrite that sets the field at ``path`` (keys and list indices) to ``value``."""

    def rewrite(body: Any) -> bytes:
        target = body
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value
        return json.dumps(body).encode()

    return rewrite


def without_field(*path: str) -> Rewrite:
    def rewrite(body: Any) -> bytes:
        target = body
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
        return json.dumps(body).encode()

    return rewrite


def raw(text: str) -> Rewrite:
    return lambda body: text.encode()


def step_once(url: str, seed: int = 0, action: int = 2) -> Any:
    """A reset and one step of a new env on ``url`` (closed after)."""
    with RestMarketEnv(url) as env:
        env.reset(seed=seed)
        return env.step(np.int64(action))


# -- item 5: every answer is decoded against the API's schema ----------------------------------


@pytest.mark.parametrize(
    ("suffix", "rewrite", "field", "given"),
    [
        ("/step", with_field(("terminated",), "false"), "$.terminated", '"false"'),
        ("/step", with_field(("truncated",), 0), "$.truncated", "0"),
        ("/step", with_field(("reward",), "NaN"), "$.reward", '"NaN"'),
        ("/step", with_field(("reward",), "1.5"), "$.reward", '"1.5"'),
        ("/step", with_field(("reward",), True), "$.reward", "true"),
        ("/step", with_field(("reward",), None), "$.reward", "null"),
        ("/step", without_field("reward"), "$.reward", "missing"),
        ("/step", without_field("info", "t"), "$.info.t", "missing"),
        ("/step", with_field(("info", "t"), 1.5), "$.info.t", "1.5"),
        ("/step", with_field(("observation", 2), "0.1"), "$.observation[2]", '"0.1"'),
        ("/step", with_field(("speed",), 1), "$.speed", "unknown"),
        ("/reset", with_field(("observation",), {"a": 1}), "$.observation", '{"a": 1}'),
        ("/reset", with_field(("info", "price"), "100"), "$.info.price", '"100"'),
        ("/sessions", with_field(("id",), 7), "$.id", "7"),
        ("/sessions", with_field(("id",), "../health"), "$.id", '"../health"'),
    ],
)
def test_an_answer_that_does_not_fit_the_schema_names_the_field_and_what_came(
    tampered: tuple[str, Tamper],
    tamper: Tamper,
    suffix: str,
    rewrite: Rewrite,
    field: str,
    given: str,
) -> None:
    tamper.set(suffix, rewrite)
    with pytest.raises(MarketServerError) as raised:
        step_once(tampered[0])
    error = raised.value
    assert isinstance(error, InvalidAnswer)
    assert error.field == field
    assert error.status in (200, 201)
    assert f"invalid {field}: " in str(error)
    assert given in str(error)


def test_a_non_finite_reward_is_refused(tampered: tuple[str, Tamper], tamper: Tamper) -> None:
    # 1e999 is valid JSON for an infinite number; Python's json sends NaN as a bare NaN,
    # which is not JSON at all.
    tamper.set(
        "/step",
        lambda body: (
            json.dumps({**body, "reward": 0.5}).replace('"reward": 0.5', '"reward": 1e999').encode()
        ),
    )
    with pytest.raises(InvalidAnswer, match=r"invalid \$\.reward: number out of range") as raised:
        step_once(tampered[0])
    assert raised.value.field == "$.reward"
    tamper.set("/step", lambda body: json.dumps({**body, "reward": math.nan}).encode())
    with pytest.raises(InvalidAnswer, match=r"not JSON.*NaN") as raised:
        step_once(tampered[0])
    assert raised.value.field == "$"


def test_an_observation_of_the_wrong_length_is_refused(
    tampered: tuple[str, Tamper], tamper: Tamper
) -> None:
    size = MarketConfig().lookback + 1
    tamper.set("/step", lambda body: json.dumps({**body, "observation": [0.0] * 3}).encode())
    with pytest.raises(InvalidAnswer, match=rf"\$\.observation: expected {size} numbers .*got 3"):
        step_once(tampered[0])


def test_a_false_flag_sent_as_text_does_not_end_a_sub_envs_episode(
    tampered: tuple[str, Tamper], tamper: Tamper
) -> None:
    url = tampered[0]
    with AsyncVecEnv([lambda: RestMarketEnv(url)] * 2) as vec:
        vec.reset(seed=0)
        tamper.set("/step", with_field(("terminated",), "false"))
        tamper.seen.clear()
        with pytest.raises(InvalidAnswer, match="terminated"):
            vec.step(np.array([1, 1]))
        tamper.set("/step", None)
        # No sub-env took the text for True and was reset by autoreset.
        assert not any(path.endswith("/reset") for path in tamper.seen)


bad_values: dict[str, st.SearchStrategy[Any]] = {
    "number": st.one_of(
        st.text(), st.booleans(), st.none(), st.lists(st.integers(), max_size=2), st.builds(dict)
    ),
    "int": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.text(), st.booleans()),
    "flag": st.one_of(
        st.sampled_from(["false", "true", "False", "0", ""]), st.integers(), st.none()
    ),
}
STEP_FIELDS: list[tuple[tuple[str | int, ...], str]] = [
    (("reward",), "number"),
    (("terminated",), "flag"),
    (("truncated",), "flag"),
    (("observation", 0), "number"),
    (("observation", 5), "number"),
    (("info", "t"), "int"),
    (("info", "position"), "int"),
    (("info", "price"), "number"),
    (("info", "cash"), "number"),
    (("info", "equity"), "number"),
    (("info", "cost"), "number"),
]


def path_text(path: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), which=st.sampled_from(STEP_FIELDS))
def test_a_step_answer_with_any_field_of_the_wrong_type_is_refused(
    tampered: tuple[str, Tamper], data: st.DataObject, which: tuple[tuple[str | int, ...], str]
) -> None:
    path, kind = which
    value = data.draw(bad_values[kind], label="value")
    url, tamper = tampered
    tamper.set("/step", with_field(path, value))
    try:
        with pytest.raises(InvalidAnswer) as raised:
            step_once(url)
    finally:
        tamper.set("/step", None)
    assert raised.value.field == path_text(path)
    assert json.dumps(value)[:50] in str(raised.value)


@settings(max_examples=40, deadline=None)
@given(
    reward=st.floats(allow_nan=False, allow_infinity=False),
    flags=st.tuples(st.booleans(), st.booleans()),
)
def test_an_answer_of_the_right_types_comes_through_unchanged(
    tampered: tuple[str, Tamper], reward: float, flags: tuple[bool, bool]
) -> None:
    url, tamper = tampered
    terminated, truncated = flags
    tamper.set(
        "/step",
        lambda body: json.dumps(
            {**body, "reward": reward, "terminated": terminated, "truncated": truncated}
        ).encode(),
    )
    try:
        result = step_once(url)
    finally:
        tamper.set("/step", None)
    assert result.reward == reward
    assert type(result.reward) is float
    assert (result.terminated, result.truncated) == flags
    local = LocalMarketEnv()
    local.reset(seed=0)
    expected = local.step(2)
    np.testing.assert_array_equal(result.observation, expected.observation)
    assert result.info == expected.info


# -- item 8: error statuses and a server restart --------------------------------------------------


def test_a_500_says_the_status_and_the_body(tampered: tuple[str, Tamper], tamper: Tamper) -> None:
    def crash(body: Any) -> bytes:
        raise RuntimeError("the simulator fell over")

    tamper.set("/step", crash)  # aiohttp answers 500 with a text body
    with pytest.raises(MarketServerError) as raised:
        step_once(tampered[0])
    error = raised.value
    assert not isinstance(error, InvalidAnswer)
    assert error.status == 500
    assert "answered 500 Internal Server Error" in str(error)
    assert "Server got itself in trouble" in str(error)


def test_a_409_asks_for_a_reset_and_says_what_was_refused(
    tampered: tuple[str, Tamper], tamper: Tamper
) -> None:
    def episode_over(body: Any) -> bytes:
        raise web.HTTPConflict(
            text=json.dumps({"error": "the episode is over"}), content_type="application/json"
        )

    tamper.set("/step", episode_over)
    with pytest.raises(ResetRequired) as raised:
        step_once(tampered[0])
    assert re.search(r"POST \S+/step answered 409 Conflict: the episode is over", str(raised.value))


def test_a_long_error_body_is_cut_short(tampered: tuple[str, Tamper], tamper: Tamper) -> None:
    page = "<html>" + "x" * 10_000 + "</html>"

    def bad_gateway(body: Any) -> bytes:
        raise web.HTTPBadGateway(text=page, content_type="text/html")

    tamper.set("/reset", bad_gateway)
    with pytest.raises(MarketServerError) as raised:
        step_once(tampered[0])
    message = str(raised.value)
    assert raised.value.status == 502
    assert "answered 502 Bad Gateway: '<html>xxx" in message
    assert f"({len(page)} characters)" in message
    assert len(message) < 500


def test_a_json_error_answer_gives_its_message(
    tampered: tuple[str, Tamper], tamper: Tamper
) -> None:
    def refuse(body: Any) -> bytes:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": "seed must be small"}), content_type="application/json"
        )

    tamper.set("/reset", refuse)
    with pytest.raises(MarketServerError, match=r"answered 400 Bad Request: seed must be small$"):
        step_once(tampered[0])


def test_a_dropped_connection_is_tried_again_by_reset_only(
    tampered: tuple[str, Tamper], tamper: Tamper
) -> None:
    local = LocalMarketEnv()
    with RestMarketEnv(tampered[0]) as env:
        tamper.set("/reset", None, drops=1)
        assert env.reset(seed=6) == local.reset(seed=6)
        assert tamper.drops == 0
        # A step may have run on the server when its connection drops: it is not sent again.
        tamper.set("/step", None, drops=1)
        with pytest.raises(MarketServerError, match="/step failed: ") as raised:
            env.step(np.int64(1))
        assert isinstance(raised.value.__cause__, aiohttp.ClientConnectionError)
        assert env.step(np.int64(1)) == local.step(np.int64(1))  # that one had not run
    steps = [path for path in tamper.seen if path.endswith("/step")]
    assert len(steps) == 2


def test_a_404_outside_a_session_is_not_taken_for_a_restart(server: str) -> None:
    with (
        RestMarketEnv(server + "/elsewhere") as env,
        pytest.raises(MarketServerError, match="answered 404 Not Found") as raised,
    ):
        env.reset(seed=0)
    assert not isinstance(raised.value, SessionLost)
    assert raised.value.status == 404


class Restartable:
    """A market server on a fixed port of 127.0.0.1 that a test can restart."""

    def __init__(self) -> None:
        self._server = serve_in_thread()
        self.url = self._server.__enter__()
        self.port = int(self.url.rsplit(":", 1)[1])

    def restart(self) -> None:
        """Stop the server (its sessions die with it) and start a new one on the same port."""
        self._server.__exit__(None, None, None)
        self._server = serve_in_thread(port=self.port)
        assert self._server.__enter__() == self.url

    def stop(self) -> None:
        self._server.__exit__(None, None, None)


@pytest.fixture
def restartable() -> Iterator[Restartable]:
    server = Restartable()
    try:
        yield server
    finally:
        server.stop()


def test_reset_after_a_server_restart_opens_a_new_session(
    restartable: Restartable, kit: SimpleNamespace
) -> None:
    url = restartable.url
    local = LocalMarketEnv(kit.SHORT)
    env = RestMarketEnv(url, kit.SHORT)
    try:
        assert env.reset(seed=3) == local.reset(seed=3)
        assert env.step(2) == local.step(2)
        old_session = env.session_id
        restartable.restart()
        with pytest.raises(SessionLost, match=f"no longer knows session {old_session}"):
            env.step(np.int64(1))
        # SessionLost is a ResetRequired, so a vector env asks for a reset too.
        assert issubclass(SessionLost, ResetRequired)
        assert env.reset(seed=4) == local.reset(seed=4)
        assert env.session_id != old_session
        assert env.step(np.int64(0)) == local.step(np.int64(0))
        assert kit.live_sessions(url) == 1
    finally:
        env.close()
    assert kit.live_sessions(url) == 0


def test_a_restart_between_two_resets_is_invisible(
    restartable: Restartable, kit: SimpleNamespace
) -> None:
    url = restartable.url
    local = LocalMarketEnv(kit.SHORT)
    with RestMarketEnv(url, kit.SHORT) as env:
        env.reset(seed=1)
        restartable.restart()
        assert env.reset(seed=2) == local.reset(seed=2)
        assert env.step(np.int64(1)) == local.step(np.int64(1))
    assert kit.live_sessions(url) == 0


def test_a_vector_env_recovers_from_a_server_restart_by_reset(
    restartable: Restartable, kit: SimpleNamespace
) -> None:
    url, n = restartable.url, 3
    actions = np.array([kit.action_of(i, 0) for i in range(n)])
    with (
        AsyncVecEnv([lambda: RestMarketEnv(url, kit.SHORT)] * n) as vec,
        SyncVecEnv([lambda: LocalMarketEnv(kit.SHORT)] * n) as local,
    ):
        vec.reset(seed=7)
        vec.step(actions)
        restartable.restart()
        with pytest.raises(SessionLost, match="call reset"):
            vec.step(actions)
        assert vec.reset(seed=8) == local.reset(seed=8)
        assert vec.step(actions) == local.step(actions)
        assert kit.live_sessions(url) == n
    assert kit.live_sessions(url) == 0


def test_close_after_a_server_restart_does_not_raise(
    restartable: Restartable, kit: SimpleNamespace
) -> None:
    url = restartable.url
    env = RestMarketEnv(url)
    env.reset(seed=0)
    restartable.restart()
    env.close()
    assert kit.live_sessions(url) == 0
