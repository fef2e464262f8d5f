"""The module-level functions act on the global registry."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

import sekai.core
import sekai.registry as reg
import sekai.spaces
from sekai.error import EnvAlreadyRegistered, EnvNotFound


class Env(sekai.core.Env[int, int]):
    """A real sekai env recording the kwargs it was built with."""

    observation_space = sekai.spaces.Discrete(1)
    action_space = sekai.spaces.Discrete(1)

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.core.ResetResult[int]:
        return sekai.core.ResetResult(0, {})

    def step(self, action: int) -> sekai.core.StepResult[int]:
        return sekai.core.StepResult(0, 0.0, False, False, {})


class NativeVec:
    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.num_envs = num_envs
        self.kwargs = kwargs


@pytest.fixture
def namespace() -> Iterator[str]:
    """A namespace nobody else uses; its ids are removed from the global registry after."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    yield ns
    registry = reg.default_registry
    for spec in list(registry._specs.values()):
        if spec.namespace == ns:
            registry.deregister(spec.id)


def test_public_names() -> None:
    assert set(reg.__all__) >= {
        "register",
        "make",
        "make_vec",
        "spec",
        "all_specs",
        "deregister",
        "register_namespace",
        "pprint_registry",
        "EnvSpec",
        "WrapperSpec",
        "EnvRegistry",
    }
    for name in reg.__all__:
        assert getattr(reg, name) is not None


def test_round_trip_on_the_global_registry(namespace: str) -> None:
    env_id = f"{namespace}/Env-v0"
    spec = reg.register(env_id, Env, kwargs={"a": 1}, vector_entry_point=NativeVec)
    assert reg.default_registry.spec(env_id) is spec
    assert reg.spec(env_id) is spec
    assert reg.make(env_id, a=2).kwargs == {"a": 2}
    assert reg.make_vec(env_id, 3).num_envs == 3
    assert spec in reg.all_specs()
    with pytest.raises(EnvAlreadyRegistered):
        reg.register(env_id, Env)
    reg.deregister(env_id)
    with pytest.raises(EnvNotFound):
        reg.spec(env_id)


def test_register_namespace_on_the_global_registry(namespace: str) -> None:
    calls: list[int] = []

    def loader() -> None:
        calls.append(1)
        reg.register(f"{namespace}/Lazy-v0", Env)

    reg.register_namespace(namespace, loader)
    assert calls == []
    assert reg.make(f"{namespace}/Lazy-v0").spec.id == f"{namespace}/Lazy-v0"
    reg.make(f"{namespace}/Lazy-v0")
    assert calls == [1]


def test_pprint_registry_prints(namespace: str, capsys: pytest.CaptureFixture[str]) -> None:
    reg.register(f"{namespace}/Printed-v0", Env)
    assert reg.pprint_registry() is None  # type: ignore[func-returns-value]
    out = capsys.readouterr().out
    assert f"===== {namespace} =====" in out
    assert f"{namespace}/Printed-v0" in out


def test_env_spec_make_matches_make(namespace: str) -> None:
    spec = reg.register(f"{namespace}/Env-v0", Env, kwargs={"a": 1})
    assert spec.make(b=2).kwargs == reg.make(spec, b=2).kwargs == {"a": 1, "b": 2}
