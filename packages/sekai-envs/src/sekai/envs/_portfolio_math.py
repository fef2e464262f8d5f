"""Portfolio accounting on batches, shared by Portfolio-v0 and its native vector env.

Every function works on a leading batch axis; the single env calls them with a
batch of one, so both implementations compute bit-identical results.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.error import InvalidAction

__all__ = ["check_actions", "rebalance", "target_weights"]

F64 = NDArray[np.float64]


def check_actions(actions: Any, shape: tuple[int, ...], what: str) -> F64:
    """Convert ``actions`` to float64 and check their shape and values.

    Raises:
        InvalidAction: Wrong shape, or a value that is negative, NaN or infinite.
    """
    array = np.asarray(actions, dtype=np.float64) if not isinstance(actions, str) else None
    if array is None or array.shape != shape:
        got = "a string" if array is None else f"shape {array.shape}"
        raise InvalidAction(f"{what} must be an array of shape {shape}, got {got}: {actions!r}")
    # min() is NaN when any entry is NaN, which fails the comparison too.
    if not (array.min() >= 0.0 and array.max() < np.inf):
        raise InvalidAction(f"{what} must hold non-negative finite target weights, got {actions!r}")
    return array


def target_weights(actions: F64, weights: F64, tradable: F64) -> F64:
    """Map actions onto the simplex, keeping untradable assets where they are.

    Args:
        actions: ``(B, n + 1)`` non-negative finite scores (cash last).
        weights: ``(B, n + 1)`` current weights.
        tradable: ``(B, n + 1)`` float, 1.0 for tradable entries and 0.0 for
            halted assets (cash is always tradable).

    Returns:
        ``(B, n + 1)`` target weights: a halted asset keeps its current weight;
        the rest of the portfolio is split among the tradable entries in
        proportion to their scores, or put in cash when those scores are all 0.
    """
    scores = actions * tradable
    kept = weights - weights * tradable  # exactly the weights of halted assets, else 0
    budget = 1.0 - kept.sum(axis=1)
    np.maximum(budget, 0.0, out=budget)
    total = scores.sum(axis=1)
    if total.all():
        shares = scores / total[:, None]
    else:
        positive = total > 0.0
        shares = scores / np.where(positive, total, 1.0)[:, None]
        shares[~positive, -1] = 1.0  # nothing asked for: the budget goes to cash
    result: F64 = kept + budget[:, None] * shares
    return result


def rebalance(
    weights: F64,
    target: F64,
    next_returns: F64,
    risk_free_rate: float,
    cost: float,
) -> tuple[F64, F64, F64, F64, F64]:
    """Trade to ``target``, pay costs, and let one period of returns pass.

    Args:
        weights: ``(B, n + 1)`` weights before trading.
        target: ``(B, n + 1)`` weights after trading.
        next_returns: ``(B, n)`` log-returns of the risky assets over the period.
        risk_free_rate: Log-return of cash over one period.
        cost: Proportional cost per unit of turnover.

    Returns:
        ``(new_weights, reward, turnover, cost_fraction, gross_log_return)``:
        the drifted weights ``(B, n + 1)`` and four ``(B,)`` arrays. Turnover is
        ``sum_i |target_i - weights_i|`` over the risky assets; the costs take
        ``cost * turnover`` of the portfolio's value; the reward is the log of
        the portfolio's value change, ``log(gross) + log(1 - cost * turnover)``.
    """
    turnover = np.abs(target[:, :-1] - weights[:, :-1]).sum(axis=1)
    cost_fraction = cost * turnover
    growth = np.empty_like(target)
    np.exp(next_returns, out=growth[:, :-1])
    growth[:, -1] = np.exp(risk_free_rate)
    grown = target * growth
    gross = grown.sum(axis=1)
    new_weights: F64 = grown / gross[:, None]
    gross_log = np.log(gross)
    reward: F64 = gross_log + np.log1p(-cost_fraction)
    return new_weights, reward, turnover, cost_fraction, gross_log
