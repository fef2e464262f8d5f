"""Helpers for wrappers that work on Box spaces."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Box, Space

__all__ = ["as_bound", "clip_into", "require_box"]


def require_box(space: Space[Any], owner: str, what: str, *, bounded: bool = False) -> Box:
    """Return ``space`` if it is a Box (with finite bounds when ``bounded``), else raise."""
    if not isinstance(space, Box):
        raise TypeError(f"{owner} needs a Box {what} space, got {space!r}")
    if bounded and not (
        space.is_bounded() and np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
    ):
        raise ValueError(f"{owner} needs an {what} space with finite bounds, got {space!r}")
    return space


def as_bound(value: Any, shape: tuple[int, ...], owner: str, name: str) -> NDArray[np.float64]:
    """Broadcast a finite scalar or array bound to ``shape`` as float64 (bools are refused)."""
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == np.bool_
    ):
        raise TypeError(f"{owner}: {name} must be a number or an array, got {value!r}")
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{owner}: {name} must be a number or an array, got {value!r}") from error
    try:
        full: NDArray[np.float64] = np.broadcast_to(array, shape).copy()
    except ValueError as error:
        raise ValueError(
            f"{owner}: {name} of shape {array.shape} does not broadcast to the space's shape "
            f"{shape}, got {value!r}"
        ) from error
    if not bool(np.all(np.isfinite(full))):
        raise ValueError(f"{owner}: {name} must be finite, got {value!r}")
    return full


def clip_into(x: NDArray[Any], low: Any, high: Any) -> NDArray[Any]:
    """``np.clip(x, low, high)`` into a new array, in two ufunc calls.

    For the small arrays of a single step, ``np.maximum`` then ``np.minimum``
    costs well under half of ``np.clip`` (which dispatches through more
    machinery). NaN propagates, as with ``np.clip``. A 0-d input (the value of
    a ``Box`` of shape ``()``) gives a 0-d array.
    """
    out: NDArray[Any] = np.maximum(x, low)
    if type(out) is not np.ndarray:  # 0-d operands give a numpy scalar
        return np.asarray(np.minimum(out, high))
    np.minimum(out, high, out=out)
    return out
