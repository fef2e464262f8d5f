"""Flattening samples of any fixed-shape space into 1-D ``float32`` arrays.

Each function dispatches on the type of the space
(`functools.singledispatch`); [`register_space_type`][sekai.spaces.register_space_type]
adds implementations for new space types.

Encodings: a Box or MultiBinary is raveled; a Discrete is one-hot; a
MultiDiscrete is the concatenation of one one-hot per entry; a Dict (in key
order, so also a MaskedBox) or a Tuple is the concatenation of its parts. The
round trip ``unflatten(space, flatten(space, x))`` is exact for ``float32`` and
for integers up to 2**24; other floating dtypes are rounded to ``float32``.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space, not_fixed_shape, unsupported
from sekai.spaces.tuple import Tuple

__all__ = ["flatdim", "flatten", "flatten_space", "unflatten"]

_F32 = np.float32


# -- flatdim ---------------------------------------------------------------------------------------


@singledispatch
def flatdim(space: Space[Any]) -> int:
    """Return the length of the 1-D array that `flatten` makes from a sample of ``space``.

    Raises:
        TypeError: The space is not flattenable (e.g. ``Sequence``) or its type
            has no registered implementation.
    """
    raise unsupported("flatdim", space)


@flatdim.register(Box)
@flatdim.register(MultiBinary)
def _flatdim_array(space: Box | MultiBinary) -> int:
    return int(np.prod(space.shape, dtype=np.int64))


@flatdim.register(Discrete)
def _flatdim_discrete(space: Discrete) -> int:
    return space.n


@flatdim.register(MultiDiscrete)
def _flatdim_multi_discrete(space: MultiDiscrete) -> int:
    return int(np.sum(space.nvec, dtype=np.int64))


@flatdim.register(Dict)
def _flatdim_dict(space: Dict) -> int:
    return sum(flatdim(child) for child in space.spaces.values())


@flatdim.register(Tuple)
def _flatdim_tuple(space: Tuple) -> int:
    return sum(flatdim(child) for child in space.spaces)


@flatdim.register(Sequence)
def _flatdim_sequence(space: Sequence) -> int:
    raise not_fixed_shape("flatdim", space)


# -- flatten ---------------------------------------------------------------------------------------


@singledispatch
def flatten(space: Space[Any], x: Any) -> NDArray[np.float32]:
    """Turn a sample of ``space`` into a 1-D ``float32`` array of length `flatdim`.

    Raises:
        TypeError: The space is not flattenable or its type has no registered
            implementation.
    """
    raise unsupported("flatten", space)


@flatten.register(Box)
@flatten.register(MultiBinary)
def _flatten_array(space: Box | MultiBinary, x: Any) -> NDArray[np.float32]:
    flat = np.asarray(x, dtype=_F32).reshape(-1)
    if flat.size != _flatdim_array(space):
        raise ValueError(
            f"flatten: expected a sample of shape {space.shape} for {space!r}, got {x!r}"
        )
    return flat


@flatten.register(Discrete)
def _flatten_discrete(space: Discrete, x: Any) -> NDArray[np.float32]:
    index = int(x) - space.start
    if not 0 <= index < space.n:
        raise ValueError(f"flatten: {x!r} is not an element of {space!r}")
    out = np.zeros(space.n, dtype=_F32)
    out[index] = 1.0
    return out


@flatten.register(MultiDiscrete)
def _flatten_multi_discrete(space: MultiDiscrete, x: Any) -> NDArray[np.float32]:
    nvec = space.nvec.ravel()
    offsets = np.concatenate(([0], np.cumsum(nvec)[:-1]))
    values = np.asarray(x)
    index = values.ravel() - space.start.ravel() if values.shape == space.shape else None
    if index is None or bool(np.any(index < 0)) or bool(np.any(index >= nvec)):
        raise ValueError(f"flatten: {x!r} is not an element of {space!r}")
    out = np.zeros(int(nvec.sum()), dtype=_F32)
    out[offsets + index] = 1.0
    return out


@flatten.register(Dict)
def _flatten_dict(space: Dict, x: Any) -> NDArray[np.float32]:
    parts = [flatten(child, x[key]) for key, child in space.spaces.items()]
    return np.concatenate(parts) if parts else np.zeros(0, _F32)


@flatten.register(Tuple)
def _flatten_tuple(space: Tuple, x: Any) -> NDArray[np.float32]:
    parts = [flatten(child, item) for child, item in zip(space.spaces, x, strict=True)]
    return np.concatenate(parts) if parts else np.zeros(0, _F32)


@flatten.register(Sequence)
def _flatten_sequence(space: Sequence, x: Any) -> NDArray[np.float32]:
    raise not_fixed_shape("flatten", space)


# -- unflatten -------------------------------------------------------------------------------------


@singledispatch
def unflatten(space: Space[Any], x: NDArray[Any]) -> Any:
    """Inverse of `flatten`: rebuild a sample of ``space`` from its 1-D array.

    Raises:
        TypeError: The space is not flattenable or its type has no registered
            implementation.
        ValueError: ``x`` has the wrong length, or a one-hot part does not hold
            exactly one non-zero entry.
    """
    raise unsupported("unflatten", space)


def _check_length(space: Space[Any], x: NDArray[Any]) -> NDArray[Any]:
    x = np.asarray(x)
    expected = flatdim(space)
    if x.shape != (expected,):
        raise ValueError(
            f"unflatten: expected a 1-D array of length {expected} for {space!r}, "
            f"got shape {x.shape}"
        )
    return x


def _cast(values: NDArray[Any], dtype: np.dtype[Any]) -> NDArray[Any]:
    if dtype.kind in "iu" and values.dtype.kind == "f":
        values = np.rint(values)
    return values.astype(dtype)


@unflatten.register(Box)
@unflatten.register(MultiBinary)
def _unflatten_array(space: Box | MultiBinary, x: NDArray[Any]) -> NDArray[Any]:
    return _cast(_check_length(space, x), space.dtype).reshape(space.shape)


@unflatten.register(Discrete)
def _unflatten_discrete(space: Discrete, x: NDArray[Any]) -> np.int64:
    hot = np.flatnonzero(_check_length(space, x))
    if hot.size != 1:
        raise ValueError(f"unflatten: expected a one-hot array for {space!r}, got {x!r}")
    value: np.int64 = np.int64(space.start + int(hot[0]))
    return value


@unflatten.register(MultiDiscrete)
def _unflatten_multi_discrete(space: MultiDiscrete, x: NDArray[Any]) -> NDArray[Any]:
    hot = np.flatnonzero(_check_length(space, x))
    nvec = space.nvec.ravel().astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(nvec)[:-1]))
    index = hot - offsets[: hot.size] if hot.size == nvec.size else None
    if index is None or bool(np.any(index < 0)) or bool(np.any(index >= nvec)):
        raise ValueError(
            f"unflatten: expected one one-hot block per entry for {space!r}, got {x!r}"
        )
    result: NDArray[Any] = (index + space.start.ravel()).astype(space.dtype)
    return result.reshape(space.shape)


@unflatten.register(Dict)
def _unflatten_dict(space: Dict, x: NDArray[Any]) -> dict[str, Any]:
    x = _check_length(space, x)
    result: dict[str, Any] = {}
    position = 0
    for key, child in space.spaces.items():
        size = flatdim(child)
        result[key] = unflatten(child, x[position : position + size])
        position += size
    return result


@unflatten.register(Tuple)
def _unflatten_tuple(space: Tuple, x: NDArray[Any]) -> tuple[Any, ...]:
    x = _check_length(space, x)
    items: list[Any] = []
    position = 0
    for child in space.spaces:
        size = flatdim(child)
        items.append(unflatten(child, x[position : position + size]))
        position += size
    return tuple(items)


@unflatten.register(Sequence)
def _unflatten_sequence(space: Sequence, x: NDArray[Any]) -> Any:
    raise not_fixed_shape("unflatten", space)


# -- flatten_space ---------------------------------------------------------------------------------


@singledispatch
def flatten_space(space: Space[Any]) -> Box:
    """Return the ``float32`` Box of shape ``(flatdim(space),)`` that holds flattened samples.

    Bounds come from the space (a Box's bounds, ``[0, 1]`` for one-hot and
    binary parts), so ``flatten(space, x) in flatten_space(space)`` for every
    ``x in space``.

    Raises:
        TypeError: The space is not flattenable or its type has no registered
            implementation.
    """
    raise unsupported("flatten_space", space)


@flatten_space.register(Box)
def _flatten_space_box(space: Box) -> Box:
    return Box(space.low.reshape(-1).astype(_F32), space.high.reshape(-1).astype(_F32), dtype=_F32)


@flatten_space.register(Discrete)
@flatten_space.register(MultiDiscrete)
@flatten_space.register(MultiBinary)
def _flatten_space_binary(space: Space[Any]) -> Box:
    return Box(0.0, 1.0, (flatdim(space),), dtype=_F32)


def _join(boxes: list[Box]) -> Box:
    if not boxes:
        return Box(0.0, 0.0, (0,), dtype=_F32)
    return Box(
        np.concatenate([box.low for box in boxes]),
        np.concatenate([box.high for box in boxes]),
        dtype=_F32,
    )


@flatten_space.register(Dict)
def _flatten_space_dict(space: Dict) -> Box:
    return _join([flatten_space(child) for child in space.spaces.values()])


@flatten_space.register(Tuple)
def _flatten_space_tuple(space: Tuple) -> Box:
    return _join([flatten_space(child) for child in space.spaces])


@flatten_space.register(Sequence)
def _flatten_space_sequence(space: Sequence) -> Box:
    raise not_fixed_shape("flatten_space", space)
