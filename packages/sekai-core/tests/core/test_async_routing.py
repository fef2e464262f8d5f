"""The async routing rule for Env, Wrapper and MultiAgentEnv subclasses."""

from __future__ import annotations

import asyncio
from typing import Any

from sekai.core import (
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ResetResult,
    StepResult,
    Wrapper,
)


class NativeAsyncEnv(Env[str, int]):
    """Its async methods answer differently from the sync ones, to tell them apart."""

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[str]:
        return ResetResult("sync-reset", {})

    def step(self, action: int) -> StepResult[str]:
        return StepResult("sync-step", 0.0, False, False, {})

    async def async_reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[str]:
        return ResetResult("async-reset", {"seed": seed, "options": options})

    async def async_step(self, action: int) -> StepResult[str]:
        return StepResult("async-step", float(action), False, False, {})


def _run_both(env: Any, action: Any = 1) -> tuple[Any, Any]:
    async def run() -> tuple[Any, Any]:
        return await env.async_reset(seed=5, options={"o": 1}), await env.async_step(action)

    return asyncio.run(run())


def test_native_async_is_used_when_not_overridden() -> None:
    reset, step = _run_both(NativeAsyncEnv())
    assert reset.observation == "async-reset"
    assert step.observation == "async-step"


def test_subclass_overriding_step_only_routes_async_step_through_it() -> None:
    class CustomStep(NativeAsyncEnv):
        def step(self, action: int) -> StepResult[str]:
            return StepResult("custom-step", float(action), False, False, {})

    reset, step = _run_both(CustomStep(), 3)
    assert step.observation == "custom-step"
    assert step.reward == 3.0
    # reset was not overridden: the native async reset is kept.
    assert reset.observation == "async-reset"


def test_subclass_overriding_reset_only_routes_async_reset_with_arguments() -> None:
    seen: list[Any] = []

    class CustomReset(NativeAsyncEnv):
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[str]:
            seen.append((seed, options))
            return ResetResult("custom-reset", {})

    reset, step = _run_both(CustomReset())
    assert reset.observation == "custom-reset"
    assert seen == [(5, {"o": 1})]
    assert step.observation == "async-step"


def test_subclass_overriding_both_keeps_its_async() -> None:
    class Both(NativeAsyncEnv):
        def step(self, action: int) -> StepResult[str]:
            return StepResult("both-sync", 0.0, False, False, {})

        async def async_step(self, action: int) -> StepResult[str]:
            return StepResult("both-async", 0.0, False, False, {})

    _, step = _run_both(Both())
    assert step.observation == "both-async"


def test_routing_is_inherited_by_further_subclasses() -> None:
    class CustomStep(NativeAsyncEnv):
        def step(self, action: int) -> StepResult[str]:
            return StepResult("custom-step", 0.0, False, False, {})

    class Child(CustomStep):
        pass

    _, step = _run_both(Child())
    assert step.observation == "custom-step"
    assert Child.async_step is CustomStep.async_step
    assert NativeAsyncEnv.async_step is not CustomStep.async_step


def test_wrapper_overriding_step_only_is_not_bypassed() -> None:
    class Tag(Wrapper[str, int, str, int]):
        def step(self, action: int) -> StepResult[str]:
            r = self.env.step(action)
            return StepResult(r.observation + "+tag", r.reward, r.terminated, r.truncated, r.info)

    reset, step = _run_both(Tag(NativeAsyncEnv()))
    # The tag applies on the async path, through the (sync) inner step.
    assert step.observation == "sync-step+tag"
    # reset is untouched, so the async path stays native down to the env.
    assert reset.observation == "async-reset"


def test_plain_wrapper_keeps_inner_async_end_to_end() -> None:
    reset, step = _run_both(Wrapper(NativeAsyncEnv()))
    assert (reset.observation, step.observation) == ("async-reset", "async-step")


class NativeAsyncMA(MultiAgentEnv[str, int, str]):
    def __init__(self) -> None:
        self.possible_agents = ["a"]
        self.agents = ["a"]

    def reset(self, *, seed: Any = None, options: Any = None) -> MAResetResult[str, str]:
        return MAResetResult({"a": "sync-reset"}, {"a": {}})

    def step(self, actions: dict[str, int]) -> MAStepResult[str, str]:
        return MAStepResult({"a": "sync-step"}, {"a": 0.0}, {"a": False}, {"a": False}, {"a": {}})

    async def async_reset(
        self, *, seed: Any = None, options: Any = None
    ) -> MAResetResult[str, str]:
        return MAResetResult({"a": "async-reset"}, {"a": {}})

    async def async_step(self, actions: dict[str, int]) -> MAStepResult[str, str]:
        return MAStepResult({"a": "async-step"}, {"a": 0.0}, {"a": False}, {"a": False}, {"a": {}})


def test_multi_agent_routing_rule() -> None:
    reset, step = _run_both(NativeAsyncMA(), {"a": 1})
    assert (reset.observations["a"], step.observations["a"]) == ("async-reset", "async-step")

    class CustomStep(NativeAsyncMA):
        def step(self, actions: dict[str, int]) -> MAStepResult[str, str]:
            return MAStepResult({"a": "custom"}, {"a": 0.0}, {"a": False}, {"a": False}, {"a": {}})

    reset, step = _run_both(CustomStep(), {"a": 1})
    assert step.observations["a"] == "custom"
    assert reset.observations["a"] == "async-reset"


class StepLogger:
    """A plain mixin (not an Env) that adds logic to step() only."""

    steps: int = 0

    def step(self, action: int) -> StepResult[str]:
        self.steps += 1
        result: StepResult[str] = super().step(action)  # type: ignore[misc]
        return StepResult(result.observation + "+logged", result.reward, False, False, {})


def test_step_from_a_mixin_before_a_native_async_base_is_routed() -> None:
    class Logged(StepLogger, NativeAsyncEnv):
        pass

    env = Logged()
    reset, step = _run_both(env)
    assert step.observation == "sync-step+logged"
    assert env.steps == 1
    assert reset.observation == "async-reset"


def test_a_mixin_after_the_native_base_does_not_route() -> None:
    class Shadowed(NativeAsyncEnv, StepLogger):
        pass

    _, step = _run_both(Shadowed())
    assert step.observation == "async-step"


def test_a_mixin_with_both_methods_keeps_its_async() -> None:
    class BothMixin(StepLogger):
        async def async_step(self, action: int) -> StepResult[str]:
            return StepResult("mixin-async", 0.0, False, False, {})

    class Logged(BothMixin, NativeAsyncEnv):
        pass

    _, step = _run_both(Logged())
    assert step.observation == "mixin-async"


def test_an_async_only_override_is_kept() -> None:
    class AsyncOnly(NativeAsyncEnv):
        async def async_step(self, action: int) -> StepResult[str]:
            return StepResult("async-only", 0.0, False, False, {})

    _, step = _run_both(AsyncOnly())
    assert step.observation == "async-only"


def test_a_routed_method_is_reused_by_subclasses_that_override_step_again() -> None:
    class First(NativeAsyncEnv):
        def step(self, action: int) -> StepResult[str]:
            return StepResult("first", 0.0, False, False, {})

    class Second(First):
        def step(self, action: int) -> StepResult[str]:
            return StepResult("second", 0.0, False, False, {})

    _, step = _run_both(Second())
    assert step.observation == "second"
