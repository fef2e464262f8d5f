"""A spec read from JSON runs no code it names unless the caller trusts the text."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st

import sekai.registry as reg
from sekai.error import UntrustedEntryPoint
from sekai.registry import ENTRY_POINT_GROUP, EnvSpec, WrapperSpec, _plugins


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
        ("sekai.spaces.box:np.load", "which is not a class"),  # np.load unpickles
        ("sekai.spaces.box:np.ndarray", "defined in 'numpy'"),
        ("sekai.registry:register", "which is not a class"),  # would register anything
        ("sekai.registry.env_registry:default_registry.register", "which is not a class"),
        ("sekai.registry._loading:load_reference", "private name '_loading'"),
        ("sekai.core:Env.__subclasses__", "private name '__subclasses__'"),
        ("sekai.core:Env.mro", "which is not a class"),
        ("sekai.registry:EnvSpec", r"not a subclass of sekai\.core\.Env or sekai\.core\.Multi"),
    ],
)
def test_a_reference_through_sekai_to_something_else_is_refused(
    entry_point: str, reason: str
) -> None:
    with pytest.raises(UntrustedEntryPoint, match=reason):
        EnvSpec.from_json(_json(entry_point))


def _public_functions(*modules: str) -> list[str]:
    """``"module:name"`` of every function in the ``__all__`` of ``modules``."""
    found = []
    for name in modules:
        module = importlib.import_module(name)
        found += [
            f"{name}:{attr}" for attr in module.__all__ if inspect.isfunction(getattr(module, attr))
        ]
    return found


_SEKAI_CORE_FUNCTIONS = _public_functions(
    "sekai.core", "sekai.registry", "sekai.spaces", "sekai.stats", "sekai.utils"
)


def _spec_with(field: str, reference: str) -> dict[str, Any]:
    """A JSON spec naming ``reference`` in ``field`` (and accepted entry points elsewhere)."""
    data: dict[str, Any] = {"id": "json/Env-v0"}
    if field == "wrapper":
        data["additional_wrappers"] = [{"name": "W", "entry_point": reference}]
    elif field == "splitter":
        data["per_env_kwargs"] = {"sampler": reference}
    else:
        data[field] = reference
    return data


@given(
    reference=st.sampled_from(_SEKAI_CORE_FUNCTIONS),
    field=st.sampled_from(["entry_point", "vector_entry_point", "wrapper", "splitter"]),
)
def test_no_public_function_of_sekai_is_accepted_in_any_role(reference: str, field: str) -> None:
    """Being public and sekai's is not enough: functions would be called with the JSON's kwargs."""
    with pytest.raises(UntrustedEntryPoint) as info:
        EnvSpec.from_json(json.dumps(_spec_with(field, reference)))
    assert info.value.entry_point == reference
    assert "trust_entry_points=True" in str(info.value)


@pytest.mark.parametrize(
    ("module", "entry_point", "kwargs"),
    [
        (
            "sekai.rendering",
            "sekai.rendering.recorder:save_npz",
            {"frames": [[1]], "path": "{tmp}/x.npz", "fps": 1},
        ),
        (
            "sekai.finance",
            "sekai.finance:MarketData.from_csv",
            {"path": "{tmp}/prices.csv", "storage_options": {"a": 1}},
        ),
    ],
)
def test_a_public_function_of_sekai_with_side_effects_is_refused(
    module: str, entry_point: str, kwargs: dict[str, Any], tmp_path: Path
) -> None:
    pytest.importorskip(module, reason=f"needs {module}'s distribution")
    text = _json(entry_point, kwargs=kwargs).replace("{tmp}", str(tmp_path))
    with pytest.raises(UntrustedEntryPoint, match="which is not a class") as info:
        reg.make(EnvSpec.from_json(text))
    assert (info.value.field, info.value.entry_point) == ("entry_point", entry_point)
    assert list(tmp_path.iterdir()) == []  # save_npz wrote nothing


@pytest.mark.parametrize(
    ("field", "name"),
    [
        ("entry_point", "entry_point"),
        ("vector_entry_point", "vector_entry_point"),
        ("wrapper", "additional_wrappers[0].entry_point"),
        ("splitter", "per_env_kwargs['sampler']"),
    ],
)
def test_a_function_of_a_plugin_is_refused(
    env_module: str, plugins: Callable[..., None], tmp_path: Path, field: str, name: str
) -> None:
    """A plugin's package is trusted for its env and wrapper classes, not for any function."""
    plugins(f"{env_module}:register_envs")
    marker = tmp_path / "written"
    data = _spec_with(field, f"{env_module}:touch")
    data["kwargs"] = {"path": str(marker)}
    with pytest.raises(UntrustedEntryPoint) as info:
        reg.make(EnvSpec.from_json(json.dumps(data)))
    assert (info.value.field, info.value.entry_point) == (name, f"{env_module}:touch")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("fields", "field", "reason"),
    [
        ({"vector_entry_point": "{m}:NativeVec"}, "vector_entry_point", "sekai.vector.VecEnv"),
        ({"vector_entry_point": "{m}:CoreTag"}, "vector_entry_point", "sekai.vector.VecEnv"),
        (
            {"additional_wrappers": [{"name": "W", "entry_point": "{m}:TagWrapper"}]},
            "additional_wrappers[0].entry_point",
            r"not a subclass of sekai\.core\.Wrapper",
        ),
        (
            {"additional_wrappers": [{"name": "W", "entry_point": "{m}:RecordingEnv"}]},
            "additional_wrappers[0].entry_point",
            r"not a subclass of sekai\.core\.Wrapper",
        ),
        ({"entry_point": "{m}:NativeVec"}, "entry_point", r"not a subclass of sekai\.core\.Env"),
    ],
)
def test_a_class_of_a_plugin_of_the_wrong_kind_is_refused(
    env_module: str,
    plugins: Callable[..., None],
    fields: dict[str, Any],
    field: str,
    reason: str,
) -> None:
    plugins(f"{env_module}:register_envs")
    text = json.dumps({"id": "json/Env-v0", **fields}).replace("{m}", env_module)
    with pytest.raises(UntrustedEntryPoint, match=reason) as info:
        EnvSpec.from_json(text)
    assert info.value.field == field


def test_without_sekai_vector_no_vector_class_is_accepted_unless_registered(
    env_module: str, plugins: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    plugins(f"{env_module}:register_envs")
    monkeypatch.setitem(sys.modules, "sekai.vector", None)  # as if it were not installed
    with pytest.raises(UntrustedEntryPoint, match=r"sekai\.vector\.VecEnv cannot be imported"):
        EnvSpec.from_json(_json(vector_entry_point=f"{env_module}:NativeVec"))


@pytest.mark.parametrize(
    ("entry_point", "reason"),
    [
        ("sekai.nothing_here:Env", r"no module named 'sekai\.nothing_here'"),
        ("sekai.core:NoSuchEnv", "has no attribute 'NoSuchEnv'"),
        ("sekai.registry:ENTRY_POINT_GROUP", "not callable"),
    ],
)
@pytest.mark.parametrize("field", ["entry_point", "vector_entry_point", "wrapper"])
def test_a_reference_into_sekai_that_cannot_be_loaded_is_refused(
    entry_point: str, reason: str, field: str
) -> None:
    with pytest.raises(UntrustedEntryPoint, match=reason) as info:
        EnvSpec.from_json(json.dumps(_spec_with(field, entry_point)))
    assert info.value.entry_point == entry_point
    assert info.value.field in str(info.value) and "could not be loaded" in str(info.value)


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
    before = set(sys.modules)
    with pytest.raises(UntrustedEntryPoint) as info:
        EnvSpec.from_json(json.dumps(_spec_with(field, reference)))
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
    # The same id with an entry point no registered spec uses is refused.
    other = json.loads(env.spec.to_json())
    other["additional_wrappers"] = [{"name": "W", "entry_point": f"{env_module}:TagWrapper"}]
    with pytest.raises(
        UntrustedEntryPoint, match="no registered spec uses it as a wrapper entry_point"
    ):
        EnvSpec.from_json(json.dumps(other))


def test_what_a_registered_spec_uses_is_accepted_in_the_same_role_under_any_id(
    env_module: str, namespace: str
) -> None:
    """The module is nobody's plugin, and its wrapper, vector env and splitter no sekai class."""
    m = env_module
    reg.register(
        f"{namespace}/Recorded-v0",
        f"{m}:RecordingEnv",
        vector_entry_point=f"{m}:NativeVec",
        additional_wrappers=(WrapperSpec("Tag", f"{m}:TagWrapper"),),
        per_env_kwargs={"seed": f"{m}:numbered"},
    )
    data = {
        "id": "mine/Other-v3",
        "entry_point": f"{m}:RecordingEnv",
        "kwargs": {"label": "x"},
        "vector_entry_point": f"{m}:NativeVec",
        "additional_wrappers": [{"name": "T", "entry_point": f"{m}:TagWrapper"}],
        "per_env_kwargs": {"label": f"{m}:numbered"},
    }
    spec = EnvSpec.from_json(json.dumps(data))
    data["additional_wrappers"][0]["kwargs"] = {}
    assert spec.to_dict() == {**EnvSpec("mine/Other-v3").to_dict(), **data}
    assert reg.make(spec).unwrapped.kwargs == {"label": "x"}
    # Each is accepted only in the role a registered spec gives it.
    for field, reference in [
        ("entry_point", f"{m}:numbered"),
        ("vector_entry_point", f"{m}:RecordingEnv"),
        ("wrapper", f"{m}:NativeVec"),
        ("splitter", f"{m}:TagWrapper"),
    ]:
        with pytest.raises(UntrustedEntryPoint, match="no registered spec uses it as") as info:
            EnvSpec.from_json(json.dumps(_spec_with(field, reference)))
        assert info.value.entry_point == reference


def test_sekai_wrapper_classes_are_accepted_under_any_id() -> None:
    text = json.dumps(
        {
            "id": "mine/Limited-v3",
            "additional_wrappers": [
                {
                    "name": "Limit",
                    "entry_point": "sekai.core:TimeLimit",
                    "kwargs": {"max_episode_steps": 3},
                },
                {"name": "Order", "entry_point": "sekai.core.order_enforcing:OrderEnforcing"},
            ],
        }
    )
    spec = EnvSpec.from_json(text)
    assert [w.entry_point for w in spec.additional_wrappers] == [
        "sekai.core:TimeLimit",
        "sekai.core.order_enforcing:OrderEnforcing",
    ]


def test_sekai_splitters_are_accepted_under_any_id() -> None:
    """Checked by name: nothing is imported, so sekai-finance need not be installed."""
    splitter = "sekai.finance.sampling:spawn_samplers"
    spec = EnvSpec.from_json(_json(per_env_kwargs={"sampler": splitter}))
    assert spec.per_env_kwargs == {"sampler": splitter}


def test_the_package_of_an_installed_plugin_is_accepted(
    env_module: str, plugins: Callable[..., None]
) -> None:
    plugins(f"{env_module}:register_envs")  # a plugin whose loader is in env_module
    limit = {"name": "Limit", "entry_point": "sekai.core:TimeLimit"}
    tag = {"name": "Tag", "entry_point": f"{env_module}:CoreTag", "kwargs": {"tag": "x"}}
    text = _json(
        f"{env_module}:RecordingEnv",
        kwargs={"x": 1},
        additional_wrappers=[{**limit, "kwargs": {"max_episode_steps": 3}}, tag],
    )
    env = reg.make(EnvSpec.from_json(text))
    assert env.unwrapped.kwargs == {"x": 1}
    assert [type(layer).__name__ for layer in env] == [
        "CoreTag",
        "TimeLimit",
        "OrderEnforcing",
        "RecordingEnv",
    ]
    assert (env.tag, env.max_episode_steps) == ("x", 3)
    # ... but not what the plugin's module imported from elsewhere.
    with pytest.raises(UntrustedEntryPoint, match=r"defined in 'json\.decoder'"):
        EnvSpec.from_json(_json(f"{env_module}:JSONDecoder"))


def test_opting_in_accepts_any_entry_point(env_module: str) -> None:
    spec = EnvSpec.from_json(_json(f"{env_module}:RecordingEnv"), trust_entry_points=True)
    assert type(reg.make(spec).unwrapped).__name__ == "RecordingEnv"


# -- the reference environments (sekai-envs) ---------------------------------------------


@pytest.fixture
def reference_specs() -> list[EnvSpec]:
    """The registered specs of sekai-envs (skipped when it is not installed)."""
    pytest.importorskip("sekai.envs", reason="needs sekai-envs")
    specs = [
        spec
        for spec in reg.all_specs()
        if isinstance(spec.entry_point, str) and spec.entry_point.startswith("sekai.envs.")
    ]
    assert "CartPole-v1" in {spec.id for spec in specs}
    return specs


def test_every_reference_env_round_trips_through_json(reference_specs: list[EnvSpec]) -> None:
    for spec in reference_specs:
        assert EnvSpec.from_json(spec.to_json()) == spec
    # A handful made from the JSON: a classic env, a finance env, the multi-agent one.
    made = [spec for spec in reference_specs if spec.id in _MADE]
    assert {spec.id for spec in made} == _MADE
    for spec in made:
        env = reg.make(EnvSpec.from_json(spec.to_json()))
        assert isinstance(spec.entry_point, str)
        base = getattr(env, "unwrapped", env)  # a multi-agent env has no wrappers
        assert type(base).__name__ == spec.entry_point.rpartition(":")[2]
        env.reset(seed=0)
        env.close()


_MADE = {"CartPole-v1", "Portfolio-v0", "MarketMicrostructure-v0"}


def test_reference_env_classes_pass_under_another_id_without_the_registry(
    reference_specs: list[EnvSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their env, vector env and splitter pass the class check alone, with no registered spec."""
    from sekai.registry import _trust

    monkeypatch.setattr(_trust, "_registered_references", set)  # as if nothing were registered
    for spec in reference_specs:
        renamed = dataclasses.replace(spec, id=f"mine/{spec.name}-v9")
        assert EnvSpec.from_json(renamed.to_json()) == renamed
    # Through their packages' public paths too, with a sekai wrapper.
    pytest.importorskip("sekai.wrappers", reason="needs sekai-wrappers")
    text = json.dumps(
        {
            "id": "mine/Cart-v0",
            "entry_point": "sekai.envs.classic_control:CartPoleEnv",
            "vector_entry_point": "sekai.envs.classic_control:CartPoleVecEnv",
            "additional_wrappers": [
                {"name": "Flatten", "entry_point": "sekai.wrappers:FlattenObservation"}
            ],
        }
    )
    env = reg.make(EnvSpec.from_json(text))
    assert [type(layer).__name__ for layer in env] == [
        "FlattenObservation",
        "OrderEnforcing",
        "CartPoleEnv",
    ]


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
