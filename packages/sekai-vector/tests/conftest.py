"""Test environments and backend fixtures shared by the sekai-vector tests.

``CountingEnv`` is the reference env of the VecEnv contract kit
(``sekai.vector._contract_envs``, run by ``sekai.testing.VecEnvContract``): a
small deterministic (given its start) env whose observation records the step
count and the sum of the actions, so tests can check exactly which sub-env
received which action and when it was reset. ``CountingNativeVecEnv`` is the
kit's native version of it, recording its hook calls for the tests here.
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
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv, shared
from sekai.vector._contract_envs import (
    ACTION_SPACE as ACT_SPACE,
    OBSERVATION_SPACE as OBS_SPACE,
    CountingEnv,
    CountingNativeVecEnv as _KitCountingNativeVecEnv,
    counting_fns,
)

BACKENDS = ("sync", "async", "native")
__all__ = ["ACT_SPACE", "OBS_SPACE", "CountingEnv", "counting_fns"]


class CountingNativeVecEnv(_KitCountingNativeVecEnv):
    """The kit's native counting env, recording its hook calls, with shared members.

    Unlike the kit's, its random start comes from the generator shared by the
    batch (``rng``, sekai 0.2's rule), which the tests of that rule read.
    """

    def __init__(self, *args: Any, random_start: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shared_random_start = random_start
        self.step_actions: list[NDArray[Any]] = []
        self.reset_indices: list[list[int]] = []
        self.name = "native"

    @property
    def lengths(self) -> Any:
        return self.length

    @lengths.setter
    def lengths(self, value: Any) -> None:
        self.length = value

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        self.reset_indices.append(indices.tolist())
        super()._reset_envs(indices, options)
        if self.shared_random_start:
            self.start[indices] += self.rng.random(len(indices))

    def _step(self, actions: Any) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], Any]:
        self.step_actions.append(np.array(actions))
        return super()._step(actions)

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
