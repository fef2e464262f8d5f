"""Wrapper hooks: one wrapper, the same results through step/reset and their async forms."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sekai.core import (
    ActionWrapper,
    Env,
    ObservationWrapper,
    ResetResult,
    RewardWrapper,
    StepResult,
    Wrapper,
)
from sekai.core._async_routing import is_routed
from sekai.utils.seeding import SeedType


class NativeAsyncEnv(Env[int, int]):
    """Counts steps; its async methods give the same results but log that they ran.

    Observation ``offset + t`` (``offset`` drawn at reset), reward the action,
    terminated after three steps. ``calls`` tells which methods ran.
    """

    def __init__(self) -> None:
        self.observation_space = "obs-space"  # type: ignore[assignment]
        self.action_space = "act-space"  # type: ignore[assignment]
        self.calls: list[str] = []
        self.t = 0
        self.offset = 0

    def _reset(self, seed: SeedType, options: dict[str, Any] | None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        self.offset = int(self.rng.integers(0, 1000))
        return ResetResult(self.offset, {"options": options})

    def _step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(self.offset + self.t, float(action), self.t >= 3, False, {"t": self.t})

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[int]:
        self.calls.append("reset")
        return self._reset(seed, options)

    def step(self, action: int) -> StepResult[int]:
        self.calls.append("step")
        return self._step(action)

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[int]:
        await asyncio.sleep(0)
        self.calls.append("async_reset")
        return self._reset(seed, options)

    async def async_step(self, action: int) -> StepResult[int]:
        await asyncio.sleep(0)
        self.calls.append("async_step")
        return self._step(action)


class HooksOnly(Wrapper[int, int, int, int]):
    """Shifts actions, counts steps into the info and tags reset infos, with hooks only."""

    def __init__(self, env: Env[int, int]) -> None:
        super().__init__(env)
        self.steps = 0
        self.seen: list[int] = []

    def _before_step(self, action: int) -> int:
        self.seen.append(action)
        return action + 1

    def _after_step(self, result: StepResult[int]) -> StepResult[int]:
        self.steps += 1
        info = {**result.info, "wrapper_steps": self.steps}
        return StepResult(
            result.observation * 10, result.reward, result.terminated, result.truncated, info
        )

    def _after_reset(self, result: ResetResult[int]) -> ResetResult[int]:
        self.steps = 0
        return ResetResult(result.observation * 10, {**result.info, "hooked": True})


class Double(ObservationWrapper[int, int, int]):
    def observation(self, observation: int) -> int:
        return observation * 2


class Negate(RewardWrapper[int, int]):
    def reward(self, reward: float) -> float:
        return -reward


class PlusTen(ActionWrapper[int, int, int]):
    def action(self, action: int) -> int:
        return action + 10


ACTIONS = [1, 2, 0, 4]


def _run_sync(env: Env[Any, Any]) -> list[Any]:
    results: list[Any] = [env.reset(seed=3, options={"o": 1})]
    results += [env.step(a) for a in ACTIONS]
    return results


def _run_async(env: Env[Any, Any]) -> list[Any]:
    async def run() -> list[Any]:
        results: list[Any] = [await env.async_reset(seed=3, options={"o": 1})]
        for a in ACTIONS:
            results.append(await env.async_step(a))
        return results

    return asyncio.run(run())


def _stacks() -> dict[str, Any]:
    return {
        "hooks-only": lambda env: HooksOnly(env),
        "observation": lambda env: Double(env),
        "reward": lambda env: Negate(env),
        "action": lambda env: PlusTen(env),
        "all-stacked": lambda env: HooksOnly(PlusTen(Negate(Double(HooksOnly(env))))),
        "plain": lambda env: Wrapper(env),
    }


@pytest.mark.parametrize("name", sorted(_stacks()))
def test_sync_and_async_paths_give_the_same_results(name: str) -> None:
    build = _stacks()[name]
    sync_env, async_env = NativeAsyncEnv(), NativeAsyncEnv()
    assert _run_sync(build(sync_env)) == _run_async(build(async_env))
    # The async path really awaited the env's async methods, and only those.
    assert sync_env.calls == ["reset"] + ["step"] * len(ACTIONS)
    assert async_env.calls == ["async_reset"] + ["async_step"] * len(ACTIONS)


def test_the_hooks_shape_what_step_and_reset_return() -> None:
    inner = NativeAsyncEnv()
    env = HooksOnly(inner)
    first = env.reset(seed=0)
    assert first.observation == inner.offset * 10
    assert first.info == {"options": None, "hooked": True}
    result = env.step(4)
    assert result.reward == 5.0  # the env received the shifted action
    assert result.observation == (inner.offset + 1) * 10
    assert result.info == {"t": 1, "wrapper_steps": 1}
    assert env.seen == [4]


def test_hooks_default_to_identity() -> None:
    inner = NativeAsyncEnv()
    env = Wrapper(inner)
    reset = inner.reset(seed=1)
    step = StepResult(1, 0.0, False, False, {})
    assert env._after_reset(reset) is reset
    assert env._after_step(step) is step
    assert env._before_step(7) == 7


def test_hooks_are_inherited_and_chain_through_super() -> None:
    class Louder(HooksOnly):
        def _after_step(self, result: StepResult[int]) -> StepResult[int]:
            result = super()._after_step(result)
            return StepResult(
                result.observation + 1, result.reward, result.terminated, result.truncated, {}
            )

    class Quiet(Louder):  # overrides nothing: keeps every hook of its parents
        pass

    inner = NativeAsyncEnv()
    sync_env = Quiet(inner)
    sync = _run_sync(sync_env)
    assert sync == _run_async(Quiet(NativeAsyncEnv()))
    assert sync[1].observation == (inner.offset + 1) * 10 + 1
    assert sync[1].reward == 2.0  # _before_step still shifts the action
    assert sync_env.seen == ACTIONS


def test_a_wrapper_with_only_a_reset_hook_steps_straight_through() -> None:
    class TagReset(Wrapper[int, int, int, int]):
        def _after_reset(self, result: ResetResult[int]) -> ResetResult[int]:
            return ResetResult(result.observation, {"tagged": True})

    inner = NativeAsyncEnv()
    env = TagReset(inner)
    assert env.reset(seed=0).info == {"tagged": True}
    assert asyncio.run(env.async_reset(seed=0)).info == {"tagged": True}
    result = env.step(2)
    assert result.info == {"t": 1} and result.reward == 2.0


def test_a_subclass_overriding_step_only_gets_the_routed_async_step() -> None:
    class StepOverride(HooksOnly):
        def step(self, action: int) -> StepResult[int]:
            result = super().step(action)  # the hooks still run, once
            return StepResult(result.observation, 100.0, False, False, result.info)

    assert is_routed(StepOverride.async_step)
    assert not is_routed(StepOverride.async_reset)  # reset was not overridden
    inner = NativeAsyncEnv()
    env = StepOverride(inner)
    reset, step = _run_async(env)[:2]
    assert reset.info["hooked"] is True
    assert step.reward == 100.0  # the override was not bypassed
    assert step.info == {"t": 1, "wrapper_steps": 1}
    # The routed method runs the sync override, which steps the env synchronously.
    assert inner.calls[:2] == ["async_reset", "step"]


def test_a_transform_wrapper_overriding_step_only_is_routed_too() -> None:
    class Shifted(Double):
        def step(self, action: int) -> StepResult[int]:
            result = super().step(action)
            return StepResult(result.observation + 1, 0.0, False, False, result.info)

    assert is_routed(Shifted.async_step)
    inner = NativeAsyncEnv()
    env = Shifted(inner)
    reset, step = _run_async(env)[:2]
    assert step.observation == (inner.offset + 1) * 2 + 1
    assert reset.observation == inner.offset * 2  # the native async reset, transformed
    assert inner.calls[:2] == ["async_reset", "step"]


def test_hook_based_classes_keep_the_methods_listed_by_0_2() -> None:
    listed = {
        ObservationWrapper: ["async_reset", "async_step", "observation", "reset", "step"],
        RewardWrapper: ["async_step", "reward", "step"],
        ActionWrapper: ["action", "async_step", "reverse_action", "step"],
    }
    for cls, names in listed.items():
        for name in names:
            assert callable(getattr(cls, name)), (cls, name)
        assert not is_routed(cls.async_step)
        assert not is_routed(cls.async_reset)
