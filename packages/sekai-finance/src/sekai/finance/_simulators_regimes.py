"""GBM whose parameters switch with a hidden Markov chain (private).

`RegimeSwitching`, re-exported by `sekai.finance.simulators`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import Parameter, frozen
from sekai.finance._simulators_base import F64, _Batch, _Model
from sekai.finance._simulators_diffusion import GBM

__all__ = ["RegimeSwitching"]


class RegimeSwitching(_Model):
    """GBM whose parameters switch with a hidden Markov chain of regimes.

    The regime is a Markov chain on ``0 .. K - 1`` with
    ``transition[i, j] = P(regime j at t + 1 | regime i at t)`` per step; the
    first regime is drawn from ``initial`` (by default the chain's stationary
    distribution, so the regime's distribution is the same at every time).
    The move from ``t`` to ``t + 1`` is the exact GBM step of the regime at
    ``t`` (its ``mu``, ``sigma`` and ``corr``).

    State: ``"regime"``, shape ``()``: the regime at time ``t``, which drives
    the move from ``t`` to ``t + 1`` (whole numbers stored as float64).

    Args:
        regimes: One `GBM` per regime, all with the same ``n_assets``
            and ``dt``. The start prices are those of the first regime (the
            others' ``s0`` are not used).
        transition: ``(K, K)`` row-stochastic matrix (non-negative, each row
            summing to 1).
        initial: Distribution ``(K,)`` of the first regime; ``None`` for the
            stationary distribution of ``transition``.

    Raises:
        TypeError: A regime is not a `GBM`.
        ValueError: No regime, regimes that disagree on ``n_assets`` or
            ``dt``, or a ``transition`` / ``initial`` that is not a
            distribution of the right shape.
    """

    regimes = Parameter[tuple[GBM, ...]]("The GBM of each regime.")
    transition = Parameter[F64]("Transition matrix per step, ``(K, K)``.")
    initial = Parameter[F64]("Distribution of the first regime, ``(K,)``.")

    def __init__(
        self,
        regimes: Sequence[GBM],
        transition: ArrayLike,
        *,
        initial: ArrayLike | None = None,
    ) -> None:
        owner = "RegimeSwitching"
        models = tuple(regimes)
        if not models:
            raise ValueError(f"{owner}: regimes must hold at least one GBM, got {regimes!r}")
        for i, model in enumerate(models):
            if not isinstance(model, GBM):
                raise TypeError(f"{owner}: regimes[{i}] must be a GBM, got {model!r}")
            if model.n_assets != models[0].n_assets or model.dt != models[0].dt:
                raise ValueError(
                    f"{owner}: every regime must have the n_assets and dt of regimes[0] "
                    f"({models[0].n_assets}, {models[0].dt!r}), got {model.n_assets} and "
                    f"{model.dt!r} for regimes[{i}]"
                )
        k = len(models)
        self._regimes = models
        self._dt = models[0].dt
        self._n_assets = models[0].n_assets
        self._transition = frozen(_stochastic(transition, (k, k), f"{owner}: transition"))
        self._initial = frozen(
            paths.stationary_distribution(self._transition)
            if initial is None
            else _stochastic(initial, (k,), f"{owner}: initial")
        )

    @property
    def s0(self) -> F64:
        """Start prices ``(n_assets,)``: the first regime's."""
        return self._regimes[0].s0

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``{"regime": ()}``."""
        return {"regime": ()}

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        states = paths.markov_chain(rng, n_paths, n_steps, self._initial, self._transition)
        z = rng.standard_normal((n_paths, n_steps, self._n_assets))
        increments = np.empty_like(z)
        driving = states[:, :-1]
        for k, model in enumerate(self._regimes):
            selected = driving == k
            shocks = z[selected]
            if model._factor is not None:
                shocks = shocks @ (model._factor.T * model._vol)
            else:
                shocks *= model._vol
            increments[selected] = shocks + model._drift
        prices = paths.exp_cumsum(self.s0, increments)
        return prices, None, {"regime": states.astype(np.float64)}


def _stochastic(value: ArrayLike, shape: tuple[int, ...], what: str) -> F64:
    """``value`` checked as a probability vector or a row-stochastic matrix of ``shape``."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be an array of probabilities, got {value!r}") from None
    if array.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, got shape {array.shape}")
    if not bool(np.all(np.isfinite(array))) or bool(np.any(array < 0)):
        raise ValueError(f"{what} must hold finite non-negative probabilities, got {value!r}")
    sums = array.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0.0, atol=1e-8):
        if array.ndim == 1:
            raise ValueError(f"{what} must sum to 1, got a sum of {float(sums)!r}")
        row = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(
            f"{what} rows must each sum to 1, got row {row} = {array[row].tolist()} summing to "
            f"{float(sums[row])!r}"
        )
    normalised: F64 = array / (sums[..., None] if array.ndim == 2 else sums)
    return normalised
