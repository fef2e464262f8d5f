"""Prices with jumps: Merton's jump diffusion (private).

`MertonJumpDiffusion`, re-exported by `sekai.finance.simulators`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import Parameter, frozen, per_asset
from sekai.finance._simulators_base import _DT, F64, _Batch, _Diffusion

__all__ = ["MertonJumpDiffusion"]


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
