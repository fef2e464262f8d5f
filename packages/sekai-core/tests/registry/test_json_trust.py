"""A spec read from JSON runs no code it names unless the caller trusts the text."""

from __future__ import annotations

import dataclasses
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

import pytest
from hypothesis import given, strategies as st

import sekai.registry as reg
from sekai.error import UntrustedEntryPoint
from sekai.registry import ENTRY_POINT_GROUP, EnvSpec, _plugins


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Replace the installed plugins by entry points with the given values."""
    # The global registry reads the real plugins (and registers their envs)
    # first: it reads them once, and must never see the stand-ins.
    reg.default_registry.all_specs()

    def install(*values: str) -> None:
        eps = [
            metadata.EntryPoint(f"p{index}", value, ENTRY_POINT_GROUP)
            for index, value in enumerate(values)
        ]
        monkeypatch.setattr(
            _plugins, "list_entry_points", lambda group: eps if group == ENTRY_POINT_GROUP else []
        )

    return install


@pytest.fixture
def namespace() -> Iterator[str]:
    """A namespace of the global registry nobody else uses, emptied after the test."""
    ns = f"t{uuid.uuid4().hex[:12]}"
    yield ns
    for spec in list(reg.default_registry._specs.values()):
        if spec.namespace == ns:
            reg.default_registry.deregister(spec.id)


def _json(entry_point: str | None = None, **fields: Any) -> str:
    return json.dumps({"id": "json/Env-v0", "entry_point": entry_point, **fields})


# -- refused ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"entry_point": "{m}:RecordingEnv"}, "entry_point"),
        ({"vector_entry_point": "{m}:NativeVec"}, "vector_entry_point"),
        (
            {"additional_wrappers": [{"name": "W", "entry_point": "{m}:TagWrapper"}]},
            "additional_wrappers[0].entry_point",
        ),
        ({"per_env_kwargs": {"seed": "{m}:numbered"}}, "per_env_kwargs['seed']"),
    ],
)
def test_an_entry_point_from_json_outside_sekai_is_refused_before_any_import(
    env_module: str, fields: dict[str, Any], field: str
) -> None:
    text = json.dumps({"id": "json/Env-v0", **fields}).replace("{m}", env_module)
    with pytest.raises(UntrustedEntryPoint) as info:
        EnvSpec.from_json(text)
    assert env_module not in sys.modules  # nothing of it was imported, let alone called
    error = info.value
    assert isinstance(error, ValueError)  # `except ValueError` around from_json still works
    assert error.field == field
    assert error.entry_point.startswith(f"{env_module}:")
    message = str(error)
    assert field in message and error.entry_point in message
    assert "trust_entry_points=True" in message


def test_the_trial_payload_never_runs(tmp_path: Any) -> None:
    """The fault trial ran subprocess.run from JSON, directly and as a wrapper."""
    marker = tmp_path / "ran"
    payload = {"args": ["touch", str(marker)]}
    direct = _json("subprocess:run", kwargs=payload)
    wrapped = json.dumps(
        {
            "id": "json/Env-v0",
            "entry_point": "sekai.core:TimeLimit",
            "additional_wrappers": [{"name": "W", "entry_point": "subprocess:run"}],
        }
    )
    for text in (direct, wrapped):
        with pytest.raises(UntrustedEntryPoint, match=r"'subprocess:run'.*trust_entry_points"):
            reg.make(EnvSpec.from_json(text))
    assert not marker.exists()


@pytest.mark.parametrize(
    ("entry_point", "reason"),
    [
        ("sekai.spaces.box:np.load", "defined in 'numpy'"),  # np.load unpickles
        ("sekai.registry:register", "not an entry point"),  # would register anything
        ("sekai.registry.env_registry:default_registry.register", "not an entry point"),
        ("sekai.registry._loading:load_reference", "private name '_loading'"),
        ("sekai.core:Env.__subclasses__", "private name '__subclasses__'"),
        ("sekai.core:Env.mro", "defined in None"),
    ],
)
def test_a_reference_through_sekai_to_something_else_is_refused(
    entry_point: str, reason: str
) -> None:
    with pytest.raises(UntrustedEntryPoint, match=reason):
        EnvSpec.from_json(_json(entry_point))


_names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(lambda name: name != "sekai")


@given(
    modules=st.lists(_names, min_size=1, max_size=3),
    attrs=st.lists(_names, min_size=1, max_size=2),
    field=st.sampled_from(["entry_point", "vector_entry_point", "wrapper", "splitter"]),
)
def test_any_reference_outside_sekai_and_the_plugins_is_refused(
    modules: list[str], attrs: list[str], field: str
) -> None:
    reference = f"{'.'.join(modules)}:{'.'.join(attrs)}"
    data: dict[str, Any] = {"id": "json/Env-v0"}
    if field == "wrapper":
        data["additional_wrappers"] = [{"name": "W", "entry_point": reference}]
    elif field == "splitter":
        data["per_env_kwargs"] = {"sampler": reference}
    else:
        data[field] = reference
    before = set(sys.modules)
    with pytest.raises(UntrustedEntryPoint) as info:
        EnvSpec.from_json(json.dumps(data))
    assert info.value.entry_point == reference
    assert modules[0] not in set(sys.modules) - before  # refused without importing it


def test_a_trusted_read_does_not_make_its_copies_trusted(env_module: str) -> None:
    text = _json(f"{env_module}:RecordingEnv")
    trusted = EnvSpec.from_json(text, trust_entry_points=True)
    copy = dataclasses.replace(trusted, kwargs={"a": 1})
    for spec in (trusted, copy):  # written again, the JSON is as untrusted as before
        with pytest.raises(UntrustedEntryPoint):
            EnvSpec.from_json(spec.to_json())


def test_trust_entry_points_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="trust_entry_points"):
        EnvSpec.from_json(_json("sekai.core:TimeLimit"), trust_entry_points="yes")  # type: ignore[arg-type]


# -- accepted ---------------------------------------------------------------------------


def test_the_entry_points_of_the_registered_id_are_accepted(
    env_module: str, namespace: str
) -> None:
    env_id = f"{namespace}/Recorded-v0"
    reg.register(
        env_id,
        f"{env_module}:RecordingEnv",
        kwargs={"a": 1},
        max_episode_steps=5,
        vector_entry_point=f"{env_module}:NativeVec",
    )
    env = reg.make(env_id, a=2)
    back = EnvSpec.from_json(env.spec.to_json())
    assert back == env.spec
    made = reg.make(back)
    assert made.unwrapped.kwargs == {"a": 2}
    vec = reg.make_vec(back, 2)  # its native vector implementation
    assert (type(vec).__name__, vec.num_envs, vec.kwargs) == (
        "NativeVec",
        2,
        {"a": 2, "max_episode_steps": 5},
    )
    # The same id with an entry point of its own is not the registered one.
    other = json.loads(env.spec.to_json())
    other["additional_wrappers"] = [{"name": "W", "entry_point": f"{env_module}:TagWrapper"}]
    with pytest.raises(
        UntrustedEntryPoint, match=rf"not one of the entry points registered for '{env_id}'"
    ):
        EnvSpec.from_json(json.dumps(other))


def test_public_callables_of_sekai_are_accepted_under_any_id() -> None:
    text = json.dumps(
        {
            "id": "mine/Limited-v3",
            "vector_entry_point": "sekai.core:TimeLimit",
            "additional_wrappers": [
                {
                    "name": "Limit",
                    "entry_point": "sekai.core:TimeLimit",
                    "kwargs": {"max_episode_steps": 3},
                }
            ],
        }
    )
    spec = EnvSpec.from_json(text)
    assert spec.additional_wrappers[0].entry_point == "sekai.core:TimeLimit"


def test_the_package_of_an_installed_plugin_is_accepted(
    env_module: str, plugins: Callable[..., None]
) -> None:
    plugins(f"{env_module}:register_envs")  # a plugin whose loader is in env_module
    limit = {"name": "Limit", "entry_point": "sekai.core:TimeLimit"}
    text = _json(
        f"{env_module}:RecordingEnv",
        kwargs={"x": 1},
        additional_wrappers=[{**limit, "kwargs": {"max_episode_steps": 3}}],
    )
    env = reg.make(EnvSpec.from_json(text))
    assert env.unwrapped.kwargs == {"x": 1}
    assert [type(layer).__name__ for layer in env] == [
        "TimeLimit",
        "OrderEnforcing",
        "RecordingEnv",
    ]
    assert env.max_episode_steps == 3
    # ... but not what the plugin's module imported from elsewhere.
    with pytest.raises(UntrustedEntryPoint, match="defined in 'json'"):
        EnvSpec.from_json(_json(f"{env_module}:dumps"))


def test_a_missing_module_in_sekai_says_so() -> None:
    with pytest.raises(ModuleNotFoundError, match=r"sekai\.nothing_here"):
        EnvSpec.from_json(_json("sekai.nothing_here:Env"))


def test_opting_in_accepts_any_entry_point(env_module: str) -> None:
    spec = EnvSpec.from_json(_json(f"{env_module}:RecordingEnv"), trust_entry_points=True)
    assert type(reg.make(spec).unwrapped).__name__ == "RecordingEnv"


@pytest.mark.parametrize(
    ("value", "package"),
    [
        ("myplugin.loading:register", "myplugin"),
        ("myplugin.sub.loading:register [extra]", "myplugin.sub"),
        ("myplugin_envs", "myplugin_envs"),  # a top-level module: importing it registers
        ("myplugin.loading", "myplugin"),
    ],
)
def test_the_trusted_package_of_a_plugin_holds_its_loader(
    plugins: Callable[..., None], value: str, package: str
) -> None:
    from sekai.registry._trust import trusted_packages

    plugins(value)
    assert trusted_packages() == ("sekai", package)
