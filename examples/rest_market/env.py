"""Two sekai envs over the same market: one behind the REST server, one in process.

:class:`RestMarketEnv` keeps its market in a server session and talks to it
with an :class:`aiohttp.ClientSession`: its native :meth:`~RestMarketEnv.async_step`
and :meth:`~RestMarketEnv.async_reset` await the HTTP round trip, so an
:class:`~sekai.vector.AsyncVecEnv` over many of them waits for the server's
(simulated, heavy-tailed) latency in parallel. :class:`LocalMarketEnv` runs
the same :class:`~rest_market.simulator.MarketSimulator` in process: for the
same seed and actions the two produce identical observations, rewards, flags
and infos (the server sends float64 values as JSON, whose repr round-trips
exactly).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import msgspec
import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidAction, ResetRequired, SekaiError, SyncCallInEventLoop
from sekai.spaces import Box, Discrete
from sekai.utils.seeding import SeedType

from .schema import Created, ErrorAnswer, ResetAnswer, StepAnswer
from .simulator import EpisodeOver, MarketConfig, MarketSimulator

__all__ = [
    "InvalidAnswer",
    "LocalMarketEnv",
    "MarketServerError",
    "RestMarketEnv",
    "SessionLost",
    "market_spaces",
]

_T = TypeVar("_T")
MarketObs = NDArray[np.float32]


class MarketServerError(SekaiError, RuntimeError):
    """The market server answered a request with an error, or could not be reached.

    Attributes:
        status: The HTTP status of the answer (``None``: no answer came).
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class InvalidAnswer(MarketServerError):
    """The server answered with a body that does not fit the API's schema.

    The schema is :mod:`rest_market.schema`; the message names the field, what
    it must be and what the server sent.

    Attributes:
        field: Where in the body, as a path such as ``"$.terminated"``,
            ``"$.info.t"`` or ``"$.observation[2]"`` (``"$"``: the body itself).
    """

    def __init__(self, message: str, status: int, field: str) -> None:
        super().__init__(message, status)
        self.field = field


class SessionLost(MarketServerError, ResetRequired):
    """The server no longer knows the env's session: it restarted, or the session was deleted.

    The episode is lost. :meth:`RestMarketEnv.reset` opens a new session and
    goes on; a vector env takes this error as any
    :class:`~sekai.error.ResetRequired` of a sub-env.
    """


def market_spaces(config: MarketConfig) -> tuple[Box, Discrete]:
    """The observation and action spaces of a market with ``config``.

    Observation: float32, the last ``lookback`` log-returns and the position
    scaled to ``[-1, 1]``. Action: the target position plus ``max_position``.
    """
    observation_space = Box(-np.inf, np.inf, shape=(config.lookback + 1,), dtype=np.float32)
    return observation_space, Discrete(config.num_actions)


def _wire_seed(seed: SeedType) -> int | None:
    """The seed the simulator gets: a Generator is adopted by drawing an int seed from it.

    The market's generator lives in the simulator (on the server for
    :class:`RestMarketEnv`), so a Generator cannot be handed over as is.
    """
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int, a numpy.random.Generator or None, got {seed!r}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed!r}")
    return None if seed is None else int(seed)


def _check_action(space: Discrete, action: Any) -> int:
    """``action`` as an int, or InvalidAction if it is not an integer of ``space``."""
    if not space.contains(action):
        raise InvalidAction(f"action must be an int in [0, {space.n - 1}], got {action!r}")
    return int(action)


class LocalMarketEnv(Env[MarketObs, np.int64]):
    """The market of :mod:`rest_market.simulator`, stepped in this process.

    Args:
        config: The market's parameters (default: :class:`MarketConfig` defaults).

    The seed of :meth:`reset` seeds the simulator's generator (a Generator
    seed is turned into an int seed by one draw); ``options`` are ignored.
    A step after the episode ended raises :class:`~sekai.error.ResetRequired`.
    """

    def __init__(self, config: MarketConfig | None = None) -> None:
        self.config = config if config is not None else MarketConfig()
        self.observation_space, self._actions = market_spaces(self.config)
        self.action_space = self._actions
        self.simulator = MarketSimulator(self.config)

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[MarketObs]:
        """Start an episode (see the class docstring for ``seed``)."""
        first = self.simulator.reset(_wire_seed(seed))
        return ResetResult(first.observation.astype(np.float32), first.info)

    def step(self, action: int | np.integer[Any]) -> StepResult[MarketObs]:
        """Trade to the action's target position and advance the price one step."""
        try:
            outcome = self.simulator.step(_check_action(self._actions, action))
        except EpisodeOver as error:
            raise ResetRequired(str(error)) from None
        return StepResult(
            outcome.observation.astype(np.float32),
            outcome.reward,
            outcome.terminated,
            outcome.truncated,
            outcome.info,
        )


class RestMarketEnv(Env[MarketObs, np.int64]):
    """The market of :mod:`rest_market.simulator`, stepped by a server over HTTP.

    The first reset creates a session on the server (with ``config``);
    every reset and step is one HTTP request to it. :meth:`async_reset` and
    :meth:`async_step` await the request on the running event loop;
    :meth:`reset` and :meth:`step` run them on a private loop of the env (so
    they raise :class:`~sekai.error.SyncCallInEventLoop` inside a running
    loop: await the async forms there).

    The HTTP client is bound to the event loop that made the last call. When
    a call comes from another loop (e.g. ``asyncio.run`` after sync calls),
    the old client is closed and a new one made; using one env from two
    loops running at the same time is not supported. A loop that is closed
    while the client still holds a connection (``asyncio.run`` returning)
    leaves that socket to the garbage collector: ``await env.aclose()``
    before the loop ends avoids it.

    Every answer is decoded straight into the types of
    :mod:`rest_market.schema`, strictly: a flag sent as ``"false"``, a
    reward sent as ``"1.5"`` or ``"NaN"``, an infinite number, a missing or
    unknown field, or an observation of the wrong length raises
    :class:`InvalidAnswer` naming the field and what the server sent.

    When the server no longer knows the env's session (it restarted, or the
    session was deleted), a step raises :class:`SessionLost`, a
    :class:`~sekai.error.ResetRequired`; :meth:`reset` opens a new session
    by itself and goes on, and :meth:`close` has nothing to delete. A reset
    whose connection drops (e.g. a pooled connection to a server that has
    restarted since) is sent once more on a new connection; a step is not,
    since it may have run.

    :meth:`close` deletes the server session and closes the HTTP client.
    Called from a coroutine on the loop the client is bound to, it cannot
    wait for the client to close: it schedules that on the loop; ``await
    env.aclose()`` instead finishes it before returning.

    Args:
        base_url: The server's base URL, e.g. ``"http://127.0.0.1:8080"``.
        config: The market's parameters (default: :class:`MarketConfig` defaults).
        timeout: Seconds a request may take before it fails.

    The seed of :meth:`reset` is sent to the server (a Generator seed is
    turned into an int seed by one draw); ``options`` are ignored. Errors:
    :class:`~sekai.error.InvalidAction` for an action outside the action
    space (checked before sending), :class:`~sekai.error.ResetRequired` for
    a step before the first reset or after the episode ended (and its
    subclass :class:`SessionLost`, see above), :class:`InvalidAnswer` for an
    answer that does not fit the schema, and :class:`MarketServerError` for
    an error status (the message gives the status, its reason and the
    server's ``"error"`` or, for a body that is not the API's, the start of
    the body) or a server that cannot be reached.
    """

    def __init__(
        self, base_url: str, config: MarketConfig | None = None, *, timeout: float = 30.0
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.config = config if config is not None else MarketConfig()
        self.observation_space, self._actions = market_spaces(self.config)
        self.action_space = self._actions
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self.session_id: str | None = None
        self._http: aiohttp.ClientSession | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None
        self._own_loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    # -- the env API --------------------------------------------------------------------------

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[MarketObs]:
        """Reset the server session (creating it on the first call); one or two requests."""
        return await self._reset(_wire_seed(seed))

    async def async_step(self, action: int | np.integer[Any]) -> StepResult[MarketObs]:
        """Send the action and await the server's step: one request."""
        return await self._step(_check_action(self._actions, action))

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[MarketObs]:
        """Run :meth:`async_reset` on the env's private event loop."""
        return self._run(self._reset(_wire_seed(seed)), "reset")

    def step(self, action: int | np.integer[Any]) -> StepResult[MarketObs]:
        """Run :meth:`async_step` on the env's private event loop."""
        return self._run(self._step(_check_action(self._actions, action)), "step")

    def close(self) -> None:
        """Delete the server session, close the HTTP client and the private loop (idempotent)."""
        if self._closed:
            return
        self._closed = True
        http, loop = self._http, self._http_loop
        self._http = self._http_loop = None
        try:
            if http is not None and loop is not None:
                self._shut_down(http, loop)
        finally:
            self._close_own_loop()

    async def aclose(self) -> None:
        """Async form of :meth:`close`: also waits for the HTTP client to close.

        On another loop than the client's, it is :meth:`close`.
        """
        if self._closed:
            return
        if self._http is None or self._http_loop is not asyncio.get_running_loop():
            self.close()
            return
        http, self._http, self._http_loop = self._http, None, None
        self._closed = True
        try:
            await self._delete_then_close(http)
        finally:
            self._close_own_loop()

    # -- the requests ---------------------------------------------------------------------------

    async def _reset(self, seed: int | None) -> ResetResult[MarketObs]:
        self._check_open()
        http = await self._client()
        try:
            return await self._reset_or_open(http, seed)
        except MarketServerError as error:
            cause = error.__cause__
            if not isinstance(cause, (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError)):
                raise
            if isinstance(cause, aiohttp.ClientConnectorError):
                raise  # nothing listens: no point in trying again
        # The connection dropped: typically a pooled one that a server which has
        # since restarted had closed. Once more, on a new connection.
        return await self._reset_or_open(http, seed)

    async def _reset_or_open(
        self, http: aiohttp.ClientSession, seed: int | None
    ) -> ResetResult[MarketObs]:
        """Reset the env's server session, or a new one if it has none or the server lost it."""
        if self.session_id is not None:
            try:
                return await self._reset_session(http, seed)
            except SessionLost:
                pass  # the server restarted (or deleted the session): open a new one
        url = self.base_url + "/sessions"
        status, body = await self._request(http, "POST", url, {"config": self.config.to_json()})
        self.session_id = _decode(_CREATED, body, "POST", url, status).id
        return await self._reset_session(http, seed)

    async def _reset_session(
        self, http: aiohttp.ClientSession, seed: int | None
    ) -> ResetResult[MarketObs]:
        url = f"{self.base_url}/sessions/{self.session_id}/reset"
        status, body = await self._request(http, "POST", url, {"seed": seed})
        answer = _decode(_RESET, body, "POST", url, status)
        observation = self._observation(answer.observation, "POST", url, status)
        return ResetResult(observation, msgspec.structs.asdict(answer.info))

    async def _step(self, action: int) -> StepResult[MarketObs]:
        self._check_open()
        if self.session_id is None:
            raise ResetRequired(f"{self!r}: call reset() before step()")
        http = await self._client()
        url = f"{self.base_url}/sessions/{self.session_id}/step"
        status, body = await self._request(http, "POST", url, {"action": action})
        answer = _decode(_STEP, body, "POST", url, status)
        return StepResult(
            self._observation(answer.observation, "POST", url, status),
            answer.reward,
            answer.terminated,
            answer.truncated,
            msgspec.structs.asdict(answer.info),
        )

    def _observation(self, values: list[float], method: str, url: str, status: int) -> MarketObs:
        """The decoded observation as float32, once its length is checked against the config."""
        size = self.config.lookback + 1
        if len(values) != size:
            raise InvalidAnswer(
                f"{method} {url} answered {status} with an invalid $.observation: "
                f"expected {size} numbers (lookback + 1), got {len(values)}",
                status,
                "$.observation",
            )
        return np.asarray(values, dtype=np.float32)

    async def _request(
        self, http: aiohttp.ClientSession, method: str, url: str, payload: dict[str, Any] | None
    ) -> tuple[int, bytes]:
        """One request; the status and body of a success, or the error the status means."""
        try:
            async with http.request(method, url, json=payload) as response:
                body = await response.read()
                status, reason = response.status, response.reason
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            raise MarketServerError(f"{method} {url} failed: {error!r}") from error
        if status < 400:
            return status, body
        answer = f"{method} {url} answered {status} {reason or ''}".rstrip()
        message = _error_message(body)
        session = self.session_id
        if (
            status == 404
            and session is not None
            and url.startswith(f"{self.base_url}/sessions/{session}")
        ):
            self.session_id = None  # nothing left to delete; reset() opens a new session
            raise SessionLost(
                f"{answer}: {message}. The server no longer knows session {session} (it "
                "restarted, or the session was deleted): call reset() to open a new one",
                status,
            )
        if status == 409:  # the episode is over on the server
            raise ResetRequired(f"{self!r}: {answer}: {message}")
        raise MarketServerError(f"{answer}: {message}", status)

    async def _delete_session(self, http: aiohttp.ClientSession) -> None:
        session_id = self.session_id
        if session_id is None:
            return
        try:
            await self._request(http, "DELETE", f"{self.base_url}/sessions/{session_id}", None)
        except SessionLost:
            pass  # already gone (e.g. the server restarted): nothing to delete
        finally:
            self.session_id = None

    # -- the event loops ------------------------------------------------------------------------

    def _close_own_loop(self) -> None:
        own, self._own_loop = self._own_loop, None
        if own is not None and not own.is_closed():
            own.close()

    def _check_open(self) -> None:
        if self._closed:
            raise ResetRequired(f"{self!r} is closed")

    async def _client(self) -> aiohttp.ClientSession:
        """The HTTP client of the running loop, made (or moved to this loop) if needed."""
        # One turn of the loop first: a loop that was idle (the sync API's, a
        # vector env's) then notices the pooled connections the server closed
        # meanwhile (e.g. it restarted), before a request is sent over one.
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        http = self._http
        if http is not None and self._http_loop is loop:
            return http
        if http is not None:
            old_loop = self._http_loop
            assert old_loop is not None
            if old_loop.is_running():
                raise RuntimeError(
                    f"{self!r} is in use on another running event loop; "
                    "one env cannot be used from two loops at once"
                )
            self._http = self._http_loop = None
            # The old client's connections belong to the old loop: they are
            # closed there (a closed loop has nothing left to close).
            _drive(http.close(), None if old_loop.is_closed() else old_loop)
        http = aiohttp.ClientSession(timeout=self.timeout)
        self._http, self._http_loop = http, loop
        return http

    def _run(self, coroutine: Coroutine[Any, Any, _T], method: str) -> _T:
        """Run a coroutine of the sync API on the env's private loop."""
        if self._closed:
            coroutine.close()
            self._check_open()
        if _running_loop() is not None:
            coroutine.close()
            raise SyncCallInEventLoop(
                f"{self!r}.{method}() was called inside a running event loop; "
                f"use 'await env.async_{method}(...)' there"
            )
        loop = self._own_loop
        if loop is None:
            loop = self._own_loop = asyncio.new_event_loop()
        return loop.run_until_complete(coroutine)

    def _shut_down(self, http: aiohttp.ClientSession, loop: asyncio.AbstractEventLoop) -> None:
        """Delete the server session and close ``http``, from wherever close() was called."""
        if loop.is_closed():
            # The loop the client lived on is gone (e.g. asyncio.run returned):
            # the session is deleted with a client of its own on a fresh loop.
            _drive(self._delete_with_new_client(), None)
            _drive(http.close(), None)
        elif loop is _running_loop():
            # close() from a coroutine on the client's loop: nothing can be
            # awaited here. The session is deleted from a helper thread; the
            # client closes once the loop runs again.
            _drive(self._delete_with_new_client(), None)
            _schedule(loop, http.close())
        elif loop.is_running():
            asyncio.run_coroutine_threadsafe(self._delete_then_close(http), loop).result()
        else:
            _drive(self._delete_then_close(http), loop)

    async def _delete_then_close(self, http: aiohttp.ClientSession) -> None:
        try:
            await self._delete_session(http)
        finally:
            await http.close()

    async def _delete_with_new_client(self) -> None:
        async with aiohttp.ClientSession(timeout=self.timeout) as http:
            await self._delete_session(http)

    def __str__(self) -> str:
        return f"<RestMarketEnv {self.base_url} session={self.session_id}>"


# -- decoding the answers --------------------------------------------------------------------------

_CREATED = msgspec.json.Decoder(Created)
_RESET = msgspec.json.Decoder(ResetAnswer)
_STEP = msgspec.json.Decoder(StepAnswer)
_ERROR = msgspec.json.Decoder(ErrorAnswer)

_EXCERPT = 200
"""At most this many characters of a body go into an error message."""

_WHERE = re.compile(r"^(?P<problem>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.DOTALL)
_NAMED_FIELD = re.compile(r"(?:missing required|unknown) field `(?P<name>[^`]+)`")
_STEP_IN_PATH = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_BYTE = re.compile(r"\(byte (\d+)\)")


def _decode(
    decoder: msgspec.json.Decoder[_T], body: bytes, method: str, url: str, status: int
) -> _T:
    """``body`` decoded straight into the decoder's type, or :class:`InvalidAnswer`."""
    try:
        return decoder.decode(body)
    except msgspec.ValidationError as error:
        field, problem, given = _locate(str(error), body)
        raise InvalidAnswer(
            f"{method} {url} answered {status} with an invalid {field}: {problem}{given}",
            status,
            field,
        ) from None
    except msgspec.DecodeError as error:
        match = _BYTE.search(str(error))
        at = int(match.group(1)) if match else 0
        raise InvalidAnswer(
            f"{method} {url} answered {status} with a body that is not JSON ({error}): "
            f"{_excerpt(body, at) if body.strip() else '(an empty body)'}",
            status,
            "$",
        ) from None


def _locate(message: str, body: bytes) -> tuple[str, str, str]:
    """The field a msgspec validation message is about, the problem, and what was given."""
    where = _WHERE.match(message)
    assert where is not None  # the pattern matches any text
    problem, path = where.group("problem"), where.group("path") or "$"
    named = _NAMED_FIELD.search(problem)
    if named is not None:  # a missing or unknown field: the path is its object's
        path = f"{path}.{named.group('name')}"
    problem = problem[:1].lower() + problem[1:]
    if named is not None and problem.startswith("object missing"):
        return path, "the field is missing", ""
    try:
        value: Any = json.loads(body)
    except ValueError:
        return path, problem, ""
    for name, index in _STEP_IN_PATH.findall(path[1:]):
        try:
            value = value[int(index)] if index else value[name]
        except (KeyError, IndexError, TypeError):
            return path, problem, ""
    return path, problem, f" (the server sent {_clip(json.dumps(value), 0)})"


def _error_message(body: bytes) -> str:
    """What an error answer says: its ``"error"`` field, or an excerpt of the body."""
    try:
        return _ERROR.decode(body).error
    except (msgspec.ValidationError, msgspec.DecodeError):
        return _excerpt(body) if body.strip() else "(an empty body)"


def _excerpt(body: bytes, at: int = 0) -> str:
    """``body`` as quoted text, clipped to :data:`_EXCERPT` characters around byte ``at``."""
    return repr(_clip(body.decode("utf-8", errors="replace"), at))


def _clip(text: str, at: int) -> str:
    """At most :data:`_EXCERPT` characters of ``text`` from around ``at``, marked where cut."""
    if len(text) <= _EXCERPT:
        return text
    start = max(0, min(at - _EXCERPT // 4, len(text) - _EXCERPT))
    clipped = text[start : start + _EXCERPT]
    before = "..." if start > 0 else ""
    after = f"... ({len(text)} characters)" if start + _EXCERPT < len(text) else ""
    return before + clipped + after


# -- event-loop helpers ---------------------------------------------------------------------------

_SCHEDULED: set[asyncio.Task[Any]] = set()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _drive(coroutine: Coroutine[Any, Any, _T], loop: asyncio.AbstractEventLoop | None) -> _T:
    """Run ``coroutine`` to completion on ``loop`` (idle), or on a new loop if ``None``.

    If a loop is running in this thread, a helper thread does it (a thread
    runs one loop at a time) and this thread blocks until it is done.
    """

    def run() -> _T:
        if loop is None:
            return asyncio.run(coroutine)
        return loop.run_until_complete(coroutine)

    if _running_loop() is None:
        return run()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = run()
        except BaseException as error:
            outcome["error"] = error

    helper = threading.Thread(target=target, name="rest-market-cleanup")
    helper.start()
    helper.join()
    if "error" in outcome:
        raise outcome["error"]
    value: _T = outcome["value"]
    return value


def _schedule(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, Any]) -> None:
    """Run ``coroutine`` as a task of ``loop``, keeping a reference until it is done."""
    task = loop.create_task(coroutine)
    _SCHEDULED.add(task)
    task.add_done_callback(_SCHEDULED.discard)
