"""EnvSpec and WrapperSpec: fields, validation, JSON and pprint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, strategies as st

from sekai.registry import EnvSpec, WrapperSpec


def _factory(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def test_id_parts_are_derived() -> None:
    spec = EnvSpec("qc/MarketEnv-v3", entry_point="pkg.mod:Env")
    assert (spec.namespace, spec.name, spec.version) == ("qc", "MarketEnv", 3)
    spec = EnvSpec("CustomEnv")
    assert (spec.namespace, spec.name, spec.version) == (None, "CustomEnv", None)


def test_defaults() -> None:
    spec = EnvSpec("Env-v0")
    assert spec.entry_point is None
    assert spec.reward_threshold is None
    assert spec.nondeterministic is False
    assert spec.max_episode_steps is None
    assert spec.kwargs == {}
    assert spec.additional_wrappers == ()
    assert spec.vector_entry_point is None


def test_kwargs_are_copied() -> None:
    kwargs = {"a": 1}
    spec = EnvSpec("Env-v0", kwargs=kwargs)
    kwargs["a"] = 2
    assert spec.kwargs == {"a": 1}


def test_malformed_id_raises() -> None:
    with pytest.raises(ValueError, match=r"\[namespace/\]Name\[-vN\]"):
        EnvSpec("a/b/c-v0")


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("entry_point", "no_colon", ValueError),
        ("entry_point", "pkg.mod:", ValueError),
        ("entry_point", 42, TypeError),
        ("vector_entry_point", "bad ref:X", ValueError),
        ("max_episode_steps", 0, ValueError),
        ("max_episode_steps", 2.5, ValueError),
        ("max_episode_steps", True, ValueError),
        ("reward_threshold", "high", TypeError),
        ("reward_threshold", float("nan"), ValueError),
        ("nondeterministic", 1, TypeError),
        ("kwargs", [("a", 1)], TypeError),
        ("additional_wrappers", [3.5], TypeError),
        ("additional_wrappers", "pkg:W", TypeError),
    ],
)
def test_field_validation(field: str, value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match=field) as info:
        EnvSpec("Env-v0", **{field: value})
    shown = value[0] if isinstance(value, list) and field == "additional_wrappers" else value
    assert repr(shown) in str(info.value)


def test_numbers_are_normalised() -> None:
    import numpy as np

    spec = EnvSpec("Env-v0", reward_threshold=np.float32(1.5), max_episode_steps=np.int64(7))
    assert type(spec.reward_threshold) is float
    assert spec.reward_threshold == 1.5
    assert type(spec.max_episode_steps) is int
    assert spec.max_episode_steps == 7


def test_wrapper_spec_validation() -> None:
    assert WrapperSpec("W", "pkg.mod:W").kwargs == {}
    with pytest.raises(ValueError, match="module:attr"):
        WrapperSpec("W", "nope")
    with pytest.raises(TypeError, match="entry_point"):
        WrapperSpec("W", _factory)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name"):
        WrapperSpec("", "pkg.mod:W")


def test_to_json_drops_callable_entry_points() -> None:
    spec = EnvSpec("Env-v0", entry_point=_factory, vector_entry_point=_factory, kwargs={"a": 1})
    data = json.loads(spec.to_json())
    assert data["entry_point"] is None
    assert data["vector_entry_point"] is None
    assert data["kwargs"] == {"a": 1}
    back = EnvSpec.from_json(spec.to_json())
    assert back.entry_point is None
    assert back.kwargs == {"a": 1}


def test_json_round_trip_of_every_field() -> None:
    spec = EnvSpec(
        "ns/Env-v2",
        entry_point="pkg.mod:Env",
        reward_threshold=100.0,
        nondeterministic=True,
        max_episode_steps=50,
        kwargs={"size": 3, "mode": "fast", "weights": [0.5, 0.5]},
        additional_wrappers=(WrapperSpec("Clip", "pkg.wrappers:Clip", {"low": -1}),),
        vector_entry_point="pkg.mod:VecEnv",
    )
    text = spec.to_json()
    assert isinstance(text, str)
    back = EnvSpec.from_json(text, trust_entry_points=True)  # pkg.mod is nobody's
    assert back == spec
    assert back.additional_wrappers[0] == WrapperSpec("Clip", "pkg.wrappers:Clip", {"low": -1})
    assert (back.namespace, back.name, back.version) == ("ns", "Env", 2)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(
    kwargs=st.dictionaries(st.text(), _json_values, max_size=4),
    limit=st.none() | st.integers(1, 10**6),
)
def test_json_round_trip_property(kwargs: dict[str, Any], limit: int | None) -> None:
    spec = EnvSpec("Env-v0", entry_point="pkg:Env", kwargs=kwargs, max_episode_steps=limit)
    assert EnvSpec.from_json(spec.to_json(), trust_entry_points=True) == spec


def test_to_json_of_unserialisable_kwargs_names_the_spec() -> None:
    spec = EnvSpec("Env-v0", kwargs={"obj": object()})
    with pytest.raises(ValueError, match="'Env-v0'"):
        spec.to_json()


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        (EnvSpec("Env-v0", kwargs={"weights": {0: 0.5, 1: 0.5}}), "kwargs['weights'][0]"),
        (EnvSpec("Env-v0", kwargs={"a": [{"b": {2.5: 1}}]}), "kwargs['a'][0]['b'][2.5]"),
        (
            EnvSpec(
                "Env-v0",
                additional_wrappers=(WrapperSpec("W", "pkg:W", {"m": {None: 1}}),),
            ),
            "additional_wrappers[0].kwargs['m'][None]",
        ),
    ],
)
def test_to_json_refuses_keys_json_would_turn_into_strings(spec: EnvSpec, path: str) -> None:
    with pytest.raises(ValueError, match=r"'Env-v0'.*str keys") as info:
        spec.to_json()
    assert path in str(info.value)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("not json", "JSON"),
        ("[1, 2]", "JSON object"),
        ('{"id": "Env-v0", "colour": "red"}', "unknown field"),
        ('{"entry_point": "pkg:Env"}', "no 'id'"),
        ('{"id": "Env-v0", "additional_wrappers": [{"name": "W"}]}', "additional_wrappers"),
        ('{"id": 3}', "must be a str.*got 3"),
        ('{"id": "Env-v0", "kwargs": [1]}', r"kwargs must be a dict.*\[1\]"),
        ('{"id": "Env-v0", "nondeterministic": "yes"}', "nondeterministic must be a bool"),
        ('{"id": "Env-v0", "max_episode_steps": 2.5}', "max_episode_steps"),
    ],
)
def test_from_json_errors(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        EnvSpec.from_json(text)


def test_pprint_describes_every_field() -> None:
    spec = EnvSpec(
        "ns/Env-v2",
        entry_point=_factory,
        max_episode_steps=50,
        kwargs={"size": 3},
        additional_wrappers=(WrapperSpec("Clip", "pkg.wrappers:Clip"),),
    )
    text = spec.pprint()
    lines = text.splitlines()
    assert len(lines) > 5
    assert "id: ns/Env-v2" in lines
    assert any(line.startswith("entry_point:") and "_factory" in line for line in lines)
    assert "max_episode_steps: 50" in lines
    assert "kwargs: {'size': 3}" in lines
    assert any("Clip (pkg.wrappers:Clip)" in line for line in lines)
    assert "vector_entry_point: None" in lines


def test_spec_make_builds_without_a_registry(env_module: str) -> None:
    spec = EnvSpec("Nowhere-v0", entry_point=f"{env_module}:RecordingEnv", kwargs={"a": 1})
    env = spec.make(b=2)
    assert env.kwargs == {"a": 1, "b": 2}
    assert env.spec.id == "Nowhere-v0"


def test_spec_without_entry_point_cannot_be_made() -> None:
    with pytest.raises(ValueError, match="no entry_point"):
        EnvSpec("Env-v0").make()


def test_specs_compare_numpy_kwargs_by_value() -> None:
    import numpy as np

    def spec(weights: list[float], low: float) -> EnvSpec:
        wrapper = WrapperSpec("Clip", "pkg.wrappers:Clip", {"low": np.array([low, low])})
        return EnvSpec(
            "Portfolio-v0",
            "pkg.envs:Portfolio",
            kwargs={"weights": np.array(weights), "nested": {"prices": [np.ones(3)]}},
            additional_wrappers=(wrapper,),
        )

    assert spec([0.5, 0.5], -1.0) == spec([0.5, 0.5], -1.0)
    assert spec([0.5, 0.5], -1.0) != spec([0.4, 0.6], -1.0)
    assert spec([0.5, 0.5], -1.0) != spec([0.5, 0.5, 0.0], -1.0)  # another shape
    assert spec([0.5, 0.5], -1.0) != spec([0.5, 0.5], -2.0)  # a wrapper's kwargs differ
    assert EnvSpec("A-v0") != EnvSpec("A-v1")
    assert EnvSpec("A-v0", max_episode_steps=3) != EnvSpec("A-v0")
    assert EnvSpec("A-v0") != "A-v0"
    with pytest.raises(TypeError, match="unhashable"):
        hash(EnvSpec("A-v0"))


def _split(value: Any, num_envs: int) -> list[Any]:
    return [value] * num_envs


def test_per_env_kwargs_default_and_copy() -> None:
    assert EnvSpec("Env-v0").per_env_kwargs == {}
    splitters: dict[str, Any] = {"sampler": "pkg.sampling:spawn_each"}
    spec = EnvSpec("Env-v0", per_env_kwargs=splitters)
    splitters["other"] = _split
    assert spec.per_env_kwargs == {"sampler": "pkg.sampling:spawn_each"}


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        (["sampler"], TypeError, "per_env_kwargs must be a dict"),
        ({1: _split}, TypeError, "per_env_kwargs must be a dict"),
        ({"sampler": 42}, TypeError, r"per_env_kwargs\['sampler'\]"),
        ({"sampler": "no_colon"}, ValueError, r"per_env_kwargs\['sampler'\]"),
        ({"sampler": None}, TypeError, r"per_env_kwargs\['sampler'\]"),
    ],
)
def test_per_env_kwargs_validation(value: object, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        EnvSpec("Env-v0", per_env_kwargs=value)  # type: ignore[arg-type]


def test_per_env_kwargs_in_json_and_pprint() -> None:
    spec = EnvSpec(
        "Env-v0",
        entry_point="pkg.mod:Env",
        per_env_kwargs={"sampler": "pkg.sampling:spawn_each", "noise": _split},
    )
    data = json.loads(spec.to_json())
    assert data["per_env_kwargs"] == {"sampler": "pkg.sampling:spawn_each"}  # callables dropped
    back = EnvSpec.from_json(spec.to_json(), trust_entry_points=True)
    assert back.per_env_kwargs == {"sampler": "pkg.sampling:spawn_each"}
    named = EnvSpec("Env-v0", entry_point="pkg.mod:Env", per_env_kwargs={"s": "pkg.m:split"})
    assert EnvSpec.from_json(named.to_json(), trust_entry_points=True) == named
    assert EnvSpec("Env-v0") != named
    lines = spec.pprint().splitlines()
    line = next(line for line in lines if line.startswith("per_env_kwargs:"))
    assert "pkg.sampling:spawn_each" in line and "_split" in line
    with pytest.raises(ValueError, match="per_env_kwargs"):
        EnvSpec.from_json('{"id": "Env-v0", "per_env_kwargs": {"s": "bad ref"}}')
