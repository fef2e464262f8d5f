"""Entry points listed ahead of time (`_plugins.preload_entry_points`), as a fork server does."""

from __future__ import annotations

from typing import Any

import pytest

import sekai.core
import sekai.registry
import sekai.spaces
from sekai.registry import EnvRegistry, _plugins

GROUP = "sekai.test-preload-group"


class Env(sekai.core.Env[int, int]):
    observation_space = sekai.spaces.Discrete(1)
    action_space = sekai.spaces.Discrete(1)

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.core.ResetResult[int]:
        return sekai.core.ResetResult(0, {})

    def step(self, action: int) -> sekai.core.StepResult[int]:
        return sekai.core.StepResult(0, 0.0, False, False, {})


class FakeEntryPoint:
    def __init__(self, name: str) -> None:
        self.name = name
        self.value = f"fake_{name}:register"
        self.module = f"fake_{name}"

    def load(self) -> Any:
        return lambda: sekai.registry.register(f"{self.name}/Env-v0", Env)


class Metadata:
    """Stands for the installed metadata: counts the reads of each group."""

    def __init__(self) -> None:
        self.reads: list[str] = []
        self.listing: list[Any] = [FakeEntryPoint("pre")]
        self.error: Exception | None = None

    def __call__(self, group: str) -> list[Any]:
        self.reads.append(group)
        if self.error is not None:
            raise self.error
        return list(self.listing)


@pytest.fixture
def metadata(monkeypatch: pytest.MonkeyPatch) -> Metadata:
    fake = Metadata()
    monkeypatch.setattr(_plugins, "_read_entry_points", fake)
    monkeypatch.setattr(_plugins, "_PRELOADED", {})
    return fake


def test_a_preloaded_listing_is_used_once_instead_of_reading_again(metadata: Metadata) -> None:
    _plugins.preload_entry_points(GROUP)
    assert metadata.reads == [GROUP]
    first = _plugins.list_entry_points(GROUP)
    assert [ep.name for ep in first] == ["pre"]
    assert metadata.reads == [GROUP]  # no second read
    # Used up: the next listing reads the metadata at call time again.
    metadata.listing = [FakeEntryPoint("later")]
    assert [ep.name for ep in _plugins.list_entry_points(GROUP)] == ["later"]
    assert metadata.reads == [GROUP, GROUP]


def test_a_preloaded_listing_serves_only_its_group(metadata: Metadata) -> None:
    _plugins.preload_entry_points(GROUP)
    metadata.listing = []
    assert _plugins.list_entry_points("sekai.another-group") == []
    assert metadata.reads == [GROUP, "sekai.another-group"]
    assert [ep.name for ep in _plugins.list_entry_points(GROUP)] == ["pre"]


def test_a_failed_preload_preloads_nothing(metadata: Metadata) -> None:
    metadata.error = RuntimeError("corrupt metadata")
    with pytest.raises(RuntimeError, match="corrupt metadata"):
        _plugins.preload_entry_points(GROUP)
    # The registry meets the error itself, and reports it as it always has.
    registry = EnvRegistry(entry_point_group=GROUP)
    with pytest.warns(RuntimeWarning, match="corrupt metadata"):
        assert "pre/Env-v0" not in registry
    assert "corrupt metadata" in str(registry.failed_plugins)
    assert metadata.reads == [GROUP, GROUP]


def test_a_registry_loads_plugins_from_the_preloaded_listing(metadata: Metadata) -> None:
    _plugins.preload_entry_points(GROUP)
    registry = EnvRegistry(entry_point_group=GROUP)
    env = registry.make("pre/Env-v0")
    assert env.spec is not None and env.spec.id == "pre/Env-v0"
    assert registry.failed_plugins == {}
    assert metadata.reads == [GROUP]  # the registry did not read the metadata again
