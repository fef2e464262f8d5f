"""Structural equality for result fields that may hold numpy arrays.

The ``==`` a dataclass generates compares tuples of fields, which asks numpy
arrays for a single truth value and raises ``ValueError``. The result types
compare their fields with `values_equal` instead.
"""

from __future__ import annotations

import numpy as np

__all__ = ["fields_equal", "values_equal"]


def values_equal(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` are equal, looking inside dicts, tuples, lists and arrays.

    Arrays are equal when they have the same shape and equal elements (NaN
    is unequal to itself, as for floats); an array never equals a non-array.
    Other values use ``==``.
    """
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[key], b[key]) for key in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and type(a) is type(b):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def fields_equal(a: object, b: object, names: tuple[str, ...]) -> bool:
    """Whether ``a`` and ``b`` have equal values for every attribute in ``names``."""
    return all(values_equal(getattr(a, name), getattr(b, name)) for name in names)
