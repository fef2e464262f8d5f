"""Flattening, batching, zero points, JSON descriptions and registration of new types."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence as SequenceABC
from typing import Any

import numpy as np
import pytest

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MultiBinary,
    MultiDiscrete,
    Space,
    Tuple,
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    register_space_type,
    space_from_jsonable,
    unflatten,
    zero_sample,
)


def test_flatten_encodings() -> None:
    assert flatten(Discrete(4, start=1), 3).tolist() == [0, 0, 1, 0]
    md = MultiDiscrete([2, 3], start=[0, -1])
    assert flatten(md, np.array([1, 0])).tolist() == [0, 1, 0, 1, 0]
    assert flatten(MultiBinary((2, 2)), np.array([[1, 0], [0, 1]])).tolist() == [1, 0, 0, 1]
    space = Dict(b=Box(0.0, 2.0, (2,)), a=Discrete(2))
    assert flatten(space, {"a": 1, "b": np.array([0.5, 2.0])}).tolist() == [0.5, 2.0, 0, 1]
    tup = Tuple([Discrete(2), Box(0, 5, (1,), dtype=np.int64)])
    flat = flatten(tup, (0, np.array([3])))
    assert flat.dtype == np.float32 and flat.tolist() == [1, 0, 3]
    restored = unflatten(tup, flat)
    assert restored[0] == 0 and restored[1].dtype == np.int64 and restored[1].tolist() == [3]


@pytest.mark.parametrize(
    ("space", "value"),
    [
        (Discrete(3, start=1), 0),
        (Discrete(3), 3),
        (Discrete(3), -1),
        (MultiDiscrete([2, 3]), np.array([0, 3])),
        (MultiDiscrete([2, 3]), np.array([-1, 0])),
        (MultiDiscrete([2, 3]), np.array([0, 0, 0])),
        (Box(0.0, 1.0, (2,)), np.zeros(3)),
        (MultiBinary(2), np.zeros((2, 2))),
    ],
)
def test_flatten_rejects_values_outside_the_space(space: Any, value: Any) -> None:
    with pytest.raises(ValueError, match="flatten: "):
        flatten(space, value)


def test_flatten_space_is_float32_with_the_right_bounds() -> None:
    space = Tuple([Box(-2.0, 3.0, (2,), dtype=np.float64), Discrete(3)])
    flat = flatten_space(space)
    assert flat == Box(np.array([-2, -2, 0, 0, 0.0]), np.array([3, 3, 1, 1, 1.0]))
    assert flat.dtype == np.float32
    assert flatdim(space) == 5


@pytest.mark.parametrize(
    ("space", "flat", "match"),
    [
        (Discrete(3), np.zeros(3), "one-hot"),
        (Discrete(3), np.array([1.0, 1.0, 0.0]), "one-hot"),
        (Discrete(3), np.zeros(4), "length 3"),
        (MultiDiscrete([2, 2]), np.array([1.0, 1.0, 0.0, 0.0]), "one one-hot block per entry"),
        (MultiDiscrete([2, 2]), np.array([1.0, 0.0, 0.0, 0.0]), "one one-hot block per entry"),
        (Box(0.0, 1.0, (2,)), np.zeros((2, 1)), "1-D array of length 2"),
        (Dict(a=Discrete(2)), np.zeros(3), "length 2"),
    ],
)
def test_unflatten_rejects_malformed_arrays(space: Any, flat: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        unflatten(space, flat)


def test_batch_space_rules() -> None:
    assert batch_space(Box(0.0, 1.0, (2,)), 3) == Box(0.0, 1.0, (3, 2))
    assert batch_space(Discrete(4, start=1), 3) == MultiDiscrete([4, 4, 4], start=[1, 1, 1])
    assert batch_space(MultiDiscrete([2, 3]), 2) == MultiDiscrete([[2, 3], [2, 3]])
    assert batch_space(MultiBinary(3), 2) == MultiBinary((2, 3))
    nested = Dict(a=Tuple([Discrete(2), Box(-1, 1, (), dtype=np.int8)]))
    assert batch_space(nested, 2) == Dict(
        a=Tuple([MultiDiscrete([2, 2]), Box(-1, 1, (2,), dtype=np.int8)])
    )


@pytest.mark.parametrize(("n", "error"), [(0, ValueError), (-1, ValueError), (2.0, TypeError)])
def test_batch_space_validates_n(n: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="batch_space: n"):
        batch_space(Discrete(2), n)


def test_concatenate_box_is_one_stack_into_out() -> None:
    space = Box(0.0, 1.0, (2, 3), seed=0)
    items = [space.sample() for _ in range(4)]
    out = np.empty((4, 2, 3), np.float32)
    result = concatenate(space, items, out)
    assert result is out
    assert np.array_equal(out, np.stack(items))
    fresh = concatenate(space, items)
    assert fresh.dtype == np.float32 and np.array_equal(fresh, out)


def test_concatenate_accepts_array_likes() -> None:
    box = Box(0.0, 1.0, (2,))
    batch = concatenate(box, [[0.0, 1.0], (1.0, 0.0)])
    assert batch.dtype == np.float32 and batch.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    out = np.empty(2, np.int64)
    assert concatenate(Discrete(3), [np.int64(2), 1], out) is out
    assert out.tolist() == [2, 1]


def test_concatenate_casts_into_the_space_dtype() -> None:
    space = Discrete(5)
    batch = concatenate(space, [1, 2, np.int64(3)])
    assert batch.dtype == np.int64 and batch.tolist() == [1, 2, 3]
    box = Box(0.0, 1.0, (2,))
    assert concatenate(box, [np.zeros(2), np.ones(2)]).dtype == np.float32


def test_concatenate_nested_into_out() -> None:
    space = Dict(a=Discrete(3), b=Tuple([Box(0.0, 1.0, (2,))]), seed=0)
    batched = batch_space(space, 2)
    out = batched.zero()
    items = [space.sample(), space.sample()]
    assert concatenate(space, items, out) is out
    assert out["a"].tolist() == [int(items[0]["a"]), int(items[1]["a"])]
    assert np.array_equal(out["b"][0][1], items[1]["b"][0])


def test_iterate_yields_single_samples() -> None:
    batched = batch_space(Discrete(3), 2)
    rows = list(iterate(batched, np.array([2, 0])))
    assert rows == [2, 0] and all(row in Discrete(3) for row in rows)
    with pytest.raises(TypeError, match="cannot hold a batch"):
        iterate(Discrete(3), np.array([1]))
    with pytest.raises(TypeError, match="numpy array batch"):
        iterate(Box(0.0, 1.0, (2, 2)), [[0.0, 0.0]])


def test_zero_sample_of_each_kind() -> None:
    assert zero_sample(Box(1.0, 2.0, (2,))).tolist() == [1.0, 1.0]
    assert zero_sample(Box(-2.0, -1.0, (1,))).tolist() == [-1.0]
    assert zero_sample(Discrete(3, start=4)) == 4
    assert zero_sample(MultiDiscrete([2, 2], start=[3, -1])).tolist() == [3, -1]
    assert zero_sample(MultiBinary(2)).tolist() == [0, 0]
    zero = zero_sample(Dict(a=Discrete(2), b=Tuple([Discrete(3, start=1)])))
    assert zero == {"a": 0, "b": (1,)}


def test_space_descriptions_are_strict_json() -> None:
    space = Box(np.array([-np.inf, 0.0]), np.array([1.0, np.inf]), dtype=np.float64)
    data = space.to_json_dict()
    assert data["type"] == "Box"
    assert data["low"] == ["-inf", 0.0]
    text = json.dumps(data, allow_nan=False)
    assert space_from_jsonable(json.loads(text)) == space
    assert Discrete(3, start=1).to_json_dict() == {"type": "Discrete", "n": 3, "start": 1}


@pytest.mark.parametrize(
    ("data", "error", "match"),
    [
        ({"type": "Nope"}, ValueError, "unknown space type 'Nope'"),
        ({"n": 3}, TypeError, "'type' key"),
        ("Box", TypeError, "'type' key"),
        ({"type": "Box", "low": "nan", "high": 1.0, "shape": [1], "dtype": "float32"},
         ValueError, "'inf' or '-inf'"),
    ],
)  # fmt: skip
def test_space_from_jsonable_errors(data: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        space_from_jsonable(data)


def test_unregistered_space_types_get_clear_errors() -> None:
    class Bare(Space[int]):
        pass

    bare = Bare()
    for call in (
        lambda: flatdim(bare),
        lambda: flatten(bare, 0),
        lambda: unflatten(bare, np.zeros(1)),
        lambda: flatten_space(bare),
        lambda: batch_space(bare, 2),
        lambda: concatenate(bare, [0]),
        lambda: iterate(bare, [0]),
    ):
        with pytest.raises(TypeError, match=r"does not support .*Bare.*register_space_type"):
            call()
    with pytest.raises(NotImplementedError, match="register the type"):
        bare.to_json_dict()
    with pytest.raises(NotImplementedError, match="sample"):
        bare.sample()
    with pytest.raises(NotImplementedError, match="contains"):
        _ = 0 in bare
    with pytest.raises(NotImplementedError, match="zero"):
        bare.zero()


class Interval(Space[float]):
    """A toy space: one float in [low, high], as a downstream package would add it."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = float(low), float(high)
        super().__init__((), np.dtype(np.float64))

    def sample(self, mask: Any = None) -> float:
        return float(self.rng.uniform(self.low, self.high))

    def contains(self, x: Any) -> bool:
        return isinstance(x, float) and self.low <= x <= self.high

    def zero(self) -> float:
        return min(max(0.0, self.low), self.high)

    def to_json_dict(self) -> dict[str, Any]:
        return {"type": "test.Interval", "low": self.low, "high": self.high}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Interval) and (self.low, self.high) == (other.low, other.high)

    __hash__ = None  # type: ignore[assignment]


def _flatten_interval(space: Interval, x: float) -> np.ndarray[Any, Any]:
    return np.array([x], dtype=np.float32)


def _unflatten_interval(space: Interval, x: np.ndarray[Any, Any]) -> float:
    return float(x[0])


def _batch_interval(space: Interval, n: int) -> Space[Any]:
    return Box(space.low, space.high, (n,), dtype=np.float64)


def _concatenate_interval(space: Interval, items: SequenceABC[float], out: Any) -> Any:
    return np.asarray(items, dtype=np.float64)


def _iterate_interval(space: Any, items: Any) -> Iterator[float]:
    return (float(x) for x in items)


register_space_type(
    "test.Interval",
    Interval,
    from_json=lambda data: Interval(data["low"], data["high"]),
    flatdim=lambda space: 1,
    flatten=_flatten_interval,
    unflatten=_unflatten_interval,
    flatten_space=lambda space: Box(space.low, space.high, (1,)),
    batch_space=_batch_interval,
    concatenate=_concatenate_interval,
)


def test_a_registered_type_works_with_every_utility_even_nested() -> None:
    space = Dict(x=Interval(-1.0, 2.0), d=Discrete(2), seed=0)
    sample = space.sample()
    assert sample in space
    assert flatdim(space) == 3
    flat = flatten(space, sample)
    assert flat in flatten_space(space)
    restored = unflatten(space, flat)
    assert restored["x"] == pytest.approx(sample["x"], rel=1e-6)
    assert space_from_jsonable(json.loads(json.dumps(space.to_json_dict()))) == space
    batched = batch_space(space, 2)
    assert batched == Dict(x=Box(-1.0, 2.0, (2,), dtype=np.float64), d=MultiDiscrete([2, 2]))
    batch = concatenate(space, [sample, sample])
    assert batch in batched


def test_registration_errors() -> None:
    with pytest.raises(TypeError, match="Space subclass"):
        register_space_type(int)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Space subclass"):
        register_space_type("test.int", int)  # type: ignore[arg-type]
    # A name needs a decoder: the class's from_jsonable / from_json_dict, or from_json.
    with pytest.raises(TypeError, match="Interval cannot be rebuilt from JSON"):
        register_space_type("only-a-name", Interval)
    with pytest.raises(ValueError, match="from_json needs the name"):
        register_space_type(Interval, from_json=lambda data: Interval(0, 1))
    with pytest.raises(ValueError, match="already registered under the name 'Box'"):
        register_space_type("Box", Interval, from_json=lambda data: Interval(0, 1))
    # Utilities left out keep their clear error; a later registration can add them.
    with pytest.raises(TypeError, match="iterate"):
        iterate(Interval(0.0, 1.0), np.zeros(2))
    register_space_type(Interval, iterate=_iterate_interval)
    assert list(iterate(Interval(0.0, 1.0), np.array([0.5]))) == [0.5]
