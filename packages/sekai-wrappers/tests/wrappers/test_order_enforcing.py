"""OrderEnforcing: ResetRequired before the first reset (and after close)."""

from __future__ import annotations

import asyncio

import pytest

from sekai.error import ResetRequired
from sekai.wrappers import OrderEnforcing


def test_step_before_reset_raises(counter_env) -> None:
    inner = counter_env()
    env = OrderEnforcing(inner)
    assert not env.has_reset
    with pytest.raises(ResetRequired, match="before reset"):
        env.step(0)
    assert inner.actions == []


def test_step_after_reset_works(counter_env) -> None:
    env = OrderEnforcing(counter_env())
    env.reset(seed=0)
    assert env.has_reset
    assert env.step(1).reward == 1.0


def test_close_requires_a_new_reset(counter_env) -> None:
    env = OrderEnforcing(counter_env())
    env.reset(seed=0)
    env.close()
    with pytest.raises(ResetRequired):
        env.step(0)
    env.reset()
    env.step(0)


def test_async_methods_enforce_the_order(counter_env) -> None:
    env = OrderEnforcing(counter_env())

    async def early():
        await env.async_step(0)

    with pytest.raises(ResetRequired):
        asyncio.run(early())

    async def ok():
        await env.async_reset(seed=0)
        return await env.async_step(2)

    assert asyncio.run(ok()).reward == 1.0


def test_reset_required_is_a_runtime_error(counter_env) -> None:
    with pytest.raises(RuntimeError):
        OrderEnforcing(counter_env()).step(0)


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(OrderEnforcing(space_env(any_space)))


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    import numpy as np

    actions = [np.zeros(2, np.float32)] * 7
    a = rollout(OrderEnforcing(space_env(any_space)), 6, actions)
    b = rollout(OrderEnforcing(space_env(any_space)), 6, actions)
    assert same(a, b)
