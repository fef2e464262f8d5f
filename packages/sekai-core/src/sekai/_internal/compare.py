"""Where two nested values first differ, NaN equal to NaN (internal: see `sekai._internal`).

One comparison for every check that asks "are these two results the same?":
`sekai.utils.check_env` (seeded resets and trajectories), the native-parity
kit `sekai.testing.assert_native_matches` and the market-env checks.
Dicts (any `Mapping`) are compared key by key, lists and tuples item by item,
numpy arrays and scalars element by element; NaN equals NaN (and nothing
else is rounded); other leaves are compared with ``==``. A Python number
and a numpy scalar of equal value are equal unless ``exact_types`` is set.

`first_difference` returns a `Difference` naming the path of the first
difference (``observation['prices'][2, 0]``), what differs about it and the
two values, or None when the values are equal; callers word the message.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = ["Difference", "first_difference"]

Aspect = Literal["keys", "length", "type", "shape", "dtype", "value"]
"""What differs: the keys of two dicts, the lengths of two sequences, the types
of two leaves (or a dict or sequence against something else), the shapes or
dtypes of two arrays, or a value."""


@dataclass(frozen=True)
class Difference:
    """The first difference between two nested values.

    Attributes:
        path: Where it is: the ``path`` given to `first_difference` followed by
            the keys and indices leading to it (``info['final_info']['t']``,
            ``observation[1, 0]`` for an array element).
        aspect: What differs (see `Aspect`).
        got: The first value's part at ``path``: the sorted keys, the length,
            the type, the shape, the dtype or the value (for an array element,
            the element as a numpy scalar).
        expected: The second value's part at ``path``, the same way.
    """

    path: str
    aspect: Aspect
    got: Any
    expected: Any


def first_difference(
    got: Any, expected: Any, path: str = "", *, exact_types: bool = False
) -> Difference | None:
    """The first difference between ``got`` and ``expected``, or None when they are equal.

    Args:
        got: A value, nested in dicts, lists and tuples or not.
        expected: The value to compare it with.
        path: The name of the whole value, the start of every `Difference.path`.
        exact_types: Also require leaves of the same type and arrays of the
            same dtype (off: ``1 == np.int64(1) == 1.0`` and float32 arrays
            equal float64 arrays of the same values).

    Returns:
        The `Difference` found first (dict keys in ``expected``'s order), or None.
    """
    if isinstance(got, Mapping) or isinstance(expected, Mapping):
        if not (isinstance(got, Mapping) and isinstance(expected, Mapping)):
            return Difference(path, "type", type(got), type(expected))
        if got.keys() != expected.keys():
            return Difference(path, "keys", _sorted_keys(got), _sorted_keys(expected))
        for key in expected:
            found = first_difference(
                got[key], expected[key], f"{path}[{key!r}]", exact_types=exact_types
            )
            if found is not None:
                return found
        return None
    if _is_sequence(got) and _is_sequence(expected):
        if len(got) != len(expected):
            return Difference(path, "length", len(got), len(expected))
        for index, (a, b) in enumerate(zip(got, expected, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]", exact_types=exact_types)
            if found is not None:
                return found
        return None
    if _is_array(got) or _is_array(expected):
        return _array_difference(got, expected, path, exact_types)
    if exact_types and type(got) is not type(expected):
        return Difference(path, "type", type(got), type(expected))
    if _is_sequence(got) or _is_sequence(expected):
        return Difference(path, "type", type(got), type(expected))
    return None if _equal_leaves(got, expected) else Difference(path, "value", got, expected)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _is_array(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def _sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    return sorted(mapping.keys(), key=repr)


def _equal_leaves(a: Any, b: Any) -> bool:
    if isinstance(a, numbers.Real) and isinstance(b, numbers.Real):
        if a == b:
            return True
        try:
            return math.isnan(float(a)) and math.isnan(float(b))
        except (TypeError, ValueError, OverflowError):
            return False
    try:
        result = a == b
        return result if isinstance(result, bool) else bool(np.all(result))
    except Exception:  # values that refuse to compare are not equal
        return False


def _array_difference(got: Any, expected: Any, path: str, exact_types: bool) -> Difference | None:
    try:
        left, right = np.asarray(got), np.asarray(expected)
    except ValueError:  # a ragged list against an array
        return Difference(path, "type", type(got), type(expected))
    if exact_types and (_is_array(got) != _is_array(expected)):
        return Difference(path, "type", type(got), type(expected))
    if left.shape != right.shape:
        return Difference(path, "shape", left.shape, right.shape)
    if exact_types and left.dtype != right.dtype:
        return Difference(path, "dtype", left.dtype, right.dtype)
    try:
        same = np.asarray(left == right, dtype=bool)
        if same.shape != left.shape:
            raise TypeError("not an element-wise comparison")
        if left.dtype.kind in "fc" and right.dtype.kind in "fc":
            same = same | (np.isnan(left) & np.isnan(right))
    except Exception:  # values numpy cannot compare element-wise: compare them as objects
        return None if _equal_leaves(got, expected) else Difference(path, "value", got, expected)
    if bool(same.all()):
        return None
    if left.ndim == 0:
        return Difference(path, "value", left[()], right[()])
    index = tuple(int(i) for i in np.argwhere(~same)[0])
    where = f"{path}[{', '.join(map(str, index))}]"
    return Difference(where, "value", left[index], right[index])
