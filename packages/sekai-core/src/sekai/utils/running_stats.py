"""Streaming mean and variance estimators for normalisation wrappers.

Both classes take batches (leading axis = samples), keep float64 statistics
of shape ``shape`` and save/restore their state with ``state_dict()`` /
``load_state_dict()``. ``NormalizeObservation``, ``NormalizeReward`` and the
vector normalisers build on them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_real, is_int

__all__ = ["ExponentialMovingStats", "RunningMeanStd"]


def _as_shape(shape: object) -> tuple[int, ...]:
    # Stricter than check_shape (an int or a tuple only, ValueError for all), as in 0.2.
    if is_int(shape):
        shape = (shape,)
    if not isinstance(shape, tuple) or not all(is_int(d) and int(d) >= 0 for d in shape):
        raise ValueError(f"shape must be a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def _as_float(value: object, name: str, *, positive: bool) -> float:
    bound = "> 0" if positive else ">= 0"
    return check_real(
        value,
        name,
        minimum=0.0,
        min_open=positive,
        expected=f"a finite float {bound}",
        type_error=ValueError,  # 0.2 raises ValueError for any bad value here
    )


def _as_batch(batch: ArrayLike, shape: tuple[int, ...], owner: str) -> NDArray[np.float64]:
    array = np.asarray(batch, dtype=np.float64)
    if array.ndim == 0 or array.shape[1:] != shape:
        raise ValueError(
            f"{owner}.update expects a batch of shape (n{''.join(f', {d}' for d in shape)}) "
            f"(n samples of shape {shape!r}), got an array of shape {array.shape!r}"
        )
    return array


def _normalize(
    mean: NDArray[np.float64], var: NDArray[np.float64], x: ArrayLike, epsilon: float
) -> NDArray[np.float64]:
    value = np.asarray(x, dtype=np.float64)
    return np.asarray((value - mean) / np.sqrt(var + epsilon))


def _positive_count(batch_count: float, owner: str) -> bool:
    """Whether a batch of ``batch_count`` samples changes anything (raises for a bad count)."""
    if 0 < batch_count < math.inf:
        return True
    if batch_count == 0:
        return False
    raise ValueError(
        f"{owner}.update_from_moments: batch_count must be a finite number >= 0, "
        f"got {batch_count!r}"
    )


def _load_entry(state: dict[str, Any], key: str) -> Any:
    if key not in state:
        raise KeyError(f"state dict has no {key!r} entry (keys: {sorted(state)!r})")
    return state[key]


def _load_array(state: dict[str, Any], key: str, shape: tuple[int, ...]) -> NDArray[np.float64]:
    value = _load_entry(state, key)
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"state[{key!r}] must be an array of numbers, got {value!r}") from None
    if array.shape != shape:
        raise ValueError(f"state[{key!r}] must have shape {shape!r}, got {array.shape!r}")
    if key == "var" and not bool(np.all(array >= 0)):
        raise ValueError(f"state['var'] must be >= 0 everywhere, got {value!r}")
    return array


def _load_number(state: dict[str, Any], key: str) -> float:
    value = _load_entry(state, key)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]  # a number saved through np.save / np.savez
    return _as_float(value, f"state[{key!r}]", positive=False)


class RunningMeanStd:
    """Mean and variance of every sample seen so far, updated batch by batch.

    Batches are merged with the parallel algorithm of Chan et al., so the
    result equals the mean and (population) variance of all the samples
    concatenated, up to float64 rounding, whatever the batch sizes. The
    statistics start as ``mean = 0``, ``var = 1`` with a pseudo-count of
    ``epsilon``, which keeps early normalisation finite; with
    ``epsilon = 0`` they are exactly the sample statistics from the first
    update on.

    Args:
        shape: Shape of one sample (``()`` for scalars such as rewards).
        epsilon: Initial pseudo-count, >= 0.

    Attributes:
        mean: Running mean, float64 array of ``shape``.
        var: Running population variance, float64 array of ``shape``.
        count: Number of samples seen, plus ``epsilon``.
        epsilon: The initial pseudo-count.
    """

    def __init__(self, shape: int | tuple[int, ...] = (), epsilon: float = 1e-4) -> None:
        count = _as_float(epsilon, "epsilon", positive=False)
        self.epsilon: float = count
        self.shape: tuple[int, ...] = _as_shape(shape)
        self.mean: NDArray[np.float64] = np.zeros(self.shape, dtype=np.float64)
        self.var: NDArray[np.float64] = np.ones(self.shape, dtype=np.float64)
        self.count: float = count

    @property
    def std(self) -> NDArray[np.float64]:
        """Running standard deviation, ``sqrt(var)``."""
        return np.sqrt(self.var)

    def normalize(self, x: ArrayLike, epsilon: float = 1e-8) -> NDArray[np.float64]:
        """Return ``(x - mean) / sqrt(var + epsilon)`` as float64 (the statistics are unchanged).

        ``x`` is one sample or a batch (leading axes broadcast).
        """
        return _normalize(self.mean, self.var, x, epsilon)

    def update(self, batch: ArrayLike) -> None:
        """Merge a batch of samples (shape ``(n, *shape)``) into the statistics.

        Raises:
            ValueError: The batch's trailing shape is not ``shape``.
        """
        array = _as_batch(batch, self.shape, "RunningMeanStd")
        n = array.shape[0]
        if n == 0:
            return
        self.update_from_moments(array.mean(axis=0), array.var(axis=0), n)

    def update_from_moments(
        self, batch_mean: ArrayLike, batch_var: ArrayLike, batch_count: float
    ) -> None:
        """Merge a batch given by its mean, population variance and size.

        A ``batch_count`` of 0 changes nothing.

        Raises:
            ValueError: ``batch_count`` is negative, infinite or NaN.
        """
        if not _positive_count(batch_count, "RunningMeanStd"):
            return
        b_mean = np.asarray(batch_mean, dtype=np.float64)
        b_var = np.asarray(batch_var, dtype=np.float64)
        total = self.count + batch_count
        delta = b_mean - self.mean
        new_mean = self.mean + delta * (batch_count / total)
        m2 = (
            self.var * self.count
            + b_var * batch_count
            + delta**2 * (self.count * batch_count / total)
        )
        self.mean = new_mean
        self.var = m2 / total
        self.count = total

    def state_dict(self) -> dict[str, Any]:
        """A copy of the statistics: ``{"mean", "var", "count"}``."""
        return {"mean": self.mean.copy(), "var": self.var.copy(), "count": self.count}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by `state_dict`.

        Raises:
            KeyError: An entry is missing.
            ValueError: An array does not have this object's shape, a
                variance is negative, or ``count`` is not a finite number ``>= 0``.
        """
        mean = _load_array(state, "mean", self.shape)
        var = _load_array(state, "var", self.shape)
        count = _load_number(state, "count")
        self.mean, self.var, self.count = mean, var, count

    def __repr__(self) -> str:
        return f"RunningMeanStd(shape={self.shape!r}, count={self.count!r})"


class ExponentialMovingStats:
    """Exponentially weighted mean and variance, for non-stationary data.

    A sample's weight halves every ``halflife`` samples, so the statistics
    follow the recent distribution (e.g. prices whose volatility changes by
    regime). They are the exact weighted mean and weighted population
    variance of every sample seen, with weights ``(1 - alpha) ** age`` where
    ``alpha = 1 - 0.5 ** (1 / halflife)``, normalised by their sum (pandas'
    ``ewm(halflife=..., adjust=True)``), so early estimates are not biased
    towards the initial values. A batch counts as ``n`` consecutive samples,
    in order; splitting the data into batches differently gives the same
    result. Before any update, ``mean = 0`` and ``var = 1``.

    Args:
        shape: Shape of one sample.
        halflife: Halflife in samples, > 0.

    Attributes:
        mean: Weighted mean, float64 array of ``shape``.
        var: Weighted population variance, float64 array of ``shape``.
        count: Number of samples seen.
    """

    def __init__(self, shape: int | tuple[int, ...] = (), halflife: float = 1000.0) -> None:
        self.halflife: float = _as_float(halflife, "halflife", positive=True)
        self.shape: tuple[int, ...] = _as_shape(shape)
        self._decay: float = 0.5 ** (1.0 / self.halflife)
        self.mean: NDArray[np.float64] = np.zeros(self.shape, dtype=np.float64)
        self.var: NDArray[np.float64] = np.ones(self.shape, dtype=np.float64)
        self.count: float = 0.0
        self.weight: float = 0.0  # sum of the (unnormalised) weights of past samples

    @property
    def decay(self) -> float:
        """Factor by which a sample's weight shrinks per newer sample, ``0.5 ** (1 / halflife)``."""
        return self._decay

    @property
    def alpha(self) -> float:
        """Weight of the newest sample relative to the rest, ``1 - decay``."""
        return 1.0 - self._decay

    @property
    def std(self) -> NDArray[np.float64]:
        """Weighted standard deviation, ``sqrt(var)``."""
        return np.sqrt(self.var)

    def normalize(self, x: ArrayLike, epsilon: float = 1e-8) -> NDArray[np.float64]:
        """Return ``(x - mean) / sqrt(var + epsilon)`` as float64 (the statistics are unchanged).

        ``x`` is one sample or a batch (leading axes broadcast).
        """
        return _normalize(self.mean, self.var, x, epsilon)

    def update_from_moments(
        self, batch_mean: ArrayLike, batch_var: ArrayLike, batch_count: float
    ) -> None:
        """Merge a batch of ``batch_count`` samples given by its mean and population variance.

        The batch counts as ``batch_count`` consecutive samples, newest last, as
        in `update`; since only its moments are known, its samples are
        weighted as if its weighted mean and variance were ``batch_mean`` and
        ``batch_var`` (exact when the samples are equal, or when
        ``batch_count`` is 1). A ``batch_count`` of 0 changes nothing.

        Raises:
            ValueError: ``batch_count`` is negative, infinite or NaN.
        """
        if not _positive_count(batch_count, "ExponentialMovingStats"):
            return
        b_mean = np.asarray(batch_mean, dtype=np.float64)
        b_var = np.asarray(batch_var, dtype=np.float64)
        decay = self._decay
        # Total weight of the batch's samples: decay**0 + ... + decay**(n - 1).
        batch_weight = (1.0 - decay**batch_count) / (1.0 - decay)
        old = self.weight * decay**batch_count
        total = old + batch_weight
        w_old, w_new = old / total, batch_weight / total
        mean = w_old * self.mean + w_new * b_mean
        var = w_old * (self.var + (self.mean - mean) ** 2) + w_new * (b_var + (b_mean - mean) ** 2)
        self.mean, self.var = mean, var
        self.weight = total
        self.count += batch_count

    def update(self, batch: ArrayLike) -> None:
        """Merge a batch of samples (shape ``(n, *shape)``), oldest first.

        Raises:
            ValueError: The batch's trailing shape is not ``shape``.
        """
        array = _as_batch(batch, self.shape, "ExponentialMovingStats")
        n = array.shape[0]
        if n == 0:
            return
        # Weight of sample i of the batch: decay ** (n - 1 - i); the past decays by decay ** n.
        weights = self._decay ** np.arange(n - 1, -1, -1, dtype=np.float64)
        old = self.weight * self._decay**n
        total = old + float(weights.sum())
        w_old = old / total
        w_new = (weights / total).reshape((n,) + (1,) * len(self.shape))
        mean = w_old * self.mean + (w_new * array).sum(axis=0)
        var = w_old * (self.var + (self.mean - mean) ** 2) + (w_new * (array - mean) ** 2).sum(
            axis=0
        )
        self.mean, self.var = mean, var
        self.weight = total
        self.count += n

    def state_dict(self) -> dict[str, Any]:
        """A copy of the statistics: ``{"mean", "var", "count", "weight", "halflife"}``."""
        return {
            "mean": self.mean.copy(),
            "var": self.var.copy(),
            "count": self.count,
            "weight": self.weight,
            "halflife": self.halflife,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore statistics saved by `state_dict`.

        The halflife stays this object's own; a saved halflife that differs
        raises, since the saved weights would not mean the same thing.

        Raises:
            KeyError: An entry is missing.
            ValueError: An array has the wrong shape, a variance is negative,
                ``count`` or ``weight`` is not a finite number >= 0, or the
                halflife differs.
        """
        mean = _load_array(state, "mean", self.shape)
        var = _load_array(state, "var", self.shape)
        halflife = float(state["halflife"]) if "halflife" in state else self.halflife
        if halflife != self.halflife:
            raise ValueError(
                f"state was saved with halflife={halflife!r}, this object has "
                f"halflife={self.halflife!r}"
            )
        count, weight = _load_number(state, "count"), _load_number(state, "weight")
        self.mean, self.var, self.count, self.weight = mean, var, count, weight

    def __repr__(self) -> str:
        return (
            f"ExponentialMovingStats(shape={self.shape!r}, halflife={self.halflife!r}, "
            f"count={self.count!r})"
        )
