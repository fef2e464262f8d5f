"""Batching sub-env observations.

Two helpers, both chosen once per vector env from the observation space (by
walking its batch layout, :func:`sekai.spaces._layout.layout_of`):

* :func:`make_obs_stacker` turns a list of ``num_envs`` observations into a
  batch. For array spaces (Box, Discrete, MultiDiscrete, MultiBinary) it
  allocates one ``(num_envs, *shape)`` array of the space's dtype and writes
  every observation into it with one slice assignment (measured faster than
  row-by-row writes and than ``np.stack``); Dict and Tuple observations get
  one such array per leaf; a space type registered with
  :func:`~sekai.spaces.register_space_type` is batched by its ``concatenate``.
* :func:`make_obs_batcher` gives an :class:`ObsBatcher` that fills a batch
  row by row (``write(batch, i, obs)``), for callers that receive
  observations one at a time.

Spaces without a fixed shape (Sequence, or a Dict / Tuple holding one) are
batched as a tuple of the observations. A space type with no batching
registered raises ``TypeError`` when the helper is built. Every batch is newly
allocated, so a returned batch never changes afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any

import numpy as np

from sekai.spaces import Space, concatenate
from sekai.spaces._layout import (
    ArrayLeaf,
    CustomLeaf,
    DictNode,
    Layout,
    TupleNode,
    custom_iterator,
    fixed_shape,
    layout_of,
)

__all__ = ["ObsBatcher", "ObsStacker", "make_obs_batcher", "make_obs_stacker"]

_WHAT = "a vector env's observations"


class ObsBatcher:
    """How to build a batch of observations of one space.

    Attributes:
        is_array: The batch is a single numpy array; the caller may then write
            rows itself with ``batch[i] = obs`` and skip :meth:`write`.
        new: Allocate an empty batch.
        write: ``write(batch, i, obs)`` stores sub-env ``i``'s observation.
        finish: Turn a filled batch into the value returned to the user.
        row: ``row(batch, i)`` reads sub-env ``i``'s observation back from a
            finished batch.
    """

    __slots__ = ("finish", "is_array", "new", "row", "write")

    def __init__(
        self,
        *,
        is_array: bool,
        new: Callable[[], Any],
        write: Callable[[Any, int, Any], None],
        finish: Callable[[Any], Any],
        row: Callable[[Any, int], Any],
    ) -> None:
        self.is_array = is_array
        self.new = new
        self.write = write
        self.finish = finish
        self.row = row


def _identity(batch: Any) -> Any:
    return batch


def _set_row(batch: Any, i: int, obs: Any) -> None:
    batch[i] = obs


def _get_row(batch: Any, i: int) -> Any:
    return batch[i]


def _batcher(layout: Layout, num_envs: int) -> ObsBatcher:
    """The batcher of a fixed-shape layout."""
    if isinstance(layout, ArrayLeaf):
        shape = (num_envs, *layout.shape)
        dtype = layout.dtype
        return ObsBatcher(
            is_array=True,
            new=lambda: np.empty(shape, dtype),
            write=_set_row,
            finish=_identity,
            row=_get_row,
        )
    if isinstance(layout, DictNode):
        items = tuple((key, _batcher(child, num_envs)) for key, child in layout.items)

        def write_dict(batch: Any, i: int, obs: Any) -> None:
            for key, child in items:
                child.write(batch[key], i, obs[key])

        finish_dict: Callable[[Any], Any] = _identity
        if any(child.finish is not _identity for _, child in items):

            def finish_dict(batch: Any) -> Any:
                return {key: child.finish(batch[key]) for key, child in items}

        return ObsBatcher(
            is_array=False,
            new=lambda: {key: child.new() for key, child in items},
            write=write_dict,
            finish=finish_dict,
            row=lambda batch, i: {key: child.row(batch[key], i) for key, child in items},
        )
    if isinstance(layout, TupleNode):
        indexed = tuple(enumerate(_batcher(child, num_envs) for child in layout.parts))

        def write_tuple(batch: Any, i: int, obs: Any) -> None:
            for j, part in indexed:
                part.write(batch[j], i, obs[j])

        finish_tuple: Callable[[Any], Any] = _identity
        if any(part.finish is not _identity for _, part in indexed):

            def finish_tuple(batch: Any) -> Any:
                return tuple(part.finish(batch[j]) for j, part in indexed)

        return ObsBatcher(
            is_array=False,
            new=lambda: tuple(part.new() for _, part in indexed),
            write=write_tuple,
            finish=finish_tuple,
            row=lambda batch, i: tuple(part.row(batch[j], i) for j, part in indexed),
        )
    assert isinstance(layout, CustomLeaf)
    space = layout.space
    split: list[Callable[[Any], Any]] = []  # built on first use: iterate is optional

    def row_custom(batch: Any, i: int) -> Any:
        if not split:
            split.append(custom_iterator(layout, num_envs, _WHAT))
        return next(islice(split[0](batch), i, None))

    return ObsBatcher(
        is_array=False,
        new=lambda: [None] * num_envs,
        write=_set_row,
        finish=lambda rows: concatenate(space, rows, None),
        row=row_custom,
    )


def make_obs_batcher(space: Space[Any], num_envs: int) -> ObsBatcher:
    """Choose, once, how observations of ``space`` are batched for ``num_envs`` sub-envs.

    Raises:
        TypeError: A part of the space has a type with no batching registered.
    """
    layout = layout_of(space)
    if fixed_shape(layout, _WHAT):
        return _batcher(layout, num_envs)
    return ObsBatcher(
        is_array=False,
        new=lambda: [None] * num_envs,
        write=_set_row,
        finish=tuple,
        row=_get_row,
    )


ObsStacker = Callable[[list[Any]], Any]
"""Turns a list of ``num_envs`` observations into a batch."""


def _stacker(layout: Layout, num_envs: int) -> ObsStacker:
    """The stacker of a fixed-shape layout."""
    if isinstance(layout, ArrayLeaf):
        shape = (num_envs, *layout.shape)
        dtype = layout.dtype
        empty = np.empty

        def stack_array(observations: list[Any]) -> Any:
            batch = empty(shape, dtype)
            batch[:] = observations
            return batch

        return stack_array
    if isinstance(layout, DictNode):
        children = tuple((key, _stacker(child, num_envs)) for key, child in layout.items)

        def stack_dict(observations: list[Any]) -> Any:
            return {key: stack([obs[key] for obs in observations]) for key, stack in children}

        return stack_dict
    if isinstance(layout, TupleNode):
        indexed = tuple(enumerate(_stacker(child, num_envs) for child in layout.parts))

        def stack_tuple(observations: list[Any]) -> Any:
            return tuple(stack([obs[j] for obs in observations]) for j, stack in indexed)

        return stack_tuple
    assert isinstance(layout, CustomLeaf)
    space = layout.space

    def stack_custom(observations: list[Any]) -> Any:
        return concatenate(space, observations, None)

    return stack_custom


def make_obs_stacker(space: Space[Any], num_envs: int) -> ObsStacker:
    """Choose, once, how observations of ``space`` are batched for ``num_envs`` sub-envs.

    Returns ``tuple`` itself for a space without a fixed shape.

    Raises:
        TypeError: A part of the space has a type with no batching registered.
    """
    layout = layout_of(space)
    return _stacker(layout, num_envs) if fixed_shape(layout, _WHAT) else tuple
