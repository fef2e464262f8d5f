"""The Almgren & Chriss (2000) closed forms and baselines of OptimalExecution-v0 (private).

Shared by [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv] and its
native vector env, whose methods only delegate here:

- `optimal_holdings`, the paper's optimal trajectory, and
  `schedule_fractions`, the env actions that follow a trajectory;
- `shortfall_moments`, the mean and variance of the implementation shortfall
  of a static schedule (the paper's ``E[x]`` and ``V[x]``);
- `twap_fractions`, the TWAP action of one sub-env or of many.

The notation is the paper's, as in ``_optimal_execution_kernel``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.envs.finance._optimal_execution_kernel import ExecutionConfig, Rows

__all__ = ["optimal_holdings", "schedule_fractions", "shortfall_moments", "twap_fractions"]

_F64 = NDArray[np.float64]


def optimal_holdings(config: ExecutionConfig) -> _F64:
    """The Almgren-Chriss optimal holdings ``x_0 = X, x_1, ..., x_N = 0``.

    ``x_j = X sinh(kappa (T - t_j)) / sinh(kappa T)`` where ``kappa`` solves
    ``2 (cosh(kappa tau) - 1) / tau**2 = risk_aversion sigma**2 / eta_tilde``;
    with no risk aversion (or no volatility) ``kappa = 0`` and the holdings
    fall linearly (TWAP). Computed as ``exp(-kappa t) (1 - exp(-2 kappa (T -
    t))) / (1 - exp(-2 kappa T))``, which does not overflow for large
    ``kappa T``.

    Raises:
        ValueError: ``eta_tilde <= 0`` while the trader is risk averse (the
            paper's model then has no optimal trajectory).
    """
    n = config.n_steps
    times = np.arange(n + 1) * config.tau
    urgency = config.risk_aversion * config.sigma * config.sigma
    if urgency > 0.0 and config.eta_tilde <= 0.0:
        raise ValueError(
            "the Almgren-Chriss trajectory needs temporary_impact > permanent_impact * tau / 2 "
            f"(eta_tilde > 0), got eta={config.eta!r}, gamma={config.gamma!r}, "
            f"tau={config.tau!r}"
        )
    kappa_tilde_sq = urgency / config.eta_tilde if urgency > 0.0 else 0.0
    kappa = math.acosh(1.0 + 0.5 * kappa_tilde_sq * config.tau**2) / config.tau
    total = config.total_time
    if kappa * total < 1e-12:
        fraction = 1.0 - np.arange(n + 1) / n
    else:
        left = total - times
        fraction = np.exp(-kappa * times) * -np.expm1(-2.0 * kappa * left)
        fraction /= -math.expm1(-2.0 * kappa * total)
    holdings: _F64 = config.X0 * fraction
    holdings[0] = config.X0
    holdings[-1] = 0.0
    return holdings


def schedule_fractions(holdings: _F64) -> NDArray[np.float32]:
    """The env actions that follow ``holdings``: ``1 - x_k / x_{k-1}``, shape ``(N, 1)``.

    A period that starts with nothing left gets 1 (the env is done by then).
    """
    before, after = holdings[:-1], holdings[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = np.where(before > 0.0, 1.0 - after / before, 1.0)
    actions: NDArray[np.float32] = np.clip(fractions, 0.0, 1.0).astype(np.float32)[:, None]
    return actions


def shortfall_moments(config: ExecutionConfig, trades: ArrayLike) -> tuple[float, float]:
    """``(E, V)``: the mean and variance of the implementation shortfall of ``trades``.

    ``E = gamma X**2 / 2 + epsilon sum |n_k| + (eta_tilde / tau) sum n_k**2`` and
    ``V = sigma**2 tau sum x_k**2`` (``k = 1..N``), the paper's equations for a
    static schedule, in dollars.

    Args:
        config: The model.
        trades: ``n_1, ..., n_N``, the shares sold in each period; they must
            add up to ``X0`` (to a relative 1e-9).

    Raises:
        ValueError: ``trades`` is not ``N`` finite numbers adding up to ``X0``.
    """
    n = np.asarray(trades, dtype=np.float64)
    if n.shape != (config.n_steps,) or not bool(np.all(np.isfinite(n))):
        raise ValueError(
            f"trades must be {config.n_steps} finite numbers (shares sold in each period), "
            f"got {trades!r}"
        )
    total = float(n.sum())
    if not math.isclose(total, config.X0, rel_tol=1e-9, abs_tol=1e-9):
        raise ValueError(
            f"trades must add up to the initial inventory {config.X0!r}, got a total of {total!r}"
        )
    holdings = config.X0 - np.cumsum(n)
    mean = (
        0.5 * config.gamma * config.X0 * config.X0
        + config.epsilon * float(np.abs(n).sum())
        + config.eta_tilde / config.tau * float(np.dot(n, n))
    )
    variance = config.sigma * config.sigma * config.tau * float(np.dot(holdings, holdings))
    return mean, variance


def twap_fractions(config: ExecutionConfig, t: Rows) -> NDArray[np.float32]:
    """The TWAP action after ``t`` periods: sell ``1 / (periods left)`` of what remains.

    Args:
        config: The model.
        t: Periods elapsed: an int (one sub-env) or an int array (many).

    Returns:
        Shape ``(1,)`` for an int, ``(n, 1)`` for an array of ``n`` (float32).
    """
    left = np.maximum(config.n_steps - t, 1)  # 1 once the episode is over
    fractions: NDArray[np.float32] = np.asarray(1.0 / left, dtype=np.float32)[..., None]
    return fractions
