"""EnvRegistry: register, lookup, deregister, error messages, listing."""

from __future__ import annotations

import pytest

from sekai.error import EnvAlreadyRegistered, EnvNotFound
from sekai.registry import EnvRegistry, EnvSpec


def test_register_returns_the_spec(registry: EnvRegistry) -> None:
    spec = registry.register(
        "ns/Env-v1", "pkg.mod:Env", max_episode_steps=10, kwargs={"a": 1}, reward_threshold=5
    )
    assert isinstance(spec, EnvSpec)
    assert spec.entry_point == "pkg.mod:Env"
    assert spec.max_episode_steps == 10
    assert spec.kwargs == {"a": 1}
    assert spec.reward_threshold == 5.0
    assert registry.spec("ns/Env-v1") is spec


def test_register_takes_per_env_kwargs(registry: EnvRegistry) -> None:
    splitters = {"sampler": "pkg.sampling:spawn_each"}
    spec = registry.register("Env-v0", "pkg.mod:Env", per_env_kwargs=splitters)
    assert spec.per_env_kwargs == splitters and spec.per_env_kwargs is not splitters
    assert registry.register("Other-v0", "pkg.mod:Env").per_env_kwargs == {}
    with pytest.raises(TypeError, match="per_env_kwargs"):
        registry.register("Bad-v0", "pkg.mod:Env", per_env_kwargs={"sampler": 3})
    assert "Bad-v0" not in registry


@pytest.mark.parametrize("option", ["colour", "max_episode_step", "namespace"])
def test_register_takes_only_env_spec_fields(registry: EnvRegistry, option: str) -> None:
    with pytest.raises(TypeError, match=rf"\['{option}'\].*'max_episode_steps'"):
        registry.register("Env-v0", "pkg:Env", **{option: 1})
    assert registry.all_specs() == []


def test_register_needs_an_entry_point(registry: EnvRegistry) -> None:
    with pytest.raises(TypeError, match=r"register\('Env-v0'\) needs an entry_point.*got None"):
        registry.register("Env-v0", None)
    assert registry.all_specs() == []


def test_an_env_with_only_a_vector_entry_point_is_registered(registry: EnvRegistry) -> None:
    spec = registry.register("Env-v0", None, vector_entry_point="pkg.mod:VecEnv")
    assert spec.entry_point is None
    with pytest.raises(ValueError, match=r"no entry_point.*only has a native vector.*make_vec"):
        registry.make("Env-v0")


def test_registering_a_taken_id_raises(registry: EnvRegistry) -> None:
    registry.register("Env-v0", "pkg:Env")
    with pytest.raises(EnvAlreadyRegistered, match="'Env-v0'"):
        registry.register("Env-v0", "pkg:Other")
    assert registry.spec("Env-v0").entry_point == "pkg:Env"
    # Another version of the same name is a different id.
    registry.register("Env-v1", "pkg:Env")


def test_registering_a_malformed_id_raises(registry: EnvRegistry) -> None:
    with pytest.raises(ValueError, match=r"\[namespace/\]Name\[-vN\]"):
        registry.register("bad id", "pkg:Env")
    assert registry.all_specs() == []


def test_deregister(registry: EnvRegistry) -> None:
    registry.register("Env-v0", "pkg:Env")
    registry.deregister("Env-v0")
    with pytest.raises(EnvNotFound):
        registry.spec("Env-v0")
    with pytest.raises(EnvNotFound, match="'Env-v0'"):
        registry.deregister("Env-v0")
    registry.register("Env-v0", "pkg:Env")  # the id is free again


def test_all_specs_in_registration_order(registry: EnvRegistry) -> None:
    ids = ["B-v0", "a/A-v0", "A-v0"]
    for env_id in ids:
        registry.register(env_id, "pkg:Env")
    assert [s.id for s in registry.all_specs()] == ids


def test_contains(registry: EnvRegistry) -> None:
    registry.register("Env-v0", "pkg:Env")
    assert "Env-v0" in registry
    assert "Env-v1" not in registry
    assert "bad id" not in registry
    assert 3 not in registry


def test_instances_are_isolated() -> None:
    first, second = EnvRegistry(), EnvRegistry()
    first.register("Env-v0", "pkg:Env")
    with pytest.raises(EnvNotFound):
        second.spec("Env-v0")


def test_lookup_of_malformed_id_raises_value_error(registry: EnvRegistry) -> None:
    with pytest.raises(ValueError, match="malformed"):
        registry.spec("a/b/c")


# -- EnvNotFound messages -----------------------------------------------------------


def test_not_found_suggests_close_ids(registry: EnvRegistry) -> None:
    registry.register("CartPole-v1", "pkg:Env")
    registry.register("MountainCar-v0", "pkg:Env")
    with pytest.raises(EnvNotFound, match="'CartPole-v1'") as info:
        registry.spec("CartPoel-v1")
    assert "MountainCar" not in str(info.value)
    # Case is ignored when looking for suggestions.
    with pytest.raises(EnvNotFound, match="'CartPole-v1'"):
        registry.spec("cartpole-v1")


def test_not_found_is_a_lookup_error(registry: EnvRegistry) -> None:
    with pytest.raises(LookupError):
        registry.spec("Nothing-v0")


def test_not_found_says_when_only_another_version_exists(registry: EnvRegistry) -> None:
    registry.register("CartPole-v1", "pkg:Env")
    with pytest.raises(EnvNotFound) as info:
        registry.spec("CartPole-v0")
    message = str(info.value)
    assert "v0" in message
    assert "only 'CartPole-v1'" in message


def test_not_found_lists_every_other_version(registry: EnvRegistry) -> None:
    for version in (0, 2, 1):
        registry.register(f"ns/Env-v{version}", "pkg:Env")
    with pytest.raises(EnvNotFound, match="ns/Env-v0, ns/Env-v1, ns/Env-v2"):
        registry.spec("ns/Env-v5")


def test_unversioned_request_picks_nothing_and_lists_versions(registry: EnvRegistry) -> None:
    registry.register("CartPole-v0", "pkg:Env")
    registry.register("CartPole-v1", "pkg:Env")
    with pytest.raises(EnvNotFound, match="without a version") as info:
        registry.make("CartPole")
    assert "CartPole-v0, CartPole-v1" in str(info.value)


def test_unversioned_registration_is_found_as_is(registry: EnvRegistry) -> None:
    registry.register("my_ns/CustomEnv", "pkg:Env")
    assert registry.spec("my_ns/CustomEnv").version is None
    with pytest.raises(EnvNotFound, match="only 'my_ns/CustomEnv'"):
        registry.spec("my_ns/CustomEnv-v0")


def test_not_found_names_an_unknown_namespace(registry: EnvRegistry) -> None:
    registry.register("example/RandomWalk-v0", "pkg:Env")
    registry.register("qc/Market-v0", "pkg:Env")
    with pytest.raises(EnvNotFound, match="namespace 'exmple' is unknown") as info:
        registry.spec("exmple/RandomWalk-v0")
    message = str(info.value)
    assert "did you mean namespace 'example'" in message
    assert "'example/RandomWalk-v0'" in message
    with pytest.raises(EnvNotFound, match="known namespaces: example, qc"):
        registry.spec("zzz/Other-v0")


def test_not_found_in_a_known_namespace(registry: EnvRegistry) -> None:
    registry.register("qc/Market-v0", "pkg:Env")
    with pytest.raises(EnvNotFound, match="not registered in namespace 'qc'"):
        registry.spec("qc/Other-v0")


def test_not_found_suggests_the_same_name_in_another_namespace(registry: EnvRegistry) -> None:
    registry.register("example/RandomWalk-v0", "pkg:Env")
    with pytest.raises(EnvNotFound, match="'example/RandomWalk-v0'"):
        registry.spec("RandomWalk-v0")


# -- listing ------------------------------------------------------------------------


def test_pprint_groups_by_namespace(registry: EnvRegistry) -> None:
    for env_id in ["Zeta-v0", "qc/Market-v0", "Alpha-v0", "example/Walk-v0", "qc/Book-v1"]:
        registry.register(env_id, "pkg:Env")
    lines = registry.pprint(num_cols=1).splitlines()
    assert lines == [
        "===== (no namespace) =====",
        "Alpha-v0",
        "Zeta-v0",
        "===== example =====",
        "example/Walk-v0",
        "===== qc =====",
        "qc/Book-v1",
        "qc/Market-v0",
    ]
    rows = registry.pprint(num_cols=2).splitlines()
    assert rows[1].split() == ["Alpha-v0", "Zeta-v0"]


def test_pprint_of_an_empty_registry(registry: EnvRegistry) -> None:
    assert "no environments" in registry.pprint()
    with pytest.raises(ValueError, match="num_cols"):
        registry.pprint(num_cols=0)
