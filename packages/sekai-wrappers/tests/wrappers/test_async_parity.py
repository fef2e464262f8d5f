"""Every wrapper gives the same results under await and reaches the env's async methods."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, TimeLimit
from sekai.spaces import Box
from sekai.wrappers import (
    ActionRepeat,
    AutoReset,
    ClipAction,
    ClipReward,
    DelayAction,
    DelayObservation,
    FrameStackObservation,
    NormalizeObservation,
    NormalizeReward,
    OrderEnforcing,
    RecordEpisodeStatistics,
    StickyAction,
    TimeAwareObservation,
    TransformReward,
)

WRAPPERS: dict[str, Any] = {
    "ActionRepeat": lambda env: ActionRepeat(env, 2),
    "AutoReset": lambda env: AutoReset(TimeLimit(env, 3)),
    "ClipAction": ClipAction,
    "ClipReward": lambda env: ClipReward(env, -0.5, 0.5),
    "DelayAction": lambda env: DelayAction(env, 2),
    "DelayObservation": lambda env: DelayObservation(env, 2, padding="reset"),
    "FrameStackObservation": lambda env: FrameStackObservation(env, 3),
    "NormalizeObservation": NormalizeObservation,
    "NormalizeReward": NormalizeReward,
    "OrderEnforcing": OrderEnforcing,
    "RecordEpisodeStatistics": RecordEpisodeStatistics,
    "StickyAction": lambda env: StickyAction(env, 0.5),
    "TimeAwareObservation": lambda env: TimeAwareObservation(env, 10),
    "TransformReward": lambda env: TransformReward(env, lambda r: 2 * r),
}


def _native_async(counter_env: type[Env[Any, Any]]) -> Env[Any, Any]:
    """A CounterEnv with a Box action space whose async methods log that they ran."""

    class NativeAsync(counter_env):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__(Box(-1.0, 1.0, (1,), np.float32), episode_length=4)
            self.calls: list[str] = []

        def reset(self, **kwargs: Any) -> Any:
            self.calls.append("reset")
            return super().reset(**kwargs)

        def step(self, action: Any) -> Any:
            self.calls.append("step")
            return super().step(action)

        async def async_reset(self, **kwargs: Any) -> Any:
            await asyncio.sleep(0)
            result = super().reset(**kwargs)
            self.calls.append("async_reset")
            return result

        async def async_step(self, action: Any) -> Any:
            await asyncio.sleep(0)
            result = super().step(action)
            self.calls.append("async_step")
            return result

    return NativeAsync()


ACTIONS = [np.array([a], dtype=np.float32) for a in (0.5, -2.0, 0.25, 1.0, -0.75, 0.0, 0.3)]


def _plain(value: Any) -> Any:
    """Comparable form of a result field (arrays as lists, episode stats without timings)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "episode_return"):
        return (value.episode_return, value.episode_length, value.terminated)
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value).tolist()
    return value


def _record(result: Any) -> tuple[Any, ...]:
    fields = ("observation", "reward", "terminated", "truncated", "info")
    return tuple(_plain(getattr(result, name)) for name in fields if hasattr(result, name))


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_async_matches_sync_and_awaits_the_env(name: str, counter_env: Any) -> None:
    build = WRAPPERS[name]
    sync_inner, async_inner = _native_async(counter_env), _native_async(counter_env)
    sync_env, async_env = build(sync_inner), build(async_inner)

    sync = [_record(sync_env.reset(seed=7))]
    sync += [_record(sync_env.step(a)) for a in ACTIONS]
    sync.append(_record(sync_env.reset()))

    async def run() -> list[Any]:
        records = [_record(await async_env.async_reset(seed=7))]
        for a in ACTIONS:
            records.append(_record(await async_env.async_step(a)))
        records.append(_record(await async_env.async_reset()))
        return records

    assert asyncio.run(run()) == sync
    assert sync_inner.calls and not any(c.startswith("async") for c in sync_inner.calls)
    assert async_inner.calls == ["async_" + call for call in sync_inner.calls]
