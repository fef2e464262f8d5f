"""Conversion of spaces between sekai and Gymnasium, in both directions.

Supported: ``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary``, ``Dict``,
``Tuple`` and ``Sequence`` (each to the Gymnasium space of the same name, with
the same bounds, dtype, start values and key order), and sekai's
``MaskedBox``, which becomes a Gymnasium ``Dict`` of its two parts
(``"values"``, a ``Box``, and ``"mask"``, a ``MultiBinary``). Samples of
converted spaces have the same representation on both sides, so observations
and actions cross the adapters unchanged.

Two pieces of information have no place in a Gymnasium space and travel as
attributes of the converted space, so a round trip gives back an equal space:

- a sekai ``Sequence``'s ``max_length`` is stored as ``max_length`` on the
  Gymnasium ``Sequence`` (Gymnasium's own sequences are unbounded: converting
  one to sekai needs ``max_sequence_length``);
- the Gymnasium ``Dict`` made from a ``MaskedBox`` carries
  ``sekai_masked_box = True`` and converts back to a ``MaskedBox``.

Spaces that cannot convert (Gymnasium's ``Text``, ``Graph``, ``OneOf``, sekai
space types registered by users) raise ``TypeError`` naming the space and
its path inside the enclosing ``Dict`` / ``Tuple`` / ``Sequence``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from sekai.compat._imports import require_gymnasium
from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
)

__all__ = [
    "from_gymnasium_space",
    "space_from_gymnasium",
    "space_to_gymnasium",
    "to_gymnasium_space",
]

MASKED_BOX_MARKER = "sekai_masked_box"
"""Attribute set on the Gymnasium ``Dict`` that a ``MaskedBox`` converts to."""


def to_gymnasium_space(space: Space[Any]) -> Any:
    """Convert a sekai space to the equivalent ``gymnasium.spaces.Space``.

    Args:
        space: A sekai ``Box``, ``Discrete``, ``MultiDiscrete``,
            ``MultiBinary``, ``Dict``, ``Tuple``, ``Sequence`` or
            ``MaskedBox`` (nested at any depth).

    Returns:
        A new, unseeded Gymnasium space whose elements are exactly the
        elements of ``space``.

    Raises:
        ImportError: Gymnasium is not installed.
        TypeError: ``space`` (or a space nested in it) has no Gymnasium
            equivalent; the message gives its path.
        ValueError: Gymnasium refuses the converted space (e.g. a
            ``MultiBinary(0)``); the message gives its path.

    Examples:
        >>> from sekai.spaces import Box, Discrete, Dict
        >>> to_gymnasium_space(Dict({"x": Box(0.0, 1.0, (2,)), "k": Discrete(3)}))
        Dict('x': Box(0.0, 1.0, (2,), float32), 'k': Discrete(3))
    """
    return convert_to_gymnasium(space, "space")


def from_gymnasium_space(space: Any, *, max_sequence_length: int | None = None) -> Space[Any]:
    """Convert a ``gymnasium.spaces.Space`` to the equivalent sekai space.

    Args:
        space: A Gymnasium ``Box``, ``Discrete``, ``MultiDiscrete``,
            ``MultiBinary``, ``Dict``, ``Tuple`` or ``Sequence`` (nested at
            any depth).
        max_sequence_length: The ``max_length`` given to sekai ``Sequence``
            spaces made from Gymnasium sequences that do not carry one
            (Gymnasium's sequences have no length bound, sekai's do).

    Returns:
        A new, unseeded sekai space with the same elements. A Gymnasium
        ``Dict`` that was made from a ``MaskedBox`` becomes a ``MaskedBox``
        again.

    Raises:
        ImportError: Gymnasium is not installed.
        TypeError: A space has no sekai equivalent; the message gives its path.
        ValueError: A Gymnasium ``Sequence`` has no length bound and
            ``max_sequence_length`` is ``None``.

    Examples:
        >>> import gymnasium
        >>> from_gymnasium_space(gymnasium.spaces.MultiDiscrete([2, 3]))
        MultiDiscrete([2, 3])
    """
    return convert_from_gymnasium(space, "space", max_sequence_length)


def space_to_gymnasium(space: Space[Any]) -> Any:
    """Convert a sekai space to a Gymnasium space (0.2's name of `to_gymnasium_space`).

    Examples:
        >>> from sekai.spaces import Discrete
        >>> space_to_gymnasium(Discrete(3))
        Discrete(3)
    """
    return convert_to_gymnasium(space, "space")


def space_from_gymnasium(space: Any, *, max_sequence_length: int | None = None) -> Space[Any]:
    """Convert a Gymnasium space to a sekai space (0.2's name of `from_gymnasium_space`).

    Examples:
        >>> import gymnasium
        >>> space_from_gymnasium(gymnasium.spaces.Discrete(3))
        Discrete(3)
    """
    return convert_from_gymnasium(space, "space", max_sequence_length)


def convert_to_gymnasium(space: Space[Any], path: str) -> Any:
    """`to_gymnasium_space`, naming ``path`` (e.g. ``"observation_space"``) in errors."""
    spaces = require_gymnasium().spaces
    return _to_gym(spaces, space, path)


def convert_from_gymnasium(space: Any, path: str, max_sequence_length: int | None) -> Space[Any]:
    """`from_gymnasium_space`, naming ``path`` in errors."""
    spaces = require_gymnasium().spaces
    return _from_gym(spaces, space, path, max_sequence_length)


def _to_gym(gs: Any, space: Space[Any], path: str) -> Any:
    if isinstance(space, Box):
        return _build(gs.Box, space, path, space.low, space.high, space.shape, space.dtype)
    if isinstance(space, Discrete):
        return _build(gs.Discrete, space, path, space.n, start=space.start)
    if isinstance(space, MultiDiscrete):
        return _build(
            gs.MultiDiscrete,
            space,
            path,
            np.array(space.nvec),
            dtype=space.dtype,
            start=np.array(space.start),
        )
    if isinstance(space, MultiBinary):
        return _build(gs.MultiBinary, space, path, space.n)
    if isinstance(space, MaskedBox):
        converted = gs.Dict(
            OrderedDict(
                values=_to_gym(gs, space["values"], f"{path}['values']"),
                mask=_to_gym(gs, space["mask"], f"{path}['mask']"),
            )
        )
        setattr(converted, MASKED_BOX_MARKER, True)
        return converted
    if isinstance(space, Dict):
        return gs.Dict(
            OrderedDict(
                (key, _to_gym(gs, sub, f"{path}[{key!r}]")) for key, sub in space.spaces.items()
            )
        )
    if isinstance(space, Tuple):
        return gs.Tuple(
            [_to_gym(gs, sub, f"{path}[{index}]") for index, sub in enumerate(space.spaces)]
        )
    if isinstance(space, Sequence):
        feature = _to_gym(gs, space.feature_space, f"{path}.feature_space")
        converted = gs.Sequence(feature, stack=space.stack)
        converted.max_length = space.max_length
        return converted
    raise TypeError(
        f"cannot convert {path} = {space!r} to a Gymnasium space: {type(space).__name__} has no "
        "Gymnasium equivalent (supported: Box, Discrete, MultiDiscrete, MultiBinary, Dict, "
        "Tuple, Sequence, MaskedBox)"
    )


def _build(factory: Any, space: Space[Any], path: str, *args: Any, **kwargs: Any) -> Any:
    """Call a Gymnasium space constructor; its refusals name the sekai space and path."""
    try:
        return factory(*args, **kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"cannot convert {path} = {space!r} to a Gymnasium space: Gymnasium refuses it "
            f"({error})"
        ) from error


def _from_gym(gs: Any, space: Any, path: str, max_sequence_length: int | None) -> Space[Any]:
    if isinstance(space, gs.Box):
        if space.dtype.kind not in "iuf":
            raise TypeError(
                f"cannot convert {path} = {space!r} to a sekai space: sekai boxes hold integers "
                f"or floats, got dtype {space.dtype}"
            )
        return Box(space.low, space.high, space.shape, dtype=space.dtype)
    if isinstance(space, gs.Discrete):
        return Discrete(int(space.n), start=int(space.start))
    if isinstance(space, gs.MultiDiscrete):
        return MultiDiscrete(space.nvec, start=space.start, dtype=space.dtype)
    if isinstance(space, gs.MultiBinary):
        n = space.n
        return MultiBinary(int(n) if isinstance(n, (int, np.integer)) else tuple(int(v) for v in n))
    if isinstance(space, gs.Dict):
        if getattr(space, MASKED_BOX_MARKER, False):
            masked = _masked_box(gs, space)
            if masked is not None:
                return masked
        return Dict(
            [
                (key, _from_gym(gs, sub, f"{path}[{key!r}]", max_sequence_length))
                for key, sub in space.spaces.items()
            ]
        )
    if isinstance(space, gs.Tuple):
        return Tuple(
            [
                _from_gym(gs, sub, f"{path}[{index}]", max_sequence_length)
                for index, sub in enumerate(space.spaces)
            ]
        )
    if isinstance(space, gs.Sequence):
        feature = _from_gym(gs, space.feature_space, f"{path}.feature_space", max_sequence_length)
        max_length = getattr(space, "max_length", None)
        if max_length is None:
            max_length = max_sequence_length
        if max_length is None:
            raise ValueError(
                f"cannot convert {path} = {space!r} to a sekai Sequence: Gymnasium sequences "
                "have no length bound and sekai's need one; pass max_sequence_length=<int>"
            )
        return Sequence(feature, max_length=max_length, stack=bool(space.stack))
    raise TypeError(
        f"cannot convert {path} = {space!r} to a sekai space: {type(space).__name__} has no "
        "sekai equivalent (supported: Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple, "
        "Sequence)"
    )


def _masked_box(gs: Any, space: Any) -> MaskedBox | None:
    """The MaskedBox a marked Gymnasium Dict came from, or None if it no longer fits."""
    values = space.spaces.get("values")
    mask = space.spaces.get("mask")
    if (
        len(space.spaces) != 2
        or not isinstance(values, gs.Box)
        or not isinstance(mask, gs.MultiBinary)
        or len(values.shape) < 1
        or mask.shape != values.shape[:1]
    ):
        return None
    low, high = values.low, values.high
    if values.shape[0] > 0 and not (np.all(low == low[:1]) and np.all(high == high[:1])):
        return None
    element_shape = values.shape[1:]
    element_low = low[0] if values.shape[0] > 0 else np.zeros(element_shape, values.dtype)
    element_high = high[0] if values.shape[0] > 0 else np.zeros(element_shape, values.dtype)
    return MaskedBox(
        element_low, element_high, element_shape, max_size=values.shape[0], dtype=values.dtype
    )
