"""Array helpers shared by costs, rewards, the account and the metrics (private).

The money modules work on one account or on a batch of accounts with the same
code. Two shape conventions run through them:

- *account values* (equity, growth, cost, reward) have shape ``(...)``: a
  scalar for one account, ``(n_envs,)`` for a batch;
- *asset values* (weights, trades, prices, returns) have shape
  ``(..., n_assets)``: the last axis holds the assets. A scalar is one asset of
  one account.

Results for one account come back as numpy ``float64`` scalars (which are
Python floats too), results for a batch as ``float64`` arrays: `unwrap`
does that conversion.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import is_real

__all__ = ["F64", "Array", "as_array", "check_rate_array", "sum_assets", "unwrap"]

F64 = NDArray[np.float64]

Array: TypeAlias = Any
"""A float64 array, or a numpy float64 scalar for a single account.

Typed ``Any`` on purpose: the same call returns a scalar for one env and an
array for a batch, and either must mix with Python floats and numpy arrays in
env code without casts.
"""


def as_array(value: ArrayLike, what: str) -> F64:
    """``value`` as a float64 array (no copy when it already is one).

    Raises:
        TypeError: ``value`` cannot be read as an array of real numbers.
    """
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must be an array of real numbers, got {value!r}") from error


def unwrap(array: F64) -> Array:
    """A 0-d array as a numpy float64 scalar; any other array unchanged."""
    result: Array = array[()] if array.ndim == 0 else array
    return result


def sum_assets(per_asset: F64) -> Array:
    """Sum asset values over the last axis (a 0-d array is a single asset)."""
    if per_asset.ndim == 0:
        return per_asset[()]
    return unwrap(per_asset.sum(axis=-1))


def check_rate_array(
    value: Any,
    what: str,
    *,
    allow_negative: bool = False,
    below: float | None = None,
    expected: str | None = None,
) -> float | F64:
    """A real number or 1-D array of finite rates (per asset), non-negative by default.

    The cost models' check. The simulators' `sekai.finance._simulation.per_asset`
    reads similar values under another contract: it rejects an empty array,
    returns an array for a scalar, checks any range, and its messages name the
    offending element (``"sigma[1] must be ..."``) where this one quotes the
    whole value (``"rate must be ..., for every asset, got [0.1, -0.1]"``).

    Args:
        value: The rate or rates.
        what: The argument's name in errors.
        allow_negative: Accept negative rates.
        below: A bound every rate must stay under (``None``: none), e.g. 1 for
            a fraction of the value traded: paying all of it or more is no cost
            model but a mistake.
        expected: What a valid rate is, for the messages (default: spelled out
            from ``allow_negative`` and ``below``).

    Returns:
        A Python float for a scalar, else a read-only float64 array.

    Raises:
        TypeError: ``value`` is not a real number or an array of them.
        ValueError: ``value`` has more than one dimension, or holds a NaN, an
            infinity, (unless ``allow_negative``) a negative number or (with
            ``below``) a number at or above ``below``.
    """
    either = ""
    if expected is None:
        expected = "a finite real number" if allow_negative else "a finite real number >= 0"
        if below is not None:
            expected += f" and < {below:g}"
        either = " (or an array of them)"
    if is_real(value):
        number = float(value)
        if (
            not np.isfinite(number)
            or (number < 0 and not allow_negative)
            or (below is not None and number >= below)
        ):
            raise ValueError(f"{what} must be {expected}{either}, got {value!r}")
        return number
    if isinstance(value, (str, bytes)) or np.asarray(value).dtype.kind not in "iuf":
        raise TypeError(f"{what} must be {expected} or a 1-D array of them, got {value!r}")
    array = np.array(value, dtype=np.float64)
    if array.ndim > 1:
        raise ValueError(f"{what} must be a scalar or a 1-D array (one per asset), got {value!r}")
    if (
        not np.isfinite(array).all()
        or (not allow_negative and (array < 0).any())
        or (below is not None and (array >= below).any())
    ):
        raise ValueError(f"{what} must be {expected}, for every asset, got {value!r}")
    if array.ndim == 0:
        return float(array)
    array.flags.writeable = False
    return array
