"""What the market envs tell their cost model, decided once at construction (private).

A [`CostModel`][sekai.finance.CostModel] is called as ``model(trades,
**market)`` and lists in ``requires`` the keywords it reads
(`sekai.finance.costs`). The envs can supply:

- ``equity``: the account value before trading, always;
- ``prices``: the prices at the decision row, when the env plays prices;
- ``spread`` / ``volume``: the data's fields of those names at the decision
  row, when the data has them;
- ``volatility``: the standard deviation of each asset's log return over the
  observation window (point-in-time), when ``lookback >= 2`` and the model
  asks for it (it costs a pass over the window, so only then).

A keyword the model requires that the env cannot supply must have a fallback
in the model, otherwise the env refuses the model when it is built.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
from numpy.typing import NDArray

from sekai.finance.costs import CostModel

__all__ = ["CostInputs", "no_volume", "priced_volume", "window_volatility"]

F64 = NDArray[np.float64]

FIELDS = ("spread", "volume")
"""Data fields passed to cost models under their own names."""


def no_volume(volume: F64) -> NDArray[np.bool_]:
    """Where an asset cannot be traded for want of volume: zero, negative or missing."""
    traded: NDArray[np.bool_] = volume > 0.0  # False for NaN
    return ~traded


def priced_volume(volume: F64, kept: NDArray[np.bool_]) -> F64:
    """The volume the cost model is told: infinite where nothing trades (``kept``).

    A trade is never priced against no volume: an untradable asset trades
    nothing, and an infinite volume prices that nothing at 0, where a zero or
    missing one would give inf or NaN.
    """
    priced: F64 = np.where(kept, np.inf, volume)
    return priced


class CostInputs:
    """The market keywords an env passes its cost model.

    Args:
        model: The cost model.
        fields: The per-asset fields of the env's data (empty for simulations
            and window samplers).
        has_prices: Whether the env knows prices (not with window samplers of
            log returns).
        lookback: The observation window (``volatility`` needs >= 2 rows).
        owner: The env's name, for error messages.

    Attributes:
        fields: The data fields to pass (a subset of ``spread``, ``volume``).
        prices: Whether to pass ``prices``.
        volatility: Whether to compute and pass ``volatility``.

    Raises:
        ValueError: The model requires a keyword the env cannot supply and
            has no fallback for it.
    """

    def __init__(
        self,
        model: CostModel,
        *,
        fields: Collection[str],
        has_prices: bool,
        lookback: int,
        owner: str,
    ) -> None:
        self.fields = tuple(name for name in FIELDS if name in fields)
        self.prices = has_prices
        requires = tuple(model.requires)
        can_volatility = lookback >= 2
        self.volatility = "volatility" in requires and can_volatility
        available = {"equity", *self.fields}
        if has_prices:
            available.add("prices")
        if can_volatility:
            available.add("volatility")
        for name in requires:
            if name in available or name in model.fallbacks:
                continue
            reasons = {
                "prices": "this env plays log returns, not prices",
                "volatility": f"it needs lookback >= 2, got {lookback}",
            }
            reason = reasons.get(name, f"the data has no field {name!r}")
            raise ValueError(
                f"{owner}: the cost model {model!r} requires {name}=, which the env cannot "
                f"supply ({reason}), and has no fallback for it; give the model a fallback or "
                "choose another"
            )


def window_volatility(window: F64) -> F64:
    """Sample standard deviation over the window axis (``-2``) of log returns.

    NaN returns (an asset without a price) are left out; fewer than two
    values give NaN. The sums run row by row in a fixed order, so a batch of
    windows gives, bit for bit, what each window gives alone.

    Args:
        window: ``(..., lookback, n_assets)`` log returns.

    Returns:
        ``(..., n_assets)`` standard deviations per period.
    """
    shape = window.shape[:-2] + window.shape[-1:]
    total = np.zeros(shape)
    square = np.zeros(shape)
    count = np.zeros(shape)
    for row in range(window.shape[-2]):
        values = window[..., row, :]
        present = ~np.isnan(values)
        values = np.where(present, values, 0.0)
        total += values
        square += values * values
        count += present
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / count
        variance = (square - total * mean) / (count - 1.0)
    result: F64 = np.where(count >= 2.0, np.sqrt(np.maximum(variance, 0.0)), np.nan)
    return result
