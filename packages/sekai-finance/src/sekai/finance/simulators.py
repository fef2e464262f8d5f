"""Price simulators: market models that simulate one path or a batch of paths.

A `MarketModel` turns a numpy ``Generator`` into price paths.
Every model here follows the same contract (`MarketModel.simulate`):

- **Time grid.** Row ``t`` of a path is the time ``t * dt`` (``dt`` in years,
  1/252 by default: one trading day). A simulation of ``n_steps`` steps has
  ``n_steps + 1`` rows and row 0 is the start ``s0``, not a draw.
- **Shapes.** ``simulate(rng, n_steps)`` returns one path, prices of shape
  ``(n_steps + 1, n_assets)``; ``simulate(rng, n_steps, n_paths=N)`` returns
  ``N`` paths from one vectorised numpy computation, prices of shape
  ``(N, n_steps + 1, n_assets)``. ``mask`` (availability, from
  `ListingProcess`) has the shape of ``prices``; each ``state`` series
  named by `MarketModel.state_spec` has shape ``prices.shape[:-1] +
  state_spec()[name]``.
- **Point in time.** ``state[name][..., t, ...]`` is known at time ``t``: a
  variance or regime on row ``t`` is the one that drives the move from ``t``
  to ``t + 1``; a jump count on row ``t`` counts the jumps of the step that
  ends at ``t`` (row 0 is 0).
- **Drift.** Where a model has a drift ``mu``, it is the expected rate of
  return per year: ``E[S_{t+1} / S_t | time t] = exp(mu * dt)``.
- **Randomness.** Only the ``rng`` given is used, so the same seed gives the
  same paths. One path is a batch of one: ``simulate(rng, n)`` equals
  ``simulate(rng, n, n_paths=1)`` with the first axis dropped, for
  generators in the same state. Path 0 of a batch of ``N > 1`` is *not* in
  general that path: a batch draws the shocks of all its paths together, in
  an order chosen for speed (for a few models path 0 happens to coincide; do
  not rely on it). The paths of a batch are independent draws.

Models: `GBM` (correlated geometric Brownian motion), `Heston`,
`GARCH`, `MertonJumpDiffusion`, `MeanReverting`,
`CointegratedPair`, `RegimeSwitching`, `BlockBootstrap`
(resampled real returns), and two wrappers: `ListingProcess` (assets
list and delist) and `Randomized` (a new model per simulation: domain
randomisation).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_callable, check_int, check_real
from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import (
    Parameter,
    broadcast,
    correlation,
    correlation_factor,
    frozen,
    n_assets_of,
    per_asset,
    time_step,
)

__all__ = [
    "GARCH",
    "GBM",
    "BlockBootstrap",
    "CointegratedPair",
    "Heston",
    "ListingProcess",
    "MarketModel",
    "MeanReverting",
    "MertonJumpDiffusion",
    "Randomized",
    "RegimeSwitching",
    "Simulation",
]

F64 = NDArray[np.float64]
_DT = 1.0 / 252.0
_Batch = tuple[F64, NDArray[np.bool_] | None, dict[str, F64]]


@dataclass(frozen=True, eq=False)
class Simulation:
    """The result of `MarketModel.simulate`.

    Attributes:
        prices: float64 prices, ``(n_steps + 1, n_assets)`` for one path or
            ``(n_paths, n_steps + 1, n_assets)`` for a batch; row 0 is ``s0``.
        mask: ``None`` when every asset is always available, else a bool
            array shaped like ``prices``: ``True`` where the asset is listed.
        state: Latent series by name (see `MarketModel.state_spec`),
            each float64 of shape ``prices.shape[:-1] + state_spec()[name]``.
            Counts and regime indices are whole numbers stored as float64.
    """

    prices: F64
    mask: NDArray[np.bool_] | None = None
    state: Mapping[str, F64] = field(default_factory=dict)

    def __post_init__(self) -> None:
        prices = np.asarray(self.prices, dtype=np.float64)
        if prices.ndim not in (2, 3):
            raise ValueError(
                "Simulation.prices must have shape (n_steps + 1, n_assets) or "
                f"(n_paths, n_steps + 1, n_assets), got shape {prices.shape}"
            )
        object.__setattr__(self, "prices", prices)
        if self.mask is not None:
            mask = np.asarray(self.mask)
            if mask.dtype != np.bool_ or mask.shape != prices.shape:
                raise ValueError(
                    f"Simulation.mask must be a bool array of shape {prices.shape}, got a "
                    f"{mask.dtype} array of shape {mask.shape}"
                )
            object.__setattr__(self, "mask", mask)
        for name, series in self.state.items():
            shape = np.shape(series)
            if shape[: prices.ndim - 1] != prices.shape[:-1]:
                raise ValueError(
                    f"Simulation.state[{name!r}] must start with the shape "
                    f"{prices.shape[:-1]} of the prices' paths and times, got shape {shape}"
                )


class MarketModel(ABC):
    """A model of asset prices that simulates paths from a numpy ``Generator``.

    Subclasses implement `dt`, `n_assets` and `simulate`,
    and override `state_spec` when they report latent series. The
    conventions (time grid, shapes, point-in-time state, randomness) are those
    of the module docstring; the models of this module share them through a
    private base class that validates the arguments of ``simulate``.
    """

    @property
    @abstractmethod
    def dt(self) -> float:
        """Length of one step, in years."""

    @property
    @abstractmethod
    def n_assets(self) -> int:
        """Number of assets (the last axis of the prices)."""

    @abstractmethod
    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Simulate ``n_steps`` steps of one path, or of ``n_paths`` paths at once.

        Args:
            rng: The source of every random draw.
            n_steps: Number of steps (``>= 0``); the prices have
                ``n_steps + 1`` rows, row 0 being the start.
            n_paths: ``None`` for one path (prices ``(n_steps + 1,
                n_assets)``) or the number of paths of a batch (prices
                ``(n_paths, n_steps + 1, n_assets)``).

        Returns:
            The prices, the availability mask (``None`` when every asset
            always trades) and the latent state series.
        """

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """Names and per-time shapes of the series in `Simulation.state`.

        ``state[name]`` has shape ``(n_steps + 1, *spec[name])`` for one path
        and ``(n_paths, n_steps + 1, *spec[name])`` for a batch. Empty by
        default (no latent state).
        """
        return {}


class _Model(MarketModel):
    """Base of this module's models: ``simulate`` checks its arguments and drops the batch axis.

    Subclasses set ``self._dt`` and ``self._n_assets`` and implement
    ``_simulate(rng, n_steps, n_paths)``, which always simulates a batch and
    returns ``(prices, mask, state)`` with a leading path axis.
    """

    _dt: float
    _n_assets: int

    @property
    def dt(self) -> float:
        """Length of one step, in years."""
        return self._dt

    @property
    def n_assets(self) -> int:
        """Number of assets (the last axis of the prices)."""
        return self._n_assets

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Simulate ``n_steps`` steps of one path, or of ``n_paths`` paths at once.

        Args:
            rng: The source of every random draw.
            n_steps: Number of steps (``>= 0``); the prices have
                ``n_steps + 1`` rows, row 0 being the start.
            n_paths: ``None`` for one path (prices ``(n_steps + 1,
                n_assets)``) or the number of paths of a batch (prices
                ``(n_paths, n_steps + 1, n_assets)``). One path equals a
                batch of one with the first axis dropped.

        Returns:
            The prices, the availability mask and the latent state series.

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator`` or a count
                is not an int.
            ValueError: ``n_steps < 0`` or ``n_paths < 1``.
        """
        owner = f"{type(self).__name__}.simulate"
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                f"{owner}: rng must be a numpy.random.Generator (e.g. np.random.default_rng(0)), "
                f"got {rng!r}"
            )
        steps = check_int(n_steps, f"{owner}: n_steps", minimum=0)
        batch = 1 if n_paths is None else check_int(n_paths, f"{owner}: n_paths", minimum=1)
        prices, mask, state = self._simulate(rng, steps, batch)
        if n_paths is None:
            prices = prices[0]
            mask = None if mask is None else mask[0]
            state = {name: series[0] for name, series in state.items()}
        return Simulation(prices, mask, state)

    @abstractmethod
    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        """Simulate a batch: ``(prices, mask, state)``, each with a leading path axis."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(n_assets={self._n_assets}, dt={self._dt!r})"


class _Diffusion(_Model):
    """Shared construction of the per-asset models: parameters, ``s0``, ``corr``, ``n_assets``."""

    s0 = Parameter[F64]("Start prices, ``(n_assets,)``.")
    corr = Parameter[F64]("Correlation matrix of the assets' shocks, ``(n_assets, n_assets)``.")

    def _setup(
        self,
        params: dict[str, F64],
        s0: ArrayLike,
        corr: ArrayLike | None,
        dt: float,
        n_assets: int | None,
    ) -> None:
        owner = type(self).__name__
        self._dt = time_step(dt, owner)
        start = per_asset(s0, f"{owner}: s0", minimum=0.0, min_open=True)
        matrix = correlation(corr, owner)
        n = n_assets_of(owner, {**params, "s0": start}, corr=matrix, n_assets=n_assets)
        self._n_assets = n
        for name, value in params.items():
            self.__dict__["_" + name] = broadcast(value, n)
        self._s0 = broadcast(start, n)
        self._corr = frozen(np.eye(n)) if matrix is None else matrix
        self._factor = correlation_factor(matrix)


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


class MertonJumpDiffusion(_Diffusion):
    """Merton's jump diffusion: GBM plus compound Poisson jumps, simulated exactly.

    ``dS / S = (mu - lambda k) dt + sigma dW + (J - 1) dN``: ``N`` is a Poisson
    process of intensity ``lambda = jump_intensity`` per year, each jump
    multiplies the price by ``J = exp(Y)``, ``Y ~ N(jump_mean,
    jump_std**2)``, and ``k = E[J - 1] = exp(jump_mean + jump_std**2 / 2) -
    1`` compensates the jumps so that ``mu`` stays the expected rate of return.
    Over a step the log-price moves by ``(mu - lambda k - sigma**2 / 2) dt +
    sigma sqrt(dt) Z`` plus the step's log-jumps ``Y``. The diffusion
    shocks ``Z`` have correlation ``corr``; jumps are independent across assets.

    State: ``"jumps"``, shape ``(n_assets,)``: the number of jumps during the
    step that ends at ``t`` (0 on row 0).

    Every parameter but ``corr``, ``dt`` and ``n_assets`` is a number or one
    value per asset.

    Args:
        mu: Drift per year (expected rate of return).
        sigma: Diffusion volatility per year (``>= 0``).
        jump_intensity: Expected number of jumps per year (``>= 0``).
        jump_mean: Mean of the log-jump sizes.
        jump_std: Standard deviation of the log-jump sizes (``>= 0``).
        s0: Start prices (``> 0``).
        corr: Correlation matrix of the diffusion shocks, or ``None``.
        dt: Step length in years.
        n_assets: Number of assets; by default inferred from the shapes.

    Raises:
        ValueError: A parameter is out of range, ``corr`` is not a correlation
            matrix, or the shapes disagree on the number of assets.
    """

    mu = Parameter[F64]("Drift per year, ``(n_assets,)``.")
    sigma = Parameter[F64]("Diffusion volatility per year, ``(n_assets,)``.")
    jump_intensity = Parameter[F64]("Jumps per year, ``(n_assets,)``.")
    jump_mean = Parameter[F64]("Mean log-jump size, ``(n_assets,)``.")
    jump_std = Parameter[F64]("Standard deviation of the log-jump sizes, ``(n_assets,)``.")

    def __init__(
        self,
        mu: ArrayLike = 0.05,
        sigma: ArrayLike = 0.2,
        jump_intensity: ArrayLike = 1.0,
        jump_mean: ArrayLike = -0.05,
        jump_std: ArrayLike = 0.1,
        *,
        s0: ArrayLike = 100.0,
        corr: ArrayLike | None = None,
        dt: float = _DT,
        n_assets: int | None = None,
    ) -> None:
        owner = "MertonJumpDiffusion"
        params = {
            "mu": per_asset(mu, f"{owner}: mu"),
            "sigma": per_asset(sigma, f"{owner}: sigma", minimum=0.0),
            "jump_intensity": per_asset(jump_intensity, f"{owner}: jump_intensity", minimum=0.0),
            "jump_mean": per_asset(jump_mean, f"{owner}: jump_mean"),
            "jump_std": per_asset(jump_std, f"{owner}: jump_std", minimum=0.0),
        }
        self._setup(params, s0, corr, dt, n_assets)
        k = np.expm1(self.jump_mean + 0.5 * self.jump_std**2)
        drift = self.mu - self.jump_intensity * k - 0.5 * self.sigma**2
        self._drift = frozen(drift * self._dt)
        self._vol = frozen(self.sigma * math.sqrt(self._dt))
        self._rate = frozen(self.jump_intensity * self._dt)

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``{"jumps": (n_assets,)}``."""
        return {"jumps": (self._n_assets,)}

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        n = self._n_assets
        increments = paths.shocks(rng, n_paths, n_steps, n, self._factor, self._vol)
        increments += self._drift
        sums, counts = paths.jumps(
            rng, self._rate, self.jump_mean, self.jump_std, (n_paths, n_steps, n)
        )
        increments += sums
        jumps = np.zeros((n_paths, n_steps + 1, n))
        jumps[:, 1:] = counts
        return paths.exp_cumsum(self._s0, increments), None, {"jumps": jumps}


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


class BlockBootstrap(_Model):
    """Prices from real log-returns resampled in circular blocks.

    A path is built from blocks of ``block_size`` consecutive rows of
    ``returns`` (the circular block bootstrap of Politis and Romano, 1992):
    each block starts at a row drawn uniformly, runs over consecutive rows and
    wraps from the last row to the first; blocks are drawn independently and
    the last one is cut to length. Whole rows are resampled, so the
    cross-asset dependence and, within a block, the serial dependence of the
    data are kept. Every simulated log-return is one of the input rows. No
    latent state.

    Args:
        returns: Log-returns, ``(n_rows,)`` for one asset or ``(n_rows,
            n_assets)``; finite.
        block_size: Length of a block, in ``[1, n_rows]``.
        s0: Start prices (``> 0``), a number or one per asset.
        dt: Step length in years (the data's sampling interval).

    Raises:
        ValueError: ``returns`` is empty, not finite or of more than two
            dimensions, ``block_size`` is out of range, or ``s0`` does not
            match the number of assets.
    """

    returns = Parameter[F64]("The input log-returns, ``(n_rows, n_assets)`` (read-only copy).")
    block_size = Parameter[int]("Length of a block.")
    s0 = Parameter[F64]("Start prices, ``(n_assets,)``.")

    def __init__(
        self,
        returns: ArrayLike,
        *,
        block_size: int = 20,
        s0: ArrayLike = 100.0,
        dt: float = _DT,
    ) -> None:
        owner = "BlockBootstrap"
        try:
            table = np.array(returns, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{owner}: returns must be an array of numbers, got {returns!r}"
            ) from None
        if table.ndim == 1:
            table = table[:, None]
        if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
            raise ValueError(
                f"{owner}: returns must have shape (n_rows,) or (n_rows, n_assets) with at least "
                f"one row, got shape {np.shape(returns)}"
            )
        if not bool(np.all(np.isfinite(table))):
            bad = np.argwhere(~np.isfinite(table))[0]
            raise ValueError(
                f"{owner}: returns must be finite, got {float(table[tuple(bad)])!r} at row {bad[0]}"
            )
        self._returns = frozen(table)
        self._block_size = check_int(
            block_size, f"{owner}: block_size", minimum=1, maximum=table.shape[0]
        )
        self._dt = time_step(dt, owner)
        start = per_asset(s0, f"{owner}: s0", minimum=0.0, min_open=True)
        self._n_assets = n_assets_of(owner, {"s0": start}, n_assets=table.shape[1])
        self._s0 = broadcast(start, self._n_assets)

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        rows = paths.block_indices(rng, n_paths, n_steps, self._returns.shape[0], self._block_size)
        return paths.exp_cumsum(self._s0, self._returns[rows]), None, {}


class ListingProcess(_Model):
    """Assets that list and delist: availability over the paths of another model.

    Each of the wrapped model's ``n_assets`` columns is a slot. At time 0 a
    slot is listed with probability ``initial_listed``; afterwards an unlisted
    slot lists at rate ``listing_rate`` per year and a listed one delists at
    rate ``delisting_rate`` per year (a two-state Markov process in continuous
    time, whose exact one-step transition probabilities are used, so the
    long-run listed fraction is ``listing_rate / (listing_rate +
    delisting_rate)``). A listing after a delisting is a new asset in the
    slot. Whenever fewer than ``min_listed`` slots would be listed, unlisted
    ones chosen uniformly at random are listed to make up the difference.

    The prices and state are the wrapped model's, unchanged (finite even where
    a slot is unlisted, where they mean nothing); ``mask`` is ``True`` where
    the slot is listed (and the wrapped model's own mask, if any, allows it).
    The wrapped model is simulated first, then the listings.

    Args:
        model: The model of the prices.
        initial_listed: Probability that a slot is listed at time 0, a number
            or one per asset.
        listing_rate: Listings per year of an unlisted slot (``>= 0``).
        delisting_rate: Delistings per year of a listed slot (``>= 0``).
        min_listed: Fewest slots listed at any time, in ``[0, n_assets]``.

    Raises:
        TypeError: ``model`` is not a `MarketModel`.
        ValueError: A rate or probability is out of range, or ``min_listed``
            exceeds the number of assets.
    """

    model = Parameter[MarketModel]("The wrapped model.")
    initial_listed = Parameter[F64]("Probability that a slot is listed at time 0, ``(n_assets,)``.")
    listing_rate = Parameter[F64]("Listings per year of an unlisted slot, ``(n_assets,)``.")
    delisting_rate = Parameter[F64]("Delistings per year of a listed slot, ``(n_assets,)``.")
    min_listed = Parameter[int]("Fewest slots listed at any time.")

    def __init__(
        self,
        model: MarketModel,
        *,
        initial_listed: ArrayLike = 0.8,
        listing_rate: ArrayLike = 1.0,
        delisting_rate: ArrayLike = 0.25,
        min_listed: int = 1,
    ) -> None:
        owner = "ListingProcess"
        if not isinstance(model, MarketModel):
            raise TypeError(f"{owner}: model must be a MarketModel, got {model!r}")
        self._model = model
        self._dt = model.dt
        n = self._n_assets = model.n_assets
        params = {
            "initial_listed": per_asset(
                initial_listed, f"{owner}: initial_listed", minimum=0.0, maximum=1.0
            ),
            "listing_rate": per_asset(listing_rate, f"{owner}: listing_rate", minimum=0.0),
            "delisting_rate": per_asset(delisting_rate, f"{owner}: delisting_rate", minimum=0.0),
        }
        n_assets_of(owner, params, n_assets=n)
        self._initial_listed = broadcast(params["initial_listed"], n)
        self._listing_rate = broadcast(params["listing_rate"], n)
        self._delisting_rate = broadcast(params["delisting_rate"], n)
        self._min_listed = check_int(
            min_listed,
            f"{owner}: min_listed",
            minimum=0,
            maximum=n,
            expected=f"an int in [0, n_assets={n}]",
        )
        total = self._listing_rate + self._delisting_rate
        safe = np.where(total > 0, total, 1.0)
        moved = -np.expm1(-safe * self._dt) / safe
        self._p_list = frozen(self._listing_rate * moved)
        self._p_delist = frozen(self._delisting_rate * moved)

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The wrapped model's state spec."""
        return self._model.state_spec()

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        inner = self._model.simulate(rng, n_steps, n_paths=n_paths)
        listed = paths.listing(
            rng,
            n_paths,
            n_steps,
            self._initial_listed,
            self._p_list,
            self._p_delist,
            self._min_listed,
        )
        if inner.mask is not None:
            listed &= inner.mask
        return inner.prices, listed, dict(inner.state)

    def __repr__(self) -> str:
        return f"ListingProcess({self._model!r}, min_listed={self._min_listed})"


class Randomized(_Model):
    """Domain randomisation: a new model, drawn from the generator, for every simulation.

    Each `simulate` first calls ``factory(rng)`` to draw a model (its
    parameters sampled from ``rng``), then simulates it with the same ``rng``:
    every path of one call comes from the same drawn model, and one seed
    reproduces both the model and its paths.

    The factory is called once at construction, with a generator of its own
    (``np.random.default_rng(0)``; the caller's generators are not touched),
    to learn ``n_assets``, ``dt`` and the state spec; every model it draws
    must agree with them.

    Args:
        factory: ``factory(rng) -> MarketModel``.

    Raises:
        TypeError: ``factory`` is not callable or does not return a
            `MarketModel`.
        ValueError: (from `simulate`) a drawn model's ``n_assets``,
            ``dt`` or state spec differs from the first one's.
    """

    factory = Parameter[Callable[[np.random.Generator], MarketModel]](
        "The function that draws a model from a generator."
    )

    def __init__(self, factory: Callable[[np.random.Generator], MarketModel]) -> None:
        self._factory = check_callable(factory, "Randomized: factory")
        probe = self._draw(np.random.default_rng(0))
        self._n_assets = probe.n_assets
        self._dt = probe.dt
        self._spec = probe.state_spec()

    def _draw(self, rng: np.random.Generator) -> MarketModel:
        model = self._factory(rng)
        if not isinstance(model, MarketModel):
            raise TypeError(f"Randomized: factory must return a MarketModel, got {model!r}")
        return model

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """The state spec of the models the factory draws."""
        return dict(self._spec)

    def _simulate(self, rng: np.random.Generator, n_steps: int, n_paths: int) -> _Batch:
        model = self._draw(rng)
        drawn = (model.n_assets, model.dt, model.state_spec())
        if drawn != (self._n_assets, self._dt, self._spec):
            raise ValueError(
                "Randomized: every model the factory draws must have the n_assets, dt and state "
                f"spec of the first ({self._n_assets}, {self._dt!r}, {self._spec}), got "
                f"{drawn[0]}, {drawn[1]!r}, {drawn[2]} from {model!r}"
            )
        result = model.simulate(rng, n_steps, n_paths=n_paths)
        return result.prices, result.mask, dict(result.state)
