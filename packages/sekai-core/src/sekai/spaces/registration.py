"""Adding a new space type to every utility: `register_space_type`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

from numpy.typing import NDArray

from sekai.spaces import batching, flattening
from sekai.spaces.box import Box
from sekai.spaces.jsonable import SpaceDecoder, _register_decoder
from sekai.spaces.space import _REGISTERED_NAMES, Space

__all__ = ["register_space_type"]

_SpaceT = TypeVar("_SpaceT", bound=Space[Any])


@overload
def register_space_type(
    name: str,
    cls: None = None,
    *,
    from_json: SpaceDecoder | None = None,
    flatdim: Callable[[Any], int] | None = None,
    flatten: Callable[[Any, Any], NDArray[Any]] | None = None,
    unflatten: Callable[[Any, NDArray[Any]], Any] | None = None,
    flatten_space: Callable[[Any], Box] | None = None,
    batch_space: Callable[[Any, int], Space[Any]] | None = None,
    concatenate: Callable[[Any, Sequence[Any], Any], Any] | None = None,
    iterate: Callable[[Any, Any], Iterator[Any]] | None = None,
    replace: bool = False,
) -> Callable[[type[_SpaceT]], type[_SpaceT]]: ...
@overload
def register_space_type(
    name: str,
    cls: type[_SpaceT],
    *,
    from_json: SpaceDecoder | None = None,
    flatdim: Callable[[Any], int] | None = None,
    flatten: Callable[[Any, Any], NDArray[Any]] | None = None,
    unflatten: Callable[[Any, NDArray[Any]], Any] | None = None,
    flatten_space: Callable[[Any], Box] | None = None,
    batch_space: Callable[[Any, int], Space[Any]] | None = None,
    concatenate: Callable[[Any, Sequence[Any], Any], Any] | None = None,
    iterate: Callable[[Any, Any], Iterator[Any]] | None = None,
    replace: bool = False,
) -> type[_SpaceT]: ...
@overload
def register_space_type(
    name: type[_SpaceT],
    cls: None = None,
    *,
    from_json: SpaceDecoder | None = None,
    flatdim: Callable[[Any], int] | None = None,
    flatten: Callable[[Any, Any], NDArray[Any]] | None = None,
    unflatten: Callable[[Any, NDArray[Any]], Any] | None = None,
    flatten_space: Callable[[Any], Box] | None = None,
    batch_space: Callable[[Any, int], Space[Any]] | None = None,
    concatenate: Callable[[Any, Sequence[Any], Any], Any] | None = None,
    iterate: Callable[[Any, Any], Iterator[Any]] | None = None,
    replace: bool = False,
) -> type[_SpaceT]: ...
def register_space_type(
    name: str | type[Space[Any]],
    cls: type[Space[Any]] | None = None,
    *,
    from_json: SpaceDecoder | None = None,
    flatdim: Callable[[Any], int] | None = None,
    flatten: Callable[[Any, Any], NDArray[Any]] | None = None,
    unflatten: Callable[[Any, NDArray[Any]], Any] | None = None,
    flatten_space: Callable[[Any], Box] | None = None,
    batch_space: Callable[[Any, int], Space[Any]] | None = None,
    concatenate: Callable[[Any, Sequence[Any], Any], Any] | None = None,
    iterate: Callable[[Any, Any], Iterator[Any]] | None = None,
    replace: bool = False,
) -> Any:
    """Teach the space utilities about a new space type defined outside sekai.

    ``register_space_type(name, cls)`` makes
    [`space_from_jsonable`][sekai.spaces.space_from_jsonable] rebuild descriptions whose
    ``"type"`` is ``name`` with ``cls.from_jsonable(data)`` (or with
    ``from_json(data)`` when given); ``cls.to_jsonable()`` should write that
    ``"type"``. A subclass of a built-in space may keep the decoder it
    inherits: it accepts the registered name, so a ``Box`` subclass whose
    ``to_jsonable()`` writes ``"type": name`` comes back as that subclass
    (inside a ``Dict`` or ``Tuple`` too). Given the name alone
    (``register_space_type(name)``, sekai 0.2's form), it returns a class
    decorator that registers the class it decorates. The name may be left
    out (``register_space_type(cls, ...)``) to register utilities only.

    Each utility function given becomes the implementation of the utility of
    the same name for ``cls`` and its subclasses (through
    `functools.singledispatch`); utilities left out keep raising a
    ``TypeError`` that names the space. Implementations receive the space
    first, exactly like the public functions (``batch_space`` gets the batch
    size as an already validated int).

    Args:
        name: The ``"type"`` of the JSON descriptions of ``cls``; or the class
            itself when no name is registered.
        cls: The new [`Space`][sekai.spaces.Space] subclass.
        from_json: Rebuilds a space from its JSON description (default:
            ``cls.from_jsonable``, which needs ``cls`` to define the
            classmethod ``from_jsonable(data)`` or ``from_json_dict(data)``).
        flatdim: Implementation of [`flatdim`][sekai.spaces.flatdim].
        flatten: Implementation of [`flatten`][sekai.spaces.flatten].
        unflatten: Implementation of [`unflatten`][sekai.spaces.unflatten].
        flatten_space: Implementation of [`flatten_space`][sekai.spaces.flatten_space].
        batch_space: Implementation of [`batch_space`][sekai.spaces.batch_space].
            With ``concatenate``, it lets the vector envs batch observations
            of the type (a type without them is refused when a vector env is
            built).
        concatenate: Implementation of [`concatenate`][sekai.spaces.concatenate];
            called with ``out=None`` or a batch it made before.
        iterate: Implementation of [`iterate`][sekai.spaces.iterate], which the
            vector envs use to split a batch of actions. When ``batch_space``
            returns a space of another type (e.g. a Box), the vector envs
            call it with the space of one sample, so it yields samples of
            the type rather than rows of the Box.
        replace: Allow replacing a JSON decoder already registered under ``name``.

    Returns:
        ``cls``; or, when only a name is given, a decorator doing the
        registration and returning the class it decorates.

    Raises:
        TypeError: ``cls`` is not a Space subclass, or a name is given for a
            class that cannot be rebuilt from JSON and no ``from_json``.
        ValueError: ``from_json`` is given without a name, or ``name`` is
            taken and ``replace`` is false.

    Examples:
        >>> import numpy as np
        >>> from sekai.spaces import Space, flatdim
        >>> class Angle(Space[float]):
        ...     def sample(self, mask=None):
        ...         return float(self.rng.uniform(-np.pi, np.pi))
        ...     def contains(self, x):
        ...         return isinstance(x, float) and -np.pi <= x <= np.pi
        ...     def to_json_dict(self):
        ...         return {"type": "example.Angle"}
        ...     @classmethod
        ...     def from_json_dict(cls, data):
        ...         return cls()
        >>> _ = register_space_type("example.Angle", Angle, flatdim=lambda space: 1)
        >>> flatdim(Angle())
        1
    """
    utilities: dict[str, Any] = {
        "flatdim": flatdim,
        "flatten": flatten,
        "unflatten": unflatten,
        "flatten_space": flatten_space,
        "batch_space": batch_space,
        "concatenate": concatenate,
        "iterate": iterate,
    }
    if isinstance(name, str) and cls is None:

        def register(decorated: type[_SpaceT]) -> type[_SpaceT]:
            register_space_type(name, decorated, from_json=from_json, replace=replace, **utilities)
            return decorated

        return register
    type_name: str | None
    if isinstance(name, str):
        type_name = name
    elif cls is None:
        type_name, cls = None, name
    else:
        raise TypeError(
            f"register_space_type: the name must be a str, got {name!r} (the form is "
            "register_space_type(name, cls, ...) or register_space_type(cls, ...))"
        )
    if not isinstance(cls, type) or not issubclass(cls, Space):
        raise TypeError(f"register_space_type: cls must be a Space subclass, got {cls!r}")
    if type_name is None and from_json is not None:
        raise ValueError(
            "register_space_type: from_json needs the name it decodes: "
            "register_space_type(name, cls, from_json=...)"
        )
    if type_name is not None:
        if from_json is None:
            if not _has_decoder(cls):
                raise TypeError(
                    f"register_space_type: {cls.__name__} cannot be rebuilt from JSON; define "
                    "the classmethod from_jsonable(data) (or from_json_dict(data)) or pass "
                    "from_json=..."
                )
            from_json = cls.from_jsonable
        _register_decoder(type_name, from_json, replace=replace)
        _REGISTERED_NAMES[type_name] = cls
    dispatchers: dict[str, Any] = {
        "flatdim": flattening.flatdim,
        "flatten": flattening.flatten,
        "unflatten": flattening.unflatten,
        "flatten_space": flattening.flatten_space,
        "batch_space": batching._batch_space,
        "concatenate": batching.concatenate,
        "iterate": batching.iterate,
    }
    for utility, implementation in utilities.items():
        if implementation is not None:
            dispatchers[utility].register(cls, implementation)
    return cls


def _has_decoder(cls: type[Space[Any]]) -> bool:
    """Whether ``cls`` (or a base other than Space) defines a JSON decoder classmethod."""
    for klass in cls.__mro__:
        if klass is Space:
            return False
        if "from_jsonable" in klass.__dict__ or "from_json_dict" in klass.__dict__:
            return True
    return False
