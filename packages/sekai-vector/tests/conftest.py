"""Test environments and backend fixtures shared by the sekai-vector tests.

``CountingEnv`` is a small deterministic (given its start) env whose
observation records the step count and the sum of the actions, so tests can
check exactly which sub-env received which action and when it was reset.
``CountingNativeVecEnv`` implements the same dynamics as a NativeVecEnv, the
reference native backend the tests run against.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult, Wrapper
from sekai.spaces import Box, Dict, Discrete, Tuple
from sekai.vector import AsyncVecEnv, NativeVecEnv, SyncVecEnv, VecEnv, shared

BACKENDS = ("sync", "async", "native")
OBS_SPACE = Box(-1e6, 1e6, (3,), np.float32)
ACT_SPACE = Discrete(3)


class CountingEnv(Env[NDArray[np.float32], int]):
    """Observation ``[start, t, total]``: episode start value, steps taken, sum of actions.

    Terminates after ``length`` steps; truncates after ``truncate_after`` steps
    if given. The start is ``options["start"]`` (default 0), plus a draw from
    the env's rng when ``random_start``. Reward: ``action + t / 2``.
    """

    def __init__(
        self,
        length: int = 3,
        *,
        truncate_after: int | None = None,
        random_start: bool = False,
        name: str = "counting",
    ) -> None:
        self.observation_space = OBS_SPACE
        self.action_space = ACT_SPACE
        self.length = length
        self.truncate_after = truncate_after
        self.random_start = random_start
        self.name = name
        self.t = 0
        self.total = 0
        self.start = 0.0
        self.actions: list[Any] = []
        self.seeds: list[Any] = []
        self.options: list[Any] = []
        self.reset_calls = 0
        self.closed = False

    def _obs(self) -> NDArray[np.float32]:
        return np.array([self.start, self.t, self.total], dtype=np.float32)

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        self._set_rng(seed)
        self.seeds.append(seed)
        self.options.append(options)
        self.reset_calls += 1
        self.t = 0
        self.total = 0
        self.start = float((options or {}).get("start", 0.0))
        if self.random_start:
            self.start += float(self.rng.random())
        return ResetResult(self._obs(), {"start": self.start})

    def step(self, action: int) -> StepResult[NDArray[np.float32]]:
        self.actions.append(action)
        self.t += 1
        self.total += int(action)
        terminated = self.t >= self.length
        truncated = self.truncate_after is not None and self.t >= self.truncate_after
        return StepResult(
            self._obs(), float(action) + self.t / 2, terminated, truncated, {"t": self.t}
        )

    def close(self) -> None:
        self.closed = True


class CountingNativeVecEnv(NativeVecEnv[NDArray[np.float32], Any]):
    """The dynamics of :class:`CountingEnv` for every sub-env at once."""

    def __init__(
        self,
        num_envs: int,
        lengths: Sequence[int] | None = None,
        *,
        truncate_after: int | None = None,
        random_start: bool = False,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        super().__init__(
            num_envs,
            OBS_SPACE,
            ACT_SPACE,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.lengths = np.asarray(lengths if lengths is not None else [3] * num_envs)
        self.truncate_after = truncate_after
        self.random_start = random_start
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.total = np.zeros(num_envs, dtype=np.int64)
        self.start = np.zeros(num_envs, dtype=np.float64)
        self.step_actions: list[NDArray[Any]] = []
        self.reset_indices: list[list[int]] = []
        self.name = "native"

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        self.reset_indices.append(indices.tolist())
        self.t[indices] = 0
        self.total[indices] = 0
        self.start[indices] = [float((o or {}).get("start", 0.0)) for o in options]
        if self.random_start:
            self.start[indices] += self.rng.random(len(indices))

    def _observe(self) -> NDArray[np.float32]:
        return np.stack([self.start, self.t, self.total], axis=1).astype(np.float32)

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        self.step_actions.append(np.array(actions))
        self.t += 1
        self.total += actions
        rewards = actions + self.t / 2
        terminated = self.t >= self.lengths
        if self.truncate_after is None:
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            truncated = self.t >= self.truncate_after
        return rewards, terminated, truncated, {"t": self.t.copy()}

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, Any]:
        return {"start": self.start[indices].copy()}

    @shared
    def schedule(self) -> NDArray[np.float64]:
        return np.arange(float(self.num_envs))

    @property
    @shared
    def levels(self) -> NDArray[np.float64]:
        return np.ones(self.num_envs)

    def totals(self, scale: int = 1) -> NDArray[np.int64]:
        return self.total * scale


class BufferEnv(Env[dict[str, Any], int]):
    """Writes every observation and info into the same objects, as simulators often do.

    Observation ``{"t": [t], "pair": ([t], t)}`` (a Dict holding a Tuple);
    the info is one dict, ``{"t": t}``. Terminates after ``length`` steps.
    """

    observation_space = Dict(
        {
            "t": Box(-1e6, 1e6, (1,), np.float32),
            "pair": Tuple((Box(-1e6, 1e6, (1,), np.float32), Discrete(1000))),
        }
    )
    action_space = Discrete(2)

    def __init__(self, length: int = 2) -> None:
        self.length = length
        self.t = 0
        self.buffer = np.zeros(1, np.float32)
        self.inner = np.zeros(1, np.float32)
        self.info: dict[str, Any] = {}

    def _write(self) -> dict[str, Any]:
        self.buffer[0] = self.t
        self.inner[0] = self.t
        self.info.clear()
        self.info["t"] = self.t
        return {"t": self.buffer, "pair": (self.inner, self.t)}

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[dict[str, Any]]:
        self.t = 0
        return ResetResult(self._write(), self.info)

    def step(self, action: int) -> StepResult[dict[str, Any]]:
        self.t += 1
        return StepResult(self._write(), 1.0, self.t >= self.length, False, self.info)


def check_buffer_finals(vec: VecEnv[Any, Any]) -> None:
    """Autoreset over ``[BufferEnv(2), BufferEnv(3)]`` keeps sub-env 0's final step intact."""
    vec.reset(seed=0)
    vec.step([0, 0])
    result = vec.step([0, 0])
    info = result.infos[0]
    assert info["final_observation"]["t"].tolist() == [2.0]
    assert info["final_observation"]["pair"][0].tolist() == [2.0]
    assert info["final_observation"]["pair"][1] == 2
    assert info["final_info"] == {"t": 2}
    assert result.observations["t"][:, 0].tolist() == [0.0, 2.0]  # sub-env 0 restarted


class SelfResettingEnv(Wrapper[Any, Any, Any, Any]):
    """Resets its env itself when an episode ends, as the AutoReset wrapper does."""

    _resets_itself = True

    def step(self, action: Any) -> StepResult[Any]:
        result = self.env.step(action)
        if result.terminated or result.truncated:
            reset = self.env.reset()
            info = {
                **result.info,
                "final_observation": result.observation,
                "final_info": result.info,
                "reset_info": reset.info,
            }
            return StepResult(
                reset.observation, result.reward, result.terminated, result.truncated, info
            )
        return result


class Tagged(Wrapper[Any, Any, Any, Any]):
    """A wrapper with its own attribute, to test access through wrapper stacks."""

    def __init__(self, env: Env[Any, Any], tag: str) -> None:
        super().__init__(env)
        self.tag = tag


class DictEnv(Env[dict[str, Any], dict[str, Any]]):
    """Dict observations and Dict actions: ``{"pos": Box(2,), "mode": Discrete(4)}``."""

    def __init__(self) -> None:
        self.observation_space = Dict({"pos": Box(-100, 100, (2,)), "mode": Discrete(4)})
        self.action_space = Dict({"move": Box(-1, 1, (2,)), "mode": Discrete(4)})
        self.pos = np.zeros(2, dtype=np.float32)
        self.mode = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[dict[str, Any]]:
        self._set_rng(seed)
        self.pos = np.zeros(2, dtype=np.float32)
        self.mode = 0
        return ResetResult({"pos": self.pos.copy(), "mode": np.int64(self.mode)}, {})

    def step(self, action: dict[str, Any]) -> StepResult[dict[str, Any]]:
        self.pos = (self.pos + np.asarray(action["move"], dtype=np.float32)).astype(np.float32)
        self.mode = int(action["mode"])
        obs = {"pos": self.pos.copy(), "mode": np.int64(self.mode)}
        return StepResult(obs, float(self.mode), self.mode == 3, False, {})


class BarrierEnv(CountingEnv):
    """A CountingEnv whose async_step waits until every sub-env of the batch is inside it.

    Sequential stepping would never get past the barrier; concurrent stepping does.
    """

    def __init__(self, barrier: dict[str, Any], parties: int) -> None:
        super().__init__(length=100)
        self.barrier = barrier
        self.parties = parties

    async def async_step(self, action: int) -> StepResult[NDArray[np.float32]]:
        state = self.barrier
        if state.get("event") is None or state["event"].is_set():
            state["event"] = asyncio.Event()
            state["count"] = 0
        event = state["event"]
        state["count"] += 1
        if state["count"] == self.parties:
            event.set()
        await asyncio.wait_for(event.wait(), timeout=5)
        return self.step(action)


def counting_fns(lengths: Sequence[int], **kwargs: Any) -> list[Callable[[], CountingEnv]]:
    return [lambda n=n: CountingEnv(n, **kwargs) for n in lengths]


VecFactory = Callable[..., VecEnv[Any, Any]]


def build_vec(
    backend: str,
    lengths: Sequence[int] = (3, 4, 5),
    *,
    autoreset: bool = True,
    truncate_after: int | None = None,
    random_start: bool = False,
) -> VecEnv[Any, Any]:
    """A vector env of counting sub-envs with the given episode lengths, on ``backend``."""
    if backend == "native":
        return CountingNativeVecEnv(
            len(lengths),
            lengths,
            truncate_after=truncate_after,
            random_start=random_start,
            autoreset=autoreset,
        )
    fns = counting_fns(lengths, truncate_after=truncate_after, random_start=random_start)
    if backend == "sync":
        return SyncVecEnv(fns, autoreset=autoreset)
    if backend == "async":
        return AsyncVecEnv(fns, autoreset=autoreset)
    raise ValueError(backend)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_vec(backend: str) -> Any:
    """Build vector envs on the parametrised backend; every one is closed after the test."""
    built: list[VecEnv[Any, Any]] = []

    def make(*args: Any, **kwargs: Any) -> VecEnv[Any, Any]:
        vec = build_vec(backend, *args, **kwargs)
        built.append(vec)
        return vec

    yield make
    for vec in built:
        vec.close()


@pytest.fixture(params=("sync", "async"))
def env_list_backend(request: pytest.FixtureRequest) -> type[VecEnv[Any, Any]]:
    """The backends that run sub-env objects (Sync and Async)."""
    return SyncVecEnv if request.param == "sync" else AsyncVecEnv


@pytest.fixture
def kit() -> SimpleNamespace:
    """The test envs and helpers of this conftest (test modules cannot import it by name)."""
    return SimpleNamespace(
        CountingEnv=CountingEnv,
        CountingNativeVecEnv=CountingNativeVecEnv,
        SelfResettingEnv=SelfResettingEnv,
        BufferEnv=BufferEnv,
        check_buffer_finals=check_buffer_finals,
        Tagged=Tagged,
        DictEnv=DictEnv,
        BarrierEnv=BarrierEnv,
        counting_fns=counting_fns,
        build_vec=build_vec,
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``interrupted_call``: one test per call the Ctrl-C harness interrupts (its CALLS)."""
    if "interrupted_call" in metafunc.fixturenames:
        metafunc.parametrize("interrupted_call", _load_interrupts().CALLS)


def _load_interrupts() -> Any:
    """The module ``_interrupts.py`` beside this conftest, imported once under its own name."""
    name = "sekai_vector_test_interrupts"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("_interrupts.py")
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses (and cloudpickle) look modules up by name
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def interrupts(pytestconfig: pytest.Config) -> Any:
    """The Ctrl-C harness of ``_interrupts.py`` (test modules cannot import it by name).

    Its last-resort watchdog writes to the terminal's stderr, which pytest's
    capture would otherwise swallow when the watchdog ends the process.
    """
    module = _load_interrupts()
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    if module.HANG_OUTPUT is None and capture is not None:
        with capture.global_and_fixture_disabled():
            module.HANG_OUTPUT = os.fdopen(os.dup(2), "w")
    return module
