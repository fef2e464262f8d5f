"""Argument checks and warnings shared by the wrappers."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from sekai.core import Env
from sekai.core.wrapper import contains_self_resetting_layer
from sekai.error import DeprecatedAPI

__all__ = [
    "check_choice",
    "check_int",
    "check_real",
    "resolve_func",
    "warn_if_around_autoreset",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def check_int(value: object, owner: str, name: str, *, minimum: int) -> int:
    """Return ``value`` as an int, or raise naming ``owner`` and ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{owner}: {name} must be an int >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{owner}: {name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def check_real(value: object, owner: str, name: str) -> float:
    """Return ``value`` as a float that is not NaN, or raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{owner}: {name} must not be NaN, got {value!r}")
    return number


def check_choice(value: object, owner: str, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError``."""
    if not isinstance(value, str) or value not in choices:
        expected = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{owner}: {name} must be {expected}, got {value!r}")
    return value


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
    if not callable(func):
        raise TypeError(f"{owner}: func must be callable, got {func!r}")
    return func
