"""Squares as numpy scalars compute them, for whole arrays (private).

Gymnasium's Pendulum and Acrobot square numpy scalars with ``x ** 2``, which
calls the C library's ``pow`` (``powf`` for float32). Neither is always the
correctly rounded ``x * x``: about one float64 square in 1200 differs by an
ulp (one float32 square in 1400), and numpy's array power takes other paths
(``x * x`` for ``** 2``, SIMD code for general exponents). ``np.float_power``
calls ``pow`` per element, which is exact but costs 11-14 ns an element, as
much as twenty passes of array arithmetic. So these functions take
``x * x``, which is ``pow``'s result unless the exact square lies close to a
rounding tie (halfway between two floats), and call the library only for the
squares that do.

How close to a tie ``pow`` may round the other way follows from its
accuracy. glibc documents 0.54 ulp as ``pow``'s worst error, so squares
farther than 0.05 ulp from a tie keep ``x * x`` (about 10% of float64 squares
go to ``pow``; on this code's inputs, the squares ``pow`` rounds the other
way all lay within 0.0081 ulp of a tie, in 1.2e8 draws). Its ``powf`` rounds
the other way only within 2**-9.2 ulp of a tie (every float32 in ``[2**-60,
2**60)`` checked), and the window there is 2**-8 ulp: about 0.8% of the
float32 squares.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["pow_squares", "powf_squares", "square"]

# float64: x = high + low, high keeping the top 26 bits of x's 53, so high * high is exact.
_HIGH = np.int64(~((1 << 27) - 1))
_MARGIN = 0.05  # ulp: pow rounds like x * x for squares farther than this from a tie
_WIDEN = 0.5 / (0.5 - _MARGIN)  # scales an error of 0.5 - _MARGIN ulp to half an ulp
# Squares below this (zero included) go to pow: near float64's subnormals, the error test
# would need more care than they deserve.
_SMALL = 2.0**-960

# float32 keeps the top 23 of float64's 52 fraction bits; the 29 below decide the rounding.
_DROPPED = (1 << 29) - 1
_TIE = 1 << 28  # the dropped bits of a value halfway between two float32s
_NEAR = 1 << 21  # 2**-8 float32 ulp, in units of the dropped bits
_SMALLEST_NORMAL = float(np.finfo(np.float32).tiny)
_SUBNORMAL_BITS = int(np.float64(_SMALLEST_NORMAL).view(np.int64)) - 1  # its float64 bits, less one


def pow_squares(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x ** 2`` element by element as ``np.float64(v) ** 2`` gives it (C ``pow``).

    ``x * x`` is the correctly rounded square; ``pow`` (accurate to 0.54 ulp)
    can only round the other way when the exact square is within 0.05 ulp of
    a tie. The exact error ``x² - x * x`` comes from Dekker's product
    (``x = high + low`` with ``high * high`` exact); scaled by ``0.5 / 0.45``
    and added to ``x * x``, it changes that square exactly when it exceeds
    0.45 ulp of it (on the lower side of a power of two, 0.45 of the smaller
    ulp there), so a comparison finds the squares to recompute with ``pow``.
    Overflows, NaNs, infinities and squares below 2**-960 (zero included) go
    to ``pow`` as well.
    """
    squares: NDArray[np.float64] = np.multiply(x, x)
    high = (x.view(np.int64) & _HIGH).view(np.float64)
    error = high * high
    error -= squares  # exact: both are within an ulp of x²
    low = x - high  # exact
    high += x
    low *= high  # low * (high + x) = x² - high², but for an error far below an ulp of x²
    error += low
    error *= _WIDEN
    error += squares
    near = error != squares
    if not squares.min() >= _SMALL:  # a small square, or a NaN
        near |= ~(squares >= _SMALL)
    if near.any():
        # Flat indices, then take and put: cheaper than masks at this density.
        indices = np.flatnonzero(near)
        squares.put(indices, np.float_power(x.take(indices), 2.0))  # pow, no SIMD path
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
    float32 is one conversion away; only squares within 2**-8 ulp of a
    rounding tie (about 0.8% of them), and float32-subnormal ones, are left
    to the scalar ``powf``.
    """
    exact = u.astype(np.float64)
    exact *= exact
    squares = exact.astype(np.float32)
    bits = exact.view(np.int64)
    # Near a tie: the dropped bits within _NEAR of _TIE, one unsigned comparison.
    near = ((bits & _DROPPED) - (_TIE - _NEAR)).view(np.uint64) < 2 * _NEAR
    if exact.min() < _SMALLEST_NORMAL:  # float32 subnormals: 0 < exact < the smallest normal
        near |= (bits - 1).view(np.uint64) < _SUBNORMAL_BITS  # (bits - 1 wraps for 0)
    if near.any():
        indices = near.nonzero()[0]
        squares[indices] = [value**2 for value in u[indices]]  # numpy float32 scalars
    return squares
