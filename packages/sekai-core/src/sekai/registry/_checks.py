"""Small runtime checks of argument types shared by the registry modules."""

from __future__ import annotations

import numbers

__all__ = ["is_int", "is_real"]


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer (numpy integers included), bools excluded."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: object) -> bool:
    """Whether ``value`` is a real number (numpy floats included), bools excluded."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
