"""Argument checks shared by the vector wrappers."""

from __future__ import annotations

import math
import numbers

__all__ = ["check_real"]


def check_real(value: object, owner: str, name: str) -> float:
    """Return ``value`` as a finite float, or raise naming ``owner`` and ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{owner}: {name} must be finite, got {value!r}")
    return number
