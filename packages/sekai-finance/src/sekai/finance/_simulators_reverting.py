"""Mean-reverting prices and spreads, by exact Ornstein-Uhlenbeck steps (private).

`MeanReverting` and `CointegratedPair`, re-exported by
`sekai.finance.simulators`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from sekai._internal.validation import check_real
from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import Parameter, frozen, per_asset, time_step
from sekai.finance._simulators_base import _DT, F64, _Batch, _Diffusion, _Model

__all__ = ["CointegratedPair", "MeanReverting"]


class MeanReverting(_Diffusion):
    """Mean-reverting prices: an Ornstein-Uhlenbeck log-price, simulated exactly.

    ``d log S = theta (log(mean) - log S) dt + sigma dW``: the log-price
    reverts to ``log(mean)`` at speed ``theta`` per year (so ``mean`` is the
    long-run median price) with ``sigma`` a proportional volatility. Over a
    step, with ``a = exp(-theta dt)``, ``log S - log(mean)`` is multiplied by
    ``a`` and receives a normal shock of variance ``sigma**2 (1 - a**2) / (2
    theta)``: exact for any ``dt``. Its lag-one autocorrelation is ``a`` and
    its stationary variance ``sigma**2 / (2 theta)``. ``theta = 0`` is the
    driftless random walk limit. The shocks have correlation ``corr``. No
    latent state (the log-price is the state).

    Every parameter but ``corr``, ``dt`` and ``n_assets`` is a number or one
    value per asset.

    Args:
        theta: Mean-reversion speed per year (``>= 0``).
        mean: Long-run level (``> 0``): the log-price reverts to ``log(mean)``.
        sigma: Volatility of the log-price per year (``>= 0``).
        s0: Start prices (``> 0``).
        corr: Correlation matrix of the shocks, or ``None``.
        dt: Step length in years.
        n_assets: Number of assets; by default inferred from the shapes.

    Raises:
        ValueError: A parameter is out of range, ``corr`` is not a correlation
            matrix, or the shapes disagree on the number of assets.
    """

    theta = Parameter[F64]("Mean-reversion speed per year, ``(n_assets,)``.")
    mean = Parameter[F64]("Long-run level, ``(n_assets,)``.")
    sigma = Parameter[F64]("Volatility of the log-price per year, ``(n_assets,)``.")

    def __init__(
        self,
        theta: ArrayLike = 5.0,
        mean: ArrayLike = 100.0,
        sigma: ArrayLike = 0.2,
        *,
        s0: ArrayLike = 100.0,
        corr: ArrayLike | None = None,
        dt: float = _DT,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "theta": per_asset(theta, "MeanReverting: theta", minimum=0.0),
            "mean": per_asset(mean, "MeanReverting: mean", minimum=0.0, min_open=True),
            "sigma": per_asset(sigma, "MeanReverting: sigma", minimum=0.0),
        }
        self._setup(params, s0, corr, dt, n_assets)
        self._a, self._c = (
            frozen(v) for v in paths.ou_coefficients(self.theta, self.sigma, self._dt)
        )
        self._y0 = frozen(np.log(self._s0) - np.log(self.mean))

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        z = paths.shocks(rng, n_paths, n_steps, self._n_assets, self._factor)
        y = paths.ornstein_uhlenbeck(self._y0, self._a, self._c, z)
        # s0 * exp(y - y0) rather than mean * exp(y): row 0 is exactly s0.
        y -= self._y0
        prices = np.exp(y, out=y)
        prices *= self._s0
        return prices, None, {}


class CointegratedPair(_Model):
    """Two cointegrated assets: a GBM and a mean-reverting log spread.

    Asset 0 follows a GBM with drift ``mu`` and volatility ``sigma``. The
    spread ``u = log(S_1 / S_0) - log(s0_1 / s0_0)`` starts at 0 and is an
    Ornstein-Uhlenbeck process reverting to 0 at speed ``theta`` with
    volatility ``spread_sigma``, independent of asset 0 and simulated exactly.
    So ``log S_1 - log S_0`` is stationary while each log-price is a random
    walk: the pair is cointegrated with vector ``(-1, 1)`` in log-prices.

    State: ``"spread"``, shape ``()``: ``u_t``.

    Args:
        mu: Drift per year of asset 0 (expected rate of return).
        sigma: Volatility per year of asset 0 (``>= 0``).
        theta: Mean-reversion speed of the spread per year (``>= 0``).
        spread_sigma: Volatility of the spread per year (``>= 0``).
        s0: The two start prices (``> 0``); their log ratio is the spread's
            long-run level.
        dt: Step length in years.

    Raises:
        ValueError: A parameter is out of range or ``s0`` does not hold two
            prices.
    """

    s0 = Parameter[F64]("The two start prices, ``(2,)``.")
    mu = Parameter[float]("Drift per year of asset 0.")
    sigma = Parameter[float]("Volatility per year of asset 0.")
    theta = Parameter[float]("Mean-reversion speed of the spread per year.")
    spread_sigma = Parameter[float]("Volatility of the spread per year.")

    def __init__(
        self,
        mu: float = 0.05,
        sigma: float = 0.2,
        theta: float = 5.0,
        spread_sigma: float = 0.1,
        *,
        s0: ArrayLike = (100.0, 100.0),
        dt: float = _DT,
    ) -> None:
        owner = "CointegratedPair"
        self._mu = check_real(mu, f"{owner}: mu")
        self._sigma = check_real(sigma, f"{owner}: sigma", minimum=0.0)
        self._theta = check_real(theta, f"{owner}: theta", minimum=0.0)
        self._spread_sigma = check_real(spread_sigma, f"{owner}: spread_sigma", minimum=0.0)
        self._dt = time_step(dt, owner)
        self._n_assets = 2
        start = per_asset(s0, f"{owner}: s0", minimum=0.0, min_open=True)
        if start.shape != (2,):
            raise ValueError(f"{owner}: s0 must hold two prices, got {s0!r}")
        self._s0 = frozen(start)
        self._drift = (self._mu - 0.5 * self._sigma**2) * self._dt
        self._vol = self._sigma * math.sqrt(self._dt)
        a, c = paths.ou_coefficients(np.array(self._theta), np.array(self._spread_sigma), self._dt)
        self._a, self._c = float(a), float(c)

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``{"spread": ()}``."""
        return {"spread": ()}

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        z = rng.standard_normal((n_paths, n_steps, 2))
        log_prices = np.empty((n_paths, n_steps + 1, 2))
        log_prices[:, 0, 0] = 0.0
        np.cumsum(self._drift + self._vol * z[:, :, 0], axis=1, out=log_prices[:, 1:, 0])
        spread = paths.ornstein_uhlenbeck(
            np.zeros(()), np.array(self._a), np.array(self._c), z[:, :, 1]
        )
        log_prices[:, :, 1] = log_prices[:, :, 0] + spread
        prices = np.exp(log_prices, out=log_prices)
        prices *= self._s0
        return prices, None, {"spread": spread}
