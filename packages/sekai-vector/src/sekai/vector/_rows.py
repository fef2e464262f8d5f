"""Row operations on batches returned by native vector envs (arrays, dicts, tuples of them)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "batch_of_one",
    "copy_batch",
    "get_row",
    "put_rows",
    "select_rows",
    "stack_values",
    "take_rows",
]


def get_row(batch: Any, i: int) -> Any:
    """Sub-env ``i``'s entry of a batch (a view for arrays)."""
    if isinstance(batch, dict):
        return {key: get_row(value, i) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(get_row(value, i) for value in batch)
    return batch[i]


def select_rows(batch: Any, mask: NDArray[np.bool_]) -> Any:
    """The rows of a batch under ``mask`` (a smaller batch, copied), leaf by leaf."""
    if isinstance(batch, dict):
        return {key: select_rows(value, mask) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(select_rows(value, mask) for value in batch)
    return np.asarray(batch)[mask]


def copy_batch(batch: Any) -> Any:
    """A copy of a batch whose arrays share no memory with the original."""
    if isinstance(batch, dict):
        return {key: copy_batch(value) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(copy_batch(value) for value in batch)
    return np.array(batch, copy=True)


def put_rows(target: Any, source: Any, mask: NDArray[np.bool_]) -> None:
    """``target[mask] = source[mask]``, leaf by leaf."""
    if isinstance(target, dict):
        for key, value in target.items():
            put_rows(value, source[key], mask)
    elif isinstance(target, tuple):
        for value, other in zip(target, source, strict=True):
            put_rows(value, other, mask)
    else:
        target[mask] = source[mask]


def take_rows(batch: Any, stored: Any, mask: NDArray[np.bool_]) -> Any:
    """A copy of ``batch`` whose rows under ``mask`` come from ``stored``."""
    result = copy_batch(batch)
    put_rows(result, stored, mask)
    return result


def batch_of_one(observation: Any) -> Any:
    """One observation as a batch of one (a leading axis of size 1 on every array)."""
    if isinstance(observation, dict):
        return {key: batch_of_one(value) for key, value in observation.items()}
    if isinstance(observation, tuple):
        return tuple(batch_of_one(value) for value in observation)
    return np.asarray(observation)[np.newaxis]


def _coerced(array: NDArray[Any], values: list[Any]) -> bool:
    """Whether numpy turned values of other types into text to stack them (e.g. 1 -> '1')."""
    return array.dtype.kind in "US" and not all(isinstance(v, (str, bytes)) for v in values)


def stack_values(values: list[Any]) -> NDArray[Any]:
    """One array with a leading axis of ``len(values)`` entries, each value kept as it is.

    Numbers and equally shaped arrays stack into a numeric array (strings
    into a string array); anything else (ragged arrays, dicts, a mix of
    strings and numbers) goes into a 1-D object array holding the values.
    """
    try:
        array = np.asarray(values)
    except ValueError:  # ragged values
        array = None
    if (
        array is None
        or array.dtype == object
        or array.shape[:1] != (len(values),)
        or _coerced(array, values)
    ):
        array = np.empty(len(values), dtype=object)
        for i, value in enumerate(values):
            array[i] = value
    return array
