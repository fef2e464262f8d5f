"""Pickling a MarketData, by value or as a handle to shared memory (private).

`MarketData.share` copies the arrays into a `SharedBlock` (see
`sekai.finance._shared`); `MarketData.__reduce__` then sends each array that
lies in the block as its place in it, and the others by value. On the other
side ``sekai.finance.data._restore``, the function pickles name (they did
before this module existed, and must keep loading), calls `restore`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from sekai.finance._shared import BlockArray, SharedBlock

if TYPE_CHECKING:
    from sekai.finance.data import MarketData

__all__ = ["arrays", "rebuild", "reduce_args", "restore", "share"]


def arrays(data: MarketData) -> list[NDArray[Any]]:
    """Every array of ``data``, in the order `rebuild` and `restore` take them."""
    return [*data.fields.values(), data.mask, data.timestamps, *data.exogenous.values()]


def rebuild(data: MarketData, new: Sequence[NDArray[Any]]) -> MarketData:
    """``data`` over other arrays, given in the order of `arrays`."""
    n = len(data.fields)
    return data._derive(
        fields=dict(zip(data.fields, new[:n], strict=True)),
        mask=new[n],
        timestamps=new[n + 1],
        exogenous=dict(zip(data.exogenous, new[n + 2 :], strict=True)),
    )


def share(data: MarketData) -> MarketData:
    """``data`` copied into a new shared block, or itself when it lies in one already."""
    block = data._block
    held = arrays(data)
    if block is not None and all(block.locate(array) is not None for array in held):
        return data
    new_block, views = SharedBlock.create(held)
    return rebuild(data, views)._derive(block=new_block)


def reduce_args(data: MarketData) -> tuple[Any, ...]:
    """The arguments of ``sekai.finance.data._restore`` that rebuild ``data`` when unpickled.

    Arrays in a shared block travel as (block handle, place in it), the others
    by value; pickling the block raises once its owner closed it.
    """
    block = data._block
    packed: list[Any] = []
    for array in arrays(data):
        located = None if block is None else block.locate(array)
        packed.append(array if located is None else located)
    in_block = any(isinstance(item, BlockArray) for item in packed)
    return (
        list(data.fields),
        data.price_field,
        data.assets,
        list(data.exogenous),
        data.warmup,
        packed,
        block if in_block else None,
    )


def restore(
    cls: type[MarketData],
    fields: list[str],
    price_field: str,
    assets: tuple[Any, ...],
    exogenous: list[str],
    warmup: int,
    packed: list[Any],
    block: SharedBlock | None,
) -> MarketData:
    """Data of class ``cls`` from what `reduce_args` packed (the arrays mapped or unpickled)."""
    loaded = []
    for item in packed:
        array = item.load() if isinstance(item, BlockArray) else item
        array.flags.writeable = False
        loaded.append(array)
    data = object.__new__(cls)
    n = len(fields)
    data._set(
        dict(zip(fields, loaded[:n], strict=True)),
        price_field,
        loaded[n],
        loaded[n + 1],
        tuple(assets),
        dict(zip(exogenous, loaded[n + 2 :], strict=True)),
        warmup,
        block,
    )
    return data
