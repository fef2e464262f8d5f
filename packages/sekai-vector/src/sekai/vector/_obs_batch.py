"""Batching sub-env observations.

Two helpers, both chosen once per vector env from the observation space:

* :func:`make_obs_stacker` turns a list of ``num_envs`` observations into a
  batch. For array spaces (Box, Discrete, MultiDiscrete, MultiBinary) it
  allocates one ``(num_envs, *shape)`` array of the space's dtype and writes
  every observation into it with one slice assignment (measured faster than
  row-by-row writes and than ``np.stack``); Dict and Tuple observations get
  one such array per leaf.
* :func:`make_obs_batcher` gives an :class:`ObsBatcher` that fills a batch
  row by row (``write(batch, i, obs)``), for callers that receive
  observations one at a time.

Spaces without a fixed shape (Sequence, unregistered types) are batched as a
tuple of the observations. Every batch is newly allocated, so a returned
batch never changes afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = ["ObsBatcher", "ObsStacker", "make_obs_batcher", "make_obs_stacker"]

_ARRAY_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


class ObsBatcher:
    """How to build a batch of observations of one space.

    Attributes:
        is_array: The batch is a single numpy array; the caller may then write
            rows itself with ``batch[i] = obs`` and skip :meth:`write`.
        new: Allocate an empty batch.
        write: ``write(batch, i, obs)`` stores sub-env ``i``'s observation.
        finish: Turn a filled batch into the value returned to the user.
        row: ``row(batch, i)`` reads sub-env ``i``'s observation back.
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


def _nested(space: Space[Any], num_envs: int) -> ObsBatcher | None:
    """A batcher for fixed-shape spaces, or ``None`` when the space has no fixed shape."""
    if isinstance(space, _ARRAY_SPACES):
        shape = (num_envs, *(space.shape or ()))
        dtype = space.dtype
        return ObsBatcher(
            is_array=True,
            new=lambda: np.empty(shape, dtype),
            write=_set_row,
            finish=_identity,
            row=_get_row,
        )
    if isinstance(space, Dict):
        children: dict[str, ObsBatcher] = {}
        for key, child in space.spaces.items():
            batcher = _nested(child, num_envs)
            if batcher is None:
                return None
            children[key] = batcher
        items = tuple(children.items())

        def write_dict(batch: Any, i: int, obs: Any) -> None:
            for key, child in items:
                child.write(batch[key], i, obs[key])

        return ObsBatcher(
            is_array=False,
            new=lambda: {key: child.new() for key, child in items},
            write=write_dict,
            finish=_identity,
            row=lambda batch, i: {key: child.row(batch[key], i) for key, child in items},
        )
    if isinstance(space, Tuple):
        parts: list[ObsBatcher] = []
        for child in space.spaces:
            batcher = _nested(child, num_envs)
            if batcher is None:
                return None
            parts.append(batcher)
        indexed = tuple(enumerate(parts))

        def write_tuple(batch: Any, i: int, obs: Any) -> None:
            for j, part in indexed:
                part.write(batch[j], i, obs[j])

        return ObsBatcher(
            is_array=False,
            new=lambda: tuple(part.new() for part in parts),
            write=write_tuple,
            finish=_identity,
            row=lambda batch, i: tuple(part.row(batch[j], i) for j, part in indexed),
        )
    return None


def make_obs_batcher(space: Space[Any], num_envs: int) -> ObsBatcher:
    """Choose, once, how observations of ``space`` are batched for ``num_envs`` sub-envs."""
    batcher = _nested(space, num_envs)
    if batcher is not None:
        return batcher
    return ObsBatcher(
        is_array=False,
        new=lambda: [None] * num_envs,
        write=_set_row,
        finish=tuple,
        row=_get_row,
    )


ObsStacker = Callable[[list[Any]], Any]
"""Turns a list of ``num_envs`` observations into a batch."""


def _fixed_stacker(space: Space[Any], num_envs: int) -> ObsStacker | None:
    """A stacker for fixed-shape spaces, or ``None`` when the space has no fixed shape."""
    if isinstance(space, _ARRAY_SPACES):
        shape = (num_envs, *(space.shape or ()))
        dtype = space.dtype
        empty = np.empty

        def stack_array(observations: list[Any]) -> Any:
            batch = empty(shape, dtype)
            batch[:] = observations
            return batch

        return stack_array
    if isinstance(space, Dict):
        children: list[tuple[str, ObsStacker]] = []
        for key, child in space.spaces.items():
            stacker = _fixed_stacker(child, num_envs)
            if stacker is None:
                return None
            children.append((key, stacker))

        def stack_dict(observations: list[Any]) -> Any:
            return {key: stack([obs[key] for obs in observations]) for key, stack in children}

        return stack_dict
    if isinstance(space, Tuple):
        parts: list[ObsStacker] = []
        for child in space.spaces:
            stacker = _fixed_stacker(child, num_envs)
            if stacker is None:
                return None
            parts.append(stacker)
        indexed = tuple(enumerate(parts))

        def stack_tuple(observations: list[Any]) -> Any:
            return tuple(stack([obs[j] for obs in observations]) for j, stack in indexed)

        return stack_tuple
    return None


def make_obs_stacker(space: Space[Any], num_envs: int) -> ObsStacker:
    """Choose, once, how observations of ``space`` are batched for ``num_envs`` sub-envs."""
    stacker = _fixed_stacker(space, num_envs)
    return stacker if stacker is not None else tuple
