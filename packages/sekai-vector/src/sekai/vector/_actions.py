"""Checking (and splitting) batches of actions.

What a batch must look like depends on the action space only, so the checks
are built once per vector env, by walking the space's batch layout
(`sekai.spaces._layout.layout_of`); each step then pays for one shape
comparison per array leaf. A bad batch raises
[`InvalidAction`][sekai.error.InvalidAction] (a ``ValueError``) naming the expected
batch shape before any sub-env is stepped.

* Box, Discrete, MultiDiscrete, MultiBinary: an array (or nested list) of
  shape ``(num_envs, *space.shape)``; for the three integer spaces, of an
  integer dtype (bool too for MultiBinary): a float batch would be truncated
  silently by the sub-envs. A native vector env checks only the shape: it
  validates the values of its actions itself.
* Dict / Tuple: a mapping / tuple of such batches, leaf by leaf (the layout of
  ``batch_space(space, num_envs)``).
* A space type registered with [`register_space_type`][sekai.spaces.register_space_type]: a
  batch that its ``iterate`` splits into ``num_envs`` actions.
* A space without a fixed shape (Sequence): a sequence of ``num_envs`` actions.

A space type with no batching registered raises ``TypeError`` when the check
is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence as SequenceABC
from typing import Any

import numpy as np

from sekai.error import InvalidAction
from sekai.spaces import Space
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

__all__ = ["ActionChecker", "ActionSplitter", "make_action_checker", "make_action_splitter"]

ActionChecker = Callable[[Any], Any]
"""Validates a batch of actions and returns it (array leaves as numpy arrays)."""

ActionSplitter = Callable[[Any], list[Any]]
"""Validates a batch of actions and returns one action per sub-env."""

_WHAT = "a vector env's actions"


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _array_checker(leaf: ArrayLeaf, num_envs: int, where: str, dtypes: bool) -> ActionChecker:
    space = leaf.space
    shape = (num_envs, *leaf.shape)
    expected = _shape_text(shape)
    kinds = leaf.integer_kinds if dtypes else ""

    def check(actions: Any) -> Any:
        if type(actions) is not np.ndarray:
            try:
                actions = np.asarray(actions)
            except ValueError as error:  # ragged nested lists
                raise InvalidAction(
                    f"expected a batch of actions{where} of shape {expected} "
                    f"(num_envs={num_envs}, action shape {space.shape!r}), got {actions!r}"
                ) from error
        if actions.shape != shape:
            raise InvalidAction(
                f"expected a batch of actions{where} of shape {expected} "
                f"(num_envs={num_envs}, action shape {space.shape!r}), got an array of shape "
                f"{actions.shape!r}: {actions!r}"
            )
        if kinds and actions.dtype.kind not in kinds:
            raise InvalidAction(
                f"expected a batch of integer actions{where} for {space!r}, got an array of "
                f"dtype {actions.dtype}: {actions!r}"
            )
        return actions

    return check


def _sequence_checker(space: Space[Any], num_envs: int, where: str) -> ActionChecker:
    def check(actions: Any) -> Any:
        if isinstance(actions, (str, bytes, Mapping)) or not isinstance(
            actions, (SequenceABC, np.ndarray)
        ):
            raise InvalidAction(
                f"expected a batch of actions{where} as a sequence of {num_envs} elements "
                f"of {space!r} (batch shape ({num_envs},)), got {actions!r}"
            )
        if len(actions) != num_envs:
            raise InvalidAction(
                f"expected a batch of actions{where} of length {num_envs} (batch shape "
                f"({num_envs},)), got {len(actions)}: {actions!r}"
            )
        return actions

    return check


def _custom_rows(leaf: CustomLeaf, num_envs: int, where: str) -> Callable[[Any], list[Any]]:
    """Split a batch of a registered space type with its ``iterate``, checking the count."""
    space = leaf.space
    iterate = custom_iterator(leaf, num_envs, _WHAT)

    def rows(actions: Any) -> list[Any]:
        try:
            items = list(iterate(actions))
        except (TypeError, ValueError, IndexError, KeyError) as error:
            raise InvalidAction(
                f"expected a batch of {num_envs} actions{where} of {space!r} (an element of "
                f"batch_space(space, {num_envs})), got {actions!r}: {error}"
            ) from error
        if len(items) != num_envs:
            raise InvalidAction(
                f"expected a batch of {num_envs} actions{where} of {space!r} (an element of "
                f"batch_space(space, {num_envs})), got {len(items)}: {actions!r}"
            )
        return items

    return rows


def _checker(
    layout: Layout, num_envs: int, where: str, dtypes: bool, custom: bool
) -> ActionChecker:
    """The check of a batch; ``custom`` also splits registered types to count their actions."""
    if isinstance(layout, ArrayLeaf):
        return _array_checker(layout, num_envs, where, dtypes)
    if isinstance(layout, DictNode):
        children = {
            key: _checker(child, num_envs, f"{where}[{key!r}]", dtypes, custom)
            for key, child in layout.items
        }
        keys = set(children)

        def check_dict(actions: Any) -> Any:
            if not isinstance(actions, Mapping) or set(actions) != keys:
                raise InvalidAction(
                    f"expected a batch of actions{where} as a dict with keys {sorted(keys)!r} "
                    f"(one batch of {num_envs} per key), got {actions!r}"
                )
            return {key: check(actions[key]) for key, check in children.items()}

        return check_dict
    if isinstance(layout, TupleNode):
        parts = [
            _checker(child, num_envs, f"{where}[{i}]", dtypes, custom)
            for i, child in enumerate(layout.parts)
        ]

        def check_tuple(actions: Any) -> Any:
            if not isinstance(actions, (tuple, list)) or len(actions) != len(parts):
                raise InvalidAction(
                    f"expected a batch of actions{where} as a tuple of {len(parts)} batches "
                    f"(one batch of {num_envs} per element), got {actions!r}"
                )
            return tuple(check(part) for check, part in zip(parts, actions, strict=True))

        return check_tuple
    if isinstance(layout, CustomLeaf):
        if not custom:
            return _same  # the splitter counts the actions as it splits them
        rows = _custom_rows(layout, num_envs, where)

        def check_custom(actions: Any) -> Any:
            rows(actions)
            return actions

        return check_custom
    return _sequence_checker(layout.space, num_envs, where)


def _same(actions: Any) -> Any:
    return actions


def _layout(space: Space[Any]) -> Layout:
    layout = layout_of(space)
    fixed_shape(layout, _WHAT)  # raises for a part with no batching registered
    return layout


def make_action_checker(
    space: Space[Any], num_envs: int, *, integer_dtypes: bool = True
) -> ActionChecker:
    """Build the validator of batches of actions of ``space`` for ``num_envs`` sub-envs.

    The returned function raises [`InvalidAction`][sekai.error.InvalidAction] (a
    ``ValueError``) naming the expected batch shape, or for a non-integer
    batch of an integer space when ``integer_dtypes``; else it returns the
    batch with its array leaves as numpy arrays.

    Raises:
        TypeError: A part of the space has a type with no batching registered.
    """
    return _checker(_layout(space), num_envs, "", integer_dtypes, True)


def _rows(layout: Layout, num_envs: int, where: str) -> Callable[[Any], list[Any]]:
    """Split a checked batch into per-env actions (fresh objects, never views)."""
    if isinstance(layout, ArrayLeaf):
        if layout.scalar:
            return lambda batch: batch.tolist()
        return lambda batch: list(batch.copy())
    if isinstance(layout, DictNode):
        children = {key: _rows(child, num_envs, f"{where}[{key!r}]") for key, child in layout.items}

        def rows_dict(batch: Any) -> list[Any]:
            columns = {key: split(batch[key]) for key, split in children.items()}
            return [{key: column[i] for key, column in columns.items()} for i in range(num_envs)]

        return rows_dict
    if isinstance(layout, TupleNode):
        parts = [_rows(child, num_envs, f"{where}[{i}]") for i, child in enumerate(layout.parts)]

        def rows_tuple(batch: Any) -> list[Any]:
            columns = [split(part) for split, part in zip(parts, batch, strict=True)]
            return list(zip(*columns, strict=True))

        return rows_tuple
    if isinstance(layout, CustomLeaf):
        return _custom_rows(layout, num_envs, where)
    return list


def make_action_splitter(space: Space[Any], num_envs: int) -> ActionSplitter:
    """Build the function that checks a batch and splits it into ``num_envs`` actions.

    Discrete actions become Python ints; array actions become rows copied out
    of the batch, so a sub-env that keeps an action (a delay queue, ...) never
    sees it change when the caller reuses its array. A registered space type
    is split by its ``iterate``. A bad batch raises
    [`InvalidAction`][sekai.error.InvalidAction] (a ``ValueError``).

    Raises:
        TypeError: A part of the space has a type with no batching registered,
            or a registered type has no ``iterate``.
    """
    layout = _layout(space)
    check = _checker(layout, num_envs, "", True, False)
    if isinstance(layout, ArrayLeaf):
        if layout.scalar:

            def split_discrete(actions: Any) -> list[Any]:
                return check(actions).tolist()  # type: ignore[no-any-return]

            return split_discrete

        def split_array(actions: Any) -> list[Any]:
            batch = check(actions)
            return list(batch.copy() if batch is actions else batch)

        return split_array
    rows = _rows(layout, num_envs, "")

    def split(actions: Any) -> list[Any]:
        return rows(check(actions))

    return split
