"""Turning a native vector env's info arrays into one info dict per sub-env.

This runs on every step of a [`NativeVecEnv`][sekai.vector.NativeVecEnv], for
thousands of sub-envs, so the common layouts (no keys, one key, two keys)
are built with one comprehension each, without intermediate dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai.core import InfoDict
from sekai.error import InvalidObservation

__all__ = ["info_dicts", "snapshot_info_arrays"]


def _column(value: Any, count: int, key: str) -> list[Any]:
    if isinstance(value, np.ndarray):
        column = value.tolist() if value.ndim == 1 else list(value)
    else:
        column = list(value)
    if len(column) != count:
        raise InvalidObservation(
            f"info array {key!r} must have a leading axis of {count} entries, got {len(column)}"
        )
    return column


def snapshot_info_arrays(arrays: Mapping[str, Any], count: int) -> dict[str, Any]:
    """A checked copy of a step's info arrays, for building the info dicts later.

    The env may reuse its arrays on the next step, so each array is copied
    (and any other sequence shallow-copied into a list).

    Raises:
        InvalidObservation: An array's leading axis does not have ``count``
            entries (a ``ValueError``).
    """
    if not arrays:
        return {}
    snapshot: dict[str, Any] = {}
    for key, value in arrays.items():
        if isinstance(value, np.ndarray):
            if value.ndim == 0:
                raise InvalidObservation(
                    f"info array {key!r} must have a leading axis of {count} entries, "
                    f"got a 0-d array {value!r}"
                )
            copied: Any = value.copy()
        else:
            copied = list(value)
        if len(copied) != count:
            raise InvalidObservation(
                f"info array {key!r} must have a leading axis of {count} entries, got {len(copied)}"
            )
        snapshot[key] = copied
    return snapshot


def info_dicts(
    arrays: Mapping[str, Any], count: int, extra: tuple[str, list[Any]] | None = None
) -> list[InfoDict]:
    """One dict per sub-env from arrays with a leading axis of ``count`` entries.

    One-dimensional numeric arrays give Python scalars (``tolist()``); other
    arrays give their rows. ``extra`` adds one more ``(key, values)`` column
    (the time limit's ``elapsed_steps``).

    Raises:
        InvalidObservation: An array's leading axis does not have ``count``
            entries (a ``ValueError``).
    """
    keys = list(arrays)
    columns = [_column(arrays[key], count, key) for key in keys]
    if extra is not None:
        keys.append(extra[0])
        columns.append(extra[1])
    if not keys:
        return [{} for _ in range(count)]
    if len(keys) == 1:
        key = keys[0]
        return [{key: value} for value in columns[0]]
    if len(keys) == 2:
        first, second = keys
        return [{first: a, second: b} for a, b in zip(columns[0], columns[1], strict=True)]
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]
