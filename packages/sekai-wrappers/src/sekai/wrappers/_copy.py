"""Copies of actions that a wrapper keeps for a later step."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from sekai.spaces import Box, Discrete, MultiBinary, MultiDiscrete, Space

__all__ = ["copier_for"]


def copier_for(space: Space[Any]) -> Callable[[Any], Any]:
    """Return a function copying values of ``space``, chosen once for the space.

    A wrapper that holds on to an action (to execute it later, or again) must
    not keep the caller's object: a policy that writes each action into the
    same array would change the kept action too. Discrete actions are ints and
    need no copy; array actions are copied with ``ndarray.copy``; anything else
    (Dict, Tuple, custom spaces) is deep-copied.
    """
    if isinstance(space, Discrete):
        return _same
    if isinstance(space, (Box, MultiBinary, MultiDiscrete)):
        return _copy_array
    return copy.deepcopy


def _same(value: Any) -> Any:
    return value


def _copy_array(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    return copy.deepcopy(value)
