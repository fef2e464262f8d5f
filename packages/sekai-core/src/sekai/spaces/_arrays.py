"""Checks and conversions of the array arguments of the space classes (private).

Masks, dtypes and read-only bounds; the plain int / shape checks are in
`sekai._internal.validation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__: list[str] = []


def as_bool_mask(mask: object, shape: tuple[int, ...], owner: object) -> NDArray[np.bool_]:
    """Validate a component mask: a boolean (or 0/1 integer) array of ``shape``."""
    if isinstance(mask, np.generic):
        mask = np.asarray(mask)
    if not isinstance(mask, np.ndarray):
        raise TypeError(
            f"mask for {owner!r} must be a numpy array of bools with shape {shape}, got {mask!r}"
        )
    if mask.shape != shape:
        raise ValueError(f"mask for {owner!r} must have shape {shape}, got shape {mask.shape}")
    if mask.dtype == np.bool_:
        return mask
    if mask.dtype.kind in "iu" and bool(np.all((mask == 0) | (mask == 1))):
        return mask.astype(np.bool_)
    raise ValueError(f"mask for {owner!r} must hold booleans (or 0/1), got {mask!r}")


def as_choice_mask(mask: object, n: int, owner: object) -> NDArray[np.intp]:
    """Validate an int8 choice mask of length ``n`` and return the allowed indices."""
    if not isinstance(mask, np.ndarray) or mask.dtype.kind not in "iub":
        raise TypeError(
            f"mask for {owner!r} must be an int8 numpy array of shape ({n},), got {mask!r}"
        )
    if mask.shape != (n,):
        raise ValueError(f"mask for {owner!r} must have shape ({n},), got shape {mask.shape}")
    allowed = np.flatnonzero(mask)
    if allowed.size and not bool(np.all((mask == 0) | (mask == 1))):
        raise ValueError(f"mask for {owner!r} must hold only 0 and 1, got {mask!r}")
    if allowed.size == 0:
        raise ValueError(
            f"mask for {owner!r} allows no value (all entries are 0): at least one entry must be 1"
        )
    return allowed


def check_dtype_numeric(dtype: Any, owner: str, kinds: str = "iuf") -> np.dtype[Any]:
    """Return ``np.dtype(dtype)`` if its kind is among ``kinds``, else raise ``TypeError``."""
    try:
        resolved: np.dtype[Any] = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"{owner}: {dtype!r} is not a numpy dtype") from error
    if resolved.kind not in kinds:
        names = {"i": "signed integer", "u": "unsigned integer", "f": "floating point"}
        expected = " or ".join(names[kind] for kind in kinds)
        raise TypeError(f"{owner}: dtype must be a {expected} dtype, got {resolved!r}")
    return resolved


def readonly(value: Any) -> NDArray[Any]:
    """Return ``value`` as an array (0-d for a scalar) marked read-only."""
    array: NDArray[Any] = np.asarray(value)
    array.flags.writeable = False
    return array
