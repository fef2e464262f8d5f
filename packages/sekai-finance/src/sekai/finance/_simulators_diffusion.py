"""Random-walk log-prices with constant, stochastic or GARCH volatility (private).

`GBM`, `Heston` and `GARCH`, re-exported by `sekai.finance.simulators`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import Parameter, frozen, per_asset
from sekai.finance._simulators_base import _DT, F64, _Batch, _Diffusion

__all__ = ["GARCH", "GBM", "Heston"]


class GBM(_Diffusion):
    """Correlated geometric Brownian motion, simulated exactly.

    ``dS_i / S_i = mu_i dt + sigma_i dW_i`` with ``corr`` the correlation of
    the Brownian motions. Over a step the log-prices move by ``(mu - sigma**2
    / 2) dt + sigma sqrt(dt) Z``, ``Z`` standard normal with correlation
    ``corr``: the discretisation is exact for any ``dt``. No latent state.

    Args:
        mu: Drift per year (expected rate of return), a number or one per asset.
        sigma: Volatility per year (``>= 0``), a number or one per asset.
        s0: Start prices (``> 0``), a number or one per asset.
        corr: Correlation matrix ``(n_assets, n_assets)`` of the shocks
            (symmetric, positive semi-definite, unit diagonal); ``None`` for
            independent assets.
        dt: Step length in years (default 1/252).
        n_assets: Number of assets; by default inferred from the parameters'
            shapes (1 when they are all scalars).

    Raises:
        ValueError: A parameter is out of range, ``corr`` is not a correlation
            matrix, or the shapes disagree on the number of assets.
    """

    mu = Parameter[F64]("Drift per year, ``(n_assets,)``.")
    sigma = Parameter[F64]("Volatility per year, ``(n_assets,)``.")

    def __init__(
        self,
        mu: ArrayLike = 0.0,
        sigma: ArrayLike = 0.2,
        *,
        s0: ArrayLike = 100.0,
        corr: ArrayLike | None = None,
        dt: float = _DT,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "mu": per_asset(mu, "GBM: mu"),
            "sigma": per_asset(sigma, "GBM: sigma", minimum=0.0),
        }
        self._setup(params, s0, corr, dt, n_assets)
        self._drift = frozen((self.mu - 0.5 * self.sigma**2) * self._dt)
        self._vol = frozen(self.sigma * math.sqrt(self._dt))

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        prices = paths.gbm(rng, n_paths, n_steps, self._s0, self._drift, self._vol, self._factor)
        return prices, None, {}


class Heston(_Diffusion):
    """Heston stochastic volatility, by full-truncation Euler.

    ``dS_i / S_i = mu_i dt + sqrt(v_i) dW_i`` and ``dv_i = kappa_i (theta_i -
    v_i) dt + xi_i sqrt(v_i) dB_i``, where the price Brownian motions ``W``
    have correlation ``corr`` and ``B_i = rho_i W_i + sqrt(1 - rho_i**2) Z_i``
    with ``Z_i`` independent of everything else.

    Discretisation: the full-truncation Euler scheme of Lord, Koekkoek and van
    Dijk (2010). With ``v+ = max(v, 0)``, the log-price moves by ``(mu - v+ /
    2) dt + sqrt(v+ dt) W`` (so the drift convention holds exactly) and the
    variance by ``kappa (theta - v+) dt + xi sqrt(v+ dt) B``. The variance
    reported is ``v+``, so it is never negative; its mean reverts to
    ``theta`` like ``theta + (v0 - theta) (1 - kappa dt)**t``.

    State: ``"variance"``, shape ``(n_assets,)``: the variance at time ``t``
    (row 0 is ``v0``), which drives the move from ``t`` to ``t + 1``.

    Every parameter but ``corr``, ``dt`` and ``n_assets`` is a number or one
    value per asset.

    Args:
        mu: Drift per year (expected rate of return).
        kappa: Speed of mean reversion of the variance, per year (``>= 0``).
        theta: Long-run variance (``>= 0``).
        xi: Volatility of the variance (``>= 0``).
        rho: Correlation between an asset's price and its variance, in ``[-1, 1]``.
        v0: Start variance (``>= 0``); ``None`` starts at ``theta``.
        s0: Start prices (``> 0``).
        corr: Correlation matrix of the assets' price shocks, or ``None``.
        dt: Step length in years.
        n_assets: Number of assets; by default inferred from the shapes.

    Raises:
        ValueError: A parameter is out of range, ``corr`` is not a correlation
            matrix, or the shapes disagree on the number of assets.
    """

    mu = Parameter[F64]("Drift per year, ``(n_assets,)``.")
    kappa = Parameter[F64]("Mean-reversion speed of the variance, ``(n_assets,)``.")
    theta = Parameter[F64]("Long-run variance, ``(n_assets,)``.")
    xi = Parameter[F64]("Volatility of the variance, ``(n_assets,)``.")
    rho = Parameter[F64]("Price-variance correlation, ``(n_assets,)``.")
    v0 = Parameter[F64]("Start variance, ``(n_assets,)``.")

    def __init__(
        self,
        mu: ArrayLike = 0.05,
        kappa: ArrayLike = 2.0,
        theta: ArrayLike = 0.04,
        xi: ArrayLike = 0.3,
        rho: ArrayLike = -0.7,
        *,
        v0: ArrayLike | None = None,
        s0: ArrayLike = 100.0,
        corr: ArrayLike | None = None,
        dt: float = _DT,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "mu": per_asset(mu, "Heston: mu"),
            "kappa": per_asset(kappa, "Heston: kappa", minimum=0.0),
            "theta": per_asset(theta, "Heston: theta", minimum=0.0),
            "xi": per_asset(xi, "Heston: xi", minimum=0.0),
            "rho": per_asset(rho, "Heston: rho", minimum=-1.0, maximum=1.0),
        }
        params["v0"] = params["theta"] if v0 is None else per_asset(v0, "Heston: v0", minimum=0.0)
        self._setup(params, s0, corr, dt, n_assets)
        self._params = {name: getattr(self, name) for name in params}

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``{"variance": (n_assets,)}``."""
        return {"variance": (self._n_assets,)}

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        increments, variance = paths.heston(
            rng, n_paths, n_steps, self._dt, self._params, self._factor
        )
        return paths.exp_cumsum(self._s0, increments), None, {"variance": variance}


class GARCH(_Diffusion):
    """GARCH(1,1) log-returns.

    Over the step from ``t`` to ``t + 1`` the log-price moves by ``mu dt -
    h_t / 2 + eps``, ``eps = sqrt(h_t) z``, and the conditional variance
    updates as ``h_{t+1} = omega + alpha eps**2 + beta h_t``. ``omega`` and
    ``h`` are variances *per step*; ``mu`` is per year (the ``- h_t / 2`` keeps
    ``E[S_{t+1} / S_t] = exp(mu dt)``). The shocks ``z`` of the assets have
    correlation ``corr``. The variance starts at its unconditional value
    ``omega / (1 - alpha - beta)`` (`unconditional_variance`), so its
    mean stays there.

    State: ``"variance"``, shape ``(n_assets,)``: ``h_t``, the conditional
    variance of the log-return from ``t`` to ``t + 1``.

    Every parameter but ``corr``, ``dt`` and ``n_assets`` is a number or one
    value per asset.

    Args:
        omega: Constant of the variance recursion (``> 0``), per step.
        alpha: Weight of the last squared innovation (``>= 0``).
        beta: Weight of the last variance (``>= 0``); ``alpha + beta < 1``.
        mu: Drift per year (expected rate of return).
        s0: Start prices (``> 0``).
        corr: Correlation matrix of the shocks, or ``None``.
        dt: Step length in years (used by ``mu`` only).
        n_assets: Number of assets; by default inferred from the shapes.

    Raises:
        ValueError: A parameter is out of range (including ``alpha + beta >=
            1``), ``corr`` is not a correlation matrix, or the shapes disagree.
    """

    omega = Parameter[F64]("Variance constant per step, ``(n_assets,)``.")
    alpha = Parameter[F64]("ARCH weight, ``(n_assets,)``.")
    beta = Parameter[F64]("GARCH weight, ``(n_assets,)``.")
    mu = Parameter[F64]("Drift per year, ``(n_assets,)``.")

    def __init__(
        self,
        omega: ArrayLike = 1e-06,
        alpha: ArrayLike = 0.08,
        beta: ArrayLike = 0.9,
        *,
        mu: ArrayLike = 0.0,
        s0: ArrayLike = 100.0,
        corr: ArrayLike | None = None,
        dt: float = _DT,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "omega": per_asset(omega, "GARCH: omega", minimum=0.0, min_open=True),
            "alpha": per_asset(alpha, "GARCH: alpha", minimum=0.0),
            "beta": per_asset(beta, "GARCH: beta", minimum=0.0),
            "mu": per_asset(mu, "GARCH: mu"),
        }
        self._setup(params, s0, corr, dt, n_assets)
        persistence = self.alpha + self.beta
        if bool(np.any(persistence >= 1.0)):
            i = int(np.argmax(persistence >= 1.0))
            raise ValueError(
                "GARCH: alpha + beta must be < 1 for a stationary variance, got alpha="
                f"{float(self.alpha[i])!r} and beta={float(self.beta[i])!r} (asset {i})"
            )
        self._h0 = frozen(self.omega / (1.0 - persistence))
        self._params = {
            "omega": self.omega,
            "alpha": self.alpha,
            "beta": self.beta,
            "h0": self._h0,
        }

    @property
    def unconditional_variance(self) -> F64:
        """``omega / (1 - alpha - beta)``: the long-run variance of a log-return per step."""
        return self._h0

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``{"variance": (n_assets,)}``."""
        return {"variance": (self._n_assets,)}

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        eps, variance = paths.garch(rng, n_paths, n_steps, self._params, self._factor)
        eps += self.mu * self._dt - 0.5 * variance[:, :-1]
        return paths.exp_cumsum(self._s0, eps), None, {"variance": variance}
