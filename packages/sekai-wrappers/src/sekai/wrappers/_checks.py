"""Argument handling and warnings shared by the wrappers.

The plain type and range checks live in `sekai._internal.validation`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from sekai._internal.validation import check_callable
from sekai.core import Env
from sekai.core.wrapper import contains_self_resetting_layer
from sekai.error import DeprecatedAPI

__all__ = ["resolve_func", "warn_if_around_autoreset"]

_F = TypeVar("_F", bound=Callable[..., Any])


def warn_if_around_autoreset(owner: str, env: Env[Any, Any]) -> None:
    """Warn when a wrapper with per-episode state is built around an ``AutoReset``.

    ``AutoReset`` resets the layers inside it only, so such a wrapper would
    carry one episode's state into the next. Called from the wrapper's
    ``__init__``: the warning points at the line that built the wrapper.
    """
    if contains_self_resetting_layer(env):
        warnings.warn(
            f"{owner} is wrapped around an AutoReset ({env}): the resets AutoReset makes "
            f"do not reach {owner}, so its per-episode state carries over from one episode "
            f"to the next. Put AutoReset outside: AutoReset({owner}(env, ...)).",
            UserWarning,
            stacklevel=3,
        )


def resolve_func(owner: str, func: _F | None, fn: _F | None) -> _F:
    """Return the callable given as ``func`` (or, deprecated, as ``fn``).

    Raises:
        TypeError: Both or neither are given, or the value is not callable.
    """
    if fn is not None:
        if func is not None:
            raise TypeError(f"{owner}: give func or the deprecated fn, not both")
        warnings.warn(
            f"{owner}(fn=...) is deprecated since sekai 0.2; use {owner}(func=...)",
            DeprecatedAPI,
            stacklevel=3,
        )
        func = fn
    if func is None:
        raise TypeError(f"{owner}: func is required (a callable), got None")
    check_callable(func, f"{owner}: func")
    return func
