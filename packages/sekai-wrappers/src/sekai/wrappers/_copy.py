"""Copies of actions and observations that a wrapper keeps for a later step."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = ["copier_for"]


def copier_for(space: Space[Any]) -> Callable[[Any], Any]:
    """Return a function copying values of ``space``, chosen once for the space.

    A wrapper that holds on to a value for a later step (an action to execute
    later or again, an observation to stack or to return late) must not keep
    the caller's object: a policy that writes each action into the same
    array, or an env that writes each observation into the same buffer, would
    change the kept value too. Discrete values are ints and need no copy;
    array values are copied with ``ndarray.copy``; Dicts (a MaskedBox
    included) and Tuples are copied part by part; anything else (Sequence,
    custom spaces) is deep-copied.
    """
    if isinstance(space, Discrete):
        return _same
    if isinstance(space, (Box, MultiBinary, MultiDiscrete)):
        return _copy_array
    if isinstance(space, Dict):
        return _DictCopier({key: copier_for(sub) for key, sub in space.spaces.items()})
    if isinstance(space, Tuple):
        return _TupleCopier([copier_for(sub) for sub in space.spaces])
    return copy.deepcopy


def _same(value: Any) -> Any:
    return value


def _copy_array(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    return copy.deepcopy(value)


class _DictCopier:
    """Copies a dict value entry by entry (unknown entries are deep-copied)."""

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
