"""The one comparison of nested results (sekai._internal.compare) shared by the checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from sekai._internal.compare import Difference, first_difference

leaves = st.one_of(
    st.integers(-(2**31), 2**31),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=3),
    hnp.arrays(
        st.sampled_from([np.float32, np.float64, np.int64]),
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
        elements={"allow_nan": True, "allow_infinity": True},
    ),
)
nested = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=2), children, max_size=3),
    ),
    max_leaves=8,
)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


@given(nested)
def test_a_value_equals_its_copy_nan_included(value: Any) -> None:
    assert first_difference(value, _copy(value)) is None
    assert first_difference(value, _copy(value), exact_types=True) is None


@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)),
    st.data(),
)
def test_a_changed_element_is_named_with_its_index(array: Any, data: st.DataObject) -> None:
    index = tuple(data.draw(st.integers(0, side - 1)) for side in array.shape)
    changed = array.copy()
    changed[index] = 1.0 if array[index] != 1.0 else 2.0
    found = first_difference({"obs": [changed]}, {"obs": [array]}, "observation")
    assert found is not None
    assert found.aspect == "value"
    assert found.path == f"observation['obs'][0][{', '.join(map(str, index))}]"
    assert found.got == changed[index]
    assert np.array_equal(found.expected, array[index], equal_nan=True)


@pytest.mark.parametrize(
    ("got", "expected", "exact_types", "difference"),
    [
        ({"a": 1}, {"b": 1}, False, Difference("x", "keys", ["'a'"], ["'b'"])),
        ([1, 2], [1], False, Difference("x", "length", 2, 1)),
        ({"a": 1}, [1], False, Difference("x", "type", dict, list)),
        ([1], 1, False, Difference("x", "type", list, int)),
        (np.zeros(2), np.zeros(3), False, Difference("x", "shape", (2,), (3,))),
        (
            np.zeros(2, np.float32),
            np.zeros(2),
            True,
            Difference("x", "dtype", np.dtype(np.float32), np.dtype(np.float64)),
        ),
        (np.int64(1), 1, True, Difference("x", "type", np.int64, int)),
        (1.0, 2, False, Difference("x", "value", 1.0, 2)),
        ("a", "b", False, Difference("x", "value", "a", "b")),
    ],
)
def test_what_differs_is_named(
    got: Any, expected: Any, exact_types: bool, difference: Difference
) -> None:
    found = first_difference(got, expected, "x", exact_types=exact_types)
    if difference.aspect == "keys":
        assert found is not None and found.aspect == "keys"
        assert [repr(k) for k in found.got] == difference.got
        assert [repr(k) for k in found.expected] == difference.expected
    else:
        assert found == difference


@pytest.mark.parametrize(
    ("got", "expected"),
    [
        (1, np.int64(1)),
        (1, 1.0),
        (float("nan"), np.float32("nan")),
        (np.zeros(2, np.float32), np.zeros(2)),
        ([1, 2], np.array([1, 2])),
        ((1, 2), [1, 2]),
    ],
)
def test_equal_by_value_unless_exact_types(got: Any, expected: Any) -> None:
    assert first_difference(got, expected) is None


def test_values_that_refuse_to_compare_differ() -> None:
    class Refuses:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

        __hash__ = object.__hash__

    found = first_difference([Refuses()], [Refuses()], "x")
    assert found is not None and found.path == "x[0]"
