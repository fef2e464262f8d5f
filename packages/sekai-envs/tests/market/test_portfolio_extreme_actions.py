"""Portfolio-v0 and Market-v0 give the weights huge finite actions mean, never cash by overflow.

Long-only scores are divided by their sum: two scores of 1e308 used to add up
to infinity, every weight became 0 and the account silently went to cash (or
held nothing at all). Signed targets were scaled by an infinite gross exposure
the same way. Any finite action now keeps its proportions.
"""

from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs import Episode, MarketEnv, PortfolioEnv, RegimeSwitchingSampler
from sekai.envs.finance._portfolio_weights import short_targets, target_weights
from sekai.finance import AccountConfig

pytestmark = pytest.mark.filterwarnings("error")  # no overflow warning either

LARGEST = sys.float_info.max
scores = st.floats(0.0, LARGEST, allow_nan=False, allow_infinity=False)
huge = st.floats(1e300, LARGEST, allow_nan=False, allow_infinity=False)
signed = st.floats(-LARGEST, LARGEST, allow_nan=False, allow_infinity=False)


def _with_a_huge(values: list[float], index: int, value: float) -> list[float]:
    values = list(values)
    values[index % len(values)] = value
    return values


def _proportions(values: list[float], total: float = 1.0) -> list[float]:
    """``values / sum(|values|) * total``, in exact arithmetic, rounded once."""
    exact = [Fraction(v) for v in values]
    gross = sum(abs(v) for v in exact)
    return [float(v / gross * Fraction(total)) for v in exact]


def _portfolio(n_assets: int = 3, **kwargs: object) -> PortfolioEnv:
    env = PortfolioEnv(sampler=RegimeSwitchingSampler(n_assets), capital=1.0, **kwargs)  # type: ignore[arg-type]
    env.reset(seed=0)
    return env


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(scores, min_size=4, max_size=4),
    index=st.integers(0, 3),
    value=huge,
)
def test_huge_scores_give_their_proportions(values: list[float], index: int, value: float) -> None:
    action = np.array(_with_a_huge(values, index, value))
    weights = _portfolio().action_to_weights(action)
    assert np.isfinite(weights).all() and (weights >= 0.0).all()
    assert weights.sum() == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(weights, _proportions(action.tolist()), rtol=1e-12, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4), scale=huge)
def test_scaling_the_scores_up_changes_nothing(values: list[float], scale: float) -> None:
    env = _portfolio()
    action = np.array(values)
    scaled = action / action.max() * scale if action.max() > 0.0 else action
    np.testing.assert_allclose(
        env.action_to_weights(scaled), env.action_to_weights(action), rtol=1e-12, atol=1e-15
    )


def test_a_step_with_huge_scores_holds_them() -> None:
    n, lookback, length = 3, 1, 2
    returns = np.zeros((lookback + length, n))
    env = PortfolioEnv(
        sampler=RegimeSwitchingSampler(n),
        lookback=lookback,
        episode_length=length,
        cost=0.0,
        capital=1.0,
    )
    env.reset(options={"episode": Episode(returns, np.zeros_like(returns, bool))})
    result = env.step(np.array([1e308, 1e308, LARGEST, 0.0]))
    expected = _proportions([1e308, 1e308, LARGEST, 0.0])
    np.testing.assert_allclose(env.weights, expected, rtol=1e-12)
    np.testing.assert_allclose(result.observation["weights"], expected, rtol=1e-6)
    assert result.info["turnover"] == pytest.approx(1.0 - expected[-1], rel=1e-12)
    assert result.reward == 0.0 and env.portfolio_value == 1.0


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(scores, min_size=4, max_size=4),
    index=st.integers(0, 3),
    value=huge,
    leverage=st.sampled_from([0.5, 1.0, 3.0]),
    halted=st.booleans(),
)
def test_target_weights_keep_proportions_with_leverage_and_halts(
    values: list[float], index: int, value: float, leverage: float, halted: bool
) -> None:
    action = np.array([_with_a_huge(values, index, value)])
    current = np.array([[0.25, 0.25, 0.25, 0.25]])
    mask = np.array([0.0, 1.0, 1.0, 1.0]) if halted else np.ones(4)  # asset 0 halted
    weights = target_weights(action, current, mask[None, :] if halted else None, leverage)[0]
    assert np.isfinite(weights).all()
    assert weights.sum() == pytest.approx(1.0, rel=1e-12)
    kept = current[0, :-1] * (1.0 - mask[:-1])  # a halted asset keeps its weight
    free = action[0] * mask
    if free.max() == 0.0:  # nothing tradable asked for: the rest goes to cash
        expected = kept
    else:
        budget = 1.0 - kept.sum()
        expected = kept + budget * leverage * np.array(_proportions(free.tolist()))[:-1]
    np.testing.assert_allclose(weights[:-1], expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(signed, min_size=3, max_size=3),
    index=st.integers(0, 2),
    value=huge,
    negative=st.booleans(),
    leverage=st.sampled_from([0.5, 1.0, 3.0]),
)
def test_huge_signed_targets_keep_their_direction(
    values: list[float], index: int, value: float, negative: bool, leverage: float
) -> None:
    action = np.array(_with_a_huge(values, index, -value if negative else value))
    account = AccountConfig(allow_short=True, max_leverage=leverage)
    weights = short_targets(action[None, :], np.zeros((1, 4)), None, account)[0]
    assert np.isfinite(weights).all()
    expected = _proportions(action.tolist(), leverage)  # their gross exposure is the maximum
    np.testing.assert_allclose(weights[:-1], expected, rtol=1e-12, atol=1e-15)
    assert weights[-1] == pytest.approx(1.0 - sum(expected), rel=1e-12, abs=1e-12)


def test_portfolio_with_shorts_scales_huge_targets_to_its_leverage() -> None:
    env = _portfolio(allow_short=True, max_leverage=2.0)
    weights = env.action_to_weights(np.array([1e308, -1e308, 0.0]))
    np.testing.assert_allclose(weights, [1.0, -1.0, 0.0, 1.0], rtol=1e-15)


def test_market_env_takes_huge_scores_too() -> None:
    env = MarketEnv()
    env.reset(seed=0)
    shape = env.action_space.shape
    assert shape is not None
    action = np.full(shape, 1e308)
    np.testing.assert_array_equal(env.target_weights(action), env.target_weights(action / 1e308))
