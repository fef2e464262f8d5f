"""One step of a market env's account: trade, pay costs, hold, reward (private).

The step every market env takes, written once on `sekai.finance`:
trade from the drifted weights to the target (the cost model's cost, a
fraction of equity), [`settle`][sekai.finance.account.settle] the period at the
target weights, then describe the step with
[`from_growth`][sekai.finance.rewards.StepOutcome.from_growth] for the reward
function. Weights have the assets on the last axis: ``(n_assets,)`` for one
account, ``(n_envs, n_assets)`` for a batch, and every operation is
element-wise or a sum over that axis, so a single env (a batch of one) and a
native vector env compute the same numbers bit for bit.

Also here: the checks of the arguments every market env's account shares (its
reward function and its starting capital).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_real
from sekai.finance.account import AccountConfig, Settlement, settle, turnover
from sekai.finance.costs import CostModel, NoCost, ProportionalCost
from sekai.finance.rewards import LogReturn, RewardFunction, StepOutcome

__all__ = [
    "OneAccount",
    "StepAccount",
    "account_config",
    "account_step",
    "account_step_one",
    "accruals",
    "assigned_reward",
    "check_reward",
    "positive_capital",
    "scalar_cost",
]

F64 = NDArray[np.float64]
_UNFINANCED = AccountConfig(allow_short=True, max_leverage=float(np.finfo(np.float64).max))


def check_reward(reward: RewardFunction | None, owner: str) -> RewardFunction:
    """The env's own copy of ``reward`` (``LogReturn()`` for None).

    Copied so that envs built from the same arguments (the sub-envs of
    ``make_vec``) never share the state of a stateful reward.

    Raises:
        TypeError: ``reward`` is not a RewardFunction.
    """
    if reward is None:
        return LogReturn()
    if not isinstance(reward, RewardFunction):
        raise TypeError(
            f"{owner}: reward must be a sekai.finance.RewardFunction or None, got {reward!r}"
        )
    return copy.deepcopy(reward)


def assigned_reward(value: object, owner: str) -> RewardFunction:
    """A reward function assigned to an env's ``reward_fn``: used as given, if it is one.

    Raises:
        TypeError: ``value`` is not a RewardFunction.
    """
    if not isinstance(value, RewardFunction):
        raise TypeError(f"{owner}: reward_fn must be a RewardFunction, got {value!r}")
    return value


def account_config(owner: str, **fields: Any) -> AccountConfig:
    """``AccountConfig(**fields)``, its errors naming the env as well.

    Raises:
        TypeError, ValueError: As `AccountConfig`, the message prefixed with ``owner``.
    """
    try:
        return AccountConfig(**fields)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{owner}: {error}") from None


def positive_capital(capital: object, owner: str) -> float:
    """The starting equity: a finite real number > 0."""
    return check_real(capital, f"{owner}: capital", minimum=0.0, min_open=True)


@dataclass(frozen=True)
class StepAccount:
    """What one step did to the account(s).

    Attributes:
        gross: The period's growth before costs (``settle``'s), 0 when wiped out.
        growth: The growth net of costs, ``(1 - cost) * gross``; 0 when wiped out.
        drifted: The weights at the end of the period (0 when wiped out).
        turnover: ``sum |target - current|``.
        cost: The transaction cost, a fraction of the equity before trading.
        financing: The financing cost of the period (fraction of equity).
        wiped_out: Whether the equity fell to 0 or below.
        equity: The equity at the end of the step.
        outcome: The step for the reward function.
        liquidated: With a maintenance margin, which accounts were closed out
            for falling below it (their ``equity`` is what is left, negative
            when they lost more than it); None without.
    """

    gross: Any
    growth: Any
    drifted: F64
    turnover: Any
    cost: Any
    financing: Any
    wiped_out: NDArray[np.bool_]
    equity: Any
    outcome: StepOutcome
    liquidated: NDArray[np.bool_] | None = None


def account_step(
    current: F64,
    target: F64,
    returns: F64,
    *,
    dt: float | F64,
    config: AccountConfig,
    cost_model: CostModel,
    market: Mapping[str, Any],
    equity: Any,
    before: F64 | None = None,
    kept: NDArray[np.bool_] | None = None,
) -> StepAccount:
    """Rebalance from ``current`` to ``target``, pay the costs and hold for one period.

    With ``before`` the fill comes after the decision (`sekai.envs.finance._execution`):
    ``current`` is first held over ``before`` and financed over ``dt``, then
    the account trades from the drifted weights at the fill, then holds
    ``target`` over ``returns`` (unfinanced: the financing was the first leg's).
    Without it the account trades at once and holds ``target`` over
    ``returns``, financed over ``dt``.

    Args:
        current: Drifted weights before the decision, ``(..., n_assets)``.
        target: Weights after trading (already allowed by ``config``).
        returns: Simple returns of the assets from the fill to the end of the period.
        dt: The period in years (for financing), a number or one per account.
        config: The account's rates.
        cost_model: The transaction cost model.
        market: The keywords for the cost model, ``equity`` included (the
            equity before the period; replaced by the equity at the fill when
            ``before`` is given).
        equity: The account value before the period, ``(...)``.
        before: Simple returns of the assets from the decision to the fill, or None.
        kept: Where True (same shape as ``target``), the asset cannot be
            traded: its target is its weight at the fill, whatever ``target``
            says. Long-only, the other targets (which shared what the kept
            weights left before the decision) are scaled to share what they
            leave at the fill, so the weights still add up; with shorts the
            kept weights are outside the leverage budget and cash takes up the
            difference. None: every asset trades.

    Returns:
        The `StepAccount`; its ``cost`` is a fraction of the equity at the fill.
    """
    if before is None:
        if kept is not None:
            target = np.where(kept, current, target)
        traded = turnover(target, current)
        cost = np.asarray(cost_model(target - current, **market), dtype=np.float64)
        settlement = settle(target, returns, dt, config)
        carried: Any = 1.0
        financing = settlement.financing
    else:
        held = settle(current, before, dt, config)
        carried, financing = held.growth, held.financing
        at_fill = held.drifted
        if kept is not None:
            target = _kept_at_fill(target, current, at_fill, kept, config)
        traded = turnover(target, at_fill)
        at_fill_market = {**market, "equity": equity * carried}
        cost = np.asarray(cost_model(target - at_fill, **at_fill_market), dtype=np.float64)
        settlement = settle(target, returns, 0.0, _UNFINANCED)
    net = carried * (1.0 - cost) * settlement.growth
    if before is not None and np.any(held.wiped_out):
        net = np.where(held.wiped_out, 0.0, net)  # its cost over an equity of 0 may be NaN
    call = None
    if config.maintenance_margin is not None:
        fill_leg = None if before is None else (current, before, held)
        call = _margin_call(
            config.maintenance_margin,
            (target, returns, carried, cost, settlement),
            fill_leg,
            cost_model,
            market,
        )
    wiped = np.asarray(net <= 0.0)
    if wiped.any():
        net = np.where(wiped, 0.0, net)
        drifted = np.where(wiped[..., None], 0.0, settlement.drifted)
        gross = np.where(wiped, 0.0, carried * settlement.growth)
    else:
        drifted = settlement.drifted
        gross = carried * settlement.growth if before is not None else settlement.growth
    liquidated = None
    if call is not None:  # closed out at the step's prices: the equity left is reported
        liquidated = call.called
        net = np.where(liquidated, call.growth, net)
        drifted = np.where(liquidated[..., None], 0.0, drifted)
        wiped = wiped | liquidated
        # The close-out is traded and paid for; a call at the fill made no other trade.
        traded = np.where(call.at_fill, 0.0, traded) + np.where(liquidated, call.sold, 0.0)
        cost = np.where(call.at_fill, 0.0, cost) + np.where(liquidated, call.selling, 0.0)
    new_equity = equity * net
    outcome = StepOutcome.from_growth(
        net, equity=new_equity, turnover=traded, cost=cost, previous_equity=equity
    )
    return StepAccount(
        gross=gross,
        growth=net,
        drifted=np.asarray(drifted, dtype=np.float64),
        turnover=traded,
        cost=cost,
        financing=financing,
        wiped_out=wiped,
        equity=new_equity,
        outcome=outcome,
        liquidated=liquidated,
    )


class MarginCall(NamedTuple):
    """The accounts a maintenance margin closes out, and what it costs them.

    Attributes:
        growth: The growth of the step net of the close-out (negative when
            the loss exceeds the equity).
        called: Which accounts are closed out.
        at_fill: Which of them at the fill (they make no other trade).
        sold: The value closed out, a fraction of the equity before the step.
        selling: The cost model's price of closing it, the same fraction.
    """

    growth: Any
    called: NDArray[np.bool_]
    at_fill: NDArray[np.bool_]
    sold: Any
    selling: Any


def _margin_call(
    margin: float,
    trade: tuple[F64, F64, Any, Any, Settlement],
    fill_leg: tuple[F64, F64, Settlement] | None,
    cost_model: CostModel,
    market: Mapping[str, Any],
) -> MarginCall | None:
    """The growth after liquidating the accounts below the maintenance margin, or None.

    Works on the positions' values at the end of the step as fractions of the
    equity before it (well defined when the equity is gone, which `settle`'s
    growth floors at 0): an account whose equity is below ``maintenance_margin``
    times the gross value of its positions sells them at the step's closing
    prices and pays the cost model's price of that trade (told the equity
    before the step). With a fill after the decision the account is marked at
    the fill too: below the margin there, it is liquidated at the fill prices
    instead of trading.

    Args:
        margin: The maintenance margin.
        trade: The step after its fill: the target weights, the returns from
            the fill, the growth up to the fill, the cost and the settlement.
        fill_leg: Before a later fill: the weights held to it, their returns
            and their settlement; None for a fill at the decision.
        cost_model: The cost model.
        market: Its keywords, with the equity before the step.

    Returns:
        The `MarginCall`, or None when no account is liquidated.
    """
    target, returns, carried, cost, settlement = trade
    base = np.asarray(carried * (1.0 - cost), dtype=np.float64)
    values = base[..., None] * target * (1.0 + returns)
    cash = base * (1.0 - target.sum(axis=-1) - settlement.financing)
    called_at_fill: Any = False
    if fill_leg is not None:  # marked at the fill first: called there, it never trades
        current, before, held = fill_leg
        at_fill = current * (1.0 + before)
        at_fill_cash = 1.0 - current.sum(axis=-1) - held.financing
        at_fill_equity = at_fill.sum(axis=-1) + at_fill_cash
        called_at_fill = (at_fill_equity <= 0.0) | (
            margin * np.abs(at_fill).sum(axis=-1) > at_fill_equity
        )
        if np.any(called_at_fill):
            values = np.where(called_at_fill[..., None], at_fill, values)
            cash = np.where(called_at_fill, at_fill_cash, cash)
    equity_left = values.sum(axis=-1) + cash
    gross = np.abs(values).sum(axis=-1)
    called = np.asarray(called_at_fill | (equity_left <= 0.0) | (margin * gross > equity_left))
    if not called.any():
        return None
    selling = np.asarray(cost_model(-values, **market), dtype=np.float64)
    return MarginCall(
        equity_left - selling, called, np.asarray(called_at_fill) & called, gross, selling
    )


def _kept_at_fill(
    target: F64, current: F64, at_fill: F64, kept: NDArray[np.bool_], config: AccountConfig
) -> F64:
    """``target`` with the kept assets at their weights at the fill (see `account_step`)."""
    pinned: F64 = np.where(kept, at_fill, target)
    if config.allow_short:
        return pinned
    # Long-only targets split what the kept weights leave (`target_weights`): what they
    # left at the decision, to be scaled to what they leave at the fill.
    left_then = 1.0 - np.where(kept, current, 0.0).sum(axis=-1, keepdims=True)
    left_now = 1.0 - np.where(kept, at_fill, 0.0).sum(axis=-1, keepdims=True)
    scale = np.where(left_then > 0.0, left_now / np.where(left_then > 0.0, left_then, 1.0), 0.0)
    rescaled: F64 = np.where(kept, at_fill, target * np.maximum(scale, 0.0))
    return rescaled


# -- one account holding one asset, on Python floats ------------------------------------------
#
# A single env's step (one account, one asset) pays numpy's per-call cost dozens of times in
# `account_step` and `settle`, for arithmetic on one number each. The functions below do the
# same arithmetic on Python floats: the same formulas, the same operations in the same order
# (a sum over one asset is that asset's value), so every result equals `account_step`'s bit
# for bit. The equivalence tests step both paths side by side.

Accruals = tuple[float | None, float | None, float | None]
"""``exp(rate * dt) - 1`` for the cash, margin and borrow rates, None for a rate of 0."""


def accruals(config: AccountConfig, dt: float) -> Accruals | None:
    """The accruals `settle` applies over ``dt`` years, or None when the account pays no rate.

    The same numbers as `settle`'s, numpy's ``expm1`` (``math.expm1`` differs
    from it in the last bit for a few inputs in a million); a rate of 0, which
    `settle` skips, has None.
    """
    rates = (config.cash_rate, config.effective_margin_rate, config.borrow_rate)
    if not any(rates):
        return None
    grown = np.expm1(np.array(rates) * dt).tolist()
    cash, margin, borrow = (g if r != 0.0 else None for g, r in zip(grown, rates, strict=True))
    return cash, margin, borrow


def _settle_one(
    weight: float, asset_return: float, accrued: Accruals | None
) -> tuple[float, float, float, bool]:
    """`settle` of one asset's weight: ``(growth, drifted, financing, wiped_out)``."""
    moved = weight * (1.0 + asset_return)
    cash = 1.0 - weight
    if accrued is None:
        financing = 0.0
        growth = moved + cash
    else:
        cash_accrual, margin_accrual, borrow_accrual = accrued
        financing = 0.0
        if cash_accrual is not None:
            financing = financing - max(cash, 0.0) * cash_accrual
        if margin_accrual is not None:
            financing = financing + max(-cash, 0.0) * margin_accrual
        if borrow_accrual is not None:
            financing = financing + max(-weight, 0.0) * borrow_accrual
        growth = moved + cash - financing
    if growth <= 0.0:
        return 0.0, 0.0, financing, True
    return growth, moved / growth, financing, False


ScalarCost = Callable[[float], float]
"""A cost model's price of one asset's trade, for the models that need no market input."""


def _no_cost(trade: float) -> float:
    return 0.0


def _proportional(model: ProportionalCost, trade: float) -> float:
    rate: float = model.rate  # type: ignore[assignment]  # a float: checked by scalar_cost
    return abs(trade) * rate


def scalar_cost(model: CostModel) -> ScalarCost | None:
    """``model`` as a function of one asset's trade, when it reads nothing else; else None.

    `NoCost` and a `ProportionalCost` with one rate (``|trade| * rate``, the
    number its ``__call__`` gives for one asset). Subclasses, which may price
    otherwise, get None: the caller then calls the model itself.
    """
    if type(model) is NoCost:
        return _no_cost
    if type(model) is ProportionalCost and isinstance(model.rate, float):
        return functools.partial(_proportional, model)  # a partial pickles
    return None


class OneAccount(NamedTuple):
    """`StepAccount` for one account holding one asset, on Python floats.

    Attributes:
        growth: The growth net of costs (0 when wiped out).
        drifted: The weight at the end of the period (0 when wiped out).
        turnover: ``|target - current|`` (at the fill).
        cost: The transaction cost, a fraction of the equity at the fill.
        wiped_out: Whether the equity fell to 0 or below.
        equity: The equity at the end of the step.
    """

    growth: float
    drifted: float
    turnover: float
    cost: float
    wiped_out: bool
    equity: float


def account_step_one(
    current: float,
    target: float,
    returns: float,
    *,
    accrued: Accruals | None,
    cost_of: ScalarCost,
    equity: float,
    before: float | None = None,
    kept: bool = False,
) -> OneAccount:
    """`account_step` for one account holding one asset, without a maintenance margin.

    Args:
        current: The drifted weight before the decision.
        target: The target weight (NaN is allowed where ``kept``).
        returns: The asset's simple return from the fill to the end of the period.
        accrued: `accruals` of the account over the step, or None.
        cost_of: The cost model's price of a trade (`scalar_cost`).
        equity: The account value before the period.
        before: The asset's simple return from the decision to the fill, or None.
        kept: The asset cannot be traded: its target is its weight at the fill.
    """
    if before is None:
        if kept:
            target = current
        traded = abs(target - current)
        cost = cost_of(target - current)
        growth, drifted, _, _ = _settle_one(target, returns, accrued)
        net = 1.0 * (1.0 - cost) * growth
    else:
        carried, at_fill, _, held_wiped = _settle_one(current, before, accrued)
        if kept:  # one asset: long-only or not, it keeps its weight at the fill
            target = at_fill
        traded = abs(target - at_fill)
        cost = cost_of(target - at_fill)
        growth, drifted, _, _ = _settle_one(target, returns, None)
        net = carried * (1.0 - cost) * growth
        if held_wiped:
            net = 0.0
    wiped = net <= 0.0
    if wiped:
        net = drifted = 0.0
    return OneAccount(net, drifted, traded, cost, wiped, equity * net)
