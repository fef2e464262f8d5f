"""check_env: a clean env passes, and each deliberately broken env is caught."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult, TimeLimit
from sekai.error import InvalidAction
from sekai.spaces import Box, Discrete, Space
from sekai.utils import check_env


class GoodEnv(Env[np.ndarray, np.int64]):
    """A random walk on [-10, 10]; episodes end at the edge."""

    def __init__(self) -> None:
        self.observation_space = Box(-10.0, 10.0, (2,), dtype=np.float64)
        self.action_space = Discrete(3)
        self.position = np.zeros(2)

    def obs(self) -> np.ndarray:
        return self.position.copy()

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self._set_rng(seed)
        self.position = self.rng.uniform(-1.0, 1.0, size=2)
        return ResetResult(self.obs(), {})

    def reward(self) -> Any:
        return float(-abs(self.position[0]))

    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        if action not in Discrete(3):  # subclasses change action_space, not the moves
            raise InvalidAction(action, Discrete(3))
        self.position = np.clip(
            self.position + (int(action) - 1) + self.rng.normal(0, 0.1, 2), -10, 10
        )
        terminated = bool(abs(self.position[0]) >= 10.0)
        return StepResult(self.obs(), self.reward(), terminated, False, {})


def errors(report: list[str]) -> list[str]:
    return [line for line in report if line.startswith("ERROR:")]


def test_a_conforming_env_passes_every_check() -> None:
    env = TimeLimit(GoodEnv(), 20)
    assert check_env(env, check_determinism=True) == []


def test_action_space_stream_is_not_touched() -> None:
    env = GoodEnv()
    env.action_space.seed(5)
    expected = Discrete(3, seed=5).sample()
    check_env(env, n_steps=10)
    assert env.action_space.sample() == expected


class NoSpaces(GoodEnv):
    def __init__(self) -> None:
        self.position = np.zeros(2)


class NotASpace(GoodEnv):
    def __init__(self) -> None:
        super().__init__()
        self.action_space = [0, 1, 2]  # type: ignore[assignment]


class BadSampleSpace(Space[int]):
    def sample(self, mask: Any = None) -> int:
        return 7

    def contains(self, x: Any) -> bool:
        return x in (0, 1)


class SampleOutsideSpace(GoodEnv):
    def __init__(self) -> None:
        super().__init__()
        self.action_space = BadSampleSpace()  # type: ignore[assignment]

    def step(self, action: Any) -> StepResult[np.ndarray]:
        return super().step(np.int64(1))


class ResetReturnsTuple(GoodEnv):
    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return super().reset(seed=seed).observation, {}


class StepReturnsTuple(GoodEnv):
    def step(self, action: np.int64) -> Any:
        r = super().step(action)
        return r.observation, r.reward, r.terminated, r.truncated, r.info


class ObsOutsideSpace(GoodEnv):
    def obs(self) -> np.ndarray:
        return self.position + 100.0


class ObsNaN(GoodEnv):
    def __init__(self) -> None:
        super().__init__()
        self.observation_space = Box(-np.inf, np.inf, (2,), dtype=np.float64)

    def obs(self) -> np.ndarray:
        return np.array([np.nan, 0.0])


class RewardNaN(GoodEnv):
    def reward(self) -> Any:
        return float("nan")


class RewardNotANumber(GoodEnv):
    def reward(self) -> Any:
        return "1.0"


class RewardArray(GoodEnv):
    def reward(self) -> Any:
        return np.array([1.0])


class FlagsNotBools(GoodEnv):
    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        r = super().step(action)
        return StepResult(r.observation, r.reward, int(r.terminated), 0, r.info)  # type: ignore[arg-type]


class InfoNotDict(GoodEnv):
    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        r = super().step(action)
        return StepResult(r.observation, r.reward, r.terminated, r.truncated, None)  # type: ignore[arg-type]


class IgnoresSeed(GoodEnv):
    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        # Forgets self._set_rng(seed): the stream just continues.
        self.position = self.rng.uniform(-1.0, 1.0, size=2)
        return ResetResult(self.obs(), {})


class NondeterministicStep(GoodEnv):
    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        if action not in Discrete(3):  # subclasses change action_space, not the moves
            raise InvalidAction(action, Discrete(3))
        self.position = np.clip(self.position + np.random.default_rng().normal(0, 1, 2), -10, 10)
        return StepResult(self.obs(), 0.0, False, False, {})


class AsyncDisagrees(GoodEnv):
    async def async_step(self, action: np.int64) -> StepResult[np.ndarray]:
        r = self.step(action)
        return StepResult(r.observation, r.reward + 1.0, r.terminated, r.truncated, r.info)


class AsyncReturnsTuple(GoodEnv):
    async def async_reset(self, *, seed: Any = None, options: Any = None) -> Any:
        return self.reset(seed=seed).observation, {}


class StepRaises(GoodEnv):
    def step(self, action: np.int64) -> StepResult[np.ndarray]:
        raise RuntimeError("simulator crashed")


class BadActionMask(GoodEnv):
    def action_mask(self) -> np.ndarray:
        return np.array([1, 1], dtype=np.int8)  # the action space has 3 actions


@pytest.mark.parametrize(
    ("env_cls", "expected"),
    [
        (NoSpaces, "observation_space is not defined"),
        (NotASpace, "action_space must be a sekai.spaces.Space"),
        (SampleOutsideSpace, "does not contain its own sample"),
        (ResetReturnsTuple, "reset() must return a sekai.core.ResetResult"),
        (StepReturnsTuple, "step() must return a sekai.core.StepResult"),
        (ObsOutsideSpace, "is not in observation_space"),
        (ObsNaN, "observation contains NaN"),
        (RewardNaN, "reward must be finite"),
        (RewardNotANumber, "reward must be a real number"),
        (RewardArray, "reward must be a real number"),
        (FlagsNotBools, "terminated must be a bool"),
        (InfoNotDict, "info must be a dict"),
        (IgnoresSeed, "reset(seed=123) is not reproducible"),
        (AsyncDisagrees, "disagree with reset()/step()"),
        (AsyncReturnsTuple, "not a ResetResult"),
        (StepRaises, "step() raised RuntimeError: simulator crashed"),
        (BadActionMask, "action_mask() does not return a valid mask"),
    ],
    ids=lambda x: x.__name__ if isinstance(x, type) else "",
)
def test_each_fault_is_reported(env_cls: type[Env[Any, Any]], expected: str) -> None:
    report = check_env(env_cls())
    assert any(expected in line for line in errors(report)), report
    assert all(line.startswith(("ERROR: ", "WARNING: ")) for line in report)


def test_flags_of_both_kinds_are_checked() -> None:
    report = check_env(FlagsNotBools())
    assert any("truncated must be a bool" in line for line in report)


def test_nondeterminism_is_caught_only_when_asked() -> None:
    assert not any("trajectories" in line for line in check_env(NondeterministicStep()))
    report = check_env(NondeterministicStep(), check_determinism=True)
    assert any("two different trajectories" in line for line in errors(report))


def test_each_problem_is_reported_once() -> None:
    report = check_env(ObsOutsideSpace(), n_steps=30)
    assert sum("is not in observation_space" in line for line in report) == 1


def test_switches_disable_their_checks() -> None:
    assert check_env(ObsOutsideSpace(), check_obs_space=False) == []
    assert check_env(IgnoresSeed(), check_reset_seed=False, check_async=False) == []
    assert check_env(AsyncDisagrees(), check_async=False) == []
    assert check_env(SampleOutsideSpace(), check_action_space=False) == []


class IntReward(GoodEnv):
    def reward(self) -> Any:
        return 1


class UnboundedActions(GoodEnv):
    def __init__(self) -> None:
        super().__init__()
        self.action_space = Box(-np.inf, np.inf, (1,))  # type: ignore[assignment]

    def step(self, action: Any) -> StepResult[np.ndarray]:
        return super().step(np.int64(1))


@pytest.mark.parametrize(
    ("env_cls", "expected"),
    [(IntReward, "reward is an integer"), (UnboundedActions, "unbounded Box")],
)
def test_anomalies_are_warnings_that_can_be_silenced(env_cls: Any, expected: str) -> None:
    report = check_env(env_cls())
    assert errors(report) == []
    assert any(line.startswith("WARNING: ") and expected in line for line in report)
    assert check_env(env_cls(), warn_on_anomaly=False) == []


@pytest.mark.parametrize(
    ("n_steps", "error"), [(-1, ValueError), (2.5, TypeError), ("10", TypeError), (True, TypeError)]
)
def test_bad_n_steps_is_an_error_of_the_call(n_steps: Any, error: type[Exception]) -> None:
    with pytest.raises(
        error, match=rf"n_steps must be an int >= 0, got {re.escape(repr(n_steps))}"
    ):
        check_env(GoodEnv(), n_steps=n_steps)


def test_zero_steps_checks_reset_only() -> None:
    assert check_env(GoodEnv(), n_steps=np.int64(0)) == []
    assert check_env(ObsOutsideSpace(), n_steps=0) != []
    assert check_env(StepRaises(), n_steps=0) == []


class ResetWithoutOptions(GoodEnv):
    def reset(self, *, seed: Any = None) -> ResetResult[np.ndarray]:  # type: ignore[override]
        return super().reset(seed=seed)


class ResetTakingKwargs(GoodEnv):
    def reset(self, **kwargs: Any) -> ResetResult[np.ndarray]:
        return super().reset(**kwargs)


class SpaceRaises(GoodEnv):
    @property  # type: ignore[misc]
    def observation_space(self) -> Space[Any]:
        raise RuntimeError("feed not connected")

    @observation_space.setter
    def observation_space(self, value: Space[Any]) -> None:
        pass


def test_reset_must_take_seed_and_options() -> None:
    report = check_env(ResetWithoutOptions())
    assert errors(report) == [
        "ERROR: reset(*, seed: 'Any' = None) -> 'ResetResult[np.ndarray]' does not take the "
        "keyword argument(s) options; define reset(self, *, seed=None, options=None): "
        "wrappers and vector envs pass both"
    ]
    assert check_env(ResetTakingKwargs()) == []


def test_a_space_that_raises_is_reported() -> None:
    assert check_env(SpaceRaises()) == [
        "ERROR: reading observation_space raised RuntimeError: feed not connected"
    ]


def test_not_an_env() -> None:
    assert check_env("CartPole") == ["ERROR: check_env expects a sekai.core.Env, got 'CartPole'"]  # type: ignore[arg-type]
    (line,) = check_env(GoodEnv)  # type: ignore[arg-type]
    assert "a class, not an instance: create the env first, e.g. GoodEnv(...)" in line


def test_works_inside_a_running_event_loop() -> None:
    async def main() -> list[str]:
        return check_env(AsyncDisagrees())

    assert any("disagree" in line for line in asyncio.run(main()))
