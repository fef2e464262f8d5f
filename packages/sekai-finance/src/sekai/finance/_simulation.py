"""Parameter checks and read-only parameters of the price simulators (private).

Every model of `sekai.finance.simulators` takes per-asset parameters that
may be scalars or 1-D arrays, an optional correlation matrix and an optional
``n_assets``. The rules live here, once:

- a parameter is a real number or a 1-D array of real numbers; every element
  is checked with `sekai._internal.validation.check_real` (so the messages read
  ``"GBM: sigma[1] must be a finite real number >= 0, got -0.1"``);
- the number of assets is the length of the 1-D parameters (length-1 arrays
  broadcast like scalars), of ``corr``, or ``n_assets``; they must agree, and
  it is 1 when nothing says otherwise;
- ``corr`` is a symmetric positive semi-definite matrix with a unit diagonal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, NoReturn, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_int, check_real

__all__ = [
    "Parameter",
    "broadcast",
    "correlation",
    "correlation_factor",
    "frozen",
    "n_assets_of",
    "per_asset",
    "time_step",
]

T = TypeVar("T")

# Tolerance of the symmetry, unit-diagonal and semi-definiteness checks of corr.
_CORR_ATOL = 1e-8


class Parameter(Generic[T]):
    """A read-only attribute holding one validated parameter of a model.

    The value lives in the instance's ``__dict__`` under ``"_" + name`` (the
    model's ``__init__`` sets ``self._sigma = ...``). Assigning to the public
    name raises ``AttributeError``: a model precomputes what it simulates from
    its parameters, so changing one in place would silently diverge from them.
    """

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Parameter[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object, owner: type | None = None) -> Parameter[T] | T:
        if instance is None:
            return self
        value: T = instance.__dict__["_" + self._name]
        return value

    def __set__(self, instance: object, value: object) -> NoReturn:
        raise AttributeError(
            f"{type(instance).__name__}.{self._name} is read-only: build a new model to change it"
        )


def frozen(array: NDArray[Any]) -> NDArray[Any]:
    """``array`` made read-only (in place) and returned."""
    array.flags.writeable = False
    return array


def time_step(dt: object, owner: str) -> float:
    """``dt`` as a float: a finite number of years > 0."""
    return check_real(dt, f"{owner}: dt", minimum=0.0, min_open=True)


def per_asset(
    value: ArrayLike,
    what: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    min_open: bool = False,
) -> NDArray[np.float64]:
    """A parameter as a float64 array of shape ``()`` or ``(k,)``, each element checked.

    The models' check; the cost models' rates go through
    `sekai.finance._money.check_rate_array` instead, whose contract differs
    (see there).

    Raises:
        TypeError: An element is not a real number.
        ValueError: The value has more than one dimension, is empty, or an
            element is NaN, infinite or out of ``[minimum, maximum]``.
    """
    try:
        array = np.asarray(value)
    except ValueError:  # a ragged nest of sequences
        raise ValueError(
            f"{what} must be a number or a 1-D array (one value per asset), got {value!r}"
        ) from None
    if array.ndim > 1:
        raise ValueError(
            f"{what} must be a number or a 1-D array (one value per asset), got an array of "
            f"shape {array.shape}"
        )
    if array.ndim == 1 and array.size == 0:
        raise ValueError(f"{what} must hold at least one value, got {value!r}")
    # Plain Python values, so that messages quote -1 rather than np.int64(-1).
    items = [array.tolist()] if array.ndim == 0 else array.tolist()
    for index, item in enumerate(items):
        name = what if array.ndim == 0 else f"{what}[{index}]"
        check_real(item, name, minimum=minimum, maximum=maximum, min_open=min_open)
    return array.astype(np.float64)


def n_assets_of(
    owner: str,
    params: Mapping[str, NDArray[np.float64]],
    *,
    corr: NDArray[np.float64] | None = None,
    n_assets: object = None,
) -> int:
    """The number of assets the parameters describe (see the module docstring).

    Raises:
        ValueError: Two of them disagree, e.g. ``sigma`` has 3 values and
            ``mu`` 2, or ``n_assets=4`` while ``corr`` is 3 x 3.
    """
    sources: list[tuple[str, int]] = []
    if n_assets is not None:
        sources.append(
            (f"n_assets={n_assets!r}", check_int(n_assets, f"{owner}: n_assets", minimum=1))
        )
    if corr is not None:
        sources.append((f"corr is {corr.shape[0]} x {corr.shape[0]}", corr.shape[0]))
    for name, array in params.items():
        if array.ndim == 1 and array.shape[0] != 1:
            sources.append((f"{name} has {array.shape[0]} values", array.shape[0]))
    if not sources:
        return 1
    first_text, first = sources[0]
    for text, count in sources[1:]:
        if count != first:
            raise ValueError(
                f"{owner}: the parameters disagree on the number of assets: {first_text} but {text}"
            )
    return first


def broadcast(array: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """A read-only ``(n,)`` copy of a scalar or ``(1,)`` / ``(n,)`` parameter."""
    return frozen(np.array(np.broadcast_to(array, (n,)), dtype=np.float64))


def correlation(corr: ArrayLike | None, owner: str) -> NDArray[np.float64] | None:
    """``corr`` checked: a symmetric PSD matrix with ones on its diagonal (or ``None``).

    Raises:
        ValueError: ``corr`` is not square, not finite, not symmetric, has a
            diagonal other than ones, entries outside ``[-1, 1]``, or a
            negative eigenvalue. The message names the offending entries.
    """
    if corr is None:
        return None
    what = f"{owner}: corr"
    try:
        matrix = np.array(corr, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a square matrix of real numbers, got {corr!r}") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(
            f"{what} must be a square (n_assets, n_assets) matrix, got shape {matrix.shape}"
        )
    if not bool(np.all(np.isfinite(matrix))):
        raise ValueError(f"{what} must be finite, got {corr!r}")
    gap = np.abs(matrix - matrix.T)
    if float(gap.max()) > _CORR_ATOL:
        i, j = np.unravel_index(int(np.argmax(gap)), gap.shape)
        raise ValueError(
            f"{what} must be symmetric, got corr[{i}, {j}] = {float(matrix[i, j])!r} but "
            f"corr[{j}, {i}] = {float(matrix[j, i])!r}"
        )
    diagonal = np.diagonal(matrix)
    if not np.allclose(diagonal, 1.0, rtol=0.0, atol=_CORR_ATOL):
        raise ValueError(f"{what} must have ones on its diagonal, got diagonal {diagonal.tolist()}")
    if float(np.abs(matrix).max()) > 1.0 + _CORR_ATOL:
        raise ValueError(f"{what} entries must lie in [-1, 1], got {corr!r}")
    smallest = float(np.linalg.eigvalsh(matrix)[0])
    if smallest < -_CORR_ATOL:
        raise ValueError(
            f"{what} must be positive semi-definite (a correlation matrix), but its smallest "
            f"eigenvalue is {smallest:.6g}"
        )
    matrix = (matrix + matrix.T) / 2.0
    np.fill_diagonal(matrix, 1.0)
    return frozen(matrix)


def correlation_factor(matrix: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
    """A matrix ``F`` with ``F @ F.T == matrix``, or ``None`` for no correlation.

    The Cholesky factor when ``matrix`` is positive definite; otherwise (perfect
    correlations) a factor from its eigendecomposition. ``None`` when
    ``matrix`` is ``None`` or the identity, so that independent shocks skip the
    matrix product.
    """
    if matrix is None or np.array_equal(matrix, np.eye(matrix.shape[0])):
        return None
    try:
        factor = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(matrix)
        factor = vectors * np.sqrt(np.clip(values, 0.0, None))
    return frozen(factor)
