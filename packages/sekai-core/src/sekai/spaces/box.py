"""A (possibly unbounded) box in R^n or Z^n: `Box`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, SupportsFloat, SupportsIndex

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai._internal.validation import check_shape
from sekai.spaces._arrays import as_bool_mask, check_dtype_numeric, readonly
from sekai.spaces._jsonbounds import decode_array, encode_array
from sekai.spaces.space import Space, check_type_name, skipped_init
from sekai.utils.seeding import SeedType

__all__ = ["BoundedFlag", "Box", "SeedType", "float_dtype"]

BoundType = SupportsFloat | NDArray[Any] | Sequence[Any]
"""What ``low`` and ``high`` accept: a scalar, an array or nested sequences."""


def float_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    """The floating dtype values of ``dtype`` become when they are transformed.

    A floating dtype is kept; any other (integers, bools) gives ``float32``,
    e.g. ``uint8`` pixels rescaled into ``[0, 1]``.
    """
    resolved = np.dtype(dtype)
    return resolved if resolved.kind == "f" else np.dtype(np.float32)


Manner = Literal["both", "below", "above"]


class BoundedFlag(int):
    """The value of `Box.is_bounded`: a truth value, a pair, and a method.

    As a truth value, it is true when every component of the box is bounded
    on both sides: ``if box.is_bounded: ...``. As a pair (sekai 0.2's
    property), it unpacks, indexes and compares as ``(below, above)``:
    ``below, above = box.is_bounded``, ``box.is_bounded[0]``,
    ``box.is_bounded == (True, False)``. Called, it answers for one side:
    ``box.is_bounded("below")``, ``box.is_bounded("above")`` or
    ``box.is_bounded("both")`` (Gymnasium's method). It compares equal to
    ``True`` / ``False`` and prints as them, but is not the ``True`` singleton
    (``box.is_bounded is True`` is false: use ``bool(box.is_bounded)``).

    Examples:
        >>> below, above = Box(0.0, np.inf, (2,)).is_bounded
        >>> below, above, bool(Box(0.0, np.inf, (2,)).is_bounded)
        (True, False, False)
    """

    _answers: tuple[bool, bool]

    def __new__(cls, below: bool, above: bool) -> BoundedFlag:
        """Build the flag from the answers for each side."""
        flag = super().__new__(cls, below and above)
        flag._answers = (below, above)
        return flag

    def __call__(self, manner: Manner = "both") -> bool:
        """Whether every component is bounded ``"below"``, ``"above"`` or on ``"both"`` sides.

        Raises:
            ValueError: ``manner`` is not one of the three values.
        """
        below, above = self._answers
        if manner == "both":
            return below and above
        if manner == "below":
            return below
        if manner == "above":
            return above
        raise ValueError(f"manner must be 'both', 'below' or 'above', got {manner!r}")

    def __iter__(self) -> Iterator[bool]:
        """``below`` then ``above``: the pair sekai 0.2's property was."""
        return iter(self._answers)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: SupportsIndex) -> bool:
        """``self[0]`` is ``below``, ``self[1]`` is ``above`` (as for 0.2's pair)."""
        return self._answers[index]

    def __eq__(self, other: object) -> bool:
        # Two flags compare as 0.2's pairs; a tuple too; a bool or int as the truth value.
        # (Hashing follows the truth value, so a flag finds its bool in a dict, not its tuple.)
        if isinstance(other, BoundedFlag):
            return self._answers == other._answers
        if isinstance(other, tuple):
            return self._answers == other
        return int(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = int.__hash__

    def __repr__(self) -> str:
        return repr(bool(self))

    __str__ = __repr__


class Box(Space[NDArray[Any]]):
    """A Cartesian product of intervals: arrays of one shape and one numeric dtype.

    Each component ``i`` lies in ``[low[i], high[i]]``. For floating-point
    dtypes a bound may be infinite, giving half-bounded or unbounded components;
    integer boxes are always bounded.

    Sampling draws each component independently: uniformly when it is bounded on
    both sides, ``low + Exponential(1)`` when bounded below only,
    ``high - Exponential(1)`` when bounded above only, ``Normal(0, 1)`` when
    unbounded. Integer boxes sample uniformly among the integers of the interval.

    The zero of a box is ``0`` clipped into the bounds, component by component.

    Args:
        low: Lower bounds: a scalar broadcast to ``shape``, or an array.
        high: Upper bounds: a scalar broadcast to ``shape``, or an array.
        shape: Shape of the samples. When ``None`` it is inferred from the
            array bounds (broadcast together), or ``(1,)`` if both are scalars.
        dtype: A floating-point or integer dtype (``float32`` by default).
        seed: Optional seed (see `Space.seed`).

    Raises:
        TypeError: ``dtype`` is not a numeric (integer or floating-point) dtype.
        ValueError: The bounds do not broadcast to ``shape``, some ``low`` exceeds
            ``high``, a bound is NaN, an integer box has an infinite or
            non-integral bound, or a bound does not fit in ``dtype``.

    Examples:
        >>> box = Box(0.0, 1.0, shape=(3,), seed=0)
        >>> box
        Box(0.0, 1.0, (3,), float32)
        >>> box.sample() in box
        True
    """

    def __init__(
        self,
        low: BoundType,
        high: BoundType,
        shape: Sequence[int] | int | None = None,
        dtype: DTypeLike = np.float32,
        seed: SeedType = None,
    ) -> None:
        resolved = check_dtype_numeric(dtype, "Box")
        low_arr = np.asarray(low)
        high_arr = np.asarray(high)
        for name, bound in (("low", low_arr), ("high", high_arr)):
            if bound.dtype.kind not in "biuf":
                raise TypeError(f"Box: {name} must be numeric, got {bound!r}")
        if shape is not None:
            final_shape = check_shape(shape)
        elif low_arr.ndim == 0 and high_arr.ndim == 0:
            final_shape = (1,)
        else:
            try:
                final_shape = np.broadcast_shapes(low_arr.shape, high_arr.shape)
            except ValueError as error:
                raise ValueError(
                    f"Box: low with shape {low_arr.shape} and high with shape {high_arr.shape} "
                    "do not broadcast together"
                ) from error
        low_full = self._make_bound("low", low_arr, final_shape, resolved)
        high_full = self._make_bound("high", high_arr, final_shape, resolved)
        bad = low_full > high_full
        if bool(np.any(bad)):
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"Box: low must be <= high everywhere, got low={low_full[index].item()!r} > "
                f"high={high_full[index].item()!r} at index {index}"
            )
        self.low: NDArray[Any] = readonly(low_full)
        self.high: NDArray[Any] = readonly(high_full)
        self._precompute(final_shape, resolved)
        super().__init__(final_shape, resolved, seed)

    @staticmethod
    def _make_bound(
        name: str, bound: NDArray[Any], shape: tuple[int, ...], dtype: np.dtype[Any]
    ) -> NDArray[Any]:
        try:
            full = np.broadcast_to(bound, shape)
        except ValueError as error:
            raise ValueError(
                f"Box: {name} with shape {bound.shape} does not broadcast to shape {shape}"
            ) from error
        if full.dtype.kind == "f" and bool(np.any(np.isnan(full))):
            raise ValueError(f"Box: {name} must not contain NaN, got {bound!r}")
        if dtype.kind in "iu":
            if full.dtype.kind == "f":
                if not bool(np.all(np.isfinite(full))):
                    raise ValueError(
                        f"Box: an integer box ({dtype}) cannot have infinite bounds, got "
                        f"{name}={bound!r}"
                    )
                if not bool(np.all(full == np.round(full))):
                    raise ValueError(
                        f"Box: an integer box ({dtype}) needs integral bounds, got {name}={bound!r}"
                    )
            info = np.iinfo(dtype)
            if full.size and (full.min() < info.min or full.max() > info.max):
                raise ValueError(
                    f"Box: {name}={bound!r} does not fit in dtype {dtype} "
                    f"([{info.min}, {info.max}])"
                )
            return np.array(full, dtype=dtype, copy=True)
        with np.errstate(over="ignore"):
            cast = np.array(full, dtype=dtype, copy=True)
        if bool(np.any(np.isinf(cast) & np.isfinite(full))):
            raise ValueError(f"Box: {name}={bound!r} overflows dtype {dtype}")
        return cast

    def _precompute(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
        self._is_float = dtype.kind == "f"
        self._allowed_kinds = "biuf" if self._is_float else "biu"
        below = np.isfinite(self.low) if self._is_float else np.ones(shape, np.bool_)
        above = np.isfinite(self.high) if self._is_float else np.ones(shape, np.bool_)
        self._bounded_below: NDArray[np.bool_] = readonly(below)
        self._bounded_above: NDArray[np.bool_] = readonly(above)
        self._all_bounded = bool(np.all(below & above))
        self._zero: NDArray[Any] = readonly(
            np.clip(np.zeros(shape, dtype), self.low, self.high).astype(dtype)
        )
        # Fast sampling paths, decided once: scalar bounds, then array bounds whose width
        # fits in float64. Casting float64 draws to a narrower dtype never leaves [low, high]
        # (both bounds are representable in it); float64 results get clipped to ``high``.
        self._uniform_bounds: tuple[Any, Any] | None = None
        self._range64: NDArray[np.float64] | None = None
        self._clip_after_cast = dtype.itemsize >= 8
        if (
            self.low.size
            and bool(np.all(self.low == self.low.flat[0]))
            and bool(np.all(self.high == self.high.flat[0]))
        ):
            low0, high0 = self.low.flat[0].item(), self.high.flat[0].item()
            if self._is_float and self._all_bounded and np.isfinite(float(high0) - float(low0)):
                # ``+ 0.0`` turns -0.0 into 0.0: numpy's uniform() rejects
                # Box(0.0, -0.0), whose high - low is -0.0.
                self._uniform_bounds = (float(low0) + 0.0, float(high0) + 0.0)
            elif not self._is_float:
                self._uniform_bounds = (low0, high0)
        if self._is_float:
            self._low64 = np.where(below, self.low, 0.0).astype(np.float64)
            self._high64 = np.where(above, self.high, 0.0).astype(np.float64)
            if self._all_bounded and self._uniform_bounds is None:
                with np.errstate(over="ignore"):
                    width = self._high64 - self._low64
                if bool(np.all(np.isfinite(width))):
                    self._range64 = width
            kinds = {
                "both": below & above,
                "below": below & ~above,
                "above": ~below & above,
                "none": ~below & ~above,
            }
            self._kinds = {key: where for key, where in kinds.items() if bool(np.any(where))}

    # -- properties -------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of every sample."""
        shape = self._shape
        if shape is None:
            raise skipped_init(self, "shape", "Box")
        return shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of every sample."""
        dtype = self._dtype
        if dtype is None:
            raise skipped_init(self, "dtype", "Box")
        return dtype

    @property
    def is_bounded(self) -> BoundedFlag:
        """Whether every component is bounded on both sides (a `BoundedFlag`).

        ``box.is_bounded`` is true when ``low`` and ``high`` are finite
        everywhere; ``box.is_bounded("below")`` / ``box.is_bounded("above")``
        check one side (integer boxes are always bounded), and
        ``below, above = box.is_bounded`` unpacks both answers (sekai 0.2's
        pair of bools).
        """
        return BoundedFlag(bool(np.all(self._bounded_below)), bool(np.all(self._bounded_above)))

    # -- sampling ---------------------------------------------------------------------------------

    def sample(self, mask: NDArray[np.bool_] | None = None) -> NDArray[Any]:
        """Draw a random array (see the class docstring for the distributions).

        Args:
            mask: Optional boolean array of the box's shape: components where it
                is ``False`` take the zero of the box instead of a random value.
        """
        if self._is_float:
            result = self._sample_float()
        else:
            if self._uniform_bounds is not None:
                low, high = self._uniform_bounds
                drawn = self.rng.integers(low, high, self.shape, dtype=self.dtype, endpoint=True)
            else:
                drawn = self.rng.integers(self.low, self.high, endpoint=True, dtype=self.dtype)
            result = np.asarray(drawn, dtype=self.dtype).reshape(self.shape)
        if mask is not None:
            result = np.where(as_bool_mask(mask, self.shape, self), result, self._zero)
        return result

    def _sample_float(self) -> NDArray[Any]:
        rng = self.rng
        result: NDArray[Any]
        if self._uniform_bounds is not None:
            low, high = self._uniform_bounds
            result = np.asarray(rng.uniform(low, high, self.shape), dtype=self.dtype)
            if self._clip_after_cast:
                np.minimum(result, self.high, out=result)
            return result
        if self._range64 is not None:
            values = self._low64 + self._range64 * rng.random(self.shape)
            result = np.asarray(values, dtype=self.dtype)
            if self._clip_after_cast:
                np.minimum(result, self.high, out=result)
            return result
        if self._all_bounded:
            u = rng.random(self.shape)
            # A convex combination, so that ranges wider than the float64 range do not overflow.
            values = self._low64 * (1.0 - u) + self._high64 * u
        else:
            values = np.empty(self.shape, np.float64)
            for kind, where in self._kinds.items():
                n = int(np.count_nonzero(where))
                if kind == "both":
                    u = rng.random(n)
                    values[where] = self._low64[where] * (1.0 - u) + self._high64[where] * u
                elif kind == "below":
                    values[where] = self._low64[where] + rng.exponential(size=n)
                elif kind == "above":
                    values[where] = self._high64[where] - rng.exponential(size=n)
                else:
                    values[where] = rng.normal(size=n)
        result = np.array(values, dtype=self.dtype)
        np.clip(result, self.low, self.high, out=result)
        return result

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` has the box's shape, a compatible dtype and lies in the bounds.

        Integer and boolean arrays are accepted by floating-point boxes;
        floating-point arrays are not accepted by integer boxes. Array-likes
        (lists, Python numbers) are converted with `numpy.asarray` first.
        """
        if not isinstance(x, np.ndarray):
            if isinstance(x, (str, bytes, Mapping)):
                return False
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):
                return False
        return bool(
            x.shape == self._shape
            and x.dtype.kind in self._allowed_kinds
            and (x >= self.low).all()
            and (x <= self.high).all()
        )

    def zero(self) -> NDArray[Any]:
        """Return ``0`` clipped into the bounds (a fresh array)."""
        zero: NDArray[Any] = self._zero.copy()
        return zero

    # -- conversion -------------------------------------------------------------------------------

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert samples to nested lists of numbers."""
        return [np.asarray(sample).tolist() for sample in samples]

    def _samples_from_jsonable(self, data: Sequence[Any]) -> list[NDArray[Any]]:
        """Convert nested lists back to arrays of the box's dtype."""
        return [np.asarray(item, dtype=self.dtype).reshape(self.shape) for item in data]

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the box: ``{"type": "Box", "low", "high", "shape", "dtype"}``."""
        return {
            "type": "Box",
            "low": encode_array(self.low),
            "high": encode_array(self.high),
            "shape": list(self.shape),
            "dtype": self.dtype.str if self.dtype.byteorder not in "=|" else self.dtype.name,
        }

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Box:
        """Build a box from the output of `to_json_dict`."""
        check_type_name(data, "Box", cls)
        dtype = np.dtype(data["dtype"])
        work = np.float64 if dtype.kind == "f" else dtype
        return cls(
            decode_array(data["low"], np.dtype(work)),
            decode_array(data["high"], np.dtype(work)),
            shape=tuple(data["shape"]),
            dtype=dtype,
        )

    # -- dunder -----------------------------------------------------------------------------------

    def __repr__(self) -> str:
        def short(bound: NDArray[Any]) -> str:
            if bound.size and bool(np.all(bound == bound.flat[0])):
                return repr(bound.flat[0].item())
            return np.array2string(bound, separator=", ")

        return f"Box({short(self.low)}, {short(self.high)}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and type(other) is type(self)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and bool(np.array_equal(self.low, other.low))
            and bool(np.array_equal(self.high, other.high))
        )

    def __hash__(self) -> int:
        # ``+ 0`` turns -0.0 into 0.0, which == treats as equal.
        low, high = (self.low + 0).tobytes(), (self.high + 0).tobytes()
        return hash((type(self), self.shape, self.dtype.str, low, high))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("low", "high", "_zero", "_bounded_below", "_bounded_above"):
            value = self.__dict__.get(name)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
