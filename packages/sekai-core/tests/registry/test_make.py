"""make(): kwargs, entry points, additional wrappers and the attached spec."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import sekai.core
import sekai.spaces
from sekai.core import MultiAgentEnv
from sekai.error import EnvNotFound, NotAnEnv
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec


class CallableEnv(sekai.core.Env[int, int]):
    """A real sekai env recording the kwargs it was built with."""

    observation_space = sekai.spaces.Discrete(1)
    action_space = sekai.spaces.Discrete(1)

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.core.ResetResult[int]:
        return sekai.core.ResetResult(0, {})

    def step(self, action: int) -> sekai.core.StepResult[int]:
        return sekai.core.StepResult(0, 0.0, False, False, {})


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
    assert type(env.unwrapped).__name__ == "RecordingEnv"
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
    assert isinstance(env.env.env.unwrapped, CallableEnv)
    # The spec is on the innermost env and read through the wrappers.
    assert env.unwrapped.spec is env.spec
    assert env.spec.id == "Env-v0"


def test_spec_is_set_on_an_outer_object_that_does_not_forward_it(
    registry: EnvRegistry, env_module: str
) -> None:
    registry.register(
        "Env-v0",
        CallableEnv,
        additional_wrappers=(WrapperSpec("Opaque", f"{env_module}:OpaqueWrapper"),),
    )
    env = registry.make("Env-v0")
    assert type(env).__name__ == "OpaqueWrapper"
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
    assert isinstance(env.unwrapped, CallableEnv)
    assert "TimeLimit" not in [type(layer).__name__ for layer in env]
    assert env.kwargs == {}
    assert env.spec.max_episode_steps is None


def test_an_entry_point_returning_none_is_named(registry: EnvRegistry) -> None:
    def forgets_to_return(**kwargs: Any) -> None:
        CallableEnv(**kwargs)

    registry.register("ns/Env-v0", forgets_to_return)
    with pytest.raises(TypeError, match=r"'ns/Env-v0'.*forgets_to_return.*returned None"):
        registry.make("ns/Env-v0")


class Closable:
    """Not an env; records whether make() closed it."""

    def __init__(self, **kwargs: Any) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("returned", [{"obs": 0}, "CartPole-v1", 42])
def test_an_entry_point_returning_something_else_is_refused(
    registry: EnvRegistry, returned: object
) -> None:
    def build(**kwargs: Any) -> object:
        return returned

    registry.register("ns/Env-v0", build)
    with pytest.raises(NotAnEnv) as info:
        registry.make("ns/Env-v0")
    message = str(info.value)
    assert "'ns/Env-v0'" in message and "build" in message  # the id and the entry point
    assert f"(a {type(returned).__name__})" in message  # what it returned
    assert "must return a sekai.core.Env" in message
    assert isinstance(info.value, TypeError)  # `except TypeError` keeps working


def test_what_a_refused_entry_point_returned_is_closed(registry: EnvRegistry) -> None:
    made: list[Closable] = []

    def build(**kwargs: Any) -> Closable:
        made.append(Closable())
        return made[-1]

    registry.register("Env-v0", build)
    with pytest.raises(NotAnEnv, match=r"test_make\.Closable\)"):
        registry.make("Env-v0")
    with pytest.raises(NotAnEnv):
        EnvSpec("Env-v0", build).make()
    assert [env.closed for env in made] == [True, True]


def test_a_multi_agent_env_is_an_env_for_make(registry: EnvRegistry) -> None:
    class Pair(MultiAgentEnv[int, int, str]):
        possible_agents = ("a", "b")

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return None

        def step(self, actions: Any) -> Any:
            return None

    registry.register("Pair-v0", Pair)
    env = registry.make("Pair-v0")
    assert isinstance(env, Pair)
    assert env.spec.id == "Pair-v0"
