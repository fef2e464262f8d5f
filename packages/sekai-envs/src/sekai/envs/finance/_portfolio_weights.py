"""Portfolio accounting on batches, shared by Portfolio-v0 and its native vector env.

Every function works on a leading batch axis; the single env calls them with a
batch of one, so both implementations compute bit-identical results. Weights
are ``(B, n_assets + 1)`` with cash last. The trade, its cost and the period's
settlement are `sekai.envs.finance._account_step.account_step`'s, on
`sekai.finance.account` and `sekai.finance.costs`: this module only
turns actions into target weights and keeps the cash column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._account_step import StepAccount, account_step
from sekai.error import InvalidAction
from sekai.finance.account import AccountConfig, project_weights
from sekai.finance.costs import CostModel

__all__ = ["check_actions", "rebalance", "short_targets", "target_weights"]

F64 = NDArray[np.float64]

# What ndarray.sum / min / max / all compute, called directly: the methods wrap them in Python.
_total = np.add.reduce
_smallest = np.minimum.reduce
_largest = np.maximum.reduce
_every = np.logical_and.reduce

# Rows whose largest entry is above this, over twice the row's length, could add up past the
# largest float: they are rescaled by that entry before being summed (see `_rescaled`).
_LARGEST_FLOAT = float(np.finfo(np.float64).max)


def check_actions(actions: Any, shape: tuple[int, ...], what: str, *, signed: bool = False) -> F64:
    """Convert ``actions`` to float64 and check their shape and values.

    Args:
        actions: The action (or batch of actions).
        shape: The shape expected.
        what: The name in error messages.
        signed: Accept negative values (target weights with shorts); otherwise
            they must be non-negative scores.

    Raises:
        InvalidAction: Wrong shape, or a value that is NaN, infinite or (unless
            ``signed``) negative.
    """
    array = np.asarray(actions, dtype=np.float64) if not isinstance(actions, str) else None
    if array is None or array.shape != shape:
        got = "a string" if array is None else f"shape {array.shape}"
        raise InvalidAction(f"{what} must be an array of shape {shape}, got {got}: {actions!r}")
    # The minimum is NaN when any entry is NaN, which fails the comparison too. The ufuncs'
    # reduce, not min() / max(), which add a Python layer to every step of an env.
    low = _smallest(array, axis=None)
    if signed:
        if not (low > -np.inf and _largest(array, axis=None) < np.inf):
            raise InvalidAction(f"{what} must hold finite target weights, got {actions!r}")
    elif not (low >= 0.0 and _largest(array, axis=None) < np.inf):
        raise InvalidAction(f"{what} must hold non-negative finite target weights, got {actions!r}")
    return array


def target_weights(actions: F64, weights: F64, tradable: F64 | None, leverage: float = 1.0) -> F64:
    """Map long-only scores onto weights, keeping untradable assets where they are.

    Args:
        actions: ``(B, n + 1)`` non-negative finite scores (cash last).
        weights: ``(B, n + 1)`` current weights.
        tradable: ``(B, n + 1)`` float, 1.0 for tradable entries and 0.0 for
            halted assets (cash is always tradable); None when every entry
            is tradable (the same result, sooner).
        leverage: The account's ``max_leverage``: the tradable assets' share
            of the portfolio is scaled by it, the cash weight being what is
            left (negative: a margin loan).

    Returns:
        ``(B, n + 1)`` target weights: a halted asset keeps its current weight;
        the rest of the portfolio is split among the tradable entries in
        proportion to their scores, or put in cash when those scores are all 0.
        Proportions hold for any finite scores: scores so large that their
        sum would overflow are divided by their largest one first.
    """
    if tradable is None:
        # Nothing kept, the whole portfolio to split: the arithmetic below with kept = 0
        # and budget = 1, less the operations that leave every bit as it is.
        return _split(actions, None, None, leverage)
    kept = weights - weights * tradable  # exactly the weights of halted assets, else 0
    budget = 1.0 - _total(kept, axis=1)
    np.maximum(budget, 0.0, out=budget)
    return _split(actions * tradable, kept, budget, leverage)


def _split(scores: F64, kept: F64 | None, budget: F64 | None, leverage: float) -> F64:
    """`target_weights` from the tradable scores, the kept weights and the budget left.

    ``kept`` and ``budget`` are None for 0 and 1: then ``x + 0.0`` stands for
    ``0.0 + 1.0 * x`` (the same bits: it only turns -0.0 into 0.0).
    """
    scores = _rescaled(scores)
    total = _total(scores, axis=1)
    shares: F64
    if _every(total):
        shares = scores / total[:, None]
    else:
        positive = total > 0.0
        shares = scores / np.where(positive, total, 1.0)[:, None]
        shares[~positive, -1] = 1.0  # nothing asked for: the budget goes to cash
    if leverage == 1.0:
        if kept is None or budget is None:
            shares += 0.0
            return shares
        split: F64 = kept + budget[:, None] * shares
        return split
    result: F64 = np.empty_like(shares)
    if kept is None or budget is None:
        result[:, :-1] = leverage * shares[:, :-1] + 0.0
    else:
        result[:, :-1] = kept[:, :-1] + (leverage * budget)[:, None] * shares[:, :-1]
    result[:, -1] = 1.0 - _total(result[:, :-1], axis=1)
    return result


def _rescaled(scores: F64) -> F64:
    """Non-negative ``scores``, each row whose sum could overflow divided by its largest score.

    A row of finite scores sums to infinity once they are large enough (two
    scores of 1e308 already do); divided by its largest it cannot, and its
    proportions are the same. Rows too small to overflow, every row of an
    action in its space included, are left as they are, bit for bit;
    ``scores`` itself is never changed.
    """
    limit = _LARGEST_FLOAT / (2 * scores.shape[1])
    if _largest(scores, axis=None) <= limit:  # the usual case: one reduce, no copy
        return scores
    largest = _largest(scores, axis=1)
    rows = largest > limit
    rescaled: F64 = scores.copy()
    rescaled[rows] = scores[rows] / largest[rows, None]
    return rescaled


def short_targets(actions: F64, weights: F64, tradable: F64 | None, config: AccountConfig) -> F64:
    """Map signed target weights onto weights the account allows.

    The tradable assets' targets go through
    [`project_weights`][sekai.finance.account.project_weights] (gross exposure at most
    ``config.max_leverage``); halted assets keep their current weight (outside
    that budget). Cash is what is left.

    Args:
        actions: ``(B, n)`` finite target weights of the assets.
        weights: ``(B, n + 1)`` current weights.
        tradable: ``(B, n + 1)`` float, 1.0 for tradable entries; None when
            every entry is tradable (the same result, sooner).
        config: The account's rules (``allow_short=True``).

    Returns:
        ``(B, n + 1)`` target weights, cash last (targets whose gross exposure
        overflows included: `project_weights` keeps their direction).
    """
    n = actions.shape[1]
    if tradable is None:
        # No weight kept: 0.0 + free, as below, is free with -0.0 turned into 0.0.
        assets = project_weights(actions, config=config) + 0.0
    else:
        free = project_weights(actions * tradable[:, :n], config=config)
        assets = weights[:, :n] - weights[:, :n] * tradable[:, :n] + free
    result: F64 = np.empty_like(weights)
    result[:, :n] = assets
    result[:, n] = 1.0 - _total(assets, axis=1)
    return result


def rebalance(
    weights: F64,
    target: F64,
    returns: F64,
    *,
    dt: float | F64,
    config: AccountConfig,
    cost_model: CostModel,
    market: Mapping[str, Any],
    equity: F64,
    bounded: bool,
    before: F64 | None = None,
    kept: NDArray[np.bool_] | None = None,
) -> tuple[F64, StepAccount]:
    """Trade to ``target``, pay costs, and let one period of returns pass.

    Args:
        weights: ``(B, n + 1)`` weights before trading.
        target: ``(B, n + 1)`` weights after trading.
        returns: ``(B, n)`` simple returns of the assets over the period.
        dt: The period in years (cash earns ``config.cash_rate`` over it).
        config: The account's rates.
        cost_model: The transaction cost model.
        market: The cost model's keywords (``equity`` included).
        equity: ``(B,)`` values before trading.
        bounded: Long-only without leverage: the cash weight cannot be
            negative, so rounding below 0 is clipped.
        before: ``(B, n)`` returns from the decision to a later fill, or None
            (`account_step`).
        kept: ``(B, n)`` assets that cannot be traded, or None (`account_step`).

    Returns:
        ``(new_weights, step)``: the drifted weights ``(B, n + 1)`` (cash last;
        all cash for a wiped-out account) and the step's account
        (`StepAccount`: turnover
        ``sum_i |target_i - weights_i|`` over the assets, costs, growth,
        equity and the outcome for the reward).
    """
    n = returns.shape[1]
    step = account_step(
        weights[:, :n],
        target[:, :n],
        returns,
        dt=dt,
        config=config,
        cost_model=cost_model,
        market=market,
        equity=equity,
        before=before,
        kept=kept,
    )
    new_weights: F64 = np.empty_like(weights)
    new_weights[:, :n] = step.drifted
    cash = 1.0 - _total(step.drifted, axis=1)
    if bounded:
        # np.clip's values, without its Python layers.
        np.maximum(cash, 0.0, out=cash)
        np.minimum(cash, 1.0, out=cash)
    new_weights[:, n] = cash
    return new_weights, step
