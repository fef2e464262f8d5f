"""make(): kwargs, entry points, additional wrappers and the attached spec."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from sekai.error import EnvNotFound
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec


class CallableEnv:
    spec: Any = None

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    @property
    def unwrapped(self) -> CallableEnv:
        return self


def test_kwargs_override_the_registered_ones(registry: EnvRegistry) -> None:
    registry.register("Env-v0", CallableEnv, kwargs={"a": 1, "b": 2})
    env = registry.make("Env-v0", b=3, c=4)
    assert env.kwargs == {"a": 1, "b": 3, "c": 4}
    assert registry.spec("Env-v0").kwargs == {"a": 1, "b": 2}  # registration untouched


def test_string_entry_point_is_imported_on_first_use(
    registry: EnvRegistry, env_module: str
) -> None:
    registry.register("Env-v0", f"{env_module}:RecordingEnv")
    assert env_module not in sys.modules
    env = registry.make("Env-v0", x=1)
    assert env_module in sys.modules
    assert type(env).__name__ == "RecordingEnv"
    assert env.kwargs == {"x": 1}


@pytest.mark.parametrize(
    ("attr", "error", "match"),
    [("Missing", AttributeError, "no attribute 'Missing'"), ("NOT_CALLABLE", TypeError, "42")],
)
def test_bad_string_entry_points(
    registry: EnvRegistry, env_module: str, attr: str, error: type[Exception], match: str
) -> None:
    registry.register("Env-v0", f"{env_module}:{attr}")
    with pytest.raises(error, match=match):
        registry.make("Env-v0")


def test_missing_module_raises_import_error(registry: EnvRegistry) -> None:
    registry.register("Env-v0", "sekai_no_such_module_anywhere.envs:Env")
    with pytest.raises(
        ModuleNotFoundError,
        match=r"entry point of 'Env-v0' 'sekai_no_such_module_anywhere\.envs:Env': "
        r"no module named 'sekai_no_such_module_anywhere'",
    ) as info:
        registry.make("Env-v0")
    assert info.value.name == "sekai_no_such_module_anywhere"


def test_a_missing_dependency_of_the_entry_point_module_keeps_its_error(
    registry: EnvRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = f"sekai_needs_dep_{uuid.uuid4().hex}"
    (tmp_path / f"{module}.py").write_text("import sekai_dependency_not_installed\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.register("Env-v0", f"{module}:Env")
    with pytest.raises(ModuleNotFoundError) as info:
        registry.make("Env-v0")
    assert info.value.name == "sekai_dependency_not_installed"


def test_a_non_callable_entry_point_is_described_briefly(registry: EnvRegistry) -> None:
    registry.register("Env-v0", "json:__doc__")
    with pytest.raises(TypeError, match=r"names .* \(a str\), which is not callable") as info:
        registry.make("Env-v0")
    assert len(str(info.value)) < 300


def test_the_env_gets_a_copy_of_the_spec_with_the_kwargs_used(registry: EnvRegistry) -> None:
    registered = registry.register("ns/Env-v0", CallableEnv, kwargs={"a": 1})
    env = registry.make("ns/Env-v0", a=5)
    assert env.spec is not registered
    assert env.spec.id == "ns/Env-v0"
    assert env.spec.kwargs == {"a": 5}
    assert env.spec.max_episode_steps is None
    assert registered.kwargs == {"a": 1}


def test_make_from_an_env_spec_skips_the_lookup(registry: EnvRegistry) -> None:
    spec = EnvSpec("Unregistered-v0", entry_point=CallableEnv, kwargs={"a": 1})
    env = registry.make(spec, a=2)
    assert env.kwargs == {"a": 2}
    assert env.spec.id == "Unregistered-v0"


def test_make_of_an_unknown_id_raises(registry: EnvRegistry) -> None:
    with pytest.raises(EnvNotFound):
        registry.make("Nothing-v0")


def test_additional_wrappers_apply_in_order(registry: EnvRegistry, env_module: str) -> None:
    registry.register(
        "Env-v0",
        CallableEnv,
        additional_wrappers=(
            WrapperSpec("First", f"{env_module}:TagWrapper", {"tag": "first"}),
            WrapperSpec("Second", f"{env_module}:TagWrapper", {"tag": "second"}),
        ),
    )
    env = registry.make("Env-v0")
    assert env.tag == "second"
    assert env.env.tag == "first"
    assert isinstance(env.env.env, CallableEnv)
    # The spec is on the innermost env and read through the wrappers.
    assert env.unwrapped.spec is env.spec
    assert env.spec.id == "Env-v0"


def test_spec_is_set_on_an_outer_object_that_does_not_forward_it(registry: EnvRegistry) -> None:
    class Opaque:
        spec: Any = None

        def __init__(self, env: Any) -> None:
            self.inner = env

    def factory(**kwargs: Any) -> Opaque:
        return Opaque(CallableEnv(**kwargs))

    registry.register("Env-v0", factory)
    env = registry.make("Env-v0")
    assert env.spec.id == "Env-v0"


@pytest.mark.parametrize("bad", [0, -2, 1.5, "10", True])
def test_invalid_max_episode_steps_override(registry: EnvRegistry, bad: object) -> None:
    registry.register("Env-v0", CallableEnv)
    with pytest.raises(ValueError, match="max_episode_steps") as info:
        registry.make("Env-v0", max_episode_steps=bad)  # type: ignore[arg-type]
    assert repr(bad) in str(info.value)


def test_max_episode_steps_minus_one_without_a_limit(registry: EnvRegistry) -> None:
    registry.register("Env-v0", CallableEnv)
    env = registry.make("Env-v0", max_episode_steps=-1)
    assert isinstance(env, CallableEnv)
    assert env.kwargs == {}
    assert env.spec.max_episode_steps is None


def test_an_entry_point_returning_none_is_named(registry: EnvRegistry) -> None:
    def forgets_to_return(**kwargs: Any) -> None:
        CallableEnv(**kwargs)

    registry.register("ns/Env-v0", forgets_to_return)
    with pytest.raises(TypeError, match=r"'ns/Env-v0'.*forgets_to_return.*returned None"):
        registry.make("ns/Env-v0")
