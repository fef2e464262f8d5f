"""Row operations on batches returned by native vector envs (arrays, dicts, tuples of them)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["batch_of_one", "copy_batch", "get_row", "put_rows", "select_rows", "take_rows"]


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
