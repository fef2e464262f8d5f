"""Discrete, MultiDiscrete and MultiBinary: construction, errors, membership, repr."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.spaces import Discrete, MultiBinary, MultiDiscrete


def test_discrete_samples_are_int64_in_range() -> None:
    space = Discrete(3, start=-1, seed=0)
    samples = {space.sample() for _ in range(100)}
    assert all(isinstance(s, np.int64) for s in samples)
    assert {int(s) for s in samples} == {-1, 0, 1}
    assert space.shape == () and space.dtype == np.int64
    assert space.zero() == -1


@pytest.mark.parametrize(
    ("n", "start", "error"),
    [(0, 0, ValueError), (-2, 0, ValueError), (2.0, 0, TypeError), (True, 0, TypeError),
     (3, 0.5, TypeError), ("3", 0, TypeError)],
)  # fmt: skip
def test_discrete_rejects_bad_arguments(n: Any, start: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"Discrete: (n|start) must be"):
        Discrete(n, start=start)


@pytest.mark.parametrize(
    ("n", "start"),
    [(2**63 + 1, 0), (3, 2**63 - 2), (2, -(2**63) - 1), (2**64, -(2**63)), (2**70, 0)],
)
def test_discrete_elements_must_fit_in_int64(n: int, start: int) -> None:
    with pytest.raises(ValueError, match=r"must fit in int64.*got n=") as info:
        Discrete(n, start=start)
    assert repr(n) in str(info.value)


def test_discrete_at_the_edges_of_int64_samples_in_range() -> None:
    top = Discrete(2, start=2**63 - 2, seed=0)
    assert {int(top.sample()) for _ in range(20)} <= {2**63 - 2, 2**63 - 1}
    assert int(Discrete(2**63, seed=0).sample()) >= 0
    bottom = Discrete(1, start=-(2**63), seed=0)
    assert int(bottom.sample()) == -(2**63)


def test_discrete_accepts_numpy_integers() -> None:
    assert Discrete(np.int32(3), start=np.int64(2)) == Discrete(3, start=2)


def test_discrete_contains() -> None:
    space = Discrete(3, start=1)
    assert 1 in space and 3 in space
    assert 0 not in space and 4 not in space
    assert np.int8(2) in space
    assert np.array(2) in space
    assert np.array([2]) not in space
    assert 2.0 not in space
    assert np.float64(2) not in space
    assert True not in space
    assert "2" not in space


def test_discrete_repr_and_equality() -> None:
    assert repr(Discrete(4)) == "Discrete(4)"
    assert repr(Discrete(4, start=-2)) == "Discrete(4, start=-2)"
    assert Discrete(4) != Discrete(4, start=1)
    assert Discrete(4) != Discrete(5)


def test_multi_discrete_samples_and_zero() -> None:
    space = MultiDiscrete([2, 5], start=[10, -2], seed=0)
    samples = np.stack([space.sample() for _ in range(200)])
    assert samples.dtype == np.int64
    assert set(samples[:, 0].tolist()) == {10, 11}
    assert set(samples[:, 1].tolist()) == {-2, -1, 0, 1, 2}
    assert space.zero().tolist() == [10, -2]


def test_multi_discrete_copies_nvec() -> None:
    nvec = np.array([2, 3])
    space = MultiDiscrete(nvec)
    nvec[0] = 10
    assert space.nvec.tolist() == [2, 3]


@pytest.mark.parametrize(
    ("nvec", "start", "kwargs", "error", "match"),
    [
        ([2, 0], None, {}, ValueError, ">= 1"),
        ([], None, {}, ValueError, "non-empty"),
        (3, None, {}, ValueError, "non-empty"),
        ([2.0, 3.0], None, {}, TypeError, "nvec must hold integers"),
        ([2, 3], [0.5, 1.0], {}, TypeError, "start must hold integers"),
        ([2, 3], [0, 1, 2], {}, ValueError, "does not broadcast"),
        ([200, 3], None, {"dtype": np.int8}, ValueError, "do not fit in dtype int8"),
        ([2, 3], None, {"dtype": np.float32}, TypeError, "integer"),
    ],
)
def test_multi_discrete_rejects_bad_arguments(
    nvec: Any, start: Any, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        MultiDiscrete(nvec, start=start, **kwargs)


def test_multi_discrete_contains() -> None:
    space = MultiDiscrete([2, 3])
    assert np.array([1, 2]) in space
    assert [0, 0] in space
    assert np.array([2, 0]) not in space
    assert np.array([0, -1]) not in space
    assert np.array([0.0, 1.0]) not in space
    assert np.array([0, 1, 1]) not in space


def test_multi_discrete_repr_and_equality() -> None:
    assert repr(MultiDiscrete([2, 3])) == "MultiDiscrete([2, 3])"
    assert repr(MultiDiscrete([2], start=[1], dtype=np.int32)) == (
        "MultiDiscrete([2], start=[1], dtype=int32)"
    )
    assert MultiDiscrete([2, 3]) != MultiDiscrete([2, 3], start=[1, 0])
    assert MultiDiscrete([2, 3]) != MultiDiscrete([2, 3], dtype=np.int32)
    assert MultiDiscrete([2, 3]) == MultiDiscrete(np.array([2, 3]))


def test_multi_binary_int_or_shape() -> None:
    assert MultiBinary(3).shape == (3,)
    assert MultiBinary(3).n == 3
    assert MultiBinary([2, 2]).shape == (2, 2)
    assert MultiBinary([2, 2]).n == (2, 2)
    sample = MultiBinary((2, 2), seed=0).sample()
    assert sample.dtype == np.int8 and sample.shape == (2, 2)
    assert repr(MultiBinary([2, 2])) == "MultiBinary((2, 2))"


@pytest.mark.parametrize(("n", "error"), [(-1, ValueError), ("3", TypeError), (2.5, TypeError),
                                          ([2, -1], ValueError)])  # fmt: skip
def test_multi_binary_rejects_bad_sizes(n: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="MultiBinary: n"):
        MultiBinary(n)


def test_multi_binary_contains() -> None:
    space = MultiBinary(3)
    assert np.array([0, 1, 1], dtype=np.int8) in space
    assert np.array([True, False, True]) in space
    assert [1, 0, 1] in space
    assert np.array([0, 2, 1]) not in space
    assert np.array([0.0, 1.0, 1.0]) not in space
    assert np.array([0, 1]) not in space


@pytest.mark.parametrize("base", [MultiDiscrete, MultiBinary])
@pytest.mark.parametrize("attribute", ["shape", "dtype"])
def test_a_subclass_skipping_init_says_so(base: type, attribute: str) -> None:
    class Skipping(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            pass

    if base is MultiBinary and attribute == "dtype":
        assert Skipping().dtype == np.int8  # fixed, whatever __init__ did
        return
    with pytest.raises(RuntimeError, match=rf"^Skipping has no {attribute}: its __init__ must"):
        getattr(Skipping(), attribute)
