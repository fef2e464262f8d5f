"""Checks shared by the classic-control envs: reset options and actions (private)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sekai._internal.validation import check_real
from sekai.error import InvalidAction

__all__ = ["box_action", "choices", "discrete_action", "float_bound", "reset_bounds"]


def float_bound(value: object, what: str) -> float:
    """A reset bound read from ``options``: a finite real number, else ``ValueError``."""
    return check_real(value, what, expected="a finite real number", type_error=ValueError)


def reset_bounds(
    options: dict[str, Any] | None, owner: str, default_low: float, default_high: float
) -> tuple[float, float]:
    """Read the ``"low"`` / ``"high"`` reset options of a classic-control env.

    Args:
        options: The options given to ``reset`` (or ``None``).
        owner: The env's name, for error messages.
        default_low: The lower bound when ``options`` has no ``"low"``.
        default_high: The upper bound when ``options`` has no ``"high"``.

    Returns:
        ``(low, high)``, the bounds of the uniform initial-state distribution.

    Raises:
        ValueError: A bound is not a finite real number, or ``low > high``.
    """
    if not options:
        return default_low, default_high
    low = float_bound(options.get("low", default_low), f"{owner} reset option 'low'")
    high = float_bound(options.get("high", default_high), f"{owner} reset option 'high'")
    if not low <= high:
        raise ValueError(
            f"{owner} reset options need low <= high, got low={low!r} and high={high!r}"
        )
    return low, high


def choices(n: int) -> str:
    """The actions of ``Discrete(n)`` in words: ``"0 or 1"``, ``"0, 1 or 2"``."""
    if n == 1:
        return "0"
    return f"{', '.join(str(i) for i in range(n - 1))} or {n - 1}"


def discrete_action(action: Any, n: int, owner: str) -> int:
    """Convert an element of ``Discrete(n)`` to an int, rejecting anything else.

    Python ints, numpy integers and 0-d integer arrays are accepted; bools,
    floats and other shapes are not.

    Raises:
        InvalidAction: ``action`` is not an integer in ``[0, n)``.
    """
    if (
        action.__class__ is int
        or isinstance(action, np.integer)
        or (isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu")
    ):
        value = int(action)
        if 0 <= value < n:
            return value
    raise InvalidAction(f"{owner} expects an action {choices(n)} (Discrete({n})), got {action!r}")


def box_action(action: Any, owner: str) -> np.float32:
    """The value of a ``Box((1,), float32)`` action, as a float32 scalar.

    Any real array-like of shape ``(1,)`` is accepted and converted to
    float32 (the dtype of the action space). Values outside the space's
    bounds are the env's to clip.

    Raises:
        InvalidAction: ``action`` has another shape, is not real, or is NaN.
    """
    if action.__class__ is np.ndarray and action.shape == (1,) and action.dtype.kind in "fiu":
        value: np.float32 = action.astype(np.float32, copy=False)[0]
    else:
        try:
            array = np.asarray(action)
        except (TypeError, ValueError):  # ragged sequences and the like
            array = np.empty(0)
        if array.shape != (1,) or array.dtype.kind not in "fiu":
            raise InvalidAction(
                f"{owner} expects an action of shape (1,) holding a real number, got {action!r}"
            )
        value = array.astype(np.float32)[0]
    if math.isnan(value):
        raise InvalidAction(f"{owner} expects a real number as action, got NaN in {action!r}")
    return value
