"""Dict and Tuple: construction, ordering, indexing, seeding, membership."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.spaces import Box, Dict, Discrete, MultiBinary, Tuple


def test_dict_keeps_insertion_order_and_accepts_keywords() -> None:
    space = Dict({"z": Discrete(2), "a": Box(0.0, 1.0, (1,))}, m=MultiBinary(2))
    assert list(space.keys()) == ["z", "a", "m"]
    assert list(space.spaces) == ["z", "a", "m"]
    assert list(space) == ["z", "a", "m"]
    assert len(space) == 3
    assert space["m"] == MultiBinary(2)
    assert list(space.sample()) == ["z", "a", "m"]
    assert Dict([("x", Discrete(2))]) == Dict(x=Discrete(2))
    assert Dict(space, extra=Discrete(2)) == Dict(
        z=Discrete(2), a=Box(0.0, 1.0, (1,)), m=MultiBinary(2), extra=Discrete(2)
    )
    assert [key for key, _ in space.items()] == ["z", "a", "m"]
    assert list(space.values()) == [Discrete(2), Box(0.0, 1.0, (1,)), MultiBinary(2)]


def test_dict_order_matters_for_equality() -> None:
    assert Dict(a=Discrete(2), b=Discrete(3)) != Dict(b=Discrete(3), a=Discrete(2))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (({1: Discrete(2)},), {}, TypeError, "keys must be str, got 1"),
        (({"a": 3},), {}, TypeError, "value for key 'a' must be a Space"),
        (({"a": Discrete(2)},), {"a": Discrete(2)}, ValueError, "key 'a' is given twice"),
        ((Discrete(2),), {}, TypeError, "mapping of str to Space"),
    ],
)
def test_dict_rejects_bad_arguments(
    args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        Dict(*args, **kwargs)


def test_dict_contains_requires_exact_keys() -> None:
    space = Dict(a=Discrete(2), b=Discrete(3))
    assert {"a": 1, "b": 2} in space
    assert {"b": 2, "a": 1} in space
    assert {"a": 1} not in space
    assert {"a": 1, "b": 2, "c": 0} not in space
    assert {"a": 1, "c": 0} not in space
    assert {"a": 1, "b": 5} not in space
    assert [1, 2] not in space


def test_dict_seeding_is_deterministic_and_spreads_to_children() -> None:
    first = Dict(a=Box(0.0, 1.0, (3,)), b=Box(0.0, 1.0, (3,)), seed=5)
    second = Dict(a=Box(0.0, 1.0, (3,)), b=Box(0.0, 1.0, (3,)), seed=5)
    x, y = first.sample(), second.sample()
    assert np.array_equal(x["a"], y["a"]) and np.array_equal(x["b"], y["b"])
    # Children get independent streams, not copies of one stream.
    assert not np.array_equal(x["a"], x["b"])
    assert first.seed(5) == 5  # sekai 0.2: seed() returns the int seed


def test_dict_seed_mapping_and_generator() -> None:
    space = Dict(a=Discrete(100), b=Discrete(100))
    space.seed({"a": 1})
    left = space["a"].sample()
    space["a"].seed(1)
    assert space["a"].sample() == left
    with pytest.raises(ValueError, match="not in"):
        space.seed({"c": 1})
    space.seed(np.random.default_rng(0))
    left_samples = space.sample()
    space.seed(np.random.default_rng(0))
    assert space.sample() == left_samples


def test_tuple_basics() -> None:
    space = Tuple([Discrete(2), Box(0.0, 1.0, (2,))], seed=0)
    assert len(space) == 2 and space[0] == Discrete(2)
    assert list(space) == [Discrete(2), Box(0.0, 1.0, (2,))]
    sample = space.sample()
    assert isinstance(sample, tuple) and sample in space
    assert [sample[0], sample[1]] in space
    assert (sample[0],) not in space
    assert {"0": sample[0]} not in space
    assert repr(space) == "Tuple(Discrete(2), Box(0.0, 1.0, (2,), float32))"
    assert space != Tuple([Box(0.0, 1.0, (2,)), Discrete(2)])


def test_tuple_rejects_non_spaces_and_bad_seed_sequences() -> None:
    with pytest.raises(TypeError, match="element 1 must be a Space, got 3"):
        Tuple([Discrete(2), 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="2 entries"):
        Tuple([Discrete(2), Discrete(2)]).seed([1])


def test_tuple_seed_sequence() -> None:
    space = Tuple([Discrete(1000), Discrete(1000)])
    space.seed([3, 4])
    values = space.sample()
    space.seed([3, 4])
    assert space.sample() == values


def test_empty_composites() -> None:
    assert Dict().sample() == {}
    assert {} in Dict()
    assert Tuple([]).sample() == ()
    assert () in Tuple([])
