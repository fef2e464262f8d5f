"""Batching sub-env observations.

Two helpers, both chosen once per vector env from the observation space (by
walking its batch layout, `sekai.spaces._layout.layout_of`):

* `make_obs_stacker` turns a list of ``num_envs`` observations into a
  batch. For array spaces (Box, Discrete, MultiDiscrete, MultiBinary) it
  allocates one ``(num_envs, *shape)`` array of the space's dtype and writes
  every observation into it with one slice assignment (measured faster than
  row-by-row writes and than ``np.stack``); Dict and Tuple observations get
  one such array per leaf; a space type registered with
  [`register_space_type`][sekai.spaces.register_space_type] is batched by its ``concatenate``.
* `make_obs_batcher` gives an `ObsBatcher` that fills a batch
  row by row (``write(batch, i, obs)``), for callers that receive
  observations one at a time.

Spaces without a fixed shape (Sequence, or a Dict / Tuple holding one) are
batched as a tuple of the observations. A space type with no batching
registered raises ``TypeError`` when the helper is built. Every batch is newly
allocated, so a returned batch never changes afterwards.

Both check what they batch, at the cost of one shape comparison per array
leaf (per row for `ObsBatcher`): an observation of the wrong shape
(which numpy would broadcast, ``[7]`` becoming ``[7, 7, 7, 7]``), ``None``, a
dict without a key, or a value numpy cannot convert raises
[`InvalidObservation`][sekai.error.InvalidObservation] naming the sub-env, where in the
observation the problem is, the expected shape and dtype and what was given
(`observation_error`, which runs only then).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import islice
from typing import Any, Protocol

import numpy as np

from sekai.error import InvalidObservation
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

__all__ = [
    "ObsBatcher",
    "ObsStacker",
    "make_batch_check",
    "make_obs_batcher",
    "make_obs_stacker",
    "observation_error",
]

_WHAT = "a vector env's observations"


class _Mismatch(ValueError):
    """An array leaf got a batch of the wrong shape (turned into InvalidObservation)."""


def _problem(layout: Layout, observation: Any, where: str) -> str | None:
    """What is wrong with one observation for ``layout``, or ``None`` (the error path only)."""
    if isinstance(layout, ArrayLeaf):
        expected = f"shape {layout.shape} and dtype {layout.dtype} ({layout.space!r})"
        if observation is None:
            return f"{where} is None; expected {expected}"
        try:
            array = np.asarray(observation)
        except Exception:  # any failure to convert is the answer
            return f"{where} is {observation!r}, which is not an array; expected {expected}"
        if array.shape != layout.shape or array.dtype.kind in "OUSV":
            return f"{where} has shape {array.shape} and dtype {array.dtype}; expected {expected}"
        try:
            np.empty(layout.shape, layout.dtype)[...] = array
        except (TypeError, ValueError) as error:
            return f"{where} ({observation!r}) cannot be stored as {layout.dtype}: {error}"
        return None
    if isinstance(layout, DictNode):
        if not isinstance(observation, Mapping):
            keys = [key for key, _ in layout.items]
            return f"{where} is {observation!r}; expected a dict with keys {keys}"
        for key, child in layout.items:
            if key not in observation:
                return f"{where} has no key {key!r}"
            found = _problem(child, observation[key], f"{where}[{key!r}]")
            if found is not None:
                return found
        return None
    if isinstance(layout, TupleNode):
        count = len(layout.parts)
        if not isinstance(observation, (tuple, list)) or len(observation) != count:
            return f"{where} is {observation!r}; expected a tuple of {count} parts"
        for j, child in enumerate(layout.parts):
            found = _problem(child, observation[j], f"{where}[{j}]")
            if found is not None:
                return found
        return None
    return None  # a registered space type: its concatenate has its own checks


def observation_error(
    space: Space[Any], observations: Sequence[Any], ids: Sequence[int] | None = None
) -> InvalidObservation | None:
    """The error for the first of ``observations`` that does not fit ``space``, or ``None``.

    ``ids`` are the sub-envs of the observations (default: ``0, 1, ...``).
    """
    layout = layout_of(space)
    for k, observation in enumerate(observations):
        found = _problem(layout, observation, "its observation")
        if found is not None:
            index = k if ids is None else ids[k]
            return InvalidObservation(
                f"sub-env {index} returned an observation that does not fit: {found}"
            )
    return None


class ObsBatcher:
    """How to build a batch of observations of one space.

    Attributes:
        is_array: The batch is a single numpy array; the caller may then write
            rows itself with ``batch[i] = obs`` and skip `write`.
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
    """The batcher of a fixed-shape layout (its writes raise _Mismatch for a wrong shape)."""
    if isinstance(layout, ArrayLeaf):
        shape = (num_envs, *layout.shape)
        row_shape = layout.shape
        dtype = layout.dtype
        asarray = np.asarray

        def write_row(batch: Any, i: int, obs: Any) -> None:
            row = asarray(obs)
            if row.shape != row_shape:
                raise _Mismatch
            batch[i] = row

        return ObsBatcher(
            is_array=True,
            new=lambda: np.empty(shape, dtype),
            write=write_row,
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
    if not isinstance(layout, CustomLeaf):
        raise TypeError(f"internal: no batching rule for the observation layout {layout!r}")
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

    ``write(batch, i, obs)`` raises [`InvalidObservation`][sekai.error.InvalidObservation]
    naming sub-env ``i`` when ``obs`` does not fit the space.

    Raises:
        TypeError: A part of the space has a type with no batching registered.
    """
    layout = layout_of(space)
    if fixed_shape(layout, _WHAT):
        batcher = _batcher(layout, num_envs)
        write = batcher.write

        def checked_write(batch: Any, i: int, obs: Any) -> None:
            try:
                write(batch, i, obs)
            except Exception as error:
                found = observation_error(space, [obs], [i])
                if found is None:
                    raise
                raise found from error if not isinstance(error, _Mismatch) else None

        batcher.write = checked_write
        return batcher
    return ObsBatcher(
        is_array=False,
        new=lambda: [None] * num_envs,
        write=_set_row,
        finish=tuple,
        row=_get_row,
    )


class ObsStacker(Protocol):
    """Turns a list of ``num_envs`` observations into a batch.

    ``ids`` (the sub-envs of the observations, default ``0, 1, ...``) only
    serve the message of the [`InvalidObservation`][sekai.error.InvalidObservation] raised
    for an observation that does not fit the space.
    """

    def __call__(self, observations: list[Any], ids: Sequence[int] | None = None) -> Any: ...


def _stacker(layout: Layout, num_envs: int) -> Callable[[list[Any]], Any]:
    """The stacker of a fixed-shape layout (raises _Mismatch, or numpy's error, on a bad one)."""
    if isinstance(layout, ArrayLeaf):
        shape = (num_envs, *layout.shape)
        dtype = layout.dtype
        asarray = np.asarray

        def stack_array(observations: list[Any]) -> Any:
            # One conversion, as ``batch[:] = observations`` would do, then one
            # shape comparison: numpy would broadcast a (1,) row silently.
            batch = asarray(observations)
            if batch.shape != shape:
                raise _Mismatch
            if batch.dtype is not dtype:
                if batch.dtype.kind in "OUSV":  # None, text, ...: not numbers
                    raise _Mismatch
                batch = batch.astype(dtype)
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
    if not isinstance(layout, CustomLeaf):
        raise TypeError(f"internal: no batching rule for the observation layout {layout!r}")
    space = layout.space

    def stack_custom(observations: list[Any]) -> Any:
        return concatenate(space, observations, None)

    return stack_custom


def _stack_ragged(observations: list[Any], ids: Sequence[int] | None = None) -> Any:
    return tuple(observations)


def make_obs_stacker(space: Space[Any], num_envs: int) -> ObsStacker:
    """Choose, once, how observations of ``space`` are batched for ``num_envs`` sub-envs.

    A space without a fixed shape gives a tuple of the observations.

    Raises:
        TypeError: A part of the space has a type with no batching registered.
    """
    layout = layout_of(space)
    if not fixed_shape(layout, _WHAT):
        return _stack_ragged
    fast = _stacker(layout, num_envs)

    def stack(observations: list[Any], ids: Sequence[int] | None = None) -> Any:
        try:
            return fast(observations)
        except Exception as error:
            found = observation_error(space, observations, ids)
            if found is None:
                if isinstance(error, _Mismatch):  # pragma: no cover - a leaf's shape disagrees
                    found = InvalidObservation(
                        f"the observations do not stack into a batch of {space!r}"
                    )
                else:
                    raise
            raise found from None

    return stack


BatchCheck = Callable[[Any, str], None]
"""``check(batch, owner)``: raise InvalidObservation if ``batch`` is not a batch of the space."""


def _batch_checks(layout: Layout, num_envs: int, where: str) -> list[tuple[str, Any, Any]]:
    """``(where, path, leaf)`` of every array leaf, ``path`` the keys leading to it."""
    if isinstance(layout, ArrayLeaf):
        return [(where, (), layout)]
    found: list[tuple[str, Any, Any]] = []
    if isinstance(layout, DictNode):
        for key, child in layout.items:
            for text, path, leaf in _batch_checks(child, num_envs, f"{where}[{key!r}]"):
                found.append((text, (key, *path), leaf))
    elif isinstance(layout, TupleNode):
        for j, child in enumerate(layout.parts):
            for text, path, leaf in _batch_checks(child, num_envs, f"{where}[{j}]"):
                found.append((text, (j, *path), leaf))
    return found


def make_batch_check(space: Space[Any], num_envs: int) -> BatchCheck:
    """Choose, once, how a whole batch of ``space`` (a native env's ``_observe()``) is checked.

    The check costs one shape comparison per array leaf: a batch with the
    wrong number of rows, or rows of the wrong shape, raises
    [`InvalidObservation`][sekai.error.InvalidObservation] with the expected and the given
    shape and dtype. Registered space types are not checked.
    """
    leaves = _batch_checks(layout_of(space), num_envs, "the observations")
    if len(leaves) == 1 and not leaves[0][1]:
        shape = (num_envs, *leaves[0][2].shape)

        def check_array(batch: Any, owner: str) -> None:
            if (getattr(batch, "shape", None) != shape and np.shape(batch) != shape) or not (
                _numeric(batch)
            ):
                raise _batch_error(owner, "the observations", batch, leaves[0][2], num_envs)

        return check_array

    def check_nested(batch: Any, owner: str) -> None:
        for where, path, leaf in leaves:
            part = batch
            try:
                for key in path:
                    part = part[key]
            except (KeyError, IndexError, TypeError):
                raise InvalidObservation(
                    f"{owner} returned observations without {where}: {batch!r}"
                ) from None
            if np.shape(part) != (num_envs, *leaf.shape) or not _numeric(part):
                raise _batch_error(owner, where, part, leaf, num_envs)

    return check_nested


def _numeric(batch: Any) -> bool:
    """Whether a batch holds numbers (or bools): text or objects of the right shape do not."""
    dtype = getattr(batch, "dtype", None)
    if not isinstance(dtype, np.dtype):
        dtype = np.asarray(batch).dtype
    return dtype.kind in "biufc"


def _batch_error(
    owner: str, where: str, batch: Any, leaf: ArrayLeaf, num_envs: int
) -> InvalidObservation:
    try:
        array = np.asarray(batch)
        given = f"shape {array.shape} and dtype {array.dtype}"
    except Exception:  # any failure to convert is the answer
        given = repr(batch)
    return InvalidObservation(
        f"{owner} returned {where} with {given}; expected shape {(num_envs, *leaf.shape)} "
        f"(num_envs={num_envs}) and dtype {leaf.dtype} ({leaf.space!r})"
    )
