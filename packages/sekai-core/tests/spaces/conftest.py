"""Shared fixtures for the space tests: one canonical list of spaces, used everywhere.

Any test that takes a ``space`` argument runs once per entry of
:func:`canonical_spaces` (fresh instances per test). Tests that need the
flattenable or batchable ones take ``flat_space`` instead. Hypothesis tests get
random spaces from the session fixture ``space_strategy``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
)


def canonical_spaces() -> list[tuple[str, Space[Any]]]:
    """Every kind of space, with the edge cases worth covering everywhere."""
    return [
        ("box-bounded", Box(-1.0, 2.0, (3,))),
        ("box-scalar-shape", Box(0.0, 1.0, ())),
        ("box-2d-array-bounds", Box(np.array([[0.0, -1.0], [2.0, 3.0]]), 5.0)),
        (
            "box-half-unbounded",
            Box(np.array([-np.inf, 0.0, -np.inf, -1.0]), np.array([np.inf, np.inf, 4.0, 1.0])),
        ),
        ("box-float64", Box(-10.0, 10.0, (2,), dtype=np.float64)),
        ("box-int", Box(-3, 7, (2, 2), dtype=np.int32)),
        ("box-int-array-bounds", Box(np.array([0, -5]), np.array([3, 5]), dtype=np.int64)),
        ("box-uint8-image", Box(0, 255, (4, 4, 3), dtype=np.uint8)),
        ("box-bounds-exclude-zero", Box(1.0, 2.0, (2,))),
        ("discrete", Discrete(5)),
        ("discrete-start", Discrete(3, start=-2)),
        ("multi-discrete", MultiDiscrete([3, 2, 4])),
        ("multi-discrete-2d-start", MultiDiscrete([[2, 3], [4, 5]], start=[[1, 0], [-2, 3]])),
        ("multi-binary", MultiBinary(5)),
        ("multi-binary-2d", MultiBinary((2, 3))),
        ("dict", Dict({"position": Box(-1.0, 1.0, (2,)), "gear": Discrete(3)})),
        (
            "dict-nested",
            Dict(
                obs=Tuple([Discrete(2), MultiBinary(3)]),
                book=MaskedBox(0.0, 10.0, (2,), max_size=3),
            ),
        ),
        ("tuple", Tuple([Box(0.0, 1.0, (2,)), Discrete(4), MultiDiscrete([2, 2])])),
        ("masked-box", MaskedBox(-1.0, 1.0, (3,), max_size=4)),
        ("masked-box-excludes-zero", MaskedBox(1.0, 2.0, (), max_size=2)),
        ("sequence", Sequence(Discrete(3), max_length=4)),
        ("sequence-stacked", Sequence(Box(-1.0, 1.0, (2,)), max_length=3, stack=True)),
        ("sequence-default-length", Sequence(Tuple([Discrete(2), Box(0.0, 1.0, (1,))]))),
        (
            "dict-with-sequence",
            Dict(items=Sequence(Box(0.0, 1.0, (2,)), max_length=2), n=Discrete(2)),
        ),
    ]


def _explicitly_parametrized(metafunc: pytest.Metafunc, name: str) -> bool:
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if isinstance(names, str):
            names = [part.strip() for part in names.split(",")]
        if name in names:
            return True
    return False


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    cases = canonical_spaces()
    if "space" in metafunc.fixturenames and not _explicitly_parametrized(metafunc, "space"):
        metafunc.parametrize("space", [s for _, s in cases], ids=[n for n, _ in cases])
    if "flat_space" in metafunc.fixturenames:
        flat = [(n, s) for n, s in cases if s.is_flattenable]
        metafunc.parametrize("flat_space", [s for _, s in flat], ids=[n for n, _ in flat])


# -- sample comparison -----


def samples_equal(a: Any, b: Any, *, exact: bool = True) -> bool:
    """Structural equality of two samples (arrays compared with dtype and values).

    With ``exact=False``, floating arrays need only be equal after rounding to
    float32 (a round trip through a flattened space).
    """
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and list(a) == list(b)
            and all(samples_equal(a[k], b[k], exact=exact) for k in a)
        )
    if isinstance(a, tuple):
        return (
            isinstance(b, tuple)
            and len(a) == len(b)
            and all(samples_equal(x, y, exact=exact) for x, y in zip(a, b, strict=True))
        )
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if a_arr.shape != b_arr.shape or a_arr.dtype != b_arr.dtype:
        return False
    if exact or a_arr.dtype.kind != "f":
        return bool(np.array_equal(a_arr, b_arr))
    # Not exact: equal once rounded to float32, what flattening does (a relative
    # tolerance fails on values that are subnormal in float32).
    return bool(np.array_equal(a_arr.astype(np.float32), b_arr.astype(np.float32)))


@pytest.fixture(scope="session")
def assert_samples_equal() -> Callable[..., None]:
    def check(a: Any, b: Any, *, exact: bool = True) -> None:
        assert samples_equal(a, b, exact=exact), f"{a!r} != {b!r}"

    return check


# -- random spaces for hypothesis -----

_shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def _boxes(draw: st.DrawFn) -> Box:
    shape = draw(_shapes)
    dtype = draw(st.sampled_from([np.float32, np.float64, np.int64, np.int16, np.uint8]))
    if np.dtype(dtype).kind == "f":
        bound = st.one_of(st.floats(-1e3, 1e3, width=32), st.just(np.inf))
        low = -draw(bound)
        high = draw(bound)
        if low > high:
            low, high = high, low
        return Box(low, high, shape, dtype=dtype)
    info = np.iinfo(dtype)
    low = draw(st.integers(max(int(info.min), -1000), min(int(info.max), 1000)))
    high = draw(st.integers(low, min(int(info.max), low + 1000)))
    return Box(low, high, shape, dtype=dtype)


def _leaves() -> st.SearchStrategy[Space[Any]]:
    return st.one_of(
        _boxes(),
        st.builds(Discrete, st.integers(1, 10), start=st.integers(-5, 5)),
        st.builds(MultiDiscrete, st.lists(st.integers(1, 5), min_size=1, max_size=4)),
        st.builds(MultiBinary, st.integers(1, 5)),
        st.builds(
            lambda shape, size: MaskedBox(-1.0, 1.0, shape, max_size=size),
            _shapes,
            st.integers(1, 4),
        ),
    )


def _spaces() -> st.SearchStrategy[Space[Any]]:
    keys = st.text("abcdefgh", min_size=1, max_size=4)
    return st.recursive(
        _leaves(),
        lambda children: st.one_of(
            st.dictionaries(keys, children, min_size=1, max_size=3).map(Dict),
            st.lists(children, min_size=1, max_size=3).map(Tuple),
        ),
        max_leaves=5,
    )


@pytest.fixture(scope="session")
def space_strategy() -> st.SearchStrategy[Space[Any]]:
    """Random flattenable, batchable spaces (leaves and nested Dict/Tuple)."""
    return _spaces()
