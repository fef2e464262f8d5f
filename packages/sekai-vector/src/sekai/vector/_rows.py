"""Row operations on batches (arrays, dicts and tuples of them).

The functions walk the batch itself, which is what the batches of native
vector envs and of the built-in spaces are made of. A batch of a space type
registered with [`register_space_type`][sekai.spaces.register_space_type] can be anything its
``concatenate`` returns, so `get_row` and `batch_of_one` take the
space as an option: given one with such a part, they go through the space's
``concatenate`` / ``iterate`` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Space
from sekai.spaces._layout import CustomLeaf, RaggedLeaf, UnknownLeaf, layout_of, leaves
from sekai.vector._obs_batch import make_obs_batcher, make_obs_stacker

__all__ = [
    "batch_of_one",
    "copy_batch",
    "get_row",
    "put_rows",
    "select_rows",
    "stack_values",
    "take_rows",
]


_Functions = tuple[Space[Any], Callable[[Any], Any] | None, Callable[[Any, int], Any] | None]
_BY_SPACE: dict[int, _Functions] = {}
"""Per space (by identity; the entry keeps the space alive, so ids are not reused)."""


def _by_space(space: Space[Any]) -> _Functions:
    """``(space, batch_of_one, get_row)`` for a space with a registered custom part, else Nones.

    Chosen once per space object: these run for every terminal observation.
    """
    entry = _BY_SPACE.get(id(space))
    if entry is None or entry[0] is not space:
        kinds = {type(leaf) for leaf in leaves(layout_of(space))}
        if CustomLeaf in kinds and not kinds & {RaggedLeaf, UnknownLeaf}:
            stack = make_obs_stacker(space, 1)
            entry = (
                space,
                lambda observation: stack([observation]),
                make_obs_batcher(space, 1).row,
            )
        else:
            entry = (space, None, None)
        if len(_BY_SPACE) >= 64:  # a bound, for programs that make many spaces
            _BY_SPACE.clear()
        _BY_SPACE[id(space)] = entry
    return entry


def get_row(batch: Any, i: int, space: Space[Any] | None = None) -> Any:
    """Sub-env ``i``'s entry of a batch (a view for arrays).

    Pass the single-env ``space`` of the batch when it may hold a registered
    space type, whose rows only its ``iterate`` knows how to read.
    """
    if space is not None:
        read = _by_space(space)[2]
        if read is not None:
            return read(batch, i)
    if isinstance(batch, dict):
        return {key: get_row(value, i) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(get_row(value, i) for value in batch)
    return batch[i]


def select_rows(batch: Any, mask: NDArray[np.bool_] | NDArray[np.int64]) -> Any:
    """The rows of a batch under ``mask`` (a smaller batch, copied), leaf by leaf.

    ``mask`` is a bool mask, or int row indices (rows then come in their order).
    """
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


def batch_of_one(observation: Any, space: Space[Any] | None = None) -> Any:
    """One observation as a batch of one (a leading axis of size 1 on every array).

    Pass the observation ``space`` when it may hold a registered space type,
    whose batches only its ``concatenate`` knows how to build.
    """
    if space is not None:
        stack = _by_space(space)[1]
        if stack is not None:
            return stack(observation)
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
