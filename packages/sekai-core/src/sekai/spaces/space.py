"""The `Space` base class shared by every observation and action space."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MethodType
from typing import Any, Generic, TypeVar, overload

import numpy as np

from sekai.utils.seeding import SeededRNG, SeedType, child_seeds, root_seed

__all__ = ["SeedType", "Space", "T", "T_cov"]

T_cov = TypeVar("T_cov", covariant=True)
"""The type of the samples of a space (covariant: a ``Box`` is a ``Space[NDArray]``)."""

T = TypeVar("T")
"""A type variable for sample types in annotations (sekai 0.2's name; ``Space`` itself uses
`T_cov`)."""

_S = TypeVar("_S", bound="Space[Any]")


def _is_description(data: object) -> bool:
    """Whether ``data`` is the JSON description of a space (a mapping with a str ``"type"``)."""
    return isinstance(data, Mapping) and isinstance(data.get("type"), str)


def _from_jsonable_on_class(cls: type[_S], data: Mapping[str, Any]) -> _S:
    if cls is Space:
        from sekai.spaces.jsonable import space_from_jsonable

        return space_from_jsonable(data)  # type: ignore[return-value]
    if not isinstance(data, Mapping):
        raise TypeError(
            f"{cls.__name__}.from_jsonable expects a space description (a dict with a 'type' "
            f"key, from to_jsonable()), got {data!r}"
        )
    return cls.from_json_dict(dict(data))  # type: ignore[return-value]


def _from_jsonable_on_instance(self: Space[Any], data: Any) -> Any:
    if _is_description(data):
        return type(self).from_jsonable(data)
    return self._samples_from_jsonable(data)


class _FromJsonable:
    """The ``from_jsonable`` attribute of spaces: a classmethod, and a sample converter.

    ``Box.from_jsonable(description)`` (on the class, as in sekai 0.2) rebuilds
    a space from its JSON description; ``space.from_jsonable(data)`` on an
    instance does the same when ``data`` is a description, and otherwise
    converts JSON data made by ``space.to_jsonable(samples)`` back into
    samples (Gymnasium's meaning).
    """

    @overload
    def __get__(self, instance: None, owner: type[_S]) -> Callable[[Mapping[str, Any]], _S]: ...
    @overload
    def __get__(
        self, instance: Space[Any], owner: type[Any] | None = None
    ) -> Callable[[Any], Any]: ...
    def __get__(self, instance: Space[Any] | None, owner: type[Any] | None = None) -> Any:
        if instance is None:
            return MethodType(_from_jsonable_on_class, owner)
        return MethodType(_from_jsonable_on_instance, instance)


def _named(function: Callable[..., Any], doc: str) -> None:
    function.__name__ = "from_jsonable"
    function.__qualname__ = "Space.from_jsonable"
    function.__doc__ = doc


_named(
    _from_jsonable_on_class,
    "Rebuild a space of this class from its JSON description (see ``to_jsonable()``).",
)
_named(
    _from_jsonable_on_instance,
    "Rebuild a space from its JSON description, or convert JSON data back into samples.",
)


class Space(SeededRNG, Generic[T_cov]):
    """The set of valid observations or actions of an environment.

    A space knows how to draw random elements (`sample`), how to tell
    whether a value belongs to it (`contains`, also ``value in space``)
    and what its zero point is (`zero`). Randomness follows sekai's seeding
    contract (see [`SeededRNG`][sekai.core.SeededRNG]): `seed` with an
    int re-seeds, with a `numpy.random.Generator` adopts it, with ``None``
    keeps the current stream.

    Subclasses implement `sample`, `contains`, `zero`,
    ``__eq__``, ``__hash__``, ``__repr__``, `to_json_dict` and the
    classmethod `from_json_dict`; composite spaces also override
    `seed` to seed their children. The base class compares by identity.

    JSON, as in sekai 0.2: ``space.to_jsonable()`` describes the space (a dict
    whose ``"type"`` names it) and the classmethod ``Space.from_jsonable(data)``
    (or ``Box.from_jsonable(data)``, ...) rebuilds it. Given a list of samples,
    ``space.to_jsonable(samples)`` converts them to JSON data, and
    ``space.from_jsonable(data)`` on an instance converts such data back (the
    form Gymnasium uses).

    Args:
        shape: Shape of every sample, or ``None`` for spaces without one fixed
            shape (``Dict``, ``Tuple``, ``Sequence``).
        dtype: dtype of every sample, or ``None`` when it does not apply.
        seed: Optional seed applied right away (see `seed`).
    """

    # Class-level defaults keep subclasses that skip ``super().__init__()`` working.
    _shape: tuple[int, ...] | None = None
    _dtype: np.dtype[Any] | None = None

    def __init__(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: np.dtype[Any] | None = None,
        seed: SeedType = None,
    ) -> None:
        self._shape = shape
        self._dtype = dtype
        if seed is not None:
            self.seed(seed)

    @property
    def shape(self) -> tuple[int, ...] | None:
        """Shape of every sample, or ``None`` for composite and variable-size spaces."""
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any] | None:
        """The dtype of every sample, or ``None`` when the space has no single dtype."""
        return self._dtype

    @property
    def np_random(self) -> np.random.Generator:
        """Read-only alias of `rng`, for code written against Gymnasium."""
        return self.rng

    @property
    def is_flattenable(self) -> bool:
        """Whether [`flatten`][sekai.spaces.flatten] can turn samples into a 1-D array."""
        return True

    def seed(self, seed: SeedType = None) -> int:
        """Seed the space's random generator (and its children's, for composite spaces).

        Args:
            seed: An int re-seeds; a ``Generator`` is adopted as is; ``None``
                leaves the current stream untouched.

        Returns:
            The seed of the space's generator after the call: ``seed`` itself
            for an int, the entropy a ``None`` seed drew on first use, the
            root entropy of an adopted Generator's seed sequence (-1 if it has
            none). ``space.seed(space.seed())`` therefore restarts the space's
            own stream.
        """
        self._set_rng(seed)
        return root_seed(self.rng)

    def sample(self, mask: Any | None = None) -> T_cov:
        """Draw a random element of the space.

        Args:
            mask: Optional constraint on the sample; its form depends on the
                space (see each subclass). ``None`` samples without constraint.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement sample()")

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an element of the space."""
        raise NotImplementedError(f"{type(self).__name__} does not implement contains()")

    def __contains__(self, x: Any) -> bool:
        return self.contains(x)

    def zero(self) -> T_cov:
        """Return the space's zero point, a fresh element of the space.

        It is the value that masked components take in `sample` and the
        padding that wrappers use; each space documents its own.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement zero()")

    def to_jsonable(self, samples: Sequence[Any] | None = None) -> Any:
        """Describe the space as JSON data, or convert samples to JSON data.

        Args:
            samples: Omitted (sekai 0.2's form): return the space's JSON
                description, `to_json_dict`. A list of samples
                (Gymnasium's form): return them as JSON-serialisable data
                (lists, numbers, dicts), which ``space.from_jsonable(data)``
                converts back.
        """
        if samples is None:
            return self.to_json_dict()
        return self._samples_to_jsonable(samples)

    from_jsonable = _FromJsonable()

    def _samples_to_jsonable(self, samples: Sequence[Any]) -> Any:
        """Convert a batch of samples into JSON-serialisable data (override per space)."""
        return list(samples)

    def _samples_from_jsonable(self, data: Any) -> list[T_cov]:
        """Convert data produced by `_samples_to_jsonable` back into samples."""
        return list(data)

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space as JSON-serialisable data with a ``"type"`` key.

        The base implementation uses the description a subclass's
        ``to_jsonable()`` gives (sekai 0.2's way to write one), so such a
        space also works inside a ``Dict`` or ``Tuple``.

        [`space_from_jsonable`][sekai.spaces.space_from_jsonable] turns the result back into an
        equal space. Non-finite bounds are written as the strings ``"inf"`` and
        ``"-inf"``, so the result passes ``json.dumps(..., allow_nan=False)``.
        """
        description = _own_description(self)
        if description is not None:
            return description
        raise NotImplementedError(
            f"{type(self).__name__} has no JSON description: implement to_json_dict() (or "
            "to_jsonable() without arguments) and register the type with "
            "sekai.spaces.register_space_type"
        )

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Space[Any]:
        """Build a space of this class from the output of `to_json_dict`.

        On `Space` itself, any registered space type is rebuilt (see
        [`space_from_jsonable`][sekai.spaces.space_from_jsonable]).

        Raises:
            NotImplementedError: The class defines no JSON decoder.
        """
        if cls is Space:
            from sekai.spaces.jsonable import space_from_jsonable

            return space_from_jsonable(data)
        raise NotImplementedError(
            f"{cls.__name__} cannot be rebuilt from JSON: define the classmethod "
            "from_json_dict(data) (or from_jsonable(data))"
        )


# -- helpers of the space modules (not public) ---------------------------------------------------


def seed_with_children(parent: Space[Any], seed: SeedType, children: Iterable[Space[Any]]) -> int:
    """Seed ``parent`` and give each child a seed derived from ``seed``.

    The children's seeds come from [`child_seeds`][sekai.utils.seeding.child_seeds]:
    independent ones from an int, ints drawn from a Generator (which the
    parent adopts), ``None`` (every stream continues) from ``None``.

    Returns:
        The parent's seed, as `Space.seed` returns it.
    """
    kids = list(children)
    parent._set_rng(seed)
    if isinstance(seed, np.random.Generator):
        seeds = child_seeds(seed, None, len(kids))
    else:
        seeds = child_seeds(None, seed, len(kids))
    for child, child_seed in zip(kids, seeds, strict=True):
        child.seed(child_seed)
    return root_seed(parent.rng)


# The names register_space_type gave to classes, for the decoders those classes inherit.
_REGISTERED_NAMES: dict[str, type[Space[Any]]] = {}


def check_type_name(data: Mapping[str, Any], name: str, cls: type[Space[Any]]) -> None:
    """Raise ValueError when a JSON description names another space type than ``name``.

    ``cls`` is the class being rebuilt: a name registered for it (a subclass
    whose ``to_jsonable()`` writes its own name, see `register_space_type`) is
    accepted too.
    """
    found = data.get("type", name)
    if found != name and _REGISTERED_NAMES.get(found) is not cls:
        raise ValueError(f"expected the description of a {name}, got one of a {found!r}: {data!r}")


def describe(space: Space[Any]) -> dict[str, Any]:
    """The JSON description of ``space``, as composite spaces write their children.

    A subclass of a built-in space that describes itself in ``to_jsonable()``
    (sekai 0.2's way) keeps its own description; other spaces give
    `Space.to_json_dict`.
    """
    description = _own_description(space)
    return space.to_json_dict() if description is None else description


def _own_description(space: Space[Any]) -> dict[str, Any] | None:
    """The description a subclass's own ``to_jsonable()`` gives, if it gives one."""
    if type(space).to_jsonable is Space.to_jsonable:
        return None
    try:
        description = space.to_jsonable()
    except TypeError:  # a to_jsonable(samples) that only converts samples
        return None
    return dict(description) if _is_description(description) else None


def unsupported(operation: str, space: Any) -> TypeError:
    """The error raised when ``operation`` has no implementation for ``space``'s type."""
    return TypeError(
        f"{operation}() does not support {space!r} (type {type(space).__qualname__}): "
        "register an implementation with sekai.spaces.register_space_type"
    )


def skipped_init(space: Any, attribute: str, base: str) -> RuntimeError:
    """The error raised when ``space`` lacks ``attribute``: its ``__init__`` skipped ``base``'s.

    ``Space`` keeps class-level ``None`` defaults for such subclasses, but a ``Box``
    (or ``MultiDiscrete``, ``MultiBinary``) always has a shape and a dtype.
    """
    return RuntimeError(
        f"{type(space).__name__} has no {attribute}: its __init__ must call "
        f"{base}.__init__ (or set the {attribute} some other way)"
    )


def not_fixed_shape(operation: str, space: Any) -> TypeError:
    """The error raised for spaces without a fixed shape (e.g. ``Sequence``)."""
    return TypeError(
        f"{operation}() needs a space with a fixed shape, got {space!r}: its samples vary in "
        "size (pad sequences of boxes into a MaskedBox, e.g. with PadSequenceObservation)"
    )
