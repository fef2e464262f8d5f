"""The account: configuration, settlement (long, short, levered, financing, bankruptcy)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sekai.finance.account import AccountConfig, Settlement, project_weights, settle, turnover

FEW = settings(max_examples=40, deadline=None)

weights_elements = st.floats(-2.0, 2.0, allow_nan=False, allow_subnormal=False)
returns_elements = st.floats(-0.3, 0.3, allow_nan=False, allow_subnormal=False)


# -- AccountConfig -----------------------------------------------------------------


def test_account_config_defaults_and_margin_rate() -> None:
    config = AccountConfig()
    assert (config.allow_short, config.max_leverage, config.cash_rate) == (False, 1.0, 0.0)
    assert config.margin_rate is None
    assert config.borrow_rate == 0.0
    assert AccountConfig(cash_rate=0.03).effective_margin_rate == 0.03
    assert AccountConfig(cash_rate=0.03, margin_rate=0.05).effective_margin_rate == 0.05
    assert [field.name for field in dataclasses.fields(AccountConfig)] == [
        "allow_short",
        "max_leverage",
        "cash_rate",
        "margin_rate",
        "borrow_rate",
        "maintenance_margin",  # after sekai 0.2's five, so their positions hold
    ]
    assert config.maintenance_margin is None
    assert AccountConfig(max_leverage=2, maintenance_margin=0.25).maintenance_margin == 0.25
    for margin in (0.0, -0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="maintenance_margin"):
            AccountConfig(maintenance_margin=margin)
    with pytest.raises(ValueError, match=r"1 / max_leverage = 0\.5"):
        AccountConfig(max_leverage=2.0, maintenance_margin=0.5)
    assert AccountConfig(max_leverage=2) == AccountConfig(max_leverage=2.0)
    assert hash(AccountConfig(max_leverage=2)) == hash(AccountConfig(max_leverage=2.0))
    assert isinstance(AccountConfig(max_leverage=2).max_leverage, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_leverage = 3.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"allow_short": 1}, TypeError, r"allow_short must be a bool, got 1"),
        ({"max_leverage": 0.0}, ValueError, r"max_leverage must be a finite real number > 0"),
        ({"max_leverage": math.inf}, ValueError, r"max_leverage"),
        ({"cash_rate": math.nan}, ValueError, r"cash_rate must be a finite real number"),
        ({"margin_rate": "5%"}, TypeError, r"margin_rate must be"),
        ({"borrow_rate": -0.01}, ValueError, r"borrow_rate must be a finite real number >= 0"),
    ],
)
def test_account_config_errors(
    kwargs: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        AccountConfig(**kwargs)


# -- settle: closed forms ----------------------------------------------------------------


def test_long_position_without_financing() -> None:
    result = settle([0.6], [0.1], 1 / 252)
    assert isinstance(result, Settlement)
    assert result.growth == pytest.approx(1.06, rel=1e-15)
    np.testing.assert_allclose(result.drifted, [0.66 / 1.06], rtol=1e-15)
    assert result.financing == 0.0
    assert not result.wiped_out


def test_scalar_weight_drifts_like_the_trading_env() -> None:
    # one asset: p <- w (1 + r) / (1 + w r)
    for w, r in [(1.0, 0.05), (-1.0, 0.05), (0.5, -0.2), (0.0, 0.3)]:
        result = settle(w, r, 1 / 252)
        assert isinstance(result.growth, np.float64)
        assert isinstance(result.drifted, np.float64)
        assert result.growth == pytest.approx(1.0 + w * r, rel=1e-15)
        assert result.drifted == pytest.approx(w * (1 + r) / (1 + w * r), rel=1e-15)


def test_short_position_pays_borrow_and_earns_on_cash() -> None:
    config = AccountConfig(allow_short=True, cash_rate=0.04, borrow_rate=0.02)
    result = settle([-0.5], [0.1], 0.5, config)
    cash_income = 1.5 * math.expm1(0.04 * 0.5)  # the short's proceeds are cash too
    borrow_fee = 0.5 * math.expm1(0.02 * 0.5)
    assert result.financing == pytest.approx(borrow_fee - cash_income, rel=1e-14)
    assert result.growth == pytest.approx(1.0 - 0.05 - borrow_fee + cash_income, rel=1e-14)
    np.testing.assert_allclose(result.drifted, [-0.55 / result.growth], rtol=1e-14)


def test_levered_position_pays_margin_interest() -> None:
    config = AccountConfig(max_leverage=2.0, cash_rate=0.01, margin_rate=0.05)
    result = settle([1.2, 0.8], [0.1, -0.05], 1.0, config)  # borrowing 1.0 of equity
    margin = math.expm1(0.05)
    assert result.financing == pytest.approx(margin, rel=1e-14)
    assert result.growth == pytest.approx(1.0 + 0.12 - 0.04 - margin, rel=1e-14)
    np.testing.assert_allclose(result.drifted, np.array([1.32, 0.76]) / result.growth, rtol=1e-14)
    # without a margin rate, borrowing costs the cash rate
    same_rate = settle([1.2, 0.8], [0.1, -0.05], 1.0, AccountConfig(cash_rate=0.01))
    assert same_rate.financing == pytest.approx(math.expm1(0.01), rel=1e-14)


def test_cash_earns_the_cash_rate() -> None:
    config = AccountConfig(cash_rate=0.05)
    result = settle([0.0, 0.0], [0.3, -0.3], 2.0, config)
    assert result.growth == pytest.approx(math.exp(0.1), rel=1e-14)
    assert result.financing == pytest.approx(-math.expm1(0.1), rel=1e-14)


def test_bankruptcy_wipes_the_account_out() -> None:
    weights = np.array([[3.0], [1.0], [-2.0]])
    returns = np.array([[-0.4], [-0.4], [0.6]])
    result = settle(weights, returns, 1 / 252, AccountConfig(allow_short=True, max_leverage=3.0))
    # 1 - 1.2 < 0, 1 - 0.4 > 0, 1 - 1.2 < 0
    np.testing.assert_array_equal(result.wiped_out, [True, False, True])
    np.testing.assert_allclose(result.growth, [0.0, 0.6, 0.0], rtol=1e-15)
    np.testing.assert_allclose(result.drifted, [[0.0], [1.0], [0.0]], rtol=1e-15)
    exactly_zero = settle([2.0], [-0.5], 0.0, AccountConfig(max_leverage=2.0))
    assert exactly_zero.wiped_out
    assert exactly_zero.growth == 0.0


def test_settle_rejects_a_config_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match=r"settle: config must be an AccountConfig, got 0.05"):
        settle([1.0], [0.0], 1.0, 0.05)  # type: ignore[arg-type]


# -- settle: against an account kept in units and cash ------------------------------------------


def units_and_cash(
    weights: NDArray[np.float64],
    returns: NDArray[np.float64],
    equity: float,
    config: AccountConfig,
    dt: float,
) -> tuple[float, NDArray[np.float64]]:
    """Equity and weights after a period, from positions in units and a cash balance."""
    prices = np.full(weights.shape, 40.0)
    units = weights * equity / prices
    cash = equity - float((units * prices).sum())
    new_prices = prices * (1.0 + returns)
    rate = config.cash_rate if cash >= 0 else config.effective_margin_rate
    cash *= math.exp(rate * dt)
    short_value = float(np.maximum(-units * prices, 0.0).sum())
    cash -= short_value * math.expm1(config.borrow_rate * dt)
    end = float((units * new_prices).sum()) + cash
    return end, units * new_prices / end


@FEW
@given(
    data=st.data(),
    rates=st.tuples(
        st.floats(-0.02, 0.1, allow_subnormal=False),
        st.floats(0.0, 0.2, allow_subnormal=False),
        st.floats(0.0, 0.1, allow_subnormal=False),
    ),
    dt=st.floats(0.0, 1.0, allow_subnormal=False),
)
def test_settle_matches_an_account_kept_in_units(
    data: st.DataObject, rates: tuple[float, float, float], dt: float
) -> None:
    n_envs = data.draw(st.integers(1, 4))
    n_assets = data.draw(st.integers(1, 4))
    weights = data.draw(
        hnp.arrays(
            np.float64, (n_envs, n_assets), elements=st.floats(-1.0, 1.0, allow_subnormal=False)
        )
    )
    returns = data.draw(hnp.arrays(np.float64, (n_envs, n_assets), elements=returns_elements))
    config = AccountConfig(
        allow_short=True,
        max_leverage=4.0,
        cash_rate=rates[0],
        margin_rate=rates[1],
        borrow_rate=rates[2],
    )
    result = settle(weights, returns, dt, config)
    assert result.growth.shape == (n_envs,)
    assert result.drifted.shape == (n_envs, n_assets)
    for env in range(n_envs):
        end, drifted = units_and_cash(weights[env], returns[env], 1000.0, config, dt)
        if end <= 0.0:
            assert result.wiped_out[env]
            continue
        assert result.growth[env] == pytest.approx(end / 1000.0, rel=1e-12)
        np.testing.assert_allclose(result.drifted[env], drifted, rtol=1e-10, atol=1e-12)
        # one row of a batch settles exactly like one account
        single = settle(weights[env], returns[env], dt, config)
        assert single.growth == result.growth[env]
        np.testing.assert_array_equal(single.drifted, result.drifted[env])


def test_financing_of_one_account_is_that_of_its_row_with_dts_per_account() -> None:
    # With one dt per account the batch takes expm1 of an array; a single
    # account (a scalar dt) must get the very same accruals. The rates are
    # chosen where math.expm1 and numpy's expm1 disagree in the last bit, if
    # this machine's numpy has such inputs.
    candidates = np.random.default_rng(7).uniform(0.0, 0.5, 200_000)
    differing = [x for x in candidates.tolist() if math.expm1(x) != float(np.expm1(x))][:20]
    rates = differing or candidates[:20].tolist()
    for rate in rates:
        config = AccountConfig(
            allow_short=True, max_leverage=3.0, cash_rate=rate, borrow_rate=rate / 2
        )
        weights = np.array([[0.5, -0.5], [1.5, 0.5]])  # cash earned, then borrowed
        returns = np.array([[0.01, -0.02], [0.03, 0.01]])
        batch = settle(weights, returns, np.array([1.0, 1.0]), config)
        for row in range(2):
            single = settle(weights[row], returns[row], 1.0, config)
            assert single.financing == batch.financing[row], rate
            assert single.growth == batch.growth[row], rate


def test_buy_and_hold_on_real_prices(sp500_prices: NDArray[np.float64]) -> None:
    # Hold 100% of the index for 20 years, settling daily with a 2x levered
    # account: equity compounds to prod(1 + 2 r - margin), and weights drift.
    returns = sp500_prices[1:] / sp500_prices[:-1] - 1.0
    unlevered = np.ones(1)
    equity = 1.0
    for r in returns:
        result = settle(unlevered, [r], 1 / 252)
        equity *= result.growth
        unlevered = result.drifted
        assert unlevered[0] == pytest.approx(1.0, rel=1e-12)  # a fully invested account stays so
    assert equity == pytest.approx(sp500_prices[-1] / sp500_prices[0], rel=1e-10)

    config = AccountConfig(max_leverage=2.0, margin_rate=0.03)
    batch = settle(np.full((returns.size, 1), 2.0), returns[:, None], 1 / 252, config)
    expected = 1.0 + 2.0 * returns - math.expm1(0.03 / 252)
    np.testing.assert_allclose(batch.growth, expected, rtol=1e-13)
    assert not batch.wiped_out.any()


# -- project_weights and turnover ------------------------------------------------------------


def test_project_weights_hand_computed() -> None:
    long_only = AccountConfig()
    np.testing.assert_allclose(project_weights([0.5, -0.2, 0.3], long_only), [0.5, 0.0, 0.3])
    np.testing.assert_allclose(project_weights([0.8, 0.4], long_only), [0.8 / 1.2, 0.4 / 1.2])
    short = AccountConfig(allow_short=True, max_leverage=2.0)
    np.testing.assert_allclose(project_weights([1.5, -1.5], short), [1.0, -1.0])
    np.testing.assert_allclose(project_weights([0.5, -0.5], short), [0.5, -0.5])
    assert project_weights(-0.5).shape == ()
    with pytest.raises(ValueError, match=r"scores must be finite"):
        project_weights([math.nan])


@FEW
@given(
    weights=hnp.arrays(
        np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)), elements=weights_elements
    ),
    allow_short=st.booleans(),
    max_leverage=st.floats(0.1, 3.0, allow_subnormal=False),
)
def test_projected_weights_obey_the_rules(
    weights: NDArray[np.float64], allow_short: bool, max_leverage: float
) -> None:
    config = AccountConfig(allow_short=allow_short, max_leverage=max_leverage)
    projected = project_weights(weights, config)
    assert projected.shape == weights.shape
    assert (np.abs(projected).sum(axis=-1) <= max_leverage * (1 + 1e-12)).all()
    if not allow_short:
        assert (projected >= 0.0).all()
    np.testing.assert_allclose(
        project_weights(projected, config), projected, rtol=1e-12, atol=1e-15
    )
    for row in range(weights.shape[0]):
        np.testing.assert_array_equal(project_weights(weights[row], config), projected[row])


def test_turnover() -> None:
    assert turnover([0.5, 0.5], [0.2, 0.6]) == pytest.approx(0.4, rel=1e-15)
    assert turnover(1.0, -1.0) == 2.0
    np.testing.assert_allclose(turnover(np.eye(2), np.zeros((2, 2))), [1.0, 1.0])


@settings(max_examples=60, deadline=None)
@given(
    weights=hnp.arrays(
        np.float64,
        st.integers(2, 6),
        elements=st.floats(-1e308, 1e308, allow_nan=False, allow_infinity=False),
    ),
    leverage=st.floats(0.5, 4.0),
)
def test_project_weights_keeps_the_direction_of_huge_weights(
    weights: NDArray[np.float64], leverage: float
) -> None:
    config = AccountConfig(allow_short=True, max_leverage=leverage)
    with np.errstate(over="raise", invalid="raise"):  # no overflow, no invalid value
        projected = project_weights(weights, config)
    assert np.isfinite(projected).all()
    assert np.abs(projected).sum() <= leverage * (1 + 1e-12)
    largest = np.abs(weights).max()
    with np.errstate(over="ignore"):
        gross = np.abs(weights).sum()  # inf when it overflows: over the limit all the same
    if largest > 0 and gross > leverage * 2:  # scaled down: same proportions
        expected = weights / largest
        expected *= leverage / np.abs(expected).sum()
        np.testing.assert_allclose(projected, expected, rtol=1e-9, atol=1e-300)


# -- sekai 0.2's calls: settle(..., cost=), project_weights(scores, tradable, config) ------------

rates = st.sampled_from(
    [
        AccountConfig(allow_short=True, max_leverage=3.0),
        AccountConfig(allow_short=True, max_leverage=3.0, cash_rate=0.04, borrow_rate=0.02),
        AccountConfig(max_leverage=2.0, cash_rate=0.01, margin_rate=0.07),
    ]
)


@FEW
@given(
    weights=hnp.arrays(
        np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)), elements=weights_elements
    ),
    returns_element=returns_elements,
    cost=st.floats(0.0, 0.2),
    config=rates,
)
def test_a_cost_is_paid_before_the_period(
    weights: NDArray[np.float64], returns_element: float, cost: float, config: AccountConfig
) -> None:
    returns = np.full(weights.shape, returns_element)
    free = settle(weights, returns, 1 / 252, config)
    paid = settle(weights, returns, cost=cost, dt=1 / 252, config=config)  # sekai 0.2's call
    held = ~free.wiped_out
    # The equity shrinks by 1 - cost at the trade; the weights (of what is left) then move
    # as without a cost.
    np.testing.assert_array_equal(paid.growth[held], ((1.0 - cost) * free.growth)[held])
    np.testing.assert_array_equal(paid.drifted, free.drifted)
    np.testing.assert_array_equal(paid.financing, free.financing)
    np.testing.assert_array_equal(paid.wiped_out, free.wiped_out)
    per_account = np.linspace(0.0, 0.2, weights.shape[0])
    batch = settle(weights, returns, 1 / 252, config, cost=per_account)
    for row in range(weights.shape[0]):
        single = settle(weights[row], returns[row], 1 / 252, config, cost=per_account[row])
        assert batch.growth[row] == single.growth


def test_a_cost_of_the_whole_equity_wipes_the_account_out() -> None:
    for cost in (1.0, 1.5):
        # A short whose asset fell grows the rest, but nothing is left to hold it.
        result = settle([-1.0], [-0.5], 1 / 252, AccountConfig(allow_short=True), cost=cost)
        assert result.wiped_out and result.growth == 0.0 and result.drifted == 0.0
    # A loss beyond the equity times a cost beyond it is no gain: the account is gone.
    lost = settle([2.0], [-0.6], 0.0, AccountConfig(max_leverage=2.0), cost=1.5)
    assert lost.wiped_out and lost.growth == 0.0
    almost = settle([0.5], [0.1], 0.0, cost=0.999)
    assert not almost.wiped_out and almost.growth == pytest.approx(0.001 * 1.05, rel=1e-12)
    assert settle([0.5], [0.1], dt=1.0, cost=0.0).growth == settle([0.5], [0.1], 1.0).growth
    for bad in (-0.01, math.nan, math.inf, [0.1, -0.1]):
        with pytest.raises(ValueError, match="cost must be finite fractions of equity >= 0"):
            settle([[0.5], [0.5]], [[0.1], [0.1]], 1.0, cost=bad)
    with pytest.raises(ValueError, match=r"one per account, shape \(2,\); got shape \(3,\)"):
        settle([[0.5], [0.5]], [[0.1], [0.1]], 1.0, cost=[0.1, 0.1, 0.1])


def test_project_weights_reads_0_2_arguments() -> None:
    long_only, levered = AccountConfig(), AccountConfig(max_leverage=2.0)
    # Untradable assets get nothing; the rest is projected as before.
    mask = np.array([True, False, True])
    np.testing.assert_array_equal(
        project_weights([0.5, 0.4, 0.3], mask, long_only), [0.5, 0.0, 0.3]
    )
    np.testing.assert_array_equal(
        project_weights(scores=[0.5, 0.4, 0.3], tradable=[1, 0, 1], config=long_only),
        [0.5, 0.0, 0.3],
    )
    # With a cash score the scores are shares of max_leverage, cash's share included.
    np.testing.assert_allclose(
        project_weights([3.0, 5.0, 1.0], mask, levered, cash_score=1.0), [1.2, 0.0, 0.4]
    )
    np.testing.assert_array_equal(
        project_weights([0.0, 2.0], [True, False], long_only, cash_score=0.0), [0.0, 0.0]
    )
    # The earlier form, project_weights(weights, config), is the same projection.
    weights = [[0.8, -0.4, 0.4], [0.2, 0.1, 0.0]]
    np.testing.assert_array_equal(
        project_weights(weights, levered), project_weights(weights, None, levered)
    )
    np.testing.assert_array_equal(
        project_weights(weights, levered), project_weights(weights, config=levered)
    )
    with pytest.raises(TypeError, match="two configs"):
        project_weights(weights, levered, long_only)
    with pytest.raises(TypeError, match="tradable must be bools or 0s and 1s"):
        project_weights(weights, [0.5, 1.0, 1.0], long_only)
    with pytest.raises(ValueError, match=r"tradable of shape \(2,\) does not broadcast"):
        project_weights(weights, [True, False], long_only)
    with pytest.raises(ValueError, match="cash_score is for long-only accounts"):
        project_weights(weights, None, AccountConfig(allow_short=True), cash_score=1.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        project_weights(weights, None, long_only, cash_score=1.0)
    with pytest.raises(ValueError, match="must be >= 0"):
        project_weights([0.2, 0.3], None, long_only, cash_score=-1.0)


@FEW
@given(
    scores=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 4), st.integers(1, 5)),
        elements=st.floats(0.0, 1e308, allow_subnormal=False),
    ),
    cash=st.floats(0.0, 10.0),
    leverage=st.floats(0.1, 3.0),
    data=st.data(),
)
def test_scores_become_shares_of_the_leverage(
    scores: NDArray[np.float64], cash: float, leverage: float, data: Any
) -> None:
    tradable = data.draw(hnp.arrays(np.bool_, scores.shape))
    config = AccountConfig(max_leverage=leverage)
    with np.errstate(over="raise", invalid="raise"):
        weights = project_weights(scores, tradable, config, cash_score=cash)
    assert weights.shape == scores.shape and (weights >= 0.0).all()
    assert (weights[~tradable] == 0.0).all()
    invested = weights.sum(axis=-1)
    assert (invested <= leverage * (1 + 1e-12)).all()
    for row in range(scores.shape[0]):
        kept = np.where(tradable[row], scores[row], 0.0)
        largest = max(kept.max(), cash)
        if largest == 0.0:
            assert invested[row] == 0.0  # nothing asked for: all cash
            continue
        shares = kept / largest
        expected = leverage * shares / (shares.sum() + cash / largest)
        np.testing.assert_allclose(weights[row], expected, rtol=1e-9, atol=1e-300)
