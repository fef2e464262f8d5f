"""Adding a new space type to every utility: :func:`register_space_type`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from numpy.typing import NDArray

from sekai.spaces import batching, flattening
from sekai.spaces.box import Box
from sekai.spaces.jsonable import SpaceDecoder, _register_decoder
from sekai.spaces.space import Space

__all__ = ["register_space_type"]


def register_space_type(
    cls: type[Space[Any]],
    *,
    name: str | None = None,
    from_json: SpaceDecoder | None = None,
    flatdim: Callable[[Any], int] | None = None,
    flatten: Callable[[Any, Any], NDArray[Any]] | None = None,
    unflatten: Callable[[Any, NDArray[Any]], Any] | None = None,
    flatten_space: Callable[[Any], Box] | None = None,
    batch_space: Callable[[Any, int], Space[Any]] | None = None,
    concatenate: Callable[[Any, Sequence[Any], Any], Any] | None = None,
    iterate: Callable[[Any, Any], Iterator[Any]] | None = None,
    replace: bool = False,
) -> type[Space[Any]]:
    """Teach every space utility about a new space type defined outside sekai.

    Each given function becomes the implementation of the utility of the same
    name for ``cls`` and its subclasses (through
    :func:`functools.singledispatch`); utilities left out keep raising a
    ``TypeError`` that names the space. Implementations receive the space
    first, exactly like the public functions (``batch_space`` gets the batch
    size as an already validated int).

    Args:
        cls: The new :class:`~sekai.spaces.Space` subclass.
        name: The ``"type"`` its ``to_json_dict()`` writes; required together
            with ``from_json``.
        from_json: Rebuilds a space from its JSON description, for
            :func:`~sekai.spaces.space_from_jsonable`.
        flatdim: Implementation of :func:`~sekai.spaces.flatdim`.
        flatten: Implementation of :func:`~sekai.spaces.flatten`.
        unflatten: Implementation of :func:`~sekai.spaces.unflatten`.
        flatten_space: Implementation of :func:`~sekai.spaces.flatten_space`.
        batch_space: Implementation of :func:`~sekai.spaces.batch_space`.
            With ``concatenate``, it lets the vector envs batch observations
            of the type (a type without them is refused when a vector env is
            built).
        concatenate: Implementation of :func:`~sekai.spaces.concatenate`;
            called with ``out=None`` or a batch it made before.
        iterate: Implementation of :func:`~sekai.spaces.iterate`, which the
            vector envs use to split a batch of actions. When ``batch_space``
            returns a space of another type (e.g. a Box), the vector envs
            call it with the space of one sample, so it yields samples of
            the type rather than rows of the Box.
        replace: Allow replacing a JSON decoder already registered under ``name``.

    Returns:
        ``cls``, so the call can follow the class definition.

    Raises:
        TypeError: ``cls`` is not a Space subclass.
        ValueError: Only one of ``name`` and ``from_json`` is given, or ``name``
            is taken and ``replace`` is false.

    Example:
        >>> import numpy as np
        >>> from sekai.spaces import Space, flatdim
        >>> class Angle(Space[float]):
        ...     def sample(self, mask=None):
        ...         return float(self.rng.uniform(-np.pi, np.pi))
        ...     def contains(self, x):
        ...         return isinstance(x, float) and -np.pi <= x <= np.pi
        >>> _ = register_space_type(Angle, flatdim=lambda space: 1)
        >>> flatdim(Angle())
        1
    """
    if not isinstance(cls, type) or not issubclass(cls, Space):
        raise TypeError(f"register_space_type: cls must be a Space subclass, got {cls!r}")
    if (name is None) != (from_json is None):
        raise ValueError("register_space_type: give both name and from_json, or neither")
    if name is not None and from_json is not None:
        _register_decoder(name, from_json, replace=replace)
    targets: list[tuple[Any, Callable[..., Any] | None]] = [
        (flattening.flatdim, flatdim),
        (flattening.flatten, flatten),
        (flattening.unflatten, unflatten),
        (flattening.flatten_space, flatten_space),
        (batching._batch_space, batch_space),
        (batching.concatenate, concatenate),
        (batching.iterate, iterate),
    ]
    for dispatcher, implementation in targets:
        if implementation is not None:
            dispatcher.register(cls, implementation)
    return cls
