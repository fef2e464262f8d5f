"""Importing the ``"module:attr"`` references used as entry points."""

from __future__ import annotations

import importlib
import re
import reprlib
from collections.abc import Callable
from typing import Any

__all__ = ["callable_name", "load_reference", "validate_reference"]

_REFERENCE_RE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def validate_reference(reference: str, what: str) -> str:
    """Check that ``reference`` has the form ``"module:attr"`` and return it.

    Args:
        reference: The string to check.
        what: What the reference is for, used in the error message.

    Raises:
        ValueError: If the string is not of the form ``"package.module:attr"``.
    """
    if _REFERENCE_RE.fullmatch(reference) is None:
        raise ValueError(
            f"{what} must be a callable or a string of the form 'package.module:attr'; "
            f"got {reference!r}"
        )
    return reference


def load_reference(reference: str | Callable[..., Any], what: str) -> Callable[..., Any]:
    """Return the callable a ``"module:attr"`` reference names (callables pass through).

    The module is imported at this call, not before, so registering an environment
    never imports its implementation.

    Raises:
        ValueError: If the string is malformed.
        ImportError: If the module cannot be imported.
        AttributeError: If the module has no such attribute.
        TypeError: If the attribute is not callable.
    """
    if not isinstance(reference, str):
        return reference
    module_name, _, attr_path = validate_reference(reference, what).partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if module_name != missing and not module_name.startswith(f"{missing}."):
            raise  # a dependency of the module is missing: its own error says which
        raise ModuleNotFoundError(
            f"{what} {reference!r}: no module named {missing!r} (is the package that "
            "provides it installed, and is the module path spelled right?)",
            name=missing,
        ) from exc
    for attr in attr_path.split("."):
        try:
            obj = getattr(obj, attr)
        except AttributeError:
            raise AttributeError(
                f"{what} {reference!r}: module {module_name!r} has no attribute {attr_path!r}"
            ) from None
    if not callable(obj):
        raise TypeError(
            f"{what} {reference!r} names {reprlib.repr(obj)} (a {type(obj).__name__}), "
            "which is not callable; expected a class or function"
        )
    return obj  # type: ignore[no-any-return]


def callable_name(obj: str | Callable[..., Any] | None) -> str | None:
    """A readable ``module:qualname`` for a callable (strings and None pass through)."""
    if obj is None or isinstance(obj, str):
        return obj
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or repr(obj)
    return f"{module}:{qualname}" if module else str(qualname)
