"""Strict-JSON encoding of numeric bound arrays (private)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__: list[str] = []


def _encode_number(value: Any, allow_nan: bool) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            if not allow_nan:
                raise ValueError("NaN cannot be encoded as a space bound")
            return "nan"
        return "inf" if value > 0 else "-inf"
    return value


def _encode_nested(value: Any, allow_nan: bool) -> Any:
    if isinstance(value, list):
        return [_encode_nested(item, allow_nan) for item in value]
    return _encode_number(value, allow_nan)


def encode_array(array: NDArray[Any], *, allow_nan: bool = False) -> Any:
    """Encode ``array`` as a scalar (when all entries are equal) or nested lists.

    Infinities become ``"inf"`` / ``"-inf"``; NaN becomes ``"nan"`` when
    ``allow_nan`` (a fill value), and raises ValueError otherwise (a bound).
    """
    if array.size and bool(np.all(array == array.flat[0])):
        return _encode_number(array.flat[0].item(), allow_nan)
    return _encode_nested(array.tolist(), allow_nan)


def _decode_nested(value: Any, allow_nan: bool) -> Any:
    if isinstance(value, list):
        return [_decode_nested(item, allow_nan) for item in value]
    if isinstance(value, str):
        if value == "nan" and allow_nan:
            return math.nan
        if value not in ("inf", "-inf"):
            raise ValueError(f"expected a number, 'inf' or '-inf' in a space bound, got {value!r}")
        return float(value)
    return value


def decode_array(data: Any, dtype: np.dtype[Any], *, allow_nan: bool = False) -> NDArray[Any]:
    """Inverse of `encode_array` (the shape is restored by broadcasting later)."""
    return np.asarray(_decode_nested(data, allow_nan), dtype=dtype)
