"""Transaction cost models: what a rebalance costs the account.

A cost model is called with the trades of a rebalance and returns what they
cost, **as a fraction of the account's equity before trading**, so an env
applies it as ``equity *= 1 - cost`` and passes it to the reward through
[`StepOutcome`][sekai.finance.StepOutcome] (costs are paid inside the reward,
not only reported). The call is::

    cost = model(trades, **market)

- ``trades``: the signed weight changes, ``target - current`` weights, as
  fractions of equity; shape ``(..., n_assets)`` (the last axis holds the
  assets), so ``(n_assets,)`` for one account and ``(n_envs, n_assets)`` for a
  batch. A scalar is one asset of one account.
- ``**market``: the market data the model reads, by keyword. The standard
  names are ``equity`` (the account value in currency, shape ``(...)``, one per
  account), ``prices`` (the price per unit of each asset), ``spread`` (the
  quoted bid-ask spread as a fraction of the mid price), ``volatility`` (the
  standard deviation of each asset's return over one period) and ``volume``
  (units of each asset traded in the market per period); the per-asset ones
  have shape ``(..., n_assets)`` or broadcast to it. A NaN marks a missing
  value.
- The result has shape ``(...)``, one cost per account: a numpy float64 scalar
  for one account, an array for a batch.

``requires`` lists the keywords a model reads; an env passes each of them
(extra keywords are ignored, so one call serves any model). ``fallbacks``
maps the required keywords that may be missing to the value used instead,
both when the keyword is not passed and where its array holds NaN: an env
whose data lacks a field can still use the model when it has a fallback, and
should refuse the model at construction otherwise. Without a fallback, a
missing value raises ``ValueError``, unless no trade touches that asset.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_real, is_real
from sekai.finance._money import F64, Array, as_array, check_rate_array, sum_assets, unwrap

__all__ = [
    "CompositeCost",
    "CostModel",
    "FixedCost",
    "NoCost",
    "ProportionalCost",
    "SpreadCost",
    "SquareRootImpact",
    "as_cost_model",
]

_MEANING = {
    "equity": "the account value in currency, one per account",
    "prices": "the price per unit of each asset",
    "spread": "the bid-ask spread of each asset as a fraction of its mid price",
    "volatility": "the standard deviation of each asset's return over one period",
    "volume": "the units of each asset the market trades per period",
}

_NO_FALLBACKS: Mapping[str, float] = MappingProxyType({})


class CostModel(ABC):
    """Base class of transaction cost models (see the module docstring for the call).

    Subclasses implement `__call__` and set `requires` (and
    `fallbacks`, if some of those fields may be missing) on the class or
    the instance.

    Attributes:
        requires: The market keywords the model reads (``()`` here).
        fallbacks: The value used for each required keyword that is missing
            (not passed, or NaN), for those that have one (empty here).
    """

    requires: tuple[str, ...] = ()
    fallbacks: Mapping[str, float] = _NO_FALLBACKS

    @abstractmethod
    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """The cost of ``trades`` as a fraction of equity, one value per account.

        Args:
            trades: Signed weight changes, shape ``(..., n_assets)``.
            **market: The keywords in `requires` (others are ignored).

        Returns:
            The cost, shape ``(...)``: a float64 scalar for one account.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _sizes(trades: ArrayLike) -> F64:
    """``|trades|`` as float64, a scalar trade becoming one asset (shape ``(1,)``)."""
    size = np.abs(as_array(trades, "trades"))
    return size.reshape(1) if size.ndim == 0 else size


def _account_values(value: ArrayLike | None, owner: str, name: str) -> F64:
    """An account-level keyword (shape ``(...)``), required."""
    if value is None:
        raise ValueError(f"{owner} needs {name}= ({_MEANING[name]}), which was not passed")
    return as_array(value, f"{owner}: {name}")


def _asset_values(
    market: Mapping[str, ArrayLike | None],
    owner: str,
    name: str,
    fallback: float | None,
    traded: NDArray[np.bool_],
) -> F64 | float:
    """A per-asset keyword with missing values replaced by ``fallback``.

    Missing values without a fallback raise, except for assets not traded (their
    cost is zero whatever the value).
    """
    value = market.get(name)
    if value is None:
        if fallback is None:
            raise ValueError(
                f"{owner} needs {name}= ({_MEANING[name]}): it was not passed and the "
                f"model has no fallback for it"
            )
        return fallback
    array = as_array(value, f"{owner}: {name}")
    missing = np.isnan(array)
    if not missing.any():
        return array
    if fallback is None:
        if (missing & traded).any():
            raise ValueError(
                f"{owner}: {name} is missing (NaN) for a traded asset and the model has no "
                f"fallback for it, got {name}={value!r}"
            )
        fallback = 0.0  # only untraded assets: the value does not matter
    return np.where(missing, fallback, array)


class NoCost(CostModel):
    """Trading is free: every rebalance costs 0."""

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """Zero, one per account (see `CostModel`)."""
        return sum_assets(np.zeros_like(_sizes(trades)))


class ProportionalCost(CostModel):
    """A cost proportional to the value traded: ``sum_i rate_i * |trade_i|``.

    Commissions and fees charged as a fraction of the value traded (10 basis
    points is ``rate=0.001``). A round trip in and out of a position of weight
    ``w`` costs ``2 * rate * |w|``.

    Args:
        rate: The fraction of the traded value paid, a real number in
            ``[0, 1)`` or one per asset (a 1-D array broadcast along the asset
            axis). A rate of 1 or more would pay the whole trade or more: no
            market charges that, and it is refused as a mistake (10 basis
            points is 0.001, not 10).

    Raises:
        TypeError: ``rate`` is not a real number or an array of them.
        ValueError: ``rate`` is negative, 1 or more, NaN, infinite or more than 1-D.
    """

    def __init__(self, rate: ArrayLike) -> None:
        self.rate: float | F64 = _check_rate(rate, "ProportionalCost: rate")

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """``sum_i rate_i * |trade_i|`` over the last axis (see `CostModel`)."""
        return sum_assets(_sizes(trades) * self.rate)

    def __repr__(self) -> str:
        return f"ProportionalCost(rate={self.rate!r})"


class FixedCost(CostModel):
    """A fixed amount of money for every asset traded, whatever the size.

    A ticket fee: each asset whose ``|trade|`` exceeds ``threshold`` costs
    ``amount`` (in currency), so the cost as a fraction of equity is
    ``amount * n_traded / equity``. Trades at or below the threshold (rounding
    noise of a rebalance) are free. Requires ``equity``.

    Args:
        amount: The fee per asset traded, in the currency of ``equity`` (>= 0).
        threshold: The smallest ``|trade|`` (a fraction of equity) that counts
            as a trade (>= 0).

    Raises:
        TypeError: ``amount`` or ``threshold`` is not a real number.
        ValueError: ``amount`` or ``threshold`` is negative, NaN or infinite.
    """

    def __init__(self, amount: float, *, threshold: float = 1e-6) -> None:
        self.amount = check_real(amount, "FixedCost: amount", minimum=0.0)
        self.threshold = check_real(threshold, "FixedCost: threshold", minimum=0.0)
        self.requires: tuple[str, ...] = ("equity",)

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """``amount * (number of assets traded) / equity`` (see `CostModel`)."""
        equity = _account_values(market.get("equity"), "FixedCost", "equity")
        count = (_sizes(trades) > self.threshold).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return unwrap(np.asarray(self.amount * count / equity, dtype=np.float64))

    def __repr__(self) -> str:
        return f"FixedCost(amount={self.amount!r}, threshold={self.threshold!r})"


class SpreadCost(CostModel):
    """Crossing the bid-ask spread: half the spread on every unit traded.

    A market order buys at the ask and sells at the bid, half a spread away
    from the mid price the portfolio is valued at, so the cost is
    ``sum_i half_spread_i * |trade_i|``, with spreads relative to the mid.

    With ``half_spread`` the spread is fixed and nothing is required.
    Without it the model reads ``spread`` (the full quoted spread as a fraction
    of the mid price) from the market and pays half of it; ``fallback_spread``
    (also a full spread) stands in where the data has none.

    Args:
        half_spread: A fixed half spread (fraction of the mid), a real number
            in ``[0, 1)`` or one per asset; ``None`` to read ``spread`` from the
            market. (A half spread of 1 would put the bid at 0.)
        fallback_spread: The full relative spread used where the market's
            ``spread`` is missing, in ``[0, 2)``; only with ``half_spread=None``.

    Raises:
        TypeError: An argument is not a real number (or array of them).
        ValueError: An argument is negative, NaN, infinite or out of its range,
            or both are given.
    """

    def __init__(
        self, half_spread: ArrayLike | None = None, *, fallback_spread: float | None = None
    ) -> None:
        self.half_spread: float | F64 | None = (
            None
            if half_spread is None
            else check_rate_array(half_spread, "SpreadCost: half_spread", below=1.0)
        )
        self.fallback_spread: float | None = (
            None
            if fallback_spread is None
            else check_real(
                fallback_spread,
                "SpreadCost: fallback_spread",
                minimum=0.0,
                maximum=2.0,
                max_open=True,
            )
        )
        if self.half_spread is not None and self.fallback_spread is not None:
            raise ValueError(
                "SpreadCost takes a fixed half_spread or a fallback_spread for the market's "
                f"spread, not both; got half_spread={half_spread!r}, "
                f"fallback_spread={fallback_spread!r}"
            )
        self.requires: tuple[str, ...] = () if self.half_spread is not None else ("spread",)
        self.fallbacks: Mapping[str, float] = (
            _NO_FALLBACKS
            if self.fallback_spread is None
            else MappingProxyType({"spread": self.fallback_spread})
        )

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """``sum_i spread_i / 2 * |trade_i|`` (see `CostModel`)."""
        size = _sizes(trades)
        if self.half_spread is not None:
            return sum_assets(size * self.half_spread)
        spread = _asset_values(market, "SpreadCost", "spread", self.fallback_spread, size > 0)
        return sum_assets(0.5 * size * spread)

    def __repr__(self) -> str:
        if self.half_spread is not None:
            return f"SpreadCost(half_spread={self.half_spread!r})"
        return f"SpreadCost(fallback_spread={self.fallback_spread!r})"


class SquareRootImpact(CostModel):
    """Market impact that grows with the square root of the participation rate.

    The square-root law of market impact (Almgren et al. 2005; Tóth et al.
    2011): trading a fraction ``q`` of the market's volume moves the price
    against the trade by ``coefficient * volatility * sqrt(q)``, paid on the
    whole trade, so the cost is
    ``sum_i coefficient * volatility_i * |trade_i| * sqrt(q_i)``.

    The participation rate is ``q_i = |trade_i| * equity / (prices_i * volume_i)``
    when ``volume`` is passed (then ``prices`` and ``equity`` are needed too).
    Without ``volume`` the trade is measured against a market that trades the
    account's equity each period, ``q_i = |trade_i|``, and the cost is
    ``coefficient * volatility_i * |trade_i| ** 1.5``. Requires ``volatility``.

    Args:
        coefficient: The impact coefficient (>= 0; of order 0.5 to 1 in
            empirical studies).
        fallback_volatility: The volatility used where the market's is missing
            (>= 0), or ``None`` to require it.

    Raises:
        TypeError: An argument is not a real number.
        ValueError: An argument is negative, NaN or infinite.
    """

    def __init__(
        self, coefficient: float = 0.5, *, fallback_volatility: float | None = None
    ) -> None:
        self.coefficient = check_real(coefficient, "SquareRootImpact: coefficient", minimum=0.0)
        self.fallback_volatility: float | None = (
            None
            if fallback_volatility is None
            else check_real(
                fallback_volatility, "SquareRootImpact: fallback_volatility", minimum=0.0
            )
        )
        self.requires: tuple[str, ...] = ("volatility",)
        self.fallbacks: Mapping[str, float] = (
            _NO_FALLBACKS
            if self.fallback_volatility is None
            else MappingProxyType({"volatility": self.fallback_volatility})
        )

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """``sum_i coefficient * volatility_i * |trade_i| * sqrt(q_i)`` (see the class)."""
        size = _sizes(trades)
        volatility = _asset_values(
            market, "SquareRootImpact", "volatility", self.fallback_volatility, size > 0
        )
        volume = market.get("volume")
        if volume is None:
            participation = size
        else:
            equity = _account_values(market.get("equity"), "SquareRootImpact", "equity")
            prices = market.get("prices")
            if prices is None:
                raise ValueError(
                    f"SquareRootImpact needs prices= ({_MEANING['prices']}) with volume=, "
                    "to turn the trades into a participation rate"
                )
            traded_value = as_array(prices, "SquareRootImpact: prices") * as_array(
                volume, "SquareRootImpact: volume"
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                participation = np.where(
                    size > 0, size * np.asarray(equity)[..., None] / traded_value, 0.0
                )
        return sum_assets(self.coefficient * volatility * size * np.sqrt(participation))

    def __repr__(self) -> str:
        return (
            f"SquareRootImpact(coefficient={self.coefficient!r}, "
            f"fallback_volatility={self.fallback_volatility!r})"
        )


class CompositeCost(CostModel):
    """The sum of several cost models: ``CompositeCost([fees, spread, impact])``.

    It requires every keyword any of its models requires; a keyword has a
    fallback only when every model that requires it has one (each model applies
    its own).

    Args:
        models: The cost models to add up (at least one).

    Raises:
        TypeError: An element of ``models`` is not a `CostModel`.
        ValueError: ``models`` is empty.
    """

    def __init__(self, models: Sequence[CostModel]) -> None:
        if isinstance(models, CostModel) or not isinstance(models, Sequence):
            raise TypeError(
                f"CompositeCost: models must be a sequence of CostModel, got {models!r}"
            )
        for model in models:
            if not isinstance(model, CostModel):
                raise TypeError(
                    f"CompositeCost: models must hold CostModel instances, got {model!r}"
                )
        if not models:
            raise ValueError("CompositeCost: models must hold at least one CostModel, got []")
        self.models: tuple[CostModel, ...] = tuple(models)
        requires: list[str] = []
        for model in self.models:
            requires.extend(name for name in model.requires if name not in requires)
        self.requires: tuple[str, ...] = tuple(requires)
        fallbacks: dict[str, float] = {}
        for name in self.requires:
            needing = [model for model in self.models if name in model.requires]
            if all(name in model.fallbacks for model in needing):
                fallbacks[name] = needing[0].fallbacks[name]
        self.fallbacks: Mapping[str, float] = MappingProxyType(fallbacks)

    def __call__(self, trades: ArrayLike, **market: ArrayLike | None) -> Array:
        """The sum of every model's cost (see `CostModel`)."""
        total: Any = 0.0
        for model in self.models:
            total = total + model(trades, **market)
        return total

    def __repr__(self) -> str:
        return f"CompositeCost({list(self.models)!r})"


_RATE = (
    "a rate in [0, 1), the fraction of the value traded that is paid (0.001 is 10 basis "
    "points; 1 would pay the whole trade)"
)


def _check_rate(rate: Any, what: str) -> float | F64:
    """A proportional cost rate in ``[0, 1)``, or one per asset: the one check and message.

    Shared by `ProportionalCost` and `as_cost_model` (an env's
    ``transaction_cost``), so both refuse the same rates in the same words.
    """
    return check_rate_array(rate, what, below=1.0, expected=_RATE)


def as_cost_model(cost: float | CostModel | None, what: str = "transaction_cost") -> CostModel:
    """A cost model from what an env accepts as its ``transaction_cost`` argument.

    Args:
        cost: A `CostModel` (returned as is), a real number (a
            `ProportionalCost` rate in ``[0, 1)``, ``0`` included) or
            ``None`` (`NoCost`).
        what: The argument's name in error messages.

    Raises:
        TypeError: ``cost`` is neither a CostModel, a real number nor None.
        ValueError: ``cost`` is a negative, NaN or infinite number, or 1 or
            more (a fraction of the value traded: 1 would pay all of it).
    """
    if isinstance(cost, CostModel):
        return cost
    if cost is None:
        return NoCost()
    if is_real(cost):
        return ProportionalCost(_check_rate(cost, what))
    raise TypeError(f"{what} must be a CostModel, a rate in [0, 1) or None, got {cost!r}")
