"""Rewards and StepOutcome: closed forms, recursions, telescoping sums, batching, resets."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sekai.finance.metrics import max_drawdown
from sekai.finance.rewards import (
    DifferentialSharpe,
    DrawdownPenalty,
    LogReturn,
    MeanVariance,
    ProfitAndLoss,
    RewardFunction,
    SimpleReturn,
    StepOutcome,
    TurnoverPenalty,
)

FEW = settings(max_examples=40, deadline=None)

growths = st.floats(0.5, 1.5, allow_nan=False)


def outcome_of(growth: Any, cost: Any = 0.0, equity: Any = 1.0) -> StepOutcome:
    return StepOutcome.from_growth(growth, equity=equity, turnover=0.0, cost=cost)


# -- StepOutcome ---------------------------------------------------------------


def test_from_growth_hand_computed() -> None:
    outcome = StepOutcome.from_growth(1.1, equity=110.0, turnover=0.4, cost=0.002)
    assert outcome.log_return == pytest.approx(math.log(1.1), rel=1e-15)
    assert outcome.simple_return == pytest.approx(0.1, rel=1e-14)
    assert outcome.equity == 110.0
    assert outcome.turnover == 0.4
    assert outcome.cost == 0.002
    assert outcome.pnl == pytest.approx(10.0, rel=1e-13)  # derived: 110 - 110 / 1.1
    for value in (outcome.log_return, outcome.simple_return, outcome.pnl):
        assert isinstance(value, np.float64)
    given_previous = StepOutcome.from_growth(
        1.1, equity=110.0, turnover=0.4, cost=0.002, previous_equity=100.0
    )
    assert given_previous.pnl == 10.0


def test_from_growth_batched() -> None:
    outcome = StepOutcome.from_growth(
        [1.1, 0.9, 1.0],
        equity=[110.0, 90.0, 50.0],
        turnover=[0.1, 0.2, 0.0],
        cost=[0.001, 0.002, 0.0],
        previous_equity=[100.0, 100.0, 50.0],
    )
    np.testing.assert_allclose(outcome.log_return, np.log([1.1, 0.9, 1.0]), rtol=1e-15)
    np.testing.assert_allclose(outcome.simple_return, [0.1, -0.1, 0.0], atol=1e-15)
    np.testing.assert_array_equal(outcome.pnl, [10.0, -10.0, 0.0])
    assert outcome.log_return.shape == (3,)


def test_wiped_out_outcome_has_a_finite_floor() -> None:
    outcome = StepOutcome.from_growth([0.0, -0.5], equity=[0.0, -5.0], turnover=1.0, cost=0.0)
    assert np.isfinite(outcome.log_return).all()
    assert (outcome.log_return < -700.0).all()
    np.testing.assert_array_equal(outcome.simple_return, [-1.0, -1.5])
    assert LogReturn()(outcome)[0] == outcome.log_return[0]


# -- stateless rewards ------------------------------------------------------------


def test_stateless_rewards_hand_computed() -> None:
    # a 1% cost paid on the way to a 2% market gain
    outcome = StepOutcome.from_growth(
        0.99 * 1.02, equity=100.98, turnover=2.0, cost=0.01, previous_equity=100.0
    )
    assert LogReturn()(outcome) == pytest.approx(math.log(0.99 * 1.02), rel=1e-14)
    assert SimpleReturn()(outcome) == pytest.approx(0.0098, rel=1e-12)
    assert ProfitAndLoss()(outcome) == pytest.approx(0.98, rel=1e-12)
    assert MeanVariance(risk_aversion=2.0)(outcome) == pytest.approx(0.0098 - 0.0098**2, rel=1e-12)
    assert MeanVariance(0.0)(outcome) == pytest.approx(0.0098, rel=1e-12)
    # the turnover penalty charges the 1% again: log(0.99 ** 2 * 1.02)
    assert TurnoverPenalty()(outcome) == pytest.approx(math.log(0.99**2 * 1.02), rel=1e-13)
    free = outcome_of(1.02, cost=0.0)
    assert TurnoverPenalty()(free) == LogReturn()(free)


def test_costs_lower_every_reward() -> None:
    gross = StepOutcome.from_growth(1.02, equity=1.02, turnover=1.0, cost=0.0)
    net = StepOutcome.from_growth(1.02 * 0.995, equity=1.02 * 0.995, turnover=1.0, cost=0.005)
    for reward in (LogReturn(), SimpleReturn(), ProfitAndLoss(), MeanVariance(), TurnoverPenalty()):
        assert reward(net) < reward(gross), reward


def test_profit_and_loss_needs_pnl() -> None:
    outcome = StepOutcome(0.0, 0.0, 1.0, 0.0, 0.0)
    assert outcome.pnl is None
    with pytest.raises(ValueError, match=r"ProfitAndLoss needs the outcome's pnl"):
        ProfitAndLoss()(outcome)


def test_reward_function_contract() -> None:
    with pytest.raises(TypeError):
        RewardFunction()  # type: ignore[abstract]
    reward = LogReturn()
    reward.reset()
    reward.reset(np.array([True, False]))  # stateless: nothing to do
    assert repr(MeanVariance(0.5)) == "MeanVariance(risk_aversion=0.5)"
    with pytest.raises(ValueError, match=r"risk_aversion must be a finite real number >= 0"):
        MeanVariance(-1.0)
    with pytest.raises(ValueError, match=r"eta must be a finite real number in \(0.0, 1.0\]"):
        DifferentialSharpe(0.0)
    with pytest.raises(TypeError, match=r"eta must be"):
        DifferentialSharpe("0.1")  # type: ignore[arg-type]


@FEW
@given(
    path=hnp.arrays(np.float64, st.integers(1, 60), elements=growths),
    start=st.floats(1.0, 1e6, allow_subnormal=False),
)
def test_log_return_sum_telescopes(path: NDArray[np.float64], start: float) -> None:
    equity = start * np.cumprod(path)
    previous = np.concatenate(([start], equity[:-1]))
    reward = LogReturn()
    total = 0.0
    for before, after in zip(previous, equity, strict=True):
        total += reward(
            StepOutcome.from_growth(after / before, equity=after, turnover=0.0, cost=0.0)
        )
    assert total == pytest.approx(math.log(equity[-1] / start), rel=1e-9, abs=1e-12)


def test_log_return_on_real_prices(sp500_prices: NDArray[np.float64]) -> None:
    growth = sp500_prices[1:] / sp500_prices[:-1]
    rewards = LogReturn()(outcome_of(growth, equity=sp500_prices[1:]))
    assert rewards.shape == growth.shape
    assert math.fsum(rewards) == pytest.approx(
        math.log(sp500_prices[-1] / sp500_prices[0]), rel=1e-10
    )


# -- DifferentialSharpe --------------------------------------------------------------


def reference_differential_sharpe(returns: list[float], eta: float) -> list[float]:
    """Moody & Saffell's recursion, one float at a time."""
    a = b = 0.0
    rewards = []
    for r in returns:
        variance = b - a * a
        # Within rounding of b, or with a power 1.5 below the smallest normal float: none.
        if variance > 1e-12 * b and variance > np.finfo(np.float64).tiny ** (2 / 3):
            rewards.append((b * (r - a) - 0.5 * a * (r * r - b)) / variance**1.5)
        else:
            rewards.append(0.0)
        a, b = a + eta * (r - a), b + eta * (r * r - b)
    return rewards


def test_differential_sharpe_hand_computed() -> None:
    reward = DifferentialSharpe(eta=0.1)
    assert reward(outcome_of(1.01)) == 0.0  # no variance yet
    # A1 = 0.001, B1 = 1e-5; D2 = (1e-5 * 0.019 - 0.5 * 0.001 * 0.00039) / 9e-6 ** 1.5
    assert reward(outcome_of(1.02)) == pytest.approx(-5e-9 / 2.7e-8, rel=1e-9)


def test_the_recursion_is_the_derivative_of_the_moving_sharpe_ratio() -> None:
    # D_t is dS_t/d(eta) at eta = 0 for S = A / sqrt(B - A^2) (Moody & Saffell 1998, eq. 4).
    a, b, r = 0.0004, 0.0003, -0.012
    eta = 1e-7

    def sharpe(a_: float, b_: float) -> float:
        return a_ / math.sqrt(b_ - a_ * a_)

    moved = sharpe(a + eta * (r - a), b + eta * (r * r - b))
    derivative = (moved - sharpe(a, b)) / eta
    formula = (b * (r - a) - 0.5 * a * (r * r - b)) / (b - a * a) ** 1.5
    assert derivative == pytest.approx(formula, rel=1e-5)


@FEW
@given(
    returns=hnp.arrays(
        np.float64, st.integers(1, 50), elements=st.floats(-0.1, 0.1, allow_subnormal=False)
    ),
    eta=st.floats(0.001, 1.0, allow_subnormal=False),
)
def test_differential_sharpe_matches_its_recursive_definition(
    returns: NDArray[np.float64], eta: float
) -> None:
    reward = DifferentialSharpe(eta)
    got = [float(reward(outcome_of(1.0 + r))) for r in returns]
    expected = reference_differential_sharpe([float(x) for x in (1.0 + returns) - 1.0], eta)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_differential_sharpe_on_real_returns(sp500_returns: NDArray[np.float64]) -> None:
    returns = sp500_returns[:1000]
    reward = DifferentialSharpe(0.01)
    got = [float(reward(outcome_of(1.0 + r))) for r in returns]
    expected = reference_differential_sharpe(list((1.0 + returns) - 1.0), 0.01)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


# -- DrawdownPenalty ------------------------------------------------------------------


def test_drawdown_penalty_hand_computed() -> None:
    log_returns = [0.1, -0.2, 0.05, -0.1, 0.3]
    reward = DrawdownPenalty()
    got = [float(reward(outcome_of(math.exp(r)))) for r in log_returns]
    np.testing.assert_allclose(got, [0.1, -0.4, 0.05, -0.15, 0.3], rtol=1e-12, atol=1e-15)
    # the sum is the log growth (0.15) minus the maximum log drawdown (0.25)
    assert math.fsum(got) == pytest.approx(-0.1, rel=1e-12)


@FEW
@given(
    path=hnp.arrays(
        np.float64, st.integers(1, 40), elements=st.floats(0.8, 1.25, allow_subnormal=False)
    )
)
def test_drawdown_penalty_sums_to_log_growth_minus_max_drawdown(path: NDArray[np.float64]) -> None:
    reward = DrawdownPenalty()
    total = math.fsum(float(reward(outcome_of(g))) for g in path)
    worst = max_drawdown(path - 1.0)  # a fraction; in log terms -log(1 - worst)
    expected = float(np.log(path).sum()) + math.log1p(-worst)
    assert total == pytest.approx(expected, rel=1e-9, abs=1e-9)


# -- batches and resets ------------------------------------------------------------------

STATEFUL: list[Any] = [DifferentialSharpe, DrawdownPenalty]
ALL: list[Any] = [LogReturn, SimpleReturn, ProfitAndLoss, MeanVariance, TurnoverPenalty, *STATEFUL]


@pytest.mark.parametrize("make", ALL, ids=lambda make: make.__name__)
@FEW
@given(
    paths=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(1, 4)), elements=growths)
)
def test_batched_rewards_agree_with_one_env_at_a_time(
    make: Any, paths: NDArray[np.float64]
) -> None:
    n_steps, n_envs = paths.shape
    costs = np.linspace(0.0, 0.01, n_envs)
    batched = make()
    singles = [make() for _ in range(n_envs)]
    for step in range(n_steps):
        outcome = outcome_of(paths[step], cost=costs, equity=paths[step] * 100.0)
        rewards = batched(outcome)
        assert isinstance(rewards, np.ndarray)
        assert rewards.shape == (n_envs,)
        for env in range(n_envs):
            one = singles[env](
                outcome_of(paths[step, env], cost=costs[env], equity=paths[step, env] * 100.0)
            )
            assert isinstance(one, np.float64)
            assert one == pytest.approx(rewards[env], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("make", STATEFUL, ids=lambda make: make.__name__)
def test_reset_with_a_mask_restarts_only_those_envs(make: Any) -> None:
    rng = np.random.default_rng(7)
    paths = 1.0 + rng.normal(0.0, 0.02, size=(30, 3))
    batched = make()
    for step in range(15):
        batched(outcome_of(paths[step]))
    batched.reset(np.array([False, True, False]))
    fresh = make()  # env 1 starts over at step 15
    continuing = make()  # env 0 never restarted
    for step in range(15):
        continuing(outcome_of(paths[step, 0]))
    for step in range(15, 30):
        rewards = batched(outcome_of(paths[step]))
        assert rewards[1] == pytest.approx(fresh(outcome_of(paths[step, 1])), rel=1e-12, abs=1e-15)
        assert rewards[0] == pytest.approx(
            continuing(outcome_of(paths[step, 0])), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize("make", STATEFUL, ids=lambda make: make.__name__)
def test_stateful_reset_errors_and_shape_changes(make: Any) -> None:
    reward = make()
    reward.reset(np.array([True]))  # no state yet: nothing to do
    reward(outcome_of(np.array([1.01, 0.99])))
    with pytest.raises(ValueError, match=r"called with shape \(\)"):
        reward(outcome_of(1.01))
    with pytest.raises(ValueError, match=r"mask must have the batch shape \(2,\)"):
        reward.reset(np.array([True, False, True]))
    with pytest.raises(TypeError, match=r"mask must be a bool array"):
        reward.reset(np.array([1, 0]))
    reward.reset()
    expected = math.log(1.01) if make is DrawdownPenalty else 0.0
    assert reward(outcome_of(1.01)) == pytest.approx(expected, rel=1e-12)
