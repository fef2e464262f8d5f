"""Squares as numpy scalars compute them, for whole arrays (private).

Gymnasium's Pendulum and Acrobot square numpy scalars with ``x ** 2``, which
calls the C library's ``pow`` (``powf`` for float32). Neither is always the
correctly rounded ``x * x`` (about one square in a thousand differs by an
ulp), and numpy's array power takes other paths (``x * x`` for ``** 2``, SIMD
code for general exponents), so the native vector envs compute their squares
here to stay bit-identical to the single envs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["pow_squares", "powf_squares", "square"]

# float32 keeps the top 23 of float64's 52 fraction bits; the 29 below decide the rounding.
_DROPPED = (1 << 29) - 1
_TIE = 1 << 28  # the dropped bits of a value halfway between two float32s
# powf is accurate to far better than 2**-6 of a float32 ulp (its worst error near a
# tie measured about 2**-9 ulp): outside that distance from a tie, its result is the
# correctly rounded one; within it, the scalar powf decides.
_NEAR = 1 << 23
_SMALLEST_NORMAL = float(np.finfo(np.float32).tiny)


def pow_squares(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x ** 2`` element by element as ``np.float64(v) ** 2`` gives it (C ``pow``)."""
    squares: NDArray[np.float64] = np.float_power(x, 2.0)  # pow per element, no SIMD path
    return squares


def square(value: Any) -> Any:
    """``value ** 2`` as Python computes it for a number (C ``pow``), also for a parameter array.

    A parameter set per sub-env (``set_attr(name, [...])``) is an array; the
    single envs square their Python float with ``pow``, which ``x * x`` (what
    numpy's ``array ** 2`` does) does not always equal.
    """
    if isinstance(value, np.ndarray):
        return pow_squares(value.astype(np.float64))
    return value**2


def powf_squares(u: NDArray[np.float32]) -> NDArray[np.float32]:
    """``u ** 2`` element by element as ``np.float32(v) ** 2`` gives it (C ``powf``).

    The square of a float32 is exact in float64, so its correctly rounded
    float32 is one conversion away; only squares within a small distance of a
    rounding tie (a few percent of them) are left to the scalar ``powf``.
    """
    exact = u.astype(np.float64)
    exact *= exact
    squares = exact.astype(np.float32)
    near = np.abs((exact.view(np.int64) & _DROPPED) - _TIE) < _NEAR
    near |= (exact < _SMALLEST_NORMAL) & (exact != 0.0)  # float32 subnormals
    if np.count_nonzero(near):
        indices = near.nonzero()[0]
        squares[indices] = [value**2 for value in u[indices]]  # numpy float32 scalars
    return squares
