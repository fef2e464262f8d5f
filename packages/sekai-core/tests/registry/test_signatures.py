"""The public signatures of sekai.registry are the documented ones."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

import sekai.registry as reg
from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec

_EMPTY = inspect.Parameter.empty

# (callable, [(name, kind, default, annotation)], return annotation)
_P = inspect.Parameter
_SIGNATURES: list[tuple[Callable[..., Any], list[tuple[str, Any, Any, str]], str]] = [
    (
        reg.register,
        [
            ("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str"),
            ("entry_point", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str | Callable[..., Any]"),
            ("kwargs", _P.VAR_KEYWORD, _EMPTY, "Any"),
        ],
        "EnvSpec",
    ),
    (
        reg.make,
        [
            ("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str | EnvSpec"),
            ("max_episode_steps", _P.KEYWORD_ONLY, None, "int | None"),
            ("kwargs", _P.VAR_KEYWORD, _EMPTY, "Any"),
        ],
        "Any",
    ),
    (
        reg.make_vec,
        [
            ("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str | EnvSpec"),
            ("num_envs", _P.POSITIONAL_OR_KEYWORD, 1, "int"),
            ("vectorization_mode", _P.KEYWORD_ONLY, None, "VectorizationMode | None"),
            ("vector_kwargs", _P.KEYWORD_ONLY, None, "dict[str, Any] | None"),
            ("wrappers", _P.KEYWORD_ONLY, (), "Sequence[Callable[[Any], Any]]"),
            # Partial batches (an addition to the reference signature).
            ("batch_size", _P.KEYWORD_ONLY, None, "int | None"),
            ("env_kwargs", _P.VAR_KEYWORD, _EMPTY, "Any"),
        ],
        "Any",
    ),
    (reg.spec, [("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str")], "EnvSpec"),
    (reg.all_specs, [], "list[EnvSpec]"),
    (reg.deregister, [("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str")], "None"),
    (
        reg.register_namespace,
        [
            ("namespace", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str"),
            ("loader", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "Callable[[], Any]"),
        ],
        "None",
    ),
    (reg.pprint_registry, [], "None"),
    (EnvSpec.make, [("kwargs", _P.VAR_KEYWORD, _EMPTY, "Any")], "Any"),
    (EnvSpec.to_json, [], "str"),
    (EnvSpec.pprint, [], "str"),
    (EnvRegistry.deregister, [("id", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str")], "None"),
    (
        EnvRegistry.register_namespace,
        [
            ("namespace", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "str"),
            ("loader", _P.POSITIONAL_OR_KEYWORD, _EMPTY, "Callable[[], Any]"),
        ],
        "None",
    ),
]


@pytest.mark.parametrize(
    ("function", "parameters", "returns"),
    _SIGNATURES,
    ids=[function.__qualname__ for function, _, _ in _SIGNATURES],
)
def test_function_signature(
    function: Callable[..., Any], parameters: list[tuple[str, Any, Any, str]], returns: str
) -> None:
    signature = inspect.signature(function)
    actual = [
        (p.name, p.kind, p.default, p.annotation)
        for p in signature.parameters.values()
        if p.name != "self"
    ]
    assert actual == parameters
    assert signature.return_annotation == returns


def _fields(cls: type) -> list[tuple[str, str, Any]]:
    result = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default_factory is not dataclasses.MISSING:
            default: Any = f.default_factory()
        elif f.default is not dataclasses.MISSING:
            default = f.default
        else:
            default = _EMPTY
        result.append((f.name, str(f.type), default))
    return result


def test_env_spec_fields() -> None:
    assert dataclasses.is_dataclass(EnvSpec)
    assert _fields(EnvSpec) == [
        ("id", "str", _EMPTY),
        ("entry_point", "str | Callable[..., Any] | None", None),
        ("reward_threshold", "float | None", None),
        ("nondeterministic", "bool", False),
        ("max_episode_steps", "int | None", None),
        ("kwargs", "dict[str, Any]", {}),
        ("additional_wrappers", "tuple[WrapperSpec, ...]", ()),
        ("vector_entry_point", "str | Callable[..., Any] | None", None),
        # Kwargs make_vec splits per sub-env (an addition to the reference fields).
        ("per_env_kwargs", "dict[str, str | Callable[..., Any]]", {}),
    ]


def test_wrapper_spec_fields() -> None:
    assert dataclasses.is_dataclass(WrapperSpec)
    assert _fields(WrapperSpec) == [
        ("name", "str", _EMPTY),
        ("entry_point", "str", _EMPTY),
        ("kwargs", "dict[str, Any]", {}),
    ]


def test_env_registry_takes_no_positional_arguments() -> None:
    parameters = inspect.signature(EnvRegistry).parameters.values()
    assert all(p.kind is _P.KEYWORD_ONLY and p.default is not _EMPTY for p in parameters)
