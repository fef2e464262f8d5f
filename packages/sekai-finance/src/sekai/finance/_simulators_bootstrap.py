"""Prices from resampled real returns: the circular block bootstrap (private).

`BlockBootstrap`, re-exported by `sekai.finance.simulators`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from sekai._internal.validation import check_int
from sekai.finance import _simulation_paths as paths
from sekai.finance._simulation import (
    Parameter,
    broadcast,
    frozen,
    n_assets_of,
    per_asset,
    time_step,
)
from sekai.finance._simulators_base import _DT, F64, _Batch, _Model

__all__ = ["BlockBootstrap"]


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
