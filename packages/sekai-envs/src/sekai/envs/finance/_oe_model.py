"""The Almgren & Chriss (2000) execution model (private).

Shared by [`OptimalExecutionEnv`][sekai.envs.OptimalExecutionEnv]
and its native vector env:

- `ExecutionConfig` checks the constructor arguments and holds the
  step constants;
- `optimal_holdings` is the paper's optimal trajectory;
- `shortfall_moments` is the mean and variance of the implementation
  shortfall of any static schedule (the paper's ``E[x]`` and ``V[x]``).

Notation (the paper's): ``X`` shares to sell in ``N`` periods of length
``tau = T / N``; ``n_k`` shares sold in period ``k``, ``x_k`` held after it;
temporary impact ``h(n / tau) = epsilon sgn(n) + eta n / tau``; permanent
impact ``gamma n``; ``eta_tilde = eta - gamma tau / 2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_int, check_real
from sekai.error import InvalidAction
from sekai.spaces import Box

__all__ = [
    "ExecutionConfig",
    "checked_fractions",
    "optimal_holdings",
    "schedule_fractions",
    "shortfall_moments",
]

_F64 = NDArray[np.float64]


@dataclass(frozen=True)
class ExecutionConfig:
    """The checked parameters of an OptimalExecution-v0 simulation.

    Attributes use the paper's symbols: ``X0`` (initial inventory), ``gamma``
    (permanent impact), ``eta`` (temporary impact), ``epsilon`` (fixed cost
    per share, half the spread), ``tau`` (period length).
    """

    X0: float
    s0: float
    sigma: float
    total_time: float
    n_steps: int
    gamma: float
    eta: float
    epsilon: float
    risk_aversion: float

    @classmethod
    def checked(
        cls,
        owner: str,
        *,
        initial_inventory: Any,
        s0: Any,
        sigma: Any,
        total_time: Any,
        n_steps: Any,
        permanent_impact: Any,
        temporary_impact: Any,
        fixed_cost: Any,
        risk_aversion: Any,
    ) -> ExecutionConfig:
        """Check the constructor arguments of ``owner`` and build the config.

        Raises:
            TypeError: An argument has the wrong type.
            ValueError: An argument is out of range.
        """
        return cls(
            X0=check_real(
                initial_inventory, f"{owner}: initial_inventory", minimum=0.0, min_open=True
            ),
            s0=check_real(s0, f"{owner}: s0", minimum=0.0, min_open=True),
            sigma=check_real(sigma, f"{owner}: sigma", minimum=0.0),
            total_time=check_real(total_time, f"{owner}: total_time", minimum=0.0, min_open=True),
            n_steps=check_int(n_steps, f"{owner}: n_steps", minimum=1),
            gamma=check_real(permanent_impact, f"{owner}: permanent_impact", minimum=0.0),
            eta=check_real(temporary_impact, f"{owner}: temporary_impact", minimum=0.0),
            epsilon=check_real(fixed_cost, f"{owner}: fixed_cost", minimum=0.0),
            risk_aversion=check_real(risk_aversion, f"{owner}: risk_aversion", minimum=0.0),
        )

    @property
    def tau(self) -> float:
        """The length of a period, ``total_time / n_steps``."""
        return self.total_time / self.n_steps

    @property
    def eta_tilde(self) -> float:
        """``eta - gamma tau / 2``: the temporary impact net of the discretised permanent one."""
        return self.eta - 0.5 * self.gamma * self.tau

    @property
    def move_scale(self) -> float:
        """``sigma sqrt(tau)``: the standard deviation of the mid's move over a period."""
        return self.sigma * math.sqrt(self.tau)

    @property
    def penalty_scale(self) -> float:
        """``risk_aversion sigma**2 tau``: the reward's penalty per squared share held."""
        return self.risk_aversion * self.sigma * self.sigma * self.tau

    @property
    def price_unit(self) -> float:
        """``sigma sqrt(T)``, the unit of the observed mid move (1 when ``sigma`` is 0)."""
        unit = self.sigma * math.sqrt(self.total_time)
        return unit if unit > 0.0 else 1.0

    @property
    def reward_scale(self) -> float:
        """``1e4 / (X0 s0)``: dollars to basis points of the initial position's value."""
        return 1e4 / (self.X0 * self.s0)

    def observation_space(self) -> Box:
        """``Box([0, 0, -inf], [1, 1, inf])``: inventory left, time left, mid move."""
        return Box(
            np.array([0.0, 0.0, -np.inf], dtype=np.float32),
            np.array([1.0, 1.0, np.inf], dtype=np.float32),
            dtype=np.float32,
        )

    def action_space(self) -> Box:
        """``Box(0, 1, (1,))``: the fraction of the remaining inventory to sell now."""
        return Box(0.0, 1.0, (1,), np.float32)


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


def checked_fractions(actions: Any, owner: str, *, batch: bool) -> NDArray[np.float64]:
    """The fractions of an action (or a batch) as float64, or ``InvalidAction``.

    Args:
        actions: One action of shape ``(1,)``, or a batch ``(n, 1)`` when ``batch``.
        owner: The env's name, for the error.
        batch: Whether ``actions`` is a batch.
    """
    try:
        fractions = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError):
        fractions = None
    if (
        fractions is None
        or fractions.shape[-1:] != (1,)
        or fractions.ndim != (2 if batch else 1)
        or not bool(np.all((fractions >= 0.0) & (fractions <= 1.0)))
    ):
        raise InvalidAction(
            f"{owner} expects the fraction of the remaining inventory to sell, one number in "
            f"[0, 1] per env (shape (1,)), got {actions!r}"
        )
    return fractions
