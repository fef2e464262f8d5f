"""Arguments known by two names: sekai 0.2's and this version's (private).

Where sekai 0.2 named an argument differently and both names are worth
keeping, a function takes both (one of them keyword-only) and asks `either`
which one the caller used. sekai-envs uses it too.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["either"]

_T = TypeVar("_T")


def either(
    owner: str, name: str, value: _T | None, alias: str, alias_value: _T | None
) -> _T | None:
    """The argument given as ``name`` or as ``alias``: None when neither was given.

    Args:
        owner: The function, for the message (``"sortino_ratio"``).
        name: The argument's name in the signature's place.
        value: What was passed as ``name`` (None: not given).
        alias: Its other name.
        alias_value: What was passed as ``alias`` (None: not given).

    Raises:
        TypeError: Both names were given.
    """
    if alias_value is None:
        return value
    if value is not None:
        raise TypeError(
            f"{owner}: got {name}={value!r} and {alias}={alias_value!r}, two names of the same "
            "argument; pass one"
        )
    return alias_value
