"""The trading account: cash, positions, leverage, shorting, financing and bankruptcy.

Conventions (shared by every market env):

- An account is described by its **weights**: the value of each position as
  a fraction of the account's equity, shape ``(..., n_assets)`` (the last axis
  holds the assets; ``(n_envs, n_assets)`` for a batch of accounts). A short
  position has a negative weight.
- The **cash weight** is ``1 - sum(weights)``. It is negative when the
  account borrows cash to buy more than its equity (a margin loan), and
  includes the proceeds of short sales.
- **Gross exposure** (leverage) is ``sum(|weights|)``; ``max_leverage`` bounds
  it when target weights are projected (`project_weights`).
- Positions in units of each asset are ``weights * equity / prices``, the cash
  balance is ``(1 - sum(weights)) * equity``.
- Over a period of ``dt`` years, with simple asset returns ``r``, positive
  cash earns ``cash_rate``, borrowed cash pays ``margin_rate`` and short
  positions pay ``borrow_rate`` on their value (annual rates, continuously
  compounded: a balance ``x`` accrues ``x * (exp(rate * dt) - 1)``). The
  account grows by the factor ``1 + sum(weights * r) - financing``
  (`settle`).
- The account is **wiped out** when its equity falls to 0 or below: the env
  ends the episode (``terminated``) and reports an equity of 0 (a loss beyond
  the equity is not carried as a debt).
- With a **maintenance margin** ``m``, the account must keep its equity at or
  above ``m`` times the gross value of its positions at the end of every
  step. An account below it (a wiped-out one included) is **liquidated**: every
  position is closed at the step's closing prices, the cost model's price of
  closing them is paid, and the episode ends with whatever equity is left,
  negative if the positions lost more than the equity.

A step of a market env: trade from the drifted weights to the target (paying
the cost model's cost, a fraction of equity, so ``equity *= 1 - cost``), then
`settle` the period at the target weights (``equity *= growth``) and
carry the drifted weights into the next step. ``settle(..., cost=cost)``
(sekai 0.2's call) does both: its growth includes the cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_bool, check_real, is_real
from sekai.finance._money import F64, Array, as_array, sum_assets, unwrap

__all__ = ["AccountConfig", "Settlement", "project_weights", "settle", "turnover"]


@dataclass(frozen=True)
class AccountConfig:
    """What an account may do and what it pays: shorting, leverage, financing rates.

    Attributes:
        allow_short: Whether weights may be negative (short positions).
        max_leverage: The largest gross exposure ``sum(|weights|)`` target
            weights may have (> 0); 1 is a fully invested cash account, 2 the
            usual Reg-T margin account.
        cash_rate: Annual rate earned on positive cash (may be negative).
        margin_rate: Annual rate paid on borrowed cash; ``None`` for the
            ``cash_rate`` (see `effective_margin_rate`).
        borrow_rate: Annual fee paid on the value of short positions (>= 0).
        maintenance_margin: The smallest equity the account may keep, as a
            fraction of the gross value of its positions, in ``(0, 1]``; None
            (default) for none: the account then runs until its equity is gone.
            ``maintenance_margin * max_leverage`` must be below 1, or the
            first trade at the largest leverage would be liquidated at once.

    Raises:
        TypeError: A field has the wrong type.
        ValueError: ``max_leverage`` is not > 0, a rate is NaN or infinite,
            ``borrow_rate`` is negative, or ``maintenance_margin`` is outside
            ``(0, 1]`` or not below ``1 / max_leverage``.
    """

    allow_short: bool = False
    max_leverage: float = 1.0
    cash_rate: float = 0.0
    margin_rate: float | None = None
    borrow_rate: float = 0.0
    maintenance_margin: float | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(self, "allow_short", check_bool(self.allow_short, "AccountConfig: allow_short"))
        set_field(
            self,
            "max_leverage",
            check_real(
                self.max_leverage, "AccountConfig: max_leverage", minimum=0.0, min_open=True
            ),
        )
        set_field(self, "cash_rate", check_real(self.cash_rate, "AccountConfig: cash_rate"))
        if self.margin_rate is not None:
            set_field(
                self, "margin_rate", check_real(self.margin_rate, "AccountConfig: margin_rate")
            )
        set_field(
            self,
            "borrow_rate",
            check_real(self.borrow_rate, "AccountConfig: borrow_rate", minimum=0.0),
        )
        if self.maintenance_margin is not None:
            margin = check_real(
                self.maintenance_margin,
                "AccountConfig: maintenance_margin",
                minimum=0.0,
                maximum=1.0,
                min_open=True,
            )
            if margin * self.max_leverage >= 1.0:
                raise ValueError(
                    f"AccountConfig: maintenance_margin={margin!r} with max_leverage="
                    f"{self.max_leverage!r} liquidates an account at its largest leverage as "
                    f"soon as it trades; give a margin below 1 / max_leverage = "
                    f"{1.0 / self.max_leverage:.6g}"
                )
            set_field(self, "maintenance_margin", margin)

    @property
    def effective_margin_rate(self) -> float:
        """The rate paid on borrowed cash: ``margin_rate``, or ``cash_rate`` when it is None."""
        return self.cash_rate if self.margin_rate is None else self.margin_rate


@dataclass(frozen=True)
class Settlement:
    """The result of one period of an account (see `settle`).

    Attributes:
        growth: The factor by which equity changed, ``1 + sum(w * r) -
            financing``; 0 for a wiped-out account. Shape ``(...)``.
        drifted: The weights at the end of the period, ``w * (1 + r) / growth``
            (the positions are unchanged, their value and the equity moved);
            all 0 for a wiped-out account. Shape ``(..., n_assets)``.
        financing: The net financing cost over the period as a fraction of
            equity at its start: margin interest plus borrow fees minus the
            interest earned on cash (negative when the account earns). Shape
            ``(...)``.
        wiped_out: Whether equity fell to 0 or below. Shape ``(...)``.
    """

    growth: Array
    drifted: Array
    financing: Array
    wiped_out: NDArray[np.bool_]


def _config(config: AccountConfig | None, owner: str) -> AccountConfig:
    if config is None:
        return AccountConfig()
    if not isinstance(config, AccountConfig):
        raise TypeError(f"{owner}: config must be an AccountConfig, got {config!r}")
    return config


def _weights(weights: ArrayLike, what: str) -> tuple[F64, bool]:
    """Weights with at least one axis, and whether the input was a scalar."""
    array = as_array(weights, what)
    if array.ndim == 0:
        return array.reshape(1), True
    return array, False


def project_weights(
    scores: ArrayLike,
    tradable: ArrayLike | AccountConfig | None = None,
    config: AccountConfig | None = None,
    *,
    cash_score: ArrayLike | None = None,
) -> F64:
    """The weights the account may hold for the given scores (sekai 0.2's call).

    Untradable assets get a weight of 0. Without ``cash_score`` the scores are
    target weights, projected onto what the account allows: negative ones
    become 0 when ``config.allow_short`` is false; then, if the gross exposure
    ``sum(|w|)`` exceeds ``config.max_leverage``, every weight is scaled down
    by the same factor to meet it (the direction of the portfolio is kept).

    With ``cash_score`` (long-only accounts) the scores are shares, cash's
    share being ``cash_score``: asset ``i`` gets ``max_leverage * s_i /
    (sum(s) + cash_score)`` and cash what is left (all cash when every score
    is 0), as Market-v0 reads its long-only action.

    ``project_weights(weights, config)``, the form of earlier 0.3 versions,
    still works: a config in the second place is read as ``config``.

    Args:
        scores: Target weights or scores, shape ``(..., n_assets)``.
        tradable: Which assets can trade: bools (or 0s and 1s, as an action
            mask) broadcastable to ``scores``; None for all of them.
        config: The account's rules (default: ``AccountConfig()``, long-only
            without leverage).
        cash_score: Cash's score (>= 0), a number or one per account, shape
            ``(...)``; None to project target weights.

    Returns:
        The weights, a new float64 array of the same shape as ``scores``.

    Raises:
        TypeError: ``config`` is not an AccountConfig, or two are given, or
            ``tradable`` is not a mask.
        ValueError: A score is NaN or infinite, ``tradable`` does not
            broadcast to the scores; or, with ``cash_score``, the account may
            short, or a score or the cash score is negative.
    """
    if isinstance(tradable, AccountConfig):  # the earlier form, project_weights(weights, config)
        if config is not None:
            raise TypeError(
                f"project_weights: got two configs, {tradable!r} (in tradable's place) and "
                f"{config!r}; pass tradable first, then config"
            )
        tradable, config = None, tradable
    rules = _config(config, "project_weights")
    array, scalar = _weights(scores, "project_weights: scores")
    if not np.isfinite(array).all():
        raise ValueError(f"project_weights: scores must be finite, got {scores!r}")
    if tradable is not None:
        array = np.where(_mask(tradable, array.shape), array, 0.0)
    if cash_score is None:
        projected = _projected(array, rules)
    else:
        projected = _shares(array, cash_score, rules)
    return projected.reshape(()) if scalar else projected


def _mask(tradable: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    """``tradable`` as bools of ``shape`` (an action mask of 0s and 1s is read too)."""
    try:
        allowed = np.asarray(tradable)
        valid = allowed.dtype == np.bool_ or bool(np.isin(allowed, (0, 1)).all())
    except (TypeError, ValueError):
        valid = False
    if not valid:
        raise TypeError(
            "project_weights: tradable must be bools or 0s and 1s (1 where the asset can "
            f"trade), got {tradable!r}"
        )
    try:
        return np.broadcast_to(allowed.astype(np.bool_), shape)
    except ValueError:
        raise ValueError(
            f"project_weights: tradable of shape {allowed.shape} does not broadcast to the "
            f"scores' shape {shape}"
        ) from None


def _projected(array: F64, rules: AccountConfig) -> F64:
    """Target weights with shorts removed unless allowed and the gross exposure capped."""
    projected = array.copy() if rules.allow_short else np.maximum(array, 0.0)
    with np.errstate(over="ignore"):  # an overflow is handled below
        gross = np.abs(projected).sum(axis=-1, keepdims=True)
    limit = rules.max_leverage
    huge = ~np.isfinite(gross)
    if huge.any():  # weights whose sum overflows: summed at the scale of the largest
        largest = np.abs(projected).max(axis=-1, keepdims=True)
        projected /= np.where(huge, largest, 1.0)
        gross = np.abs(projected).sum(axis=-1, keepdims=True)
        over = huge | (gross > limit)  # a gross beyond the largest float is over any limit
    else:
        over = gross > limit
    if over.any():
        projected *= np.where(over, limit / np.where(over, gross, 1.0), 1.0)
    return projected


def _shares(array: F64, cash_score: ArrayLike, rules: AccountConfig) -> F64:
    """Long-only scores read as shares of ``max_leverage``, cash's share being ``cash_score``."""
    if rules.allow_short:
        raise ValueError(
            "project_weights: cash_score is for long-only accounts, whose scores are shares; "
            f"this one may short ({rules!r}): pass its target weights without cash_score"
        )
    cash = as_array(cash_score, "project_weights: cash_score")
    if (array < 0.0).any() or not (np.isfinite(cash).all() and (cash >= 0.0).all()):
        raise ValueError(
            "project_weights: a long-only account's scores and cash_score must be >= 0 (and "
            f"finite), got scores {array!r} and cash_score {cash_score!r}"
        )
    scores = np.concatenate([array, np.broadcast_to(cash, array.shape[:-1])[..., None]], axis=-1)
    with np.errstate(over="ignore"):
        total = scores.sum(axis=-1, keepdims=True)
    huge = ~np.isfinite(total)
    if huge.any():  # scores whose sum overflows: their proportions, from the largest
        scores = scores / np.where(huge, scores.max(axis=-1, keepdims=True), 1.0)
        total = scores.sum(axis=-1, keepdims=True)
    positive = total > 0.0
    shares = scores[..., :-1] / np.where(positive, total, 1.0)
    weights: F64 = rules.max_leverage * np.where(positive, shares, 0.0)
    return weights


def turnover(target: ArrayLike, current: ArrayLike) -> Array:
    """``sum(|target - current|)`` over the assets: the value traded, as a fraction of equity.

    Args:
        target: The weights after trading, shape ``(..., n_assets)``.
        current: The (drifted) weights before trading, same shape.

    Returns:
        One turnover per account: a float64 scalar, or an array of shape ``(...)``.
    """
    change = as_array(target, "turnover: target") - as_array(current, "turnover: current")
    return sum_assets(np.abs(change))


def _accrual(dt: ArrayLike, rates: tuple[float, float, float]) -> tuple[Any, Any, Any]:
    """``exp(rate * dt) - 1`` for each rate (Python floats for a scalar ``dt``).

    numpy's ``expm1`` in both cases: ``math.expm1`` differs from it in the last
    bit for a few inputs in a million, and a single env must give the numbers
    its native vector env gives.
    """
    cash, margin, borrow = rates
    if is_real(dt):
        grown = np.expm1(np.array(rates) * float(dt)).tolist()
        return grown[0], grown[1], grown[2]
    period = as_array(dt, "settle: dt")
    return np.expm1(cash * period), np.expm1(margin * period), np.expm1(borrow * period)


def settle(
    weights: ArrayLike,
    returns: ArrayLike,
    dt: ArrayLike,
    config: AccountConfig | None = None,
    *,
    cost: ArrayLike = 0.0,
) -> Settlement:
    """Hold ``weights`` over one period: costs, asset returns, financing, drift, bankruptcy.

    The call of sekai 0.2, ``settle(weights, returns, cost=..., dt=...,
    config=...)``, and the positional ``settle(weights, returns, dt, config)``
    both work.

    Args:
        weights: The weights held over the period (after trading), shape
            ``(..., n_assets)``, as fractions of the equity after paying
            ``cost``; a scalar is a single asset.
        returns: The simple return of each asset over the period, shape
            ``(..., n_assets)`` (or broadcastable to it).
        dt: The period's length in years (e.g. ``1 / 252`` for a trading
            day), a scalar or one per account, shape ``(...)``.
        config: The account's financing rates (default: ``AccountConfig()``,
            no financing).
        cost: The transaction cost of the trade that led to ``weights``, a
            fraction of the equity before it (>= 0), paid before the period:
            a scalar or one per account. The equity then grows by ``(1 -
            cost) * (1 + sum(w * r) - financing)``. 0 by default.

    Returns:
        The `Settlement`: growth (costs included), drifted weights, financing
        cost (a fraction of the equity after the cost) and whether the account
        is wiped out (growth ``<= 0``, a cost of 1 or more included; such an
        account's growth is reported as 0 and its drifted weights as 0).

    Raises:
        TypeError: ``config`` is not an AccountConfig.
        ValueError: ``cost`` is negative, NaN or infinite.
    """
    rules = _config(config, "settle")
    held, scalar = _weights(weights, "settle: weights")
    paid = _cost(cost)
    moved = held * (1.0 + as_array(returns, "settle: returns"))
    cash = 1.0 - held.sum(axis=-1)
    rates = (rules.cash_rate, rules.effective_margin_rate, rules.borrow_rate)
    financing: Any = np.zeros(np.shape(cash)) if not any(rates) else 0.0
    if any(rates):
        accrued = _accrual(dt, rates)
        if rates[0] != 0.0:
            financing = financing - np.maximum(cash, 0.0) * accrued[0]
        if rates[1] != 0.0:
            financing = financing + np.maximum(-cash, 0.0) * accrued[1]
        if rates[2] != 0.0:
            financing = financing + np.maximum(-held, 0.0).sum(axis=-1) * accrued[2]
    # Subtracting a financing of zero changes no bit; skipping it saves a pass.
    held_growth = moved.sum(axis=-1) + cash - financing if any(rates) else moved.sum(axis=-1) + cash
    if paid is None:
        growth = held_growth
        wiped_out = growth <= 0.0
    else:  # a cost of the whole equity or more leaves nothing to hold
        paid = _per_account(paid, np.shape(held_growth))
        growth = (1.0 - paid) * held_growth
        wiped_out = (held_growth <= 0.0) | (paid >= 1.0)
    if wiped_out.any() if wiped_out.ndim else wiped_out:
        growth = np.where(wiped_out, 0.0, growth)
        safe = np.where(wiped_out, 1.0, held_growth)[..., None]
        drifted = np.where(wiped_out[..., None], 0.0, moved / safe)
    else:
        drifted = moved / held_growth[..., None]
    return Settlement(
        growth=unwrap(np.asarray(growth, dtype=np.float64)),
        drifted=unwrap(drifted[..., 0]) if scalar else drifted,
        financing=unwrap(np.asarray(financing, dtype=np.float64)),
        wiped_out=wiped_out,
    )


def _cost(cost: ArrayLike) -> F64 | None:
    """The cost fraction checked (finite, >= 0); None for the scalar 0 (nothing to pay)."""
    if is_real(cost) and float(cost) == 0.0:
        return None
    paid = as_array(cost, "settle: cost")
    if not (np.isfinite(paid).all() and (paid >= 0.0).all()):
        raise ValueError(f"settle: cost must be finite fractions of equity >= 0, got {cost!r}")
    return paid


def _per_account(paid: F64, shape: tuple[int, ...]) -> F64:
    """The cost broadcast to one per account (``shape``)."""
    try:
        return np.broadcast_to(paid, shape)
    except ValueError:
        raise ValueError(
            f"settle: cost must be a number or one per account, shape {shape}; got shape "
            f"{paid.shape}"
        ) from None
