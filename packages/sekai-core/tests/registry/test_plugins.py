"""Lazy namespace loaders and plugin entry points (group ``sekai.envs``)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import pytest

import sekai.core
import sekai.registry
import sekai.spaces
from sekai.error import EnvAlreadyRegistered, EnvNotFound
from sekai.registry import ENTRY_POINT_GROUP, EnvRegistry, _plugins


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


class FakeEntryPoint:
    """An entry point whose load() returns ``target`` (or raises it)."""

    def __init__(self, name: str, target: Any, value: str | None = None) -> None:
        self.name = name
        self.value = value or f"fake_plugin_{name}:register"
        self.target = target
        self.loads = 0

    def load(self) -> Any:
        self.loads += 1
        if isinstance(self.target, BaseException):
            raise self.target
        return self.target


class Loader:
    """A loader counting its calls that registers ids with the module-level function."""

    def __init__(self, *ids: str, error: Exception | None = None) -> None:
        self.ids = ids
        self.error = error
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        for env_id in self.ids:
            sekai.registry.register(env_id, Env)
        if self.error is not None:
            raise self.error


@pytest.fixture
def entry_points(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[FakeEntryPoint]]:
    """Install fake entry points; returns a function taking them and recording calls."""
    installed: list[FakeEntryPoint] = []
    groups: list[str] = []

    def fake_list(group: str) -> list[FakeEntryPoint]:
        groups.append(group)
        return list(installed)

    monkeypatch.setattr(_plugins, "list_entry_points", fake_list)

    def install(*eps: FakeEntryPoint) -> list[str]:
        installed.extend(eps)
        return groups

    return install


@pytest.fixture
def plugin_registry() -> EnvRegistry:
    return EnvRegistry(entry_point_group=ENTRY_POINT_GROUP)


# -- register_namespace -------------------------------------------------------------


def test_namespace_loader_runs_lazily_and_once(registry: EnvRegistry) -> None:
    loader = Loader("qc/Market-v0", "qc/Book-v0")
    registry.register_namespace("qc", loader)
    assert loader.calls == 0
    registry.register("Other-v0", Env)
    registry.make("Other-v0")
    assert loader.calls == 0  # other ids do not trigger it
    env = registry.make("qc/Market-v0")
    assert isinstance(env.unwrapped, Env)
    assert loader.calls == 1
    registry.spec("qc/Book-v0")
    with pytest.raises(EnvNotFound):
        registry.spec("qc/Missing-v0")
    assert loader.calls == 1
    assert {s.id for s in registry.all_specs()} == {"Other-v0", "qc/Market-v0", "qc/Book-v0"}
    assert loader.calls == 1


def test_listing_all_specs_runs_pending_loaders(registry: EnvRegistry) -> None:
    loader = Loader("qc/Market-v0")
    registry.register_namespace("qc", loader)
    assert [s.id for s in registry.all_specs()] == ["qc/Market-v0"]
    assert loader.calls == 1
    assert "qc/Market-v0" in registry.pprint()


def test_a_loader_may_look_up_its_own_namespace(registry: EnvRegistry) -> None:
    def loader() -> None:
        sekai.registry.register("qc/A-v0", Env)
        sekai.registry.spec("qc/A-v0")  # no recursion into the loader

    registry.register_namespace("qc", loader)
    assert registry.spec("qc/A-v0").id == "qc/A-v0"


def test_module_level_functions_target_the_loading_registry(registry: EnvRegistry) -> None:
    registry.register_namespace("iso", Loader("iso/Env-v0"))
    registry.spec("iso/Env-v0")
    with pytest.raises(EnvNotFound):
        sekai.registry.default_registry.spec("iso/Env-v0")
    assert sekai.registry.default_registry is not registry


def test_failing_loader_leaves_the_registry_usable(registry: EnvRegistry) -> None:
    loader = Loader("qc/Partial-v0", error=RuntimeError("database down"))
    registry.register_namespace("qc", loader)
    registry.register("Fine-v0", Env)
    with (
        pytest.warns(RuntimeWarning, match="namespace loader 'qc'.*database down"),
        pytest.raises(EnvNotFound) as info,
    ):
        registry.spec("qc/Market-v0")
    assert "namespace loader 'qc'" in str(info.value)
    assert "database down" in str(info.value)
    assert loader.calls == 1
    # What it registered before failing, and everything else, still works.
    registry.make("qc/Partial-v0")
    registry.make("Fine-v0")
    with pytest.raises(EnvNotFound):
        registry.spec("qc/Market-v0")
    assert loader.calls == 1  # not retried
    assert registry.failed_plugins == {"namespace loader 'qc'": "RuntimeError: database down"}
    assert "failed to load" in registry.pprint()


def test_register_namespace_validation(registry: EnvRegistry) -> None:
    with pytest.raises(ValueError, match="namespace"):
        registry.register_namespace("a/b", Loader())
    with pytest.raises(TypeError, match="callable"):
        registry.register_namespace("qc", "not callable")  # type: ignore[arg-type]


def test_a_new_loader_for_a_loaded_namespace_runs_on_next_lookup(registry: EnvRegistry) -> None:
    first, second = Loader("qc/A-v0"), Loader("qc/B-v0")
    registry.register_namespace("qc", first)
    registry.spec("qc/A-v0")
    registry.register_namespace("qc", second)
    registry.spec("qc/B-v0")
    assert (first.calls, second.calls) == (1, 1)


# -- entry points -------------------------------------------------------------------


def test_isolated_registry_ignores_entry_points(
    registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    groups = entry_points(FakeEntryPoint("example", Loader("example/RandomWalk-v0")))
    with pytest.raises(EnvNotFound):
        registry.spec("example/RandomWalk-v0")
    assert groups == []


def test_entry_point_named_after_the_namespace_loads_lazily(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    example, other = Loader("example/RandomWalk-v0"), Loader("other/Env-v0")
    example_ep, other_ep = FakeEntryPoint("example", example), FakeEntryPoint("other", other)
    groups = entry_points(example_ep, other_ep)
    assert groups == []  # nothing read before the first lookup
    env = plugin_registry.make("example/RandomWalk-v0")
    assert isinstance(env.unwrapped, Env)
    assert groups == ["sekai.envs"]
    assert (example.calls, other.calls) == (1, 0)
    plugin_registry.make("example/RandomWalk-v0")
    assert example_ep.loads == 1
    # A miss in a namespace that has its own entry point loads nothing else.
    with pytest.raises(EnvNotFound):
        plugin_registry.spec("example/Missing-v0")
    assert other.calls == 0
    assert [s.id for s in plugin_registry.all_specs()] == [
        "example/RandomWalk-v0",
        "other/Env-v0",
    ]
    assert (example.calls, other.calls) == (1, 1)
    assert groups == ["sekai.envs"]  # listed once


def test_namespace_less_miss_loads_the_remaining_entry_points(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    envs, example = Loader("CartPole-v1", "Portfolio-v0"), Loader("example/RandomWalk-v0")
    entry_points(FakeEntryPoint("sekai-envs", envs), FakeEntryPoint("example", example))
    plugin_registry.make("CartPole-v1")
    assert (envs.calls, example.calls) == (1, 1)
    plugin_registry.make("Portfolio-v0")
    assert envs.calls == 1


def test_a_hit_loads_nothing(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    example = Loader("example/RandomWalk-v0")
    groups = entry_points(FakeEntryPoint("example", example))
    plugin_registry.register_namespace("local", Loader("local/Env-v0"))
    plugin_registry.spec("local/Env-v0")
    plugin_registry.make("local/Env-v0")
    assert (example.calls, groups) == (0, ["sekai.envs"])


@pytest.mark.parametrize("env_id", ["CartPole-v1", "example/RandomWalk-v0"])
def test_registering_a_plugin_id_raises_before_the_plugin_is_loaded(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]], env_id: str
) -> None:
    envs, example = Loader("CartPole-v1", "Portfolio-v0"), Loader("example/RandomWalk-v0")
    entry_points(FakeEntryPoint("sekai-envs", envs), FakeEntryPoint("example", example))
    with pytest.raises(EnvAlreadyRegistered, match=repr(env_id)):
        plugin_registry.register(env_id, Env)
    # The plugins are intact (a clash found later would have made one fail to load).
    assert plugin_registry.failed_plugins == {}
    assert plugin_registry.make("Portfolio-v0").spec.id == "Portfolio-v0"
    # To replace a plugin's env, deregister it first.
    plugin_registry.deregister(env_id)
    assert plugin_registry.register(env_id, dict).entry_point is dict


def test_registering_a_new_id_runs_the_loaders_a_lookup_would(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    example, other = Loader("example/RandomWalk-v0"), Loader("other/Env-v0")
    entry_points(FakeEntryPoint("example", example), FakeEntryPoint("other", other))
    plugin_registry.register("example/Local-v0", Env)
    assert (example.calls, other.calls) == (1, 0)  # only the namespace's own plugin
    plugin_registry.register("Local-v0", Env)
    assert (example.calls, other.calls) == (1, 1)


def test_unclaimed_namespace_miss_loads_the_remaining_entry_points(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    loader = Loader("vendor/Env-v0")
    entry_points(FakeEntryPoint("vendor-plugin", loader))
    assert plugin_registry.spec("vendor/Env-v0").id == "vendor/Env-v0"
    assert loader.calls == 1


def test_entry_point_naming_a_module(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    module = types.ModuleType("fake_plugin_module")
    entry_points(FakeEntryPoint("mod", module, value="fake_plugin_module"))
    with pytest.raises(EnvNotFound):
        plugin_registry.spec("mod/Env-v0")
    assert plugin_registry.failed_plugins == {}


@pytest.mark.parametrize(
    ("target", "error"),
    [
        (ImportError("No module named 'broken_plugin'"), "ImportError"),
        (42, "not callable"),
        (Loader(error=ValueError("bad config")), "bad config"),
    ],
)
def test_failing_entry_point_is_reported(
    plugin_registry: EnvRegistry,
    entry_points: Callable[..., list[str]],
    target: Any,
    error: str,
) -> None:
    good = Loader("CartPole-v1")
    entry_points(
        FakeEntryPoint("broken", target, value="broken_plugin:register"),
        FakeEntryPoint("sekai-envs", good),
    )
    with (
        pytest.warns(RuntimeWarning, match=r"plugin 'broken' \(broken_plugin:register\)"),
        pytest.raises(EnvNotFound) as info,
    ):
        plugin_registry.spec("broken/Env-v0")
    assert "plugin 'broken' (broken_plugin:register)" in str(info.value)
    assert error in str(info.value)
    # The other plugin still loads and the registry keeps working.
    assert plugin_registry.make("CartPole-v1").spec.id == "CartPole-v1"
    assert list(plugin_registry.failed_plugins) == ["plugin 'broken' (broken_plugin:register)"]


def test_unreadable_entry_point_metadata_is_reported(
    plugin_registry: EnvRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(group: str) -> list[Any]:
        raise OSError("corrupt metadata")

    monkeypatch.setattr(_plugins, "list_entry_points", broken)
    with pytest.warns(RuntimeWarning, match="corrupt metadata"):
        plugin_registry.register("Env-v0", Env)
    assert [s.id for s in plugin_registry.all_specs()] == ["Env-v0"]
    assert "corrupt metadata" in str(plugin_registry.failed_plugins)


def test_two_distributions_may_share_a_namespace(
    plugin_registry: EnvRegistry, entry_points: Callable[..., list[str]]
) -> None:
    first, second = Loader("shared/A-v0"), Loader("shared/B-v0")
    entry_points(FakeEntryPoint("shared", first), FakeEntryPoint("shared", second))
    assert plugin_registry.spec("shared/A-v0").id == "shared/A-v0"
    assert plugin_registry.spec("shared/B-v0").id == "shared/B-v0"
    # Each distribution's loader ran once, and neither replaced the other's ids.
    assert (first.calls, second.calls) == (1, 1)
    shared = sorted(s.id for s in plugin_registry.all_specs() if s.id.startswith("shared/"))
    assert shared == ["shared/A-v0", "shared/B-v0"]
    assert plugin_registry.make("shared/B-v0").spec.id == "shared/B-v0"
    assert not plugin_registry.failed_plugins


def test_real_entry_point_listing_reads_installed_metadata() -> None:
    # The real function returns importlib.metadata entry points of the group.
    listed = _plugins.list_entry_points("sekai.test-group-nobody-uses")
    assert listed == []


def test_the_global_registry_reads_the_sekai_envs_group(
    entry_points: Callable[..., list[str]],
) -> None:
    loader = Loader("sekaitest_ns/Env-v0")
    groups = entry_points(FakeEntryPoint("sekaitest_ns", loader))
    # A fresh registry configured like the global one.
    registry = EnvRegistry(entry_point_group=ENTRY_POINT_GROUP)
    registry.spec("sekaitest_ns/Env-v0")
    assert groups == ["sekai.envs"]
    assert sekai.registry.default_registry._entry_point_group == "sekai.envs"


def test_importing_the_registry_loads_no_plugin() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sekai.registry as r; "
        "assert r.default_registry._pending_entry_points is None; "
        "print('ok')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "ok"


def test_namespace_loader_importing_a_module(
    registry: EnvRegistry, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, env_module: str
) -> None:
    """The documented pattern: ``register_namespace("qc", lambda: import_module(...))``."""
    import importlib
    import sys
    import uuid

    name = f"qc_envs_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(
        "from sekai.registry import register\n"
        f"register('qc/Market-v0', entry_point='{env_module}:RecordingEnv')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register_namespace("qc", lambda: importlib.import_module(name))
    assert name not in sys.modules
    env = registry.make("qc/Market-v0", depth=5)
    assert name in sys.modules
    assert env.kwargs == {"depth": 5}
    monkeypatch.delitem(sys.modules, name)
