"""Batched spaces, and moving between a list of samples and one batch.

`batch_space` gives the space of ``n`` stacked samples (what a vector
environment exposes as ``batch_observation_space``); `concatenate` stacks
samples into a batch; `iterate` walks a batch sample by sample. All three
dispatch on the type of the space (`functools.singledispatch`, whose
per-type cache makes the dispatch cheap on hot paths);
[`register_space_type`][sekai.spaces.register_space_type] adds new space types.

Batching rules: a Box, MultiDiscrete or MultiBinary gets a leading axis of size
``n``; a Discrete becomes a ``MultiDiscrete`` of ``n`` entries; a Dict (also a
MaskedBox, which becomes a plain Dict of its two batched parts) or a Tuple is
batched leaf by leaf. A Sequence has no fixed shape and cannot be batched.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence as SequenceABC
from functools import singledispatch
from typing import Any

import numpy as np

from sekai._internal.validation import check_int
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space, not_fixed_shape, unsupported
from sekai.spaces.tuple import Tuple

__all__ = ["batch_space", "concatenate", "iterate"]


# -- batch_space -----------------------------------------------------------------------------------


def batch_space(space: Space[Any], n: int = 1) -> Space[Any]:
    """Return the space of ``n`` samples of ``space`` stacked along a new leading axis.

    Args:
        space: The space of one sample.
        n: Batch size (>= 1).

    Raises:
        TypeError: The space has no fixed shape (``Sequence``) or its type has
            no registered implementation.
        ValueError: ``n`` is smaller than 1.
    """
    return _batch_space(space, check_int(n, "batch_space: n", minimum=1))


@singledispatch
def _batch_space(space: Space[Any], n: int) -> Space[Any]:
    raise unsupported("batch_space", space)


@_batch_space.register(Box)
def _batch_box(space: Box, n: int) -> Space[Any]:
    shape = (n, *space.shape)
    return Box(
        np.broadcast_to(space.low, shape), np.broadcast_to(space.high, shape), shape, space.dtype
    )


@_batch_space.register(Discrete)
def _batch_discrete(space: Discrete, n: int) -> Space[Any]:
    return MultiDiscrete(np.full(n, space.n, np.int64), start=np.full(n, space.start, np.int64))


@_batch_space.register(MultiDiscrete)
def _batch_multi_discrete(space: MultiDiscrete, n: int) -> Space[Any]:
    shape = (n, *space.shape)
    return MultiDiscrete(
        np.broadcast_to(space.nvec, shape),
        dtype=space.dtype,
        start=np.broadcast_to(space.start, shape),
    )


@_batch_space.register(MultiBinary)
def _batch_multi_binary(space: MultiBinary, n: int) -> Space[Any]:
    return MultiBinary((n, *space.shape))


@_batch_space.register(Dict)
def _batch_dict(space: Dict, n: int) -> Space[Any]:
    return Dict({key: _batch_space(child, n) for key, child in space.spaces.items()})


@_batch_space.register(Tuple)
def _batch_tuple(space: Tuple, n: int) -> Space[Any]:
    return Tuple(_batch_space(child, n) for child in space.spaces)


@_batch_space.register(Sequence)
def _batch_sequence(space: Sequence, n: int) -> Space[Any]:
    raise not_fixed_shape("batch_space", space)


# -- concatenate -----------------------------------------------------------------------------------


@singledispatch
def concatenate(space: Space[Any], items: SequenceABC[Any], out: Any = None) -> Any:
    """Stack samples of ``space`` into one batch (an element of ``batch_space(space, n)``).

    For array spaces this is a single `numpy.stack` call writing into
    ``out``; Dict and Tuple batches are a dict / tuple of per-leaf batches.

    Args:
        space: The space of one sample.
        items: The samples.
        out: Where to write the batch (as made by a previous call, or by
            ``batch_space(space, n).zero()``), or ``None`` to allocate it.

    Returns:
        The batch (``out`` itself when given).

    Raises:
        TypeError: The space has no fixed shape or no registered implementation.
    """
    raise unsupported("concatenate", space)


@concatenate.register(Box)
@concatenate.register(MultiDiscrete)
@concatenate.register(MultiBinary)
def _concatenate_array(space: Space[Any], items: SequenceABC[Any], out: Any = None) -> Any:
    if out is None:
        out = np.empty((len(items), *(space.shape or ())), dtype=space.dtype)
    try:
        # One concatenate of leading-axis views: what np.stack does, minus its checks.
        return np.concatenate([item[None] for item in items], axis=0, out=out)
    except (TypeError, IndexError):  # items that are not arrays (e.g. nested lists)
        return np.stack(items, axis=0, out=out)


@concatenate.register(Discrete)
def _concatenate_discrete(space: Discrete, items: SequenceABC[Any], out: Any = None) -> Any:
    if out is None:
        return np.array(items, dtype=np.int64)
    out[...] = items
    return out


@concatenate.register(Dict)
def _concatenate_dict(space: Dict, items: SequenceABC[Any], out: Any = None) -> Any:
    if out is None:
        return {
            key: concatenate(child, [item[key] for item in items], None)
            for key, child in space.spaces.items()
        }
    for key, child in space.spaces.items():
        concatenate(child, [item[key] for item in items], out[key])
    return out


@concatenate.register(Tuple)
def _concatenate_tuple(space: Tuple, items: SequenceABC[Any], out: Any = None) -> Any:
    if out is None:
        return tuple(
            concatenate(child, [item[i] for item in items], None)
            for i, child in enumerate(space.spaces)
        )
    for i, child in enumerate(space.spaces):
        concatenate(child, [item[i] for item in items], out[i])
    return out


@concatenate.register(Sequence)
def _concatenate_sequence(space: Sequence, items: SequenceABC[Any], out: Any = None) -> Any:
    raise not_fixed_shape("concatenate", space)


# -- iterate ---------------------------------------------------------------------------------------


@singledispatch
def iterate(space: Space[Any], batch: Any) -> Iterator[Any]:
    """Iterate over the samples of ``batch``, a batch of the batched space ``space``.

    ``space`` is the batched space (as returned by `batch_space`), so
    ``iterate(batch_space(s, n), concatenate(s, samples))`` yields ``samples``
    again (array rows are views into the batch).

    Raises:
        TypeError: ``space`` cannot hold a batch (a ``Discrete`` or a
            ``Sequence``) or its type has no registered implementation.
    """
    raise unsupported("iterate", space)


@iterate.register(Box)
@iterate.register(MultiDiscrete)
@iterate.register(MultiBinary)
def _iterate_array(space: Space[Any], batch: Any) -> Iterator[Any]:
    if not isinstance(batch, np.ndarray):
        raise TypeError(f"iterate: expected a numpy array batch of {space!r}, got {batch!r}")
    return iter(batch)


@iterate.register(Discrete)
def _iterate_discrete(space: Discrete, batch: Any) -> Iterator[Any]:
    raise TypeError(
        f"iterate: {space!r} cannot hold a batch (batch_space turns a Discrete into a "
        "MultiDiscrete); pass the batched space"
    )


@iterate.register(Dict)
def _iterate_dict(space: Dict, batch: Any) -> Iterator[Any]:
    keys = list(space.spaces)
    columns = [iterate(child, batch[key]) for key, child in space.spaces.items()]
    return (dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True))


@iterate.register(Tuple)
def _iterate_tuple(space: Tuple, batch: Any) -> Iterator[Any]:
    columns = [iterate(child, batch[i]) for i, child in enumerate(space.spaces)]
    return (tuple(row) for row in zip(*columns, strict=True))


@iterate.register(Sequence)
def _iterate_sequence(space: Sequence, batch: Any) -> Iterator[Any]:
    raise not_fixed_shape("iterate", space)
