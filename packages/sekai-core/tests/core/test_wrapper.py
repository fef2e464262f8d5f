"""Wrapper, ObservationWrapper, RewardWrapper, ActionWrapper."""

from __future__ import annotations

import asyncio
import pickle
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from sekai.core import (
    ActionWrapper,
    Env,
    MultiAgentEnv,
    ObservationWrapper,
    ResetResult,
    RewardWrapper,
    StepResult,
    Wrapper,
)
from sekai.spaces import Box, Discrete


class Double(ObservationWrapper[int, int, int]):
    def observation(self, observation: int) -> int:
        return observation * 2


class Negate(RewardWrapper[int, int]):
    def reward(self, reward: float) -> float:
        return -reward


class PlusTen(ActionWrapper[int, int, int]):
    def action(self, action: int) -> int:
        return action + 10

    def reverse_action(self, action: int) -> int:
        return action - 10


class Marked(Wrapper[int, int, int, int]):
    marker = "class-level"

    def __init__(self, env: Env[int, int]) -> None:
        super().__init__(env)
        self.own = "marked"
        self.length = -1  # shadows the env's attribute of the same name


def test_wrapper_requires_an_env() -> None:
    with pytest.raises(TypeError, match=r"expects a sekai\.core\.Env to wrap, got 'not an env'$"):
        Wrapper("not an env")  # type: ignore[arg-type]


class FakeGymnasiumEnv:
    """Stands in for a Gymnasium env (gymnasium is not a dependency of sekai-core)."""


FakeGymnasiumEnv.__module__ = "gymnasium.envs.classic_control.cartpole"


def test_wrapping_a_non_env_says_how_to_fix_the_usual_mistakes(counter_env_cls: Any) -> None:
    with pytest.raises(TypeError, match=r"a class, not an instance.*CounterEnv\(\.\.\.\)"):
        Wrapper(counter_env_cls)
    with pytest.raises(TypeError, match=r"sekai\.compat\.from_gymnasium\(env\)"):
        Wrapper(FakeGymnasiumEnv())  # type: ignore[arg-type]

    class Agents(MultiAgentEnv[int, int, str]):
        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return None

        def step(self, actions: Any) -> Any:
            return None

    with pytest.raises(TypeError, match="a MultiAgentEnv is not a single-agent"):
        Wrapper(Agents())  # type: ignore[arg-type]


def test_methods_are_delegated(env: Any) -> None:
    wrapped = Wrapper(env)
    assert wrapped.reset(seed=1, options={"a": 1}).info == {"options": {"a": 1}}
    assert wrapped.step(4).reward == 4.0
    wrapped.close()
    assert env.closed == 1
    assert env.calls == ["reset", "step"]


def test_async_methods_are_delegated(env: Any) -> None:
    wrapped = Wrapper(Wrapper(env))

    async def run() -> Any:
        await wrapped.async_reset(seed=1)
        return await wrapped.async_step(2)

    assert asyncio.run(run()).reward == 2.0
    assert env.calls == ["reset", "step"]


def test_attribute_reads_are_forwarded_but_not_private_ones(env: Any) -> None:
    wrapped = Wrapper(Wrapper(env))
    assert wrapped.length == 5
    env.custom_method = lambda: "called"
    assert wrapped.custom_method() == "called"
    with pytest.raises(AttributeError, match="private"):
        _ = wrapped._rng_private
    with pytest.raises(AttributeError, match="private"):
        _ = wrapped._internal
    with pytest.raises(AttributeError):
        _ = wrapped.does_not_exist


def test_spaces_read_through_until_overridden(env: Any) -> None:
    wrapped = Wrapper(env)
    assert wrapped.observation_space == "obs-space"
    assert wrapped.action_space == "act-space"
    env.observation_space = "changed"
    # Lazy: the wrapper reads the env's current space, not a copy taken at construction.
    assert wrapped.observation_space == "changed"
    wrapped.observation_space = "wrapper-obs"  # type: ignore[assignment]
    wrapped.action_space = "wrapper-act"  # type: ignore[assignment]
    assert (wrapped.observation_space, wrapped.action_space) == ("wrapper-obs", "wrapper-act")
    assert (env.observation_space, env.action_space) == ("changed", "act-space")
    assert Wrapper(wrapped).observation_space == "wrapper-obs"


def test_overrides_assigned_before_super_init_are_kept(env: Any) -> None:
    class Early(Wrapper[int, int, int, int]):
        def __init__(self, env: Env[int, int]) -> None:
            self.observation_space = "early-obs"  # type: ignore[assignment]
            self.action_space = "early-act"  # type: ignore[assignment]
            self.metadata = {"early": True}
            self.spec = SimpleNamespace(id="Early-v0")  # type: ignore[assignment]
            super().__init__(env)

    wrapped = Early(env)
    assert (wrapped.observation_space, wrapped.action_space) == ("early-obs", "early-act")
    assert wrapped.metadata == {"early": True}
    assert wrapped.spec.id == "Early-v0"
    assert Wrapper(env).observation_space == "obs-space"


def test_metadata_spec_and_unwrapped(env: Any) -> None:
    inner = Wrapper(env)
    outer = Wrapper(inner)
    assert outer.metadata is env.metadata
    assert outer.unwrapped is env
    assert outer.spec is None
    env.spec = SimpleNamespace(id="Counter-v0")
    assert outer.spec is env.spec
    outer.metadata = {"own": True}
    assert outer.metadata == {"own": True}
    assert inner.metadata is env.metadata
    outer.spec = SimpleNamespace(id="Other-v1")  # type: ignore[assignment]
    assert outer.spec.id == "Other-v1"
    assert inner.spec is env.spec


def test_rng_and_seeding_act_on_the_wrapped_env(env: Any) -> None:
    wrapped = Wrapper(env)
    assert wrapped.rng is env.rng
    generator = np.random.default_rng(0)
    wrapped.rng = generator
    assert env.rng is generator
    wrapped._set_rng(3)
    assert env.rng is not generator
    assert env.rng.integers(0, 2**62) == np.random.default_rng(np.random.SeedSequence(3)).integers(
        0, 2**62
    )


def test_iter_and_len_walk_the_stack(env: Any) -> None:
    inner = Double(env)
    middle = Negate(inner)
    outer = PlusTen(middle)
    assert list(outer) == [outer, middle, inner, env]
    assert len(outer) == 4
    assert len(Wrapper(env)) == 2


def test_str_shows_the_stack(env: Any) -> None:
    assert str(Double(Wrapper(env))) == "<Double<Wrapper<CounterEnv>>>"
    env.spec = SimpleNamespace(id="Counter-v0")
    assert repr(Wrapper(env)) == "<Wrapper<CounterEnv<Counter-v0>>>"


def test_get_attr_searches_outermost_first(env: Any) -> None:
    marked = Marked(env)
    outer = Wrapper(marked)
    assert outer.get_attr("length") == -1  # the outermost definition wins
    assert outer.get_attr("own") == "marked"
    assert outer.get_attr("marker") == "class-level"
    assert outer.get_attr("offset") == 0  # only the base env has it
    assert outer.get_attr("spec") is None
    with pytest.raises(AttributeError, match="no_such_attribute"):
        outer.get_attr("no_such_attribute")


def test_set_attr_sets_the_outermost_layer_that_has_it(env: Any) -> None:
    marked = Marked(env)
    outer = Wrapper(marked)
    outer.set_attr("length", 9)
    assert marked.length == 9
    assert env.length == 5
    outer.set_attr("offset", 7)
    assert env.offset == 7
    assert "offset" not in vars(outer)
    assert "offset" not in vars(marked)
    # spec belongs to the base env (wrappers only forward it).
    outer.set_attr("spec", SimpleNamespace(id="X-v0"))
    assert env.spec.id == "X-v0"
    with pytest.raises(AttributeError, match="brand_new"):
        outer.set_attr("brand_new", 1)
    assert not hasattr(env, "brand_new")


def test_observation_wrapper_transforms_reset_and_step(env: Any) -> None:
    wrapped = Double(env)
    first = wrapped.reset(seed=0)
    assert first.observation == 2 * env.offset
    result = wrapped.step(1)
    assert result.observation == 2 * (env.offset + 1)

    async def run() -> tuple[Any, Any]:
        return await wrapped.async_reset(seed=0), await wrapped.async_step(1)

    a_first, a_step = asyncio.run(run())
    assert a_first.observation == first.observation
    assert a_step.observation == result.observation


def test_reward_wrapper_transforms_rewards(env: Any) -> None:
    wrapped = Negate(env)
    wrapped.reset(seed=0)
    assert wrapped.step(3).reward == -3.0
    assert asyncio.run(wrapped.async_step(4)).reward == -4.0


def test_action_wrapper_transforms_actions_and_reverses(env: Any) -> None:
    wrapped = PlusTen(env)
    wrapped.reset(seed=0)
    assert wrapped.step(1).reward == 11.0
    assert asyncio.run(wrapped.async_step(2)).reward == 12.0
    assert wrapped.reverse_action(wrapped.action(5)) == 5


def test_reverse_action_default_raises(env: Any) -> None:
    class NoReverse(ActionWrapper[int, int, int]):
        def action(self, action: int) -> int:
            return action

    with pytest.raises(NotImplementedError, match="NoReverse"):
        NoReverse(env).reverse_action(1)


def test_transform_hooks_are_abstract(env: Any) -> None:
    for base in (ObservationWrapper, RewardWrapper, ActionWrapper):
        with pytest.raises(TypeError, match="abstract"):
            base(env)


def test_wrappers_pickle(env: Any) -> None:
    wrapped = Double(Wrapper(env))
    restored = pickle.loads(pickle.dumps(wrapped))
    assert len(restored) == 3
    assert restored.length == 5
    assert restored.unwrapped.length == 5


def test_wrapper_results_are_the_env_results(env: Any) -> None:
    wrapped = Wrapper(env)
    assert isinstance(wrapped.reset(), ResetResult)
    assert isinstance(wrapped.step(0), StepResult)


class OwnSpace(Wrapper[int, int, int, int]):
    """Assigns its own observation space, as a transforming wrapper does."""

    def __init__(self, env: Env[int, int], space: Any) -> None:
        super().__init__(env)
        self.observation_space = space


def test_get_attr_and_set_attr_reach_a_space_a_wrapper_assigned(env: Any) -> None:
    own = OwnSpace(env, Discrete(7))
    outer = Wrapper(own)
    # The space the stack returns, not the base env's one underneath.
    assert outer.get_attr("observation_space") is own.observation_space
    assert outer.get_attr("observation_space") is outer.observation_space
    # A wrapper that has not assigned one reads through: the base env has it.
    assert outer.get_attr("action_space") is env.action_space
    replacement = Box(0.0, 1.0, (1,))
    outer.set_attr("observation_space", replacement)
    assert own.observation_space is replacement
    assert outer.observation_space is replacement
    assert env.observation_space is not replacement
    # metadata and spec follow the same rule.
    own.metadata = {"own": True}
    assert outer.get_attr("metadata") == {"own": True}
    assert outer.get_attr("spec") is env.spec
