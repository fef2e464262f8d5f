"""Reward functions of trading envs: what one step of an account is worth to the agent.

An env describes each step with a `StepOutcome` (the account's return,
equity, turnover and transaction cost over the step, usually built with
`StepOutcome.from_growth`) and passes it to its reward function::

    reward = reward_fn(StepOutcome.from_growth(growth, equity=..., turnover=..., cost=...))

The outcome's returns are **net of transaction costs and financing**: costs
are paid inside every reward, never only in a report.

Every field may be a scalar (one env) or an array of shape ``(n_envs,)`` (a
native vector env stepping a batch); a reward function returns a numpy
float64 scalar or an array of the same shape. Stateful rewards
(`DifferentialSharpe`, `DrawdownPenalty`) keep one state per
env: `RewardFunction.reset` clears all of it, ``reset(mask)`` only the
rows where ``mask`` is true (the sub-envs that start a new episode). An env
computes the reward of the step that ends an episode first, then resets.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_real
from sekai.finance._money import F64, Array, as_array, unwrap

__all__ = [
    "DifferentialSharpe",
    "DrawdownPenalty",
    "LogReturn",
    "MeanVariance",
    "ProfitAndLoss",
    "RewardFunction",
    "SimpleReturn",
    "StepOutcome",
    "TurnoverPenalty",
]

_ROUNDING = 1e-12  # a variance below this fraction of the second moment is rounding
_VARIANCE_FLOOR = float(np.finfo(np.float64).tiny) ** (2.0 / 3.0)  # its power 1.5 is > 0

_TINY = float(np.finfo(np.float64).tiny)
_LOG_FLOOR = math.log(_TINY)
"""The log return of a step that wipes the account out (about -708.4), instead of -inf."""


@dataclass(frozen=True)
class StepOutcome:
    """What happened to an account (or a batch of accounts) over one step.

    Fields are scalars for one env, arrays of shape ``(n_envs,)`` for a batch.

    Attributes:
        log_return: ``log(equity / previous_equity)``, net of costs and
            financing; floored at about -708.4 (the log of the smallest
            positive float) when the account is wiped out.
        simple_return: ``equity / previous_equity - 1``, net of costs and
            financing.
        equity: The account value at the end of the step.
        turnover: ``sum |trade|`` of the step's rebalance, as a fraction of
            equity.
        cost: The transaction cost of the step as a fraction of the equity
            before trading (what a [`CostModel`][sekai.finance.CostModel]
            returns); already included in the returns.
        pnl: ``equity - previous_equity`` in currency, or ``None`` if unknown.
    """

    log_return: Any
    simple_return: Any
    equity: Any
    turnover: Any
    cost: Any
    pnl: Any = None

    @classmethod
    def from_growth(
        cls,
        growth: ArrayLike,
        *,
        equity: ArrayLike,
        turnover: ArrayLike,
        cost: ArrayLike,
        previous_equity: ArrayLike | None = None,
    ) -> StepOutcome:
        """An outcome from the account's growth factor over the step.

        Args:
            growth: ``equity / previous_equity``, the factor by which the
                account's value changed over the step, **net** of costs and
                financing: for a rebalance costing ``cost`` followed by a
                [`settle`][sekai.finance.account.settle] growth ``g``, it is
                ``(1 - cost) * g``. At most 0 when the account is wiped out.
            equity: The account value at the end of the step.
            turnover: The step's turnover (fraction of equity).
            cost: The step's transaction cost (fraction of the equity before
                trading).
            previous_equity: The account value at the start of the step; when
                omitted the PnL is derived as ``equity - equity / growth`` (NaN
                for a zero growth).

        Returns:
            The outcome, with float64 scalars for scalar inputs and float64
            arrays otherwise.
        """
        factor = as_array(growth, "StepOutcome.from_growth: growth")
        end = as_array(equity, "StepOutcome.from_growth: equity")
        # Clipped at the smallest normal float, whose log is the floor, log never meets 0:
        # the same values as clipping at 0, without the cost of silencing its warning.
        log_return = np.maximum(np.log(np.maximum(factor, _TINY)), _LOG_FLOOR)
        if previous_equity is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                pnl = end - end / factor
        else:
            pnl = end - as_array(previous_equity, "StepOutcome.from_growth: previous_equity")
        return cls(
            unwrap(np.asarray(log_return)),
            unwrap(factor - 1.0),
            unwrap(end),
            unwrap(as_array(turnover, "StepOutcome.from_growth: turnover")),
            unwrap(as_array(cost, "StepOutcome.from_growth: cost")),
            unwrap(np.asarray(pnl, dtype=np.float64)),
        )


class RewardFunction(ABC):
    """Base class of reward functions: ``reward = reward_fn(outcome)``.

    Subclasses implement `__call__`; those with per-env state also
    override `reset`.
    """

    @abstractmethod
    def __call__(self, outcome: StepOutcome) -> Array:
        """The reward of one step: a float64 scalar, or one per env for a batch."""

    def reset(self, mask: NDArray[np.bool_] | None = None) -> None:  # noqa: B027 (a no-op by design)
        """Start new episodes: all envs, or the rows where ``mask`` is true.

        Stateless rewards have nothing to reset.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _values(value: Any, owner: str, field: str) -> F64:
    if value is None:
        raise ValueError(f"{owner} needs the outcome's {field}, got None")
    return as_array(value, f"{owner}: outcome.{field}")


class LogReturn(RewardFunction):
    """The log growth of the account: ``outcome.log_return``.

    Rewards add up to the log of final over initial equity, so maximising
    their sum maximises terminal wealth geometrically (the Kelly criterion).
    """

    def __call__(self, outcome: StepOutcome) -> Array:
        """``outcome.log_return``."""
        return unwrap(_values(outcome.log_return, "LogReturn", "log_return"))


class SimpleReturn(RewardFunction):
    """The account's simple return over the step: ``outcome.simple_return``."""

    def __call__(self, outcome: StepOutcome) -> Array:
        """``outcome.simple_return``."""
        return unwrap(_values(outcome.simple_return, "SimpleReturn", "simple_return"))


class ProfitAndLoss(RewardFunction):
    """The change of the account's value in currency: ``outcome.pnl``.

    Calling it on an outcome without a PnL (``pnl=None``) raises ``ValueError``.
    """

    def __call__(self, outcome: StepOutcome) -> Array:
        """``outcome.pnl``."""
        return unwrap(_values(outcome.pnl, "ProfitAndLoss", "pnl"))


class MeanVariance(RewardFunction):
    """A quadratic utility of the step's return: ``r - risk_aversion / 2 * r**2``.

    ``r`` is the simple return. The expected reward is
    ``mu - risk_aversion / 2 * (sigma**2 + mu**2)``: Markowitz's mean-variance
    objective per step (as in Ritter 2017), up to the small ``mu**2`` term.

    Args:
        risk_aversion: The weight of the variance term (>= 0; 0 gives the
            simple return).

    Raises:
        TypeError: ``risk_aversion`` is not a real number.
        ValueError: ``risk_aversion`` is negative, NaN or infinite.
    """

    def __init__(self, risk_aversion: float = 1.0) -> None:
        self.risk_aversion = check_real(risk_aversion, "MeanVariance: risk_aversion", minimum=0.0)

    def __call__(self, outcome: StepOutcome) -> Array:
        """``r - risk_aversion / 2 * r**2`` with ``r = outcome.simple_return``."""
        r = _values(outcome.simple_return, "MeanVariance", "simple_return")
        return unwrap(r - 0.5 * self.risk_aversion * r * r)

    def __repr__(self) -> str:
        return f"MeanVariance(risk_aversion={self.risk_aversion!r})"


class TurnoverPenalty(RewardFunction):
    """The log return with the step's transaction costs charged a second time.

    ``reward = outcome.log_return + log(1 - outcome.cost)``: the log growth the
    account would have had if trading cost twice what it does. The penalty
    grows with turnover at the rate the env's cost model charges for it, needs
    no coefficient, and is the usual remedy for an agent that over-trades
    (train at doubled costs, evaluate at real ones). With free trading it
    equals `LogReturn`.
    """

    def __call__(self, outcome: StepOutcome) -> Array:
        """``outcome.log_return + log(1 - outcome.cost)``."""
        log_return = _values(outcome.log_return, "TurnoverPenalty", "log_return")
        cost = _values(outcome.cost, "TurnoverPenalty", "cost")
        with np.errstate(divide="ignore", invalid="ignore"):
            penalty = np.maximum(np.log1p(-cost), _LOG_FLOOR)
        return unwrap(log_return + penalty)


class _Stateful:
    """Per-env state arrays for a reward: created at the first call, reset by row.

    Subclasses list their state arrays and initial values in ``_initial``.
    """

    _initial: ClassVar[dict[str, float]] = {}

    def __init__(self) -> None:
        self._state: dict[str, F64] | None = None

    def _state_for(self, shape: tuple[int, ...]) -> dict[str, F64]:
        state = self._state
        if state is None:
            state = {name: np.full(shape, value) for name, value in self._initial.items()}
            self._state = state
            return state
        held = next(iter(state.values())).shape
        if held != shape:
            raise ValueError(
                f"{type(self).__name__} holds state for returns of shape {held} but was "
                f"called with shape {shape}; call reset() before changing the batch size"
            )
        return state

    def reset(self, mask: NDArray[np.bool_] | None = None) -> None:
        """Start new episodes: all envs, or the rows where ``mask`` is true.

        Args:
            mask: ``None`` to clear every env's state (the next call may use
                any batch shape), or a bool array of the batch's shape.

        Raises:
            TypeError: ``mask`` is not a bool array.
            ValueError: ``mask`` does not have the shape of the state.
        """
        if mask is None:
            self._state = None
            return
        rows = np.asarray(mask)
        if rows.dtype != np.bool_:
            raise TypeError(f"{type(self).__name__}.reset: mask must be a bool array, got {mask!r}")
        if self._state is None:
            return
        for name, array in self._state.items():
            if rows.shape != array.shape:
                raise ValueError(
                    f"{type(self).__name__}.reset: mask must have the batch shape "
                    f"{array.shape}, got shape {rows.shape}"
                )
            array[rows] = self._initial[name]


class DifferentialSharpe(_Stateful, RewardFunction):
    """The differential Sharpe ratio of Moody and Saffell (1998, 2001).

    The marginal effect of the step's return ``R_t`` (the simple return) on an
    exponential moving estimate of the Sharpe ratio, so that maximising the
    sum of rewards maximises the Sharpe ratio online. With moving moments
    ``A_t = A_{t-1} + eta * (R_t - A_{t-1})`` and
    ``B_t = B_{t-1} + eta * (R_t**2 - B_{t-1})``, both 0 at the start of an
    episode, the reward is::

        D_t = (B_{t-1} * dA - A_{t-1} * dB / 2) / (B_{t-1} - A_{t-1}**2) ** 1.5

    with ``dA = R_t - A_{t-1}`` and ``dB = R_t**2 - B_{t-1}``; it is 0 while
    the moving variance ``B_{t-1} - A_{t-1}**2`` is not positive (the first
    step of an episode), or is within rounding of ``B_{t-1}`` (a relative
    1e-12) or so small that its power 1.5 underflows: where it would be
    infinite. One ``(A, B)`` pair is kept per env.

    Args:
        eta: The adaptation rate of the moving moments, in ``(0, 1]``
            (about ``1 / window``).

    Raises:
        TypeError: ``eta`` is not a real number.
        ValueError: ``eta`` is outside ``(0, 1]``.
    """

    _initial: ClassVar[dict[str, float]] = {"a": 0.0, "b": 0.0}

    def __init__(self, eta: float = 0.01) -> None:
        super().__init__()
        self.eta = check_real(
            eta, "DifferentialSharpe: eta", minimum=0.0, maximum=1.0, min_open=True
        )

    def __call__(self, outcome: StepOutcome) -> Array:
        """``D_t`` for each env, updating the moving moments."""
        r = _values(outcome.simple_return, "DifferentialSharpe", "simple_return")
        state = self._state_for(r.shape)
        a, b = state["a"], state["b"]
        delta_a = r - a
        delta_b = r * r - b
        variance = b - a * a
        # A variance within rounding of B (after a constant stretch, say) is none at all: its
        # power 1.5 would underflow to 0 and make the reward infinite.
        positive = (variance > _ROUNDING * b) & (variance > _VARIANCE_FLOOR)
        with np.errstate(divide="ignore", invalid="ignore"):
            reward = np.where(
                positive,
                (b * delta_a - 0.5 * a * delta_b) / np.where(positive, variance, 1.0) ** 1.5,
                0.0,
            )
        a += self.eta * delta_a
        b += self.eta * delta_b
        return unwrap(reward)

    def __repr__(self) -> str:
        return f"DifferentialSharpe(eta={self.eta!r})"


class DrawdownPenalty(_Stateful, RewardFunction):
    """The log return minus every deepening of the episode's maximum drawdown.

    Drawdowns are measured in log equity, ``log(peak / equity)``. The reward is
    ``log_return - (M_t - M_{t-1})`` where ``M_t`` is the largest drawdown of
    the episode so far, so a loss is charged twice when it makes the
    worst drawdown deeper and once otherwise, and an episode's rewards add up to
    ``log(final / initial equity) - M_T``: the log growth minus the maximum
    drawdown, a Calmar-like objective with no parameter. The peak, the log
    equity and ``M`` are kept per env.
    """

    _initial: ClassVar[dict[str, float]] = {"level": 0.0, "peak": 0.0, "worst": 0.0}

    def __init__(self) -> None:
        super().__init__()

    def __call__(self, outcome: StepOutcome) -> Array:
        """``log_return - (M_t - M_{t-1})`` for each env, updating the drawdown."""
        r = _values(outcome.log_return, "DrawdownPenalty", "log_return")
        state = self._state_for(r.shape)
        level, peak, worst = state["level"], state["peak"], state["worst"]
        level += r
        np.maximum(peak, level, out=peak)
        deeper = np.maximum(peak - level - worst, 0.0)
        worst += deeper
        return unwrap(r - deeper)
