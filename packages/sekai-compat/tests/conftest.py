"""Test environments and fixtures shared by the sekai-compat tests.

``RichEnv`` has every composite space (Dict, Tuple, Sequence, MaskedBox) in
its observation and a Tuple action, with random dynamics drawn from its rng,
so round trips and seeding are tested on more than boxes. ``InfoEnv`` has
infos of every kind for the vector conversion. ``DuelEnv`` is a small
multi-agent env. ``FrameRenderer`` records which env it was asked to draw.
Nothing here imports Gymnasium.

The reference environments come from ``sekai-envs``, which is not a
dependency of ``sekai-compat``: tests that use them request the
``reference_envs`` fixture and are skipped when the package tests run on
their own (``nox -s tests-sekai-compat``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai.registry
from sekai.core import (
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ResetResult,
    StepResult,
)
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Sequence, Tuple
from sekai.utils.seeding import SeedType


def _single_agent_ids() -> list[str]:
    """Ids of every registered single-agent reference env (those of ``sekai.envs``).

    Environments that other tests register in the same session are left out:
    they are not part of sekai and may need arguments to be made.
    """
    ids = []
    for spec in sekai.registry.all_specs():
        entry_point = spec.entry_point
        if not (isinstance(entry_point, str) and entry_point.startswith("sekai.envs.")):
            continue
        env = sekai.registry.make(spec.id)
        try:
            if not isinstance(env, MultiAgentEnv):
                ids.append(spec.id)
        finally:
            env.close()
    return sorted(ids)


class RichEnv(Env[dict[str, Any], Any]):
    """Dict / Tuple / Sequence / MaskedBox observations, a Tuple action, random dynamics."""

    def __init__(self, horizon: int = 30) -> None:
        self.horizon = horizon
        self.observation_space = Dict(
            {
                "price": Box(-np.inf, np.inf, (2,), dtype=np.float64),
                "book": MaskedBox(0.0, 10.0, (2,), max_size=4),
                "trades": Sequence(Discrete(5), max_length=6),
                "pair": Tuple([Discrete(3), Box(-1.0, 1.0, (1,))]),
            }
        )
        self.action_space = Tuple([Discrete(3), Box(-1.0, 1.0, (2,))])
        self.closed = 0
        self.last_options: dict[str, Any] | None = None
        self._t = 0

    def _observation(self) -> dict[str, Any]:
        rng = self.rng
        count = int(rng.integers(0, 5))
        values = np.zeros((4, 2), np.float32)
        values[:count] = rng.uniform(0.0, 10.0, (count, 2))
        mask = (np.arange(4) < count).astype(np.int8)
        trades = tuple(np.int64(v) for v in rng.integers(0, 5, int(rng.integers(0, 7))))
        return {
            "price": rng.normal(size=2),
            "book": {"values": values, "mask": mask},
            "trades": trades,
            "pair": (np.int64(rng.integers(3)), rng.uniform(-1, 1, 1).astype(np.float32)),
        }

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        self._set_rng(seed)
        self.last_options = options
        self._t = 0
        return ResetResult(self._observation(), {"t": 0})

    def step(self, action: Any) -> StepResult[dict[str, Any]]:
        assert self.action_space.contains(action), action
        self._t += 1
        reward = float(action[0]) + float(np.sum(action[1])) + float(self.rng.normal())
        terminated = bool(self.rng.random() < 0.05)
        truncated = self._t >= self.horizon
        return StepResult(self._observation(), reward, terminated, truncated, {"t": self._t})

    def close(self) -> None:
        self.closed += 1


class InfoEnv(Env[Any, Any]):
    """Batchable spaces and infos of every kind: ints, floats, bools, arrays, strings, nested dicts.

    Keys come and go with the step (``"even"`` on even steps only, ``"detail"``
    on random steps), the reset info has keys of its own, and episodes end by
    termination or truncation at random, so vector infos get sparse masks.
    """

    def __init__(self) -> None:
        self.observation_space = Dict({"x": Box(-1.0, 1.0, (2,)), "k": Discrete(4)})
        self.action_space = Discrete(3)
        self._t = 0

    def _observation(self) -> dict[str, Any]:
        return {
            "x": self.rng.uniform(-1, 1, 2).astype(np.float32),
            "k": np.int64(self.rng.integers(4)),
        }

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, Any]]:
        self._set_rng(seed)
        self._t = 0
        return ResetResult(self._observation(), {"start": float(self.rng.random()), "tag": "r"})

    def step(self, action: Any) -> StepResult[dict[str, Any]]:
        self._t += 1
        info: dict[str, Any] = {"t": self._t, "gain": float(self.rng.normal()), "ok": True}
        if self._t % 2 == 0:
            info["even"] = np.arange(3) * self._t
        if self.rng.random() < 0.3:
            info["detail"] = {"level": int(action), "name": f"step{self._t}"}
        draw = self.rng.random()
        terminated, truncated = bool(draw < 0.1), bool(0.1 <= draw < 0.15)
        return StepResult(self._observation(), float(action), terminated, truncated, info)


class DuelEnv(MultiAgentEnv[Any, Any, str]):
    """Two agents with different spaces; ``"b"`` may drop out early, both stop at ``horizon``."""

    def __init__(self, horizon: int = 25) -> None:
        self.horizon = horizon
        self.possible_agents = ["a", "b"]
        self.agents = []
        self.observation_spaces = {
            "a": Box(-1.0, 1.0, (3,)),
            "b": Dict({"level": Discrete(5), "noise": Box(-np.inf, np.inf, (1,), np.float64)}),
        }
        self.action_spaces = {"a": Box(0.0, 1.0, (2,)), "b": Discrete(3)}
        self.last_options: dict[str, Any] | None = None
        self.closed = 0
        self._t = 0

    def _observe(self, agent: str) -> Any:
        if agent == "a":
            return self.rng.uniform(-1, 1, 3).astype(np.float32)
        return {"level": np.int64(self.rng.integers(5)), "noise": self.rng.normal(size=1)}

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[Any, str]:
        self._set_rng(seed)
        self.last_options = options
        self._t = 0
        self.agents = list(self.possible_agents)
        return MAResetResult(
            {agent: self._observe(agent) for agent in self.agents},
            {agent: {"t": 0} for agent in self.agents},
        )

    def step(self, actions: dict[str, Any]) -> MAStepResult[Any, str]:
        self._t += 1
        rewards = {agent: float(np.sum(actions[agent])) for agent in self.agents}
        terminated = dict.fromkeys(self.agents, False)
        if "b" in terminated and self.rng.random() < 0.1:
            terminated["b"] = True
        truncated = dict.fromkeys(self.agents, self._t >= self.horizon)
        observations = {agent: self._observe(agent) for agent in self.agents}
        infos = {agent: {"t": self._t} for agent in self.agents}
        self.agents = [a for a in self.agents if not (terminated[a] or truncated[a])]
        return MAStepResult(observations, rewards, terminated, truncated, infos)

    def close(self) -> None:
        self.closed += 1


class FrameRenderer:
    """Draws the env's step count into a small image; counts its calls."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def render(self, env: Any) -> np.ndarray:
        self.calls.append(env)
        return np.full((4, 6, 3), 7, dtype=np.uint8)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise ``single_agent_id`` over every registered single-agent env."""
    if "single_agent_id" in metafunc.fixturenames:
        metafunc.parametrize("single_agent_id", _single_agent_ids())


@pytest.fixture
def reference_envs() -> None:
    """Skip the test unless ``sekai-envs`` (the reference environments) is installed."""
    pytest.importorskip("sekai.envs", reason="needs sekai-envs (the reference environments)")


@pytest.fixture
def top_level_sekai() -> None:
    """Skip the test unless the meta-package (``import sekai; sekai.make``) is installed."""
    pytest.importorskip("sekai.envs", reason="needs sekai-envs (the reference environments)")
    import sekai

    if not hasattr(sekai, "make"):
        pytest.skip("needs the sekai meta-package (the top-level API)")


@pytest.fixture(scope="session")
def single_agent_ids() -> list[str]:
    """Ids of every registered single-agent env (what ``single_agent_id`` runs over)."""
    return _single_agent_ids()


@pytest.fixture(scope="session")
def info_env_type() -> type[InfoEnv]:
    """The :class:`InfoEnv` class (an env factory for vector envs)."""
    return InfoEnv


@pytest.fixture
def registered_rich_id() -> Any:
    """The id of :class:`RichEnv` in the global registry (3-step limit), for the test only."""
    env_id = "compat_tests/Rich-v0"
    sekai.registry.register(env_id, entry_point=RichEnv, max_episode_steps=3, reward_threshold=9.5)
    yield env_id
    sekai.registry.deregister(env_id)


@pytest.fixture
def duel_env() -> DuelEnv:
    """A fresh :class:`DuelEnv`."""
    return DuelEnv()


@pytest.fixture
def rich_env() -> RichEnv:
    """A fresh :class:`RichEnv`."""
    return RichEnv()


@pytest.fixture
def renderer() -> FrameRenderer:
    """A fresh :class:`FrameRenderer`."""
    return FrameRenderer()
