"""How the samples of a space are laid out in a batch (private).

`layout_of` classifies a space once, through `functools.singledispatch`,
into a small tree: array leaves (Box, Discrete, MultiDiscrete, MultiBinary), Dict
and Tuple nodes, leaves of types taught batching with
[`register_space_type`][sekai.spaces.register_space_type], leaves without a fixed shape
(Sequence) and leaves no batching is known for. Code that builds per-space
helpers (the vector envs' batchers and action splitters, the shared-memory
layout, copiers) walks this tree instead of testing space types itself, so a
registered space type works everywhere at once.

`copier_for` is the one copier of samples built on it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import singledispatch
from typing import Any

import numpy as np

from sekai.spaces import batching
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple

__all__ = [
    "ArrayLeaf",
    "CustomLeaf",
    "DictNode",
    "Layout",
    "RaggedLeaf",
    "TupleNode",
    "UnknownLeaf",
    "copier_for",
    "custom_iterator",
    "fixed_shape",
    "layout_of",
    "leaves",
]


@dataclass(frozen=True, eq=False)
class ArrayLeaf:
    """A Box, Discrete, MultiDiscrete or MultiBinary: a batch is one ``(n, *shape)`` array.

    Attributes:
        space: The space.
        shape: The shape of one sample.
        dtype: The dtype of the batch.
        integer_kinds: The numpy dtype kinds a batch of actions may have
            (``""`` for any): a float batch of an integer space would be
            truncated silently.
        scalar: A sample is one integer (Discrete).
    """

    space: Space[Any]
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    integer_kinds: str
    scalar: bool


@dataclass(frozen=True, eq=False)
class DictNode:
    """A Dict (a MaskedBox too): a batch is a dict of the children's batches."""

    space: Dict
    items: tuple[tuple[str, Layout], ...]


@dataclass(frozen=True, eq=False)
class TupleNode:
    """A Tuple: a batch is a tuple of the children's batches."""

    space: Tuple
    parts: tuple[Layout, ...]


@dataclass(frozen=True, eq=False)
class CustomLeaf:
    """A type registered with ``batch_space`` and ``concatenate``: batched by them."""

    space: Space[Any]


@dataclass(frozen=True, eq=False)
class RaggedLeaf:
    """A space without a fixed shape (Sequence): its samples cannot be stacked."""

    space: Space[Any]


@dataclass(frozen=True, eq=False)
class UnknownLeaf:
    """A space type with no batching registered."""

    space: Space[Any]


Layout = ArrayLeaf | DictNode | TupleNode | CustomLeaf | RaggedLeaf | UnknownLeaf


def _registered(dispatcher: Any, space: Space[Any]) -> bool:
    return dispatcher.dispatch(type(space)) is not dispatcher.dispatch(object)


@singledispatch
def layout_of(space: Space[Any]) -> Layout:
    """The batch layout of ``space`` (walk it once, when building a helper)."""
    if _registered(batching._batch_space, space) and _registered(batching.concatenate, space):
        return CustomLeaf(space)
    return UnknownLeaf(space)


def _overridden(space: Space[Any], base: type[Space[Any]]) -> bool:
    """Whether a subclass of a built-in space registered its own ``concatenate``."""
    return batching.concatenate.dispatch(type(space)) is not batching.concatenate.dispatch(base)


def _array_leaf(space: Space[Any], base: type[Space[Any]], kinds: str) -> Layout:
    if _overridden(space, base):
        return layout_of.dispatch(object)(space)
    return ArrayLeaf(space, space.shape or (), np.dtype(space.dtype), kinds, base is Discrete)


@layout_of.register(Box)
def _layout_box(space: Box) -> Layout:
    return _array_leaf(space, Box, "")


@layout_of.register(Discrete)
def _layout_discrete(space: Discrete) -> Layout:
    return _array_leaf(space, Discrete, "iu")


@layout_of.register(MultiDiscrete)
def _layout_multi_discrete(space: MultiDiscrete) -> Layout:
    return _array_leaf(space, MultiDiscrete, "iu")


@layout_of.register(MultiBinary)
def _layout_multi_binary(space: MultiBinary) -> Layout:
    return _array_leaf(space, MultiBinary, "iub")


@layout_of.register(Dict)
def _layout_dict(space: Dict) -> Layout:
    if _overridden(space, Dict):
        return layout_of.dispatch(object)(space)
    return DictNode(space, tuple((key, layout_of(child)) for key, child in space.spaces.items()))


@layout_of.register(Tuple)
def _layout_tuple(space: Tuple) -> Layout:
    if _overridden(space, Tuple):
        return layout_of.dispatch(object)(space)
    return TupleNode(space, tuple(layout_of(child) for child in space.spaces))


@layout_of.register(Sequence)
def _layout_sequence(space: Sequence) -> Layout:
    return RaggedLeaf(space)


def leaves(layout: Layout) -> Iterator[Layout]:
    """The leaves of a layout, depth first."""
    if isinstance(layout, DictNode):
        for _, child in layout.items:
            yield from leaves(child)
    elif isinstance(layout, TupleNode):
        for child in layout.parts:
            yield from leaves(child)
    else:
        yield layout


def fixed_shape(layout: Layout, what: str) -> bool:
    """Whether samples of the layout stack into a batch (False if a part is ragged).

    Raises:
        TypeError: A part's type has no batching registered (``what`` says
            who needs it).
    """
    for leaf in leaves(layout):
        if isinstance(leaf, UnknownLeaf):
            space = leaf.space
            raise TypeError(
                f"{what} cannot be batched: {space!r} (type {type(space).__qualname__}) has no "
                "batch_space() / concatenate() implementation; register them (and iterate() "
                "for actions) with sekai.spaces.register_space_type"
            )
    return not any(isinstance(leaf, RaggedLeaf) for leaf in leaves(layout))


def custom_iterator(leaf: CustomLeaf, n: int, what: str) -> Callable[[Any], Iterator[Any]]:
    """The function splitting a batch of ``n`` samples of a registered type into samples.

    The ``iterate`` registered for the type gets the batched space when
    ``batch_space`` returns a space of the same type (the documented
    contract of [`iterate`][sekai.spaces.iterate]), else the space of one sample:
    a type batched as, say, a Box is split by its own ``iterate`` into its
    own samples rather than into Box rows.

    Raises:
        TypeError: Neither the type nor its batched space has ``iterate``.
    """
    space = leaf.space
    batched = batching.batch_space(space, n)
    iterate = batching.iterate
    if _registered(iterate, space) and not isinstance(batched, type(space)):
        target = space
    elif _registered(iterate, batched):
        target = batched
    else:
        raise TypeError(
            f"{what} needs iterate() for {space!r} (type {type(space).__qualname__}): "
            "register it with sekai.spaces.register_space_type"
        )
    return lambda batch: iterate(target, batch)


# -- copies ---------------------------------------------------------------------------------------


def copier_for(space: Space[Any]) -> Callable[[Any], Any]:
    """Return a function copying values of ``space``, chosen once for the space.

    Something that keeps a value past the next step (a delayed or repeated
    action, a stacked frame, a final observation) must not keep the caller's
    object: a policy writing every action into one array, or an env writing
    every observation into one buffer, would change the kept value too.
    Discrete values are numbers and are kept; arrays are copied with
    ``ndarray.copy``; Dicts (a MaskedBox too) and Tuples are copied part by
    part; anything else (Sequence, other space types) is deep-copied.
    """
    return _copier(layout_of(space))


def _copier(layout: Layout) -> Callable[[Any], Any]:
    if isinstance(layout, ArrayLeaf):
        return _same if layout.scalar else _copy_array
    if isinstance(layout, DictNode):
        return _DictCopier({key: _copier(child) for key, child in layout.items})
    if isinstance(layout, TupleNode):
        return _TupleCopier([_copier(child) for child in layout.parts])
    return copy.deepcopy


def _same(value: Any) -> Any:
    return value


def _copy_array(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    return copy.deepcopy(value)


class _DictCopier:
    """Copies a dict value entry by entry (unknown entries are deep-copied).

    A class rather than a closure, so that an object holding it deep-copies
    and pickles.
    """

    def __init__(self, parts: dict[str, Callable[[Any], Any]]) -> None:
        self.parts = parts

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return copy.deepcopy(value)
        parts = self.parts
        return {key: parts.get(key, copy.deepcopy)(item) for key, item in value.items()}


class _TupleCopier:
    """Copies a tuple value item by item."""

    def __init__(self, parts: list[Callable[[Any], Any]]) -> None:
        self.parts = parts

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, tuple) or len(value) != len(self.parts):
            return copy.deepcopy(value)
        return tuple(part(item) for part, item in zip(self.parts, value, strict=True))
