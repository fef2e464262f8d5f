"""sekai.core.Env: abstract API, seeding, async defaults, close, naming, metadata."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.utils.seeding import SeededRNG


def test_env_is_abstract_over_reset_and_step() -> None:
    with pytest.raises(TypeError, match="abstract"):
        Env()  # type: ignore[abstract]

    class OnlyReset(Env[int, int]):
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[int]:
            return ResetResult(0, {})

    with pytest.raises(TypeError, match="step"):
        OnlyReset()  # type: ignore[abstract]


def test_env_is_a_seeded_rng(env: Any) -> None:
    assert isinstance(env, SeededRNG)


def test_int_seed_reseeds_and_none_continues(env: Any) -> None:
    first = env.reset(seed=42).observation
    assert env.reset(seed=42).observation == first
    # None continues the stream: a different draw from the same generator.
    generator = env.rng
    env.reset()
    assert env.rng is generator
    # A generator is adopted as is.
    gen = np.random.default_rng(7)
    env.reset(seed=gen)
    assert env.rng is gen


def test_rng_is_created_lazily_from_entropy(counter_env_cls: Any) -> None:
    a, b = counter_env_cls(), counter_env_cls()
    assert a._rng is None
    assert isinstance(a.rng, np.random.Generator)
    assert a.rng is a.rng
    assert a.rng.integers(0, 2**62) != b.rng.integers(0, 2**62)


def test_async_defaults_run_the_sync_methods(env: Any) -> None:
    async def run() -> tuple[Any, Any]:
        return await env.async_reset(seed=3, options={"x": 1}), await env.async_step(2)

    reset, step = asyncio.run(run())
    assert isinstance(reset, ResetResult)
    assert reset.info == {"options": {"x": 1}}
    assert isinstance(step, StepResult)
    assert step.reward == 2.0
    assert env.calls == ["reset", "step"]
    assert reset.observation == env.reset(seed=3).observation


def test_close_default_is_a_no_op_and_context_manager_closes(counter_env_cls: Any) -> None:
    class Plain(Env[int, int]):
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[int]:
            return ResetResult(0, {})

        def step(self, action: int) -> StepResult[int]:
            return StepResult(0, 0.0, False, False, {})

    plain = Plain()
    plain.close()
    plain.close()  # closing twice is safe
    with counter_env_cls() as env:
        assert env.closed == 0
    assert env.closed == 1
    with pytest.raises(RuntimeError), counter_env_cls() as env:
        raise RuntimeError
    assert env.closed == 1


def test_unwrapped_of_a_bare_env_is_itself(env: Any) -> None:
    assert env.unwrapped is env


def test_str_names_spec_id_or_class(env: Any) -> None:
    assert env.spec is None
    assert str(env) == repr(env) == "<CounterEnv>"
    env.spec = SimpleNamespace(id="Counter-v0")
    assert str(env) == repr(env) == "<CounterEnv<Counter-v0>>"


def test_metadata_is_not_shared_between_classes(counter_env_cls: Any) -> None:
    assert Env.metadata == {}

    class A(Env[int, int]):
        pass

    class B(A):
        pass

    A.metadata["render_modes"] = ["ansi"]
    assert Env.metadata == {}
    assert B.metadata == {}
    assert counter_env_cls.metadata == {"render_modes": []}

    class C(counter_env_cls):  # type: ignore[misc,valid-type]
        pass

    # An inherited dict is copied, not shared.
    assert C.metadata == {"render_modes": []}
    assert C.metadata is not counter_env_cls.metadata


def test_render_is_not_part_of_the_interface() -> None:
    assert not hasattr(Env, "render")
