"""make() with real sekai.core envs: TimeLimit, wrappers and the attached spec."""

from __future__ import annotations

from typing import Any

import pytest

from sekai.core import Env, ResetResult, StepResult, TimeLimit
from sekai.core.order_enforcing import OrderEnforcing
from sekai.registry import EnvRegistry, WrapperSpec
from sekai.utils.seeding import SeedType


class Counter(Env[int, int]):
    """Counts steps; never ends by itself."""

    def __init__(self, start: int = 0, **extra: Any) -> None:
        self.start = start
        self.extra = extra
        self.count = start

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[int]:
        self._set_rng(seed)
        self.count = self.start
        return ResetResult(self.count, {})

    def step(self, action: int) -> StepResult[int]:
        self.count += 1
        return StepResult(self.count, 1.0, False, False, {})


def _episode_length(env: Any, limit: int = 1000) -> int:
    env.reset(seed=0)
    for steps in range(1, limit + 1):
        result = env.step(0)
        if result.terminated or result.truncated:
            return steps
    return -1


def test_registered_time_limit_is_applied(registry: EnvRegistry) -> None:
    registry.register("Counter-v0", Counter, max_episode_steps=5)
    env = registry.make("Counter-v0")
    assert isinstance(env, TimeLimit)
    assert env.max_episode_steps == 5
    assert _episode_length(env) == 5
    assert env.spec.max_episode_steps == 5


def test_max_episode_steps_overrides_and_is_not_passed_on(registry: EnvRegistry) -> None:
    registry.register("Counter-v0", Counter, max_episode_steps=5)
    env = registry.make("Counter-v0", max_episode_steps=3)
    assert _episode_length(env) == 3
    assert env.unwrapped.extra == {}  # not forwarded to the constructor
    assert env.spec.max_episode_steps == 3
    assert registry.spec("Counter-v0").max_episode_steps == 5


def test_max_episode_steps_minus_one_removes_the_limit(registry: EnvRegistry) -> None:
    registry.register("Counter-v0", Counter, max_episode_steps=5)
    env = registry.make("Counter-v0", max_episode_steps=-1)
    # Only OrderEnforcing (which make() applies, as sekai 0.2 does) is left around the env.
    assert type(env) is OrderEnforcing and isinstance(env.env, Counter)
    assert _episode_length(env, limit=50) == -1
    assert env.spec.max_episode_steps is None


def test_a_limit_can_be_added_at_make(registry: EnvRegistry) -> None:
    registry.register("Counter-v0", Counter)
    env = registry.make("Counter-v0")
    assert type(env) is OrderEnforcing and isinstance(env.env, Counter)
    assert _episode_length(registry.make("Counter-v0", max_episode_steps=2)) == 2


def test_additional_wrappers_go_outside_the_time_limit(
    registry: EnvRegistry, env_module: str
) -> None:
    registry.register(
        "Counter-v0",
        Counter,
        max_episode_steps=4,
        kwargs={"start": 10},
        additional_wrappers=(
            WrapperSpec("Inner", f"{env_module}:CoreTag", {"tag": "inner"}),
            WrapperSpec("Outer", f"{env_module}:CoreTag", {"tag": "outer"}),
        ),
    )
    env = registry.make("Counter-v0")
    layers = list(env)
    names = [type(layer).__name__ for layer in layers]
    assert names == ["CoreTag", "CoreTag", "TimeLimit", "OrderEnforcing", "Counter"]
    assert [layer.tag for layer in layers[:2]] == ["outer", "inner"]
    assert _episode_length(env) == 4


def test_spec_is_on_the_base_env_and_read_through_wrappers(registry: EnvRegistry) -> None:
    registry.register("ns/Counter-v1", Counter, max_episode_steps=4, kwargs={"start": 1})
    env = registry.make("ns/Counter-v1", start=7)
    assert env.unwrapped.spec is env.spec
    assert env.spec.id == "ns/Counter-v1"
    assert env.spec.kwargs == {"start": 7}
    assert env.unwrapped.start == 7
    assert "ns/Counter-v1" in repr(env)


def test_spec_make_applies_the_limit(registry: EnvRegistry) -> None:
    spec = registry.register("Counter-v0", Counter, max_episode_steps=6)
    assert _episode_length(spec.make()) == 6
    assert _episode_length(spec.make(max_episode_steps=2)) == 2


@pytest.mark.parametrize("mode", ["sync", "async", "proc"])
def test_sub_envs_have_the_time_limit(
    registry: EnvRegistry, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    import sys
    import types

    class Recorder:
        def __init__(self, env_fns: list[Any], **kwargs: Any) -> None:
            self.envs = [fn() for fn in env_fns]

    fake = types.ModuleType("sekai.vector")
    for name in ("SyncVecEnv", "AsyncVecEnv", "ProcVecEnv"):
        setattr(fake, name, Recorder)
    monkeypatch.setitem(sys.modules, "sekai.vector", fake)
    registry.register("Counter-v0", Counter, max_episode_steps=3)
    vec = registry.make_vec("Counter-v0", 2, vectorization_mode=mode)
    assert [_episode_length(env) for env in vec.envs] == [3, 3]


class Closable(Counter):
    """Records how many times it was closed."""

    closed = 0

    def close(self) -> None:
        type(self).closed += 1


def test_a_failing_additional_wrapper_closes_the_env(registry: EnvRegistry) -> None:
    Closable.closed = 0
    registry.register(
        "Counter-v0",
        Closable,
        max_episode_steps=5,
        additional_wrappers=(WrapperSpec("Missing", "sekai_registry_no_such_module:W"),),
    )
    with pytest.raises(ImportError):
        registry.make("Counter-v0")
    assert Closable.closed == 1


def test_a_failing_make_vec_wrapper_closes_the_sub_env(
    registry: EnvRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys
    import types

    class Builder:
        def __init__(self, env_fns: list[Any], **kwargs: Any) -> None:
            self.env_fns = env_fns

    fake = types.ModuleType("sekai.vector")
    fake.SyncVecEnv = Builder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sekai.vector", fake)

    def broken(env: Any) -> Any:
        raise ValueError("bad wrapper")

    Closable.closed = 0
    registry.register("Counter-v0", Closable, max_episode_steps=5)
    vec = registry.make_vec("Counter-v0", 2, vectorization_mode="sync", wrappers=[broken])
    with pytest.raises(ValueError, match="bad wrapper"):
        vec.env_fns[0]()
    assert Closable.closed == 1
