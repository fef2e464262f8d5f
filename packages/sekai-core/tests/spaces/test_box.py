"""Box: construction, errors, sampling distributions, membership, repr."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box


def test_scalar_bounds_broadcast_to_shape() -> None:
    box = Box(-1.0, 2.0, (2, 3))
    assert box.shape == (2, 3)
    assert box.dtype == np.float32
    assert box.low.shape == box.high.shape == (2, 3)
    assert np.all(box.low == -1.0) and np.all(box.high == 2.0)


def test_shape_is_inferred_from_array_bounds() -> None:
    box = Box(np.zeros((2, 1)), np.ones(3))
    assert box.shape == (2, 3)
    assert Box(0.0, 1.0).shape == (1,)


def test_bounds_are_copied_and_read_only() -> None:
    low = np.zeros(3)
    box = Box(low, 1.0)
    low[0] = 5.0
    assert box.low[0] == 0.0
    with pytest.raises(ValueError, match="read-only"):
        box.low[0] = 1.0


@pytest.mark.parametrize(
    ("low", "high", "shape", "match"),
    [
        (np.zeros(2), np.ones(3), None, "do not broadcast together"),
        (np.zeros(2), 1.0, (3,), r"low with shape \(2,\) does not broadcast to shape \(3,\)"),
        (0.0, np.ones((2, 2)), (3,), "high with shape"),
        (1.0, 0.0, (2,), r"low must be <= high.*low=1\.0 > high=0\.0 at index \(0,\)"),
        (np.array([0.0, 2.0]), np.array([1.0, 1.0]), None, r"at index \(1,\)"),
        (np.nan, 1.0, (1,), "NaN"),
        (0.0, 1.0, (-1,), "non-negative"),
    ],
)
def test_invalid_bounds_and_shapes(low: object, high: object, shape: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Box(low, high, shape)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64, object, np.str_, "datetime64[s]"])
def test_non_numeric_dtypes_are_rejected(dtype: object) -> None:
    with pytest.raises(TypeError, match="dtype must be"):
        Box(0, 1, (2,), dtype=dtype)  # type: ignore[arg-type]


def test_non_numeric_bounds_are_rejected() -> None:
    with pytest.raises(TypeError, match="low must be numeric"):
        Box("a", 1.0, (1,))  # type: ignore[arg-type]


def test_integer_boxes_reject_infinite_or_fractional_or_overflowing_bounds() -> None:
    with pytest.raises(ValueError, match="cannot have infinite bounds"):
        Box(0, np.inf, (2,), dtype=np.int64)
    with pytest.raises(ValueError, match="integral bounds"):
        Box(0.5, 3, (2,), dtype=np.int64)
    with pytest.raises(ValueError, match="does not fit in dtype uint8"):
        Box(0, 300, (2,), dtype=np.uint8)
    with pytest.raises(ValueError, match="overflows dtype float16"):
        Box(0.0, 1e10, (1,), dtype=np.float16)


def test_is_bounded() -> None:
    box = Box(np.array([0.0, -np.inf]), np.array([np.inf, 1.0]))
    assert not box.is_bounded()
    assert not box.is_bounded("below")
    assert not box.is_bounded("above")
    assert Box(0.0, np.inf, (2,)).is_bounded("below")
    assert not Box(0.0, np.inf, (2,)).is_bounded("above")
    assert Box(0, 3, (2,), dtype=np.int8).is_bounded()
    with pytest.raises(ValueError, match="manner must be"):
        box.is_bounded("sideways")  # type: ignore[arg-type]


def test_sampling_distributions_by_boundedness() -> None:
    box = Box(np.array([0.0, 5.0, -np.inf, -np.inf]), np.array([1.0, np.inf, -5.0, np.inf]), seed=0)
    samples = np.stack([box.sample() for _ in range(2000)])
    assert samples.dtype == np.float32
    assert np.all((samples[:, 0] >= 0) & (samples[:, 0] <= 1))
    assert abs(samples[:, 0].mean() - 0.5) < 0.05
    assert np.all(samples[:, 1] >= 5.0)
    assert abs(samples[:, 1].mean() - 6.0) < 0.15  # 5 + Exponential(1)
    assert np.all(samples[:, 2] <= -5.0)
    assert abs(samples[:, 2].mean() + 6.0) < 0.15
    assert abs(samples[:, 3].mean()) < 0.15 and 0.8 < samples[:, 3].std() < 1.2


def test_huge_finite_range_does_not_overflow() -> None:
    big = np.finfo(np.float64).max
    box = Box(-big, big, (100,), dtype=np.float64, seed=0)
    sample = box.sample()
    assert np.all(np.isfinite(sample)) and sample in box


def test_integer_box_samples_every_value_including_high() -> None:
    box = Box(-1, 1, (500,), dtype=np.int8, seed=0)
    sample = box.sample()
    assert sample.dtype == np.int8
    assert set(sample.tolist()) == {-1, 0, 1}


def test_degenerate_box_samples_its_single_point() -> None:
    box = Box(0.3, 0.3, (4,), seed=0)
    assert np.all(box.sample() == np.float32(0.3))


def test_zero_is_zero_clipped_into_bounds() -> None:
    box = Box(np.array([1.0, -3.0, -2.0]), np.array([2.0, -1.0, 2.0]))
    assert box.zero().tolist() == [1.0, -1.0, 0.0]
    zero = box.zero()
    zero[0] = 9.0
    assert box.zero()[0] == 1.0


def test_contains_checks_shape_dtype_kind_and_bounds() -> None:
    box = Box(0.0, 1.0, (2,))
    assert np.array([0.0, 1.0], dtype=np.float32) in box
    assert np.array([0.5, 0.5]) in box  # float64 into float32: same kind
    assert np.array([0, 1]) in box  # integers into a float box
    assert [0.5, 0.5] in box
    assert np.array([0.5, 1.5]) not in box
    assert np.array([0.5]) not in box
    assert np.array([[0.5, 0.5]]) not in box
    assert np.array([np.nan, 0.5]) not in box
    assert np.array(["a", "b"]) not in box
    assert "ab" not in box
    assert {"a": 1} not in box
    assert None not in box
    int_box = Box(0, 5, (2,), dtype=np.int64)
    assert np.array([1, 2], dtype=np.uint8) in int_box
    assert np.array([1.0, 2.0]) not in int_box


def test_repr() -> None:
    assert repr(Box(0.0, 1.0, (3,))) == "Box(0.0, 1.0, (3,), float32)"
    assert repr(Box(-2, 3, (2,), dtype=np.int64)) == "Box(-2, 3, (2,), int64)"
    assert repr(Box(np.array([0.0, 1.0]), 2.0)) == "Box([0., 1.], 2.0, (2,), float32)"


def test_equality() -> None:
    assert Box(0.0, 1.0, (2,)) == Box(np.zeros(2), np.ones(2))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (3,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 2.0, (2,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (2,), dtype=np.float64)
    assert Box(-np.inf, np.inf, (2,)) == Box(-np.inf, np.inf, (2,))


@pytest.mark.parametrize(("low", "high"), [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0)])
def test_degenerate_box_with_signed_zero_bounds_samples(low: float, high: float) -> None:
    # low == high compares equal for 0.0 and -0.0, but high - low can be -0.0.
    space = Box(low, high, shape=(3,))
    sample = space.sample()
    assert sample in space
    assert np.all(sample == 0.0)


@pytest.mark.parametrize("attribute", ["shape", "dtype"])
def test_a_subclass_skipping_init_says_so(attribute: str) -> None:
    class Skipping(Box):
        def __init__(self) -> None:
            pass

    with pytest.raises(
        RuntimeError, match=rf"^Skipping has no {attribute}: its __init__ must call Box.__init__"
    ):
        getattr(Skipping(), attribute)
