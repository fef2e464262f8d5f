"""Small environments and helpers shared by the sekai-wrappers tests.

With ``--import-mode=importlib`` test modules cannot import this file by name,
so everything is handed out through fixtures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiBinary, Space, Tuple
from sekai.utils import check_env


class SpaceEnv(Env[Any, Any]):
    """Observations sampled from any space, reproducibly from the env's seed.

    Episodes last ``episode_length`` steps and end with ``terminated`` (or
    ``truncated`` when ``terminate=False``). Every executed action is logged in
    ``actions``; rewards are drawn from the env's stream.
    """

    def __init__(
        self,
        observation_space: Space[Any],
        action_space: Space[Any] | None = None,
        *,
        episode_length: int = 5,
        terminate: bool = True,
    ) -> None:
        self.observation_space = observation_space
        self.action_space = action_space if action_space is not None else Box(-1.0, 1.0, (2,))
        self.episode_length = episode_length
        self.terminate = terminate
        self.actions: list[Any] = []
        self.t = 0
        self.resets = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.observation_space.seed(int(self.rng.integers(2**31)))
        self.t = 0
        self.resets += 1
        return ResetResult(self.observation_space.sample(), {"resets": self.resets})

    def step(self, action: Any) -> StepResult[Any]:
        self.actions.append(action)
        self.t += 1
        done = self.t >= self.episode_length
        return StepResult(
            self.observation_space.sample(),
            float(self.rng.normal()),
            done and self.terminate,
            done and not self.terminate,
            {"t": self.t},
        )


class CounterEnv(Env[Any, Any]):
    """Observation ``[start + t]`` (float32), where ``start`` is drawn at reset.

    Reward ``t``; episodes end (terminated) after ``episode_length`` steps.
    Executed actions are logged in ``actions``.
    """

    def __init__(self, action_space: Space[Any] | None = None, *, episode_length: int = 10) -> None:
        self.observation_space = Box(0.0, 1000.0, (1,), np.float32)
        self.action_space = action_space if action_space is not None else Discrete(3)
        self.episode_length = episode_length
        self.actions: list[Any] = []
        self.t = 0
        self.start = 0

    def _obs(self) -> Any:
        return np.array([self.start + self.t], dtype=np.float32)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.t = 0
        self.start = int(self.rng.integers(0, 100))
        return ResetResult(self._obs(), {"start": self.start})

    def step(self, action: Any) -> StepResult[Any]:
        self.actions.append(action)
        self.t += 1
        done = self.t >= self.episode_length
        return StepResult(self._obs(), float(self.t), done, False, {"t": self.t})


class BufferEnv(Env[Any, Any]):
    """Writes every observation into the same buffers, as fast simulators do.

    The observation is the same dict object every time, holding the same
    arrays: ``"t"`` (float32, shape (1,)) is the step count and ``"book"`` a
    MaskedBox whose first ``t % 3`` slots hold ``t``, rewritten in place. The
    info is one dict too, ``{"t": t}``. Episodes end (terminated) after
    ``episode_length`` steps, or never when it is None.
    """

    def __init__(self, episode_length: int | None = None) -> None:
        self.observation_space = Dict(
            {"t": Box(0.0, 100.0, (1,), np.float32), "book": MaskedBox(0.0, 100.0, max_size=3)}
        )
        self.action_space = Discrete(2)
        self.episode_length = episode_length
        self.t = 0
        self.buffer = self.observation_space.zero()
        self.info: dict[str, Any] = {}

    def _write(self) -> Any:
        self.buffer["t"][0] = self.t
        self.buffer["book"]["values"][:] = 0.0
        self.buffer["book"]["mask"][:] = 0
        filled = self.t % 3
        self.buffer["book"]["values"][:filled] = self.t
        self.buffer["book"]["mask"][:filled] = 1
        self.info["t"] = self.t
        return self.buffer

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self._write(), self.info)

    def step(self, action: Any) -> StepResult[Any]:
        self.t += 1
        done = self.episode_length is not None and self.t >= self.episode_length
        return StepResult(self._write(), 0.0, done, False, self.info)


class MaskedEnv(SpaceEnv):
    """A SpaceEnv whose action_mask() returns ``mask`` (fixed, or changing with t)."""

    def __init__(self, observation_space: Space[Any], action_space: Space[Any], mask: Any) -> None:
        super().__init__(observation_space, action_space)
        self.mask = mask

    def action_mask(self) -> Any:
        return self.mask(self.t) if callable(self.mask) else self.mask


def _spaces() -> dict[str, Space[Any]]:
    return {
        "box": Box(-2.0, 3.0, (3,), np.float32),
        "box2d": Box(0, 255, (4, 3), np.uint8),
        "discrete": Discrete(4),
        "dict": Dict(
            {
                "price": Box(-1.0, 1.0, (2,), np.float64),
                "regime": Discrete(3),
                "book": MaskedBox(0.0, 5.0, (2,), max_size=4),
            }
        ),
        "tuple": Tuple((Box(0.0, 1.0, (2,)), MultiBinary(3))),
    }


SPACES = _spaces()


@pytest.fixture(scope="session")
def space_env() -> type[SpaceEnv]:
    """The SpaceEnv class."""
    return SpaceEnv


@pytest.fixture(scope="session")
def counter_env() -> type[CounterEnv]:
    """The CounterEnv class."""
    return CounterEnv


@pytest.fixture(scope="session")
def buffer_env() -> type[BufferEnv]:
    """The BufferEnv class."""
    return BufferEnv


@pytest.fixture(scope="session")
def masked_env() -> type[MaskedEnv]:
    """The MaskedEnv class."""
    return MaskedEnv


@pytest.fixture(params=sorted(SPACES))
def any_space(request: pytest.FixtureRequest) -> Space[Any]:
    """One space of the canonical list (a fresh instance per test)."""
    return _spaces()[request.param]


@pytest.fixture(scope="session")
def assert_conforms() -> Callable[..., None]:
    """Assert that check_env finds no error (warnings are ignored)."""

    def check(env: Env[Any, Any], **options: Any) -> None:
        problems = check_env(env, n_steps=30, **options)
        errors = [problem for problem in problems if problem.startswith("ERROR")]
        assert errors == []

    return check


@pytest.fixture(scope="session")
def rollout() -> Callable[..., list[Any]]:
    """Reset with ``seed`` and play ``actions``; return every (obs, reward, flags) seen."""

    def play(env: Env[Any, Any], seed: int, actions: list[Any]) -> list[Any]:
        first = env.reset(seed=seed)
        seen: list[Any] = [first.observation]
        for action in actions:
            r = env.step(action)
            seen.append((r.observation, r.reward, r.terminated, r.truncated))
            if r.terminated or r.truncated:
                seen.append(env.reset().observation)
        return seen

    return play


@pytest.fixture(scope="session")
def same() -> Callable[[Any, Any], bool]:
    """Deep equality for nested observations (arrays compared exactly)."""

    def equal(a: Any, b: Any) -> bool:
        if isinstance(a, dict):
            return (
                isinstance(b, dict) and a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
            )
        if isinstance(a, (tuple, list)):
            return (
                isinstance(b, (tuple, list))
                and len(a) == len(b)
                and all(equal(x, y) for x, y in zip(a, b, strict=True))
            )
        if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
        return bool(a == b)

    return equal
