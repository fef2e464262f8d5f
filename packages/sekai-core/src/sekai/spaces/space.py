"""The :class:`Space` base class shared by every observation and action space."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from sekai.utils.seeding import SeededRNG, SeedType, make_seed_sequence

__all__ = ["Space", "T_cov"]

T_cov = TypeVar("T_cov", covariant=True)
"""The type of the samples of a space (covariant: a ``Box`` is a ``Space[NDArray]``)."""


class Space(SeededRNG, Generic[T_cov]):
    """The set of valid observations or actions of an environment.

    A space knows how to draw random elements (:meth:`sample`), how to tell
    whether a value belongs to it (:meth:`contains`, also ``value in space``)
    and what its zero point is (:meth:`zero`). Randomness follows sekai's seeding
    contract (see :class:`~sekai.utils.seeding.SeededRNG`): :meth:`seed` with an
    int re-seeds, with a :class:`numpy.random.Generator` adopts it, with ``None``
    keeps the current stream.

    Subclasses implement :meth:`sample`, :meth:`contains`, :meth:`zero`,
    ``__eq__``, ``__repr__`` and :meth:`to_json_dict`; composite spaces also
    override :meth:`seed` to seed their children.

    Args:
        shape: Shape of every sample, or ``None`` for spaces without one fixed
            shape (``Dict``, ``Tuple``, ``Sequence``).
        dtype: dtype of every sample, or ``None`` when it does not apply.
        seed: Optional seed applied right away (see :meth:`seed`).
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
        """Read-only alias of :attr:`rng`, for code written against Gymnasium."""
        return self.rng

    @property
    def is_flattenable(self) -> bool:
        """Whether :func:`~sekai.spaces.flatten` can turn samples into a 1-D array."""
        return True

    def seed(self, seed: SeedType = None) -> list[int]:
        """Seed the space's random generator (and its children's, for composite spaces).

        Args:
            seed: An int re-seeds; a ``Generator`` is adopted as is; ``None``
                leaves the current stream untouched.

        Returns:
            The int seeds that were applied, the space's own first, then those
            derived for its children (depth first). Empty when ``seed`` is
            ``None`` or a ``Generator`` given to a space without children.
        """
        self._set_rng(seed)
        return [int(seed)] if seed is not None and not isinstance(seed, np.random.Generator) else []

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

        It is the value that masked components take in :meth:`sample` and the
        padding that wrappers use; each space documents its own.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement zero()")

    def to_jsonable(self, samples: Sequence[Any]) -> list[Any]:
        """Convert a batch of samples into JSON-serialisable data (lists, numbers, dicts)."""
        return list(samples)

    def from_jsonable(self, data: Sequence[Any]) -> list[T_cov]:
        """Convert data produced by :meth:`to_jsonable` back into a list of samples."""
        return list(data)

    def to_json_dict(self) -> dict[str, Any]:
        """Describe the space as JSON-serialisable data with a ``"type"`` key.

        :func:`~sekai.spaces.space_from_jsonable` turns the result back into an
        equal space. Non-finite bounds are written as the strings ``"inf"`` and
        ``"-inf"``, so the result passes ``json.dumps(..., allow_nan=False)``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} has no JSON description: implement to_json_dict() and "
            "register the type with sekai.spaces.register_space_type"
        )

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]


# -- helpers of the space modules (not public) ---------------------------------------------------


def seed_with_children(
    parent: Space[Any], seed: SeedType, children: Iterable[Space[Any]]
) -> list[int]:
    """Seed ``parent`` and derive one independent seed per child from ``seed``.

    An int seeds the parent and is expanded with
    :func:`~sekai.utils.seeding.make_seed_sequence` into one seed per child; a
    Generator is adopted by the parent and seeds each child with an int drawn
    from it; ``None`` continues every stream.
    """
    kids = list(children)
    parent._set_rng(seed)
    if seed is None:
        for child in kids:
            child.seed(None)
        return []
    if isinstance(seed, np.random.Generator):
        child_seeds = [int(v) for v in seed.integers(0, 2**63 - 1, size=len(kids))]
        used: list[int] = []
    else:
        used = [int(seed)]
        child_seeds = make_seed_sequence(int(seed), len(kids))
    for child, child_seed in zip(kids, child_seeds, strict=True):
        used.extend(child.seed(child_seed))
    return used


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
