"""Error helpers for the single-dispatch utilities (private)."""

from __future__ import annotations

from typing import Any

__all__: list[str] = []


def unsupported(operation: str, space: Any) -> TypeError:
    """The error raised when ``operation`` has no implementation for ``space``'s type."""
    return TypeError(
        f"{operation}() does not support {space!r} (type {type(space).__qualname__}): "
        "register an implementation with sekai.spaces.register_space_type"
    )


def not_fixed_shape(operation: str, space: Any) -> TypeError:
    """The error raised for spaces without a fixed shape (e.g. ``Sequence``)."""
    return TypeError(
        f"{operation}() needs a space with a fixed shape, got {space!r}: its samples vary in "
        "size (pad sequences of boxes into a MaskedBox, e.g. with PadSequenceObservation)"
    )
