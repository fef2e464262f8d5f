"""sekai._internal.validation: the argument checks every distribution shares."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

from sekai._internal.validation import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_probability,
    check_real,
    check_seed,
    check_shape,
    is_int,
    is_real,
)

NUMPY_INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]
NUMPY_FLOAT_TYPES = [np.float16, np.float32, np.float64]


# -- is_int / is_real ------------------------------------------------------------------------------


@given(st.integers())
def test_python_ints_are_ints_and_reals(value: int) -> None:
    assert is_int(value)
    assert is_real(value)


@pytest.mark.parametrize("dtype", NUMPY_INT_TYPES)
def test_numpy_ints_are_ints(dtype: Any) -> None:
    assert is_int(dtype(3))
    assert is_real(dtype(3))


@pytest.mark.parametrize("value", [True, False, np.bool_(True), np.bool_(False)])
def test_bools_are_neither_ints_nor_reals(value: object) -> None:
    assert not is_int(value)
    assert not is_real(value)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_floats_are_reals_but_not_ints(value: float) -> None:
    assert is_real(value)
    assert not is_int(value)


@pytest.mark.parametrize("dtype", NUMPY_FLOAT_TYPES)
def test_numpy_floats_are_reals(dtype: Any) -> None:
    assert is_real(dtype(1.5))
    assert not is_int(dtype(1.0))


@pytest.mark.parametrize("value", ["3", None, [1], np.array(3), 1 + 0j, object()])
def test_other_values_are_neither(value: object) -> None:
    assert not is_int(value)
    assert not is_real(value)


def test_fractions_are_reals() -> None:
    assert is_real(Fraction(1, 3))
    assert not is_int(Fraction(1, 3))


# -- check_int -------------------------------------------------------------------------------------


@given(st.integers(), st.integers(min_value=-50, max_value=50), st.integers(0, 100))
def test_check_int_accepts_exactly_the_range(value: int, low: int, width: int) -> None:
    high = low + width
    if low <= value <= high:
        assert check_int(value, "x", minimum=low, maximum=high) == value
    else:
        with pytest.raises(ValueError, match=rf"^x must be an int in \[{low}, {high}\], got"):
            check_int(value, "x", minimum=low, maximum=high)


@pytest.mark.parametrize("dtype", NUMPY_INT_TYPES)
def test_check_int_returns_a_python_int(dtype: Any) -> None:
    result = check_int(dtype(7), "x", minimum=1)
    assert result == 7
    assert type(result) is int


@pytest.mark.parametrize("value", [True, np.bool_(False), 1.0, np.float64(2.0), "1", None])
def test_check_int_refuses_non_ints_with_a_type_error(value: object) -> None:
    expected = f"Owner: n must be an int >= 1, got {value!r}"
    with pytest.raises(TypeError, match=f"^{re.escape(expected)}$"):
        check_int(value, "Owner: n", minimum=1)


def test_check_int_messages() -> None:
    with pytest.raises(ValueError, match=r"^n must be an int >= 0, got -1$"):
        check_int(-1, "n", minimum=0)
    with pytest.raises(ValueError, match=r"^n must be an int <= 3, got 4$"):
        check_int(4, "n", maximum=3)
    with pytest.raises(TypeError, match=r"^n must be an int, got 'a'$"):
        check_int("a", "n")
    with pytest.raises(ValueError, match=r"^n must be None or a size, got 0$"):
        check_int(0, "n", minimum=1, expected="None or a size")


def test_check_int_type_error_can_be_a_value_error() -> None:
    with pytest.raises(ValueError, match="must be an int >= 1, got True"):
        check_int(True, "n", minimum=1, type_error=ValueError)


@given(st.integers(min_value=0))
def test_check_seed_accepts_non_negative_ints(seed: int) -> None:
    assert check_seed(seed) == seed


@given(st.integers(max_value=-1))
def test_check_seed_refuses_negative_ints(seed: int) -> None:
    with pytest.raises(ValueError, match=r"^seed must be a non-negative int"):
        check_seed(seed)


def test_check_seed_refuses_bools_and_floats() -> None:
    for bad in (True, 1.0):
        with pytest.raises(TypeError, match=r"^base_seed must be a non-negative int"):
            check_seed(bad, "base_seed")


# -- check_real ------------------------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_check_real_returns_finite_floats_unchanged(value: float) -> None:
    assert check_real(value, "x") == value


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinity_is_refused_when_finite_and_accepted_otherwise(value: float) -> None:
    with pytest.raises(ValueError, match=r"^x must be a finite real number, got"):
        check_real(value, "x")
    assert check_real(value, "x", finite=False) == value


@pytest.mark.parametrize("finite", [True, False])
def test_nan_is_always_refused(finite: bool) -> None:
    with pytest.raises(ValueError, match="got nan"):
        check_real(math.nan, "x", finite=finite)
    with pytest.raises(ValueError, match=r"got (np\.float32\()?nan"):
        check_real(np.float32("nan"), "x", finite=finite)  # repr: np.float32(nan)


@pytest.mark.parametrize("value", [True, np.bool_(True), "1.0", None, 1j, np.array([1.0])])
def test_check_real_refuses_non_numbers(value: object) -> None:
    with pytest.raises(TypeError, match="must be a finite real number"):
        check_real(value, "x")


@pytest.mark.parametrize("dtype", NUMPY_INT_TYPES + NUMPY_FLOAT_TYPES)
def test_check_real_returns_a_python_float(dtype: Any) -> None:
    result = check_real(dtype(2), "x")
    assert result == 2.0
    assert type(result) is float


@given(st.floats(min_value=-10, max_value=10))
def test_open_and_closed_bounds(value: float) -> None:
    closed_ok = 0 <= value <= 1
    open_ok = 0 < value < 1
    if closed_ok:
        assert check_real(value, "x", minimum=0, maximum=1) == value
    else:
        with pytest.raises(ValueError, match=r"in \[0, 1\]"):
            check_real(value, "x", minimum=0, maximum=1)
    if open_ok:
        assert check_real(value, "x", minimum=0, maximum=1, min_open=True, max_open=True) == value
    else:
        with pytest.raises(ValueError, match=r"in \(0, 1\)"):
            check_real(value, "x", minimum=0, maximum=1, min_open=True, max_open=True)


def test_check_real_messages() -> None:
    with pytest.raises(ValueError, match=r"^C: eps must be a finite real number >= 0, got -1\.0$"):
        check_real(-1.0, "C: eps", minimum=0)
    with pytest.raises(ValueError, match=r"^h must be a finite real number > 0, got 0$"):
        check_real(0, "h", minimum=0, min_open=True)
    with pytest.raises(ValueError, match=r"^c must be a real number \(not NaN\) <= 2, got 3$"):
        check_real(3, "c", finite=False, maximum=2)
    with pytest.raises(ValueError, match=r"^fps must be a rate, got '3'$"):
        check_real("3", "fps", expected="a rate", type_error=ValueError)


def test_check_probability() -> None:
    assert check_probability(1, "p") == 1.0
    assert check_probability(np.float32(0.25), "p") == 0.25
    with pytest.raises(ValueError, match=r"^p must be a probability in \[0, 1\), got 1$"):
        check_probability(1, "p", include_one=False)
    for bad in (-0.1, 1.1, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"probability in \[0, 1\]"):
            check_probability(bad, "p")
    with pytest.raises(TypeError, match="probability"):
        check_probability(True, "p")


# -- the others ------------------------------------------------------------------------------------


def test_check_bool() -> None:
    assert check_bool(False, "flag") is False
    for bad in (0, 1, np.bool_(True), "yes", None):
        with pytest.raises(TypeError, match=rf"^flag must be a bool, got {bad!r}$"):
            check_bool(bad, "flag")


def test_check_callable() -> None:
    assert check_callable(len, "f") is len
    with pytest.raises(TypeError, match=r"^W: func must be callable, got 3$"):
        check_callable(3, "W: func")


def test_check_choice() -> None:
    assert check_choice("b", "m", ("a", "b")) == "b"
    with pytest.raises(ValueError, match=r"^m must be 'a' or 'b', got 'c'$"):
        check_choice("c", "m", ("a", "b"))
    with pytest.raises(ValueError, match=r"^m must be 'a', 'b' or 'c', got 1$"):
        check_choice(1, "m", ("a", "b", "c"))


@given(st.lists(st.integers(0, 10), max_size=4))
def test_check_shape_accepts_iterables_of_non_negative_ints(dims: list[int]) -> None:
    assert check_shape(dims) == tuple(dims)
    assert check_shape(tuple(np.int64(d) for d in dims)) == tuple(dims)


def test_check_shape_refusals() -> None:
    assert check_shape(np.int32(3)) == (3,)
    with pytest.raises(ValueError, match=r"^shape must be an int >= 0, got -1$"):
        check_shape(-1)
    with pytest.raises(TypeError, match="must be an int or a tuple of ints"):
        check_shape("12")
    with pytest.raises(TypeError, match="must be an int or a tuple of ints"):
        check_shape(2.0)
    for bad in ((2, -1), (2.0,), (True,)):
        with pytest.raises(ValueError, match="must be a tuple of non-negative ints"):
            check_shape(bad, "Box: shape")


def test_importing_it_loads_neither_numpy_nor_sekai_core() -> None:
    # sekai.registry depends on it and must stay free of numpy until an env is made.
    code = (
        "import sys, sekai._internal.validation; "
        "print(sorted(m for m in ('numpy', 'sekai.core') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert output.strip() == "[]"
