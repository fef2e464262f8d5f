"""Checking (and splitting) batches of actions.

What a batch must look like depends on the action space only, so the checks
are built once per vector env, as closures chosen by space type; each step
then pays for one shape comparison per array leaf. A bad batch raises
:class:`ValueError` naming the expected batch shape before any sub-env is
stepped.

* Box, Discrete, MultiDiscrete, MultiBinary: an array (or nested list) of
  shape ``(num_envs, *space.shape)``; for the three integer spaces, of an
  integer dtype (bool too for MultiBinary), else
  :class:`~sekai.error.InvalidAction` (a float batch would be truncated
  silently by the sub-envs). A native vector env checks only the shape: it
  validates the values of its actions itself.
* Dict / Tuple: a mapping / tuple of such batches, leaf by leaf (the layout of
  ``batch_space(space, num_envs)``).
* Any other space: a sequence of ``num_envs`` actions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence as SequenceABC
from typing import Any

import numpy as np

from sekai.error import InvalidAction
from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = ["ActionChecker", "ActionSplitter", "make_action_checker", "make_action_splitter"]

ActionChecker = Callable[[Any], Any]
"""Validates a batch of actions and returns it (array leaves as numpy arrays)."""

ActionSplitter = Callable[[Any], list[Any]]
"""Validates a batch of actions and returns one action per sub-env."""

_ARRAY_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _integer_kinds(space: Space[Any]) -> str:
    """The numpy dtype kinds a batch of ``space``'s actions may have ("" for any kind)."""
    if isinstance(space, MultiBinary):
        return "iub"
    if isinstance(space, (Discrete, MultiDiscrete)):
        return "iu"
    return ""


def _array_checker(
    space: Space[Any], num_envs: int, where: str, dtypes: bool
) -> Callable[[Any], Any]:
    shape = (num_envs, *(space.shape or ()))
    expected = _shape_text(shape)
    kinds = _integer_kinds(space) if dtypes else ""

    def check(actions: Any) -> Any:
        if type(actions) is not np.ndarray:
            try:
                actions = np.asarray(actions)
            except ValueError as error:  # ragged nested lists
                raise ValueError(
                    f"expected a batch of actions{where} of shape {expected} "
                    f"(num_envs={num_envs}, action shape {space.shape!r}), got {actions!r}"
                ) from error
        if actions.shape != shape:
            raise ValueError(
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


def _sequence_checker(space: Space[Any], num_envs: int, where: str) -> Callable[[Any], Any]:
    def check(actions: Any) -> Any:
        if isinstance(actions, (str, bytes, Mapping)) or not isinstance(
            actions, (SequenceABC, np.ndarray)
        ):
            raise ValueError(
                f"expected a batch of actions{where} as a sequence of {num_envs} elements "
                f"of {space!r} (batch shape ({num_envs},)), got {actions!r}"
            )
        if len(actions) != num_envs:
            raise ValueError(
                f"expected a batch of actions{where} of length {num_envs} (batch shape "
                f"({num_envs},)), got {len(actions)}: {actions!r}"
            )
        return actions

    return check


def _checker(
    space: Space[Any], num_envs: int, where: str, dtypes: bool = True
) -> Callable[[Any], Any]:
    if isinstance(space, _ARRAY_SPACES):
        return _array_checker(space, num_envs, where, dtypes)
    if isinstance(space, Dict):
        children = {
            key: _checker(child, num_envs, f"{where}[{key!r}]", dtypes)
            for key, child in space.spaces.items()
        }
        keys = set(children)

        def check_dict(actions: Any) -> Any:
            if not isinstance(actions, Mapping) or set(actions) != keys:
                raise ValueError(
                    f"expected a batch of actions{where} as a dict with keys {sorted(keys)!r} "
                    f"(one batch of {num_envs} per key), got {actions!r}"
                )
            return {key: check(actions[key]) for key, check in children.items()}

        return check_dict
    if isinstance(space, Tuple):
        parts = [
            _checker(child, num_envs, f"{where}[{i}]", dtypes)
            for i, child in enumerate(space.spaces)
        ]

        def check_tuple(actions: Any) -> Any:
            if not isinstance(actions, (tuple, list)) or len(actions) != len(parts):
                raise ValueError(
                    f"expected a batch of actions{where} as a tuple of {len(parts)} batches "
                    f"(one batch of {num_envs} per element), got {actions!r}"
                )
            return tuple(check(part) for check, part in zip(parts, actions, strict=True))

        return check_tuple
    return _sequence_checker(space, num_envs, where)


def make_action_checker(
    space: Space[Any], num_envs: int, *, integer_dtypes: bool = True
) -> ActionChecker:
    """Build the validator of batches of actions of ``space`` for ``num_envs`` sub-envs.

    The returned function raises :class:`ValueError` naming the expected
    batch shape (:class:`~sekai.error.InvalidAction`, a ValueError, for a
    non-integer batch of an integer space when ``integer_dtypes``), or
    returns the batch with its array leaves as numpy arrays.
    """
    return _checker(space, num_envs, "", integer_dtypes)


def _rows(space: Space[Any], num_envs: int) -> Callable[[Any], list[Any]]:
    """Split a checked batch into per-env actions (fresh objects, never views)."""
    if isinstance(space, Discrete):
        return lambda batch: batch.tolist()
    if isinstance(space, _ARRAY_SPACES):
        return lambda batch: list(batch.copy())
    if isinstance(space, Dict):
        children = {key: _rows(child, num_envs) for key, child in space.spaces.items()}

        def rows_dict(batch: Any) -> list[Any]:
            columns = {key: split(batch[key]) for key, split in children.items()}
            return [{key: column[i] for key, column in columns.items()} for i in range(num_envs)]

        return rows_dict
    if isinstance(space, Tuple):
        parts = [_rows(child, num_envs) for child in space.spaces]

        def rows_tuple(batch: Any) -> list[Any]:
            columns = [split(part) for split, part in zip(parts, batch, strict=True)]
            return list(zip(*columns, strict=True))

        return rows_tuple
    return list


def make_action_splitter(space: Space[Any], num_envs: int) -> ActionSplitter:
    """Build the function that checks a batch and splits it into ``num_envs`` actions.

    Discrete actions become Python ints; array actions become rows copied out
    of the batch, so a sub-env that keeps an action (a delay queue, ...) never
    sees it change when the caller reuses its array.
    """
    check = _checker(space, num_envs, "")
    rows = _rows(space, num_envs)
    if isinstance(space, _ARRAY_SPACES):
        if isinstance(space, Discrete):

            def split_discrete(actions: Any) -> list[Any]:
                return check(actions).tolist()  # type: ignore[no-any-return]

            return split_discrete

        def split_array(actions: Any) -> list[Any]:
            batch = check(actions)
            return list(batch.copy() if batch is actions else batch)

        return split_array

    def split(actions: Any) -> list[Any]:
        return rows(check(actions))

    return split
