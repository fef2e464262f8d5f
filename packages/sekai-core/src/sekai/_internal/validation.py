"""Argument checks shared by every sekai distribution (internal: see `sekai._internal`).

One place for the questions every constructor asks ("is this an int >= 1?",
"a finite real number?", "a callable?"), so the rules (bools are not ints,
NaN is never a number we accept, numpy scalars are as good as Python ones)
and the wording of the errors are the same everywhere.

Every ``check_*`` function takes the value and ``what``, the text that names
it in the error, usually ``"Owner: argument"`` (``"ClipReward: min_reward"``).
It returns the value converted to the plain Python type, or raises with a
message of the form ``"{what} must be {expected}, got {value!r}"``: a
``TypeError`` when the value has the wrong type, a ``ValueError`` when it is
out of range. ``expected`` is derived from the bounds unless given. A few
APIs inherited from sekai 0.2 document a ``ValueError`` for any bad value;
they pass ``type_error=ValueError``.

This module imports only the standard library: `sekai.registry` uses it and
stays free of numpy until an environment is made (numpy registers its scalar
types with `numbers`, so they pass these checks all the same).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any, TypeGuard

__all__ = [
    "check_bool",
    "check_callable",
    "check_choice",
    "check_int",
    "check_probability",
    "check_real",
    "check_seed",
    "check_shape",
    "is_int",
    "is_real",
]


def is_int(value: object) -> TypeGuard[numbers.Integral]:
    """Whether ``value`` is an integer (Python or numpy); bools are not integers."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: object) -> TypeGuard[numbers.Real]:
    """Whether ``value`` is a real number (ints and numpy scalars included), bools excluded.

    NaN and infinities are real numbers here; `check_real` decides about them.
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _fail(
    what: str, expected: str, value: object, error: type[Exception] = ValueError
) -> Exception:
    return error(f"{what} must be {expected}, got {value!r}")


def _range_text(
    minimum: float | None, maximum: float | None, min_open: bool, max_open: bool
) -> str:
    if minimum is None and maximum is None:
        return ""
    if maximum is None:
        return f" {'>' if min_open else '>='} {minimum}"
    if minimum is None:
        return f" {'<' if max_open else '<='} {maximum}"
    return f" in {'(' if min_open else '['}{minimum}, {maximum}{')' if max_open else ']'}"


def check_int(
    value: object,
    what: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    expected: str | None = None,
    type_error: type[Exception] = TypeError,
) -> int:
    """Return ``value`` as an int, checking that it lies in ``[minimum, maximum]``.

    Args:
        value: The argument to check; a Python or numpy integer, not a bool.
        what: The argument's name in the error, e.g. ``"ActionRepeat: repeat"``.
        minimum: The smallest value allowed (``None``: no lower bound).
        maximum: The largest value allowed (``None``: no upper bound).
        expected: What the message says was expected; by default derived from
            the bounds (``"an int >= 1"``, ``"an int in [1, 4]"``).
        type_error: The exception raised for a value that is not an int.

    Raises:
        TypeError: ``value`` is not an int (or ``type_error``).
        ValueError: ``value`` is out of range.
    """
    if expected is None:
        expected = "an int" + _range_text(minimum, maximum, False, False)
    if not is_int(value):
        raise _fail(what, expected, value, type_error)
    number = int(value)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise _fail(what, expected, value)
    return number


def check_seed(value: object, what: str = "seed", *, expected: str | None = None) -> int:
    """Return ``value`` as a seed: an int >= 0 (see `check_int`)."""
    return check_int(value, what, minimum=0, expected=expected or "a non-negative int")


def check_real(
    value: object,
    what: str,
    *,
    finite: bool = True,
    minimum: float | None = None,
    maximum: float | None = None,
    min_open: bool = False,
    max_open: bool = False,
    expected: str | None = None,
    type_error: type[Exception] = TypeError,
) -> float:
    """Return ``value`` as a float, checking it is a number in the given range.

    NaN is always rejected. Whether infinities are accepted is ``finite``'s
    choice (a clip bound may be infinite, an epsilon may not).

    Args:
        value: The argument to check; any real number (numpy scalars
            included), not a bool.
        what: The argument's name in the error, e.g. ``"ClipReward: min_reward"``.
        finite: Reject ``inf`` and ``-inf`` too.
        minimum: The lower bound (``None``: none).
        maximum: The upper bound (``None``: none).
        min_open: Exclude ``minimum`` itself (``> minimum`` instead of ``>=``).
        max_open: Exclude ``maximum`` itself.
        expected: What the message says was expected; by default derived from
            the other arguments (``"a finite real number > 0"``).
        type_error: The exception raised for a value that is not a real number.

    Raises:
        TypeError: ``value`` is not a real number (or ``type_error``).
        ValueError: ``value`` is NaN, infinite while ``finite`` is set, or out
            of range.
    """
    if expected is None:
        kind = "a finite real number" if finite else "a real number (not NaN)"
        expected = kind + _range_text(minimum, maximum, min_open, max_open)
    if not is_real(value):
        raise _fail(what, expected, value, type_error)
    number = float(value)
    if math.isnan(number) or (finite and math.isinf(number)):
        raise _fail(what, expected, value)
    if minimum is not None and (number <= minimum if min_open else number < minimum):
        raise _fail(what, expected, value)
    if maximum is not None and (number >= maximum if max_open else number > maximum):
        raise _fail(what, expected, value)
    return number


def check_probability(
    value: object, what: str, *, include_one: bool = True, expected: str | None = None
) -> float:
    """Return ``value`` as a float in ``[0, 1]`` (``[0, 1)`` without ``include_one``)."""
    if expected is None:
        expected = f"a probability in [0, 1{']' if include_one else ')'}"
    return check_real(
        value, what, minimum=0.0, maximum=1.0, max_open=not include_one, expected=expected
    )


def check_bool(value: object, what: str) -> bool:
    """Return ``value`` if it is a bool (not merely truthy), else raise ``TypeError``."""
    if not isinstance(value, bool):
        raise _fail(what, "a bool", value, TypeError)
    return value


def check_callable(value: object, what: str) -> Callable[..., Any]:
    """Return ``value`` if it is callable, else raise ``TypeError``."""
    if not callable(value):
        raise _fail(what, "callable", value, TypeError)
    return value


def check_choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of the strings ``choices``, else raise ``ValueError``."""
    if not isinstance(value, str) or value not in choices:
        quoted = [repr(choice) for choice in choices]
        expected = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
        raise _fail(what, expected, value)
    return value


def check_shape(value: object, what: str = "shape") -> tuple[int, ...]:
    """Return a shape tuple from an int or an iterable of non-negative ints.

    Raises:
        TypeError: ``value`` is neither an int nor an iterable (a str is not one).
        ValueError: ``value`` is a negative int or holds something other than
            non-negative ints.
    """
    if is_int(value):
        return (check_int(value, what, minimum=0),)
    if not isinstance(value, Iterable) or isinstance(value, (str, bytes)):
        raise _fail(what, "an int or a tuple of ints", value, TypeError)
    dims = tuple(value)
    if not all(is_int(dim) and int(dim) >= 0 for dim in dims):
        raise _fail(what, "a tuple of non-negative ints", value)
    return tuple(int(dim) for dim in dims)
