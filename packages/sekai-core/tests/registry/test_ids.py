"""Environment ids: ``[namespace/]Name[-vN]``."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from sekai.registry._ids import format_env_id, parse_env_id, validate_namespace


@pytest.mark.parametrize(
    ("env_id", "expected"),
    [
        ("CartPole-v1", (None, "CartPole", 1)),
        ("qc/MarketEnv-v0", ("qc", "MarketEnv", 0)),
        ("my_ns/CustomEnv", ("my_ns", "CustomEnv", None)),
        ("CartPole", (None, "CartPole", None)),
        ("ALE/Pong-v5", ("ALE", "Pong", 5)),
        ("a.b/Env-Name-v12", ("a.b", "Env-Name", 12)),
        ("Ñame-v0", (None, "Ñame", 0)),
        ("aÑ-v0", (None, "aÑ", 0)),
        ("市場/板情報-v2", ("市場", "板情報", 2)),
        ("_private-v1", (None, "_private", 1)),
    ],
)
def test_parse_valid_ids(env_id: str, expected: tuple[str | None, str, int | None]) -> None:
    assert parse_env_id(env_id) == expected
    assert format_env_id(*expected) == env_id


@pytest.mark.parametrize(
    "env_id",
    [
        "",
        "a/b/c",
        "-v1",
        "Cart Pole-v1",
        "/Env-v0",
        "ns/",
        "Env-v01",
        "Env-v-1",
        "Env!-v0",
        " Env-v0",
        "Env-v0\n",
        ".ns/Env-v0",
        "Env-v\u0661",
    ],
)
def test_malformed_ids_raise_value_error_naming_the_form(env_id: str) -> None:
    with pytest.raises(ValueError, match=r"\[namespace/\]Name\[-vN\]") as info:
        parse_env_id(env_id)
    assert repr(env_id) in str(info.value)


def test_non_string_id_raises_type_error() -> None:
    with pytest.raises(TypeError, match="must be a str"):
        parse_env_id(3)  # type: ignore[arg-type]


_part = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True)


@given(
    namespace=st.none() | _part,
    name=_part,
    version=st.none() | st.integers(min_value=0, max_value=10**6),
)
def test_format_then_parse_round_trips(
    namespace: str | None, name: str, version: int | None
) -> None:
    assert parse_env_id(format_env_id(namespace, name, version)) == (namespace, name, version)


def test_a_non_ascii_first_letter_is_accepted_like_any_other_letter() -> None:
    # Word characters of any script are allowed everywhere in a part, the
    # first character included.
    assert validate_namespace("Ñs") == "Ñs"


@pytest.mark.parametrize("namespace", ["", "a/b", "with space", 3, "-ns"])
def test_invalid_namespaces(namespace: object) -> None:
    with pytest.raises(ValueError, match="namespace"):
        validate_namespace(namespace)  # type: ignore[arg-type]
