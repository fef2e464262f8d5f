"""Cost models: hand-computed cases, properties, batching, fallbacks and errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sekai.finance.costs import (
    CompositeCost,
    CostModel,
    FixedCost,
    NoCost,
    ProportionalCost,
    SpreadCost,
    SquareRootImpact,
    as_cost_model,
)

FEW = settings(max_examples=40, deadline=None)

trade_values = st.floats(-3.0, 3.0, allow_nan=False, allow_subnormal=False)


def trade_batches(max_envs: int = 5, max_assets: int = 4) -> st.SearchStrategy[NDArray[Any]]:
    shapes = st.tuples(st.integers(1, max_envs), st.integers(1, max_assets))
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=trade_values))


# -- hand-computed costs -----------------------------------------------------


def test_no_cost_is_zero_in_every_shape() -> None:
    model = NoCost()
    assert model(0.5) == 0.0
    assert isinstance(model(0.5), np.float64)
    assert model([0.5, -0.2]) == 0.0
    batch = model(np.ones((4, 3)))
    assert isinstance(batch, np.ndarray)
    assert batch.shape == (4,)
    assert not batch.any()
    assert model.requires == ()
    assert dict(model.fallbacks) == {}


def test_proportional_cost_hand_computed() -> None:
    model = ProportionalCost(0.001)
    assert model([0.5, -0.25]) == pytest.approx(0.00075, rel=1e-15)
    assert model(-0.3) == pytest.approx(0.0003, rel=1e-15)
    per_asset = ProportionalCost([0.001, 0.002])
    assert per_asset([0.5, -0.25]) == pytest.approx(0.0005 + 0.0005, rel=1e-15)
    batch = per_asset(np.array([[0.5, -0.25], [0.0, 1.0], [-1.0, 0.0]]))
    np.testing.assert_allclose(batch, [0.001, 0.002, 0.001], rtol=1e-15)
    assert model.rate == 0.001
    assert isinstance(per_asset.rate, np.ndarray)
    assert not per_asset.rate.flags.writeable


def test_fixed_cost_counts_trades_above_the_threshold() -> None:
    model = FixedCost(5.0)
    assert model.requires == ("equity",)
    # two trades above 1e-6 (0.1 and -0.2), one at rounding-noise size, one zero
    assert model([0.1, 0.0, 1e-7, -0.2], equity=1000.0) == pytest.approx(0.01, rel=1e-15)
    assert model(0.5, equity=10_000.0) == pytest.approx(5.0 / 10_000.0, rel=1e-15)
    batch = model(np.array([[0.1, 0.1], [0.0, 0.3], [0.0, 0.0]]), equity=[100.0, 50.0, 10.0])
    np.testing.assert_allclose(batch, [10.0 / 100.0, 5.0 / 50.0, 0.0], rtol=1e-15)
    strict = FixedCost(1.0, threshold=0.05)
    assert strict([0.04, 0.06], equity=100.0) == pytest.approx(0.01, rel=1e-15)


def test_fixed_cost_needs_equity() -> None:
    with pytest.raises(ValueError, match=r"FixedCost needs equity="):
        FixedCost(1.0)([0.1])


def test_spread_cost_fixed_half_spread() -> None:
    model = SpreadCost(0.0005)
    assert model.requires == ()
    assert model([1.0, -1.0]) == pytest.approx(0.001, rel=1e-15)
    # a round trip in and out of a position pays the whole spread once
    assert model(0.4) + model(-0.4) == pytest.approx(0.0004, rel=1e-15)


def test_spread_cost_from_market_spread() -> None:
    model = SpreadCost()
    assert model.requires == ("spread",)
    assert dict(model.fallbacks) == {}
    cost = model([0.5, -0.5], spread=[0.002, 0.004])
    assert cost == pytest.approx(0.5 * 0.001 + 0.5 * 0.002, rel=1e-15)
    batch = model(np.array([[1.0, 0.0], [0.0, 2.0]]), spread=np.array([[0.01, 0.02], [0.01, 0.02]]))
    np.testing.assert_allclose(batch, [0.005, 0.02], rtol=1e-15)


def test_spread_cost_missing_spread() -> None:
    model = SpreadCost()
    with pytest.raises(ValueError, match=r"SpreadCost needs spread="):
        model([0.1])
    with pytest.raises(ValueError, match=r"missing \(NaN\) for a traded asset"):
        model([0.1, 0.2], spread=[0.001, math.nan])
    # an asset that is not traded may lack a spread
    assert model([0.1, 0.0], spread=[0.002, math.nan]) == pytest.approx(0.0001, rel=1e-15)


def test_spread_cost_fallback() -> None:
    model = SpreadCost(fallback_spread=0.002)
    assert model.requires == ("spread",)
    assert dict(model.fallbacks) == {"spread": 0.002}
    assert model([0.5, 0.5]) == pytest.approx(0.001, rel=1e-15)  # not passed
    assert model([0.5, 0.5], spread=[0.004, math.nan]) == pytest.approx(
        0.5 * 0.002 + 0.5 * 0.001, rel=1e-15
    )


def test_square_root_impact_hand_computed() -> None:
    model = SquareRootImpact(0.5)
    assert model.requires == ("volatility",)
    # without volume the participation rate is |trade|: 0.5 * 0.02 * 0.25 ** 1.5
    assert model(0.25, volatility=0.02) == pytest.approx(0.00125, rel=1e-14)
    # with volume: participation = 0.1 * 1e6 / (100 * 1e5) = 0.01
    cost = model([0.1], volatility=[0.02], volume=[1e5], prices=[100.0], equity=1e6)
    assert cost == pytest.approx(0.5 * 0.02 * 0.1 * 0.1, rel=1e-14)
    batch = model(
        np.array([[0.1, 0.0], [0.0, 0.4]]),
        volatility=[0.02, 0.01],
        volume=[1e5, 2e5],
        prices=[100.0, 50.0],
        equity=[1e6, 1e7],
    )
    expected = [0.5 * 0.02 * 0.1 * math.sqrt(0.01), 0.5 * 0.01 * 0.4 * math.sqrt(0.4 * 1e7 / 1e7)]
    np.testing.assert_allclose(batch, expected, rtol=1e-14)


def test_square_root_impact_fallback_and_missing() -> None:
    with pytest.raises(ValueError, match=r"SquareRootImpact needs volatility="):
        SquareRootImpact()(0.1)
    with pytest.raises(ValueError, match=r"SquareRootImpact needs prices="):
        SquareRootImpact()(0.1, volatility=0.02, volume=1e5, equity=1e6)
    with pytest.raises(ValueError, match=r"SquareRootImpact needs equity="):
        SquareRootImpact()(0.1, volatility=0.02, volume=1e5, prices=10.0)
    model = SquareRootImpact(1.0, fallback_volatility=0.03)
    assert dict(model.fallbacks) == {"volatility": 0.03}
    assert model(0.04) == pytest.approx(0.03 * 0.04**1.5, rel=1e-14)
    assert model([0.04, 0.04], volatility=[math.nan, 0.01]) == pytest.approx(
        0.03 * 0.008 + 0.01 * 0.008, rel=1e-14
    )


def test_composite_cost_adds_models_and_merges_requirements() -> None:
    fees = ProportionalCost(0.001)
    spread = SpreadCost(fallback_spread=0.002)
    impact = SquareRootImpact(0.5)
    ticket = FixedCost(2.0)
    model = CompositeCost([fees, spread, impact, ticket])
    assert model.models == (fees, spread, impact, ticket)
    assert model.requires == ("spread", "volatility", "equity")
    assert dict(model.fallbacks) == {"spread": 0.002}
    market: dict[str, Any] = {
        "spread": [0.001, 0.003],
        "volatility": [0.02, 0.01],
        "equity": 1000.0,
    }
    trades = [0.3, -0.1]
    expected = fees(trades) + spread(trades, **market) + impact(trades, **market)
    expected += ticket(trades, **market)
    assert model(trades, **market) == pytest.approx(expected, rel=1e-14)
    # a keyword has a fallback only if every model requiring it has one
    both = CompositeCost([SpreadCost(fallback_spread=0.001), SpreadCost()])
    assert dict(both.fallbacks) == {}


def test_composite_cost_errors() -> None:
    with pytest.raises(ValueError, match=r"at least one CostModel"):
        CompositeCost([])
    with pytest.raises(TypeError, match=r"must hold CostModel instances, got 0.001"):
        CompositeCost([ProportionalCost(0.001), 0.001])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"must be a sequence of CostModel"):
        CompositeCost(ProportionalCost(0.001))  # type: ignore[arg-type]


def test_as_cost_model() -> None:
    model = as_cost_model(0.001)
    assert isinstance(model, ProportionalCost)
    assert model.rate == 0.001
    assert isinstance(as_cost_model(None), NoCost)
    assert isinstance(as_cost_model(0), ProportionalCost)
    existing = SpreadCost(0.001)
    assert as_cost_model(existing) is existing
    with pytest.raises(TypeError, match=r"transaction_cost must be a CostModel"):
        as_cost_model("0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"transaction_cost must be a rate in \[0, 1\)"):
        as_cost_model(-0.1)


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (lambda: ProportionalCost(-0.1), ValueError, r"rate must be a rate in \[0, 1\)"),
        (lambda: ProportionalCost(math.nan), ValueError, r"rate must be"),
        (lambda: ProportionalCost("0.1"), TypeError, r"rate must be"),
        (lambda: ProportionalCost(True), TypeError, r"rate must be"),
        (lambda: ProportionalCost([[0.1]]), ValueError, r"scalar or a 1-D array"),
        (lambda: ProportionalCost([0.1, -0.1]), ValueError, r"in \[0, 1\).*for every asset"),
        (lambda: FixedCost(-1.0), ValueError, r"FixedCost: amount must be"),
        (lambda: FixedCost(1.0, threshold=-1.0), ValueError, r"FixedCost: threshold"),
        (lambda: SpreadCost(-0.1), ValueError, r"half_spread"),
        (lambda: SpreadCost(fallback_spread=math.inf), ValueError, r"fallback_spread"),
        (lambda: SpreadCost(0.001, fallback_spread=0.002), ValueError, r"not both"),
        (lambda: SquareRootImpact(-0.5), ValueError, r"coefficient"),
        (lambda: SquareRootImpact(fallback_volatility=-1.0), ValueError, r"fallback_volatility"),
    ],
)
def test_constructor_errors(build: Any, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        build()


def test_cost_model_is_abstract_and_repr() -> None:
    with pytest.raises(TypeError):
        CostModel()  # type: ignore[abstract]
    assert repr(ProportionalCost(0.001)) == "ProportionalCost(rate=0.001)"
    assert repr(FixedCost(1.0)) == "FixedCost(amount=1.0, threshold=1e-06)"
    assert "SpreadCost" in repr(CompositeCost([SpreadCost(0.1)]))


# -- properties ----------------------------------------------------------------


@FEW
@given(
    trades=trade_batches(),
    factor=st.floats(0.0, 10.0, allow_subnormal=False),
    rate=st.floats(0.0, 0.05, allow_subnormal=False),
)
def test_proportional_cost_is_linear_in_trade_size(
    trades: NDArray[np.float64], factor: float, rate: float
) -> None:
    model = ProportionalCost(rate)
    # Products below the smallest normal float lose relative precision; compare them absolutely.
    tiny = np.finfo(np.float64).tiny
    np.testing.assert_allclose(
        model(factor * trades), factor * model(trades), rtol=1e-12, atol=tiny
    )
    np.testing.assert_allclose(model(-trades), model(trades), rtol=0, atol=0)
    # additive over assets: the cost of a rebalance is the sum of its legs
    legs = sum(model(trades[:, [i]]) for i in range(trades.shape[1]))
    np.testing.assert_allclose(model(trades), legs, rtol=1e-12, atol=1e-300)


@FEW
@given(trades=trade_batches(), factor=st.floats(0.0, 10.0, allow_subnormal=False))
def test_square_root_impact_grows_as_the_power_three_halves(
    trades: NDArray[np.float64], factor: float
) -> None:
    model = SquareRootImpact(0.7)
    volatility = np.linspace(0.01, 0.03, trades.shape[1])
    scaled = model(factor * trades, volatility=volatility)
    np.testing.assert_allclose(
        scaled, factor**1.5 * model(trades, volatility=volatility), rtol=1e-12
    )


MODELS: list[tuple[CostModel, dict[str, Any]]] = [
    (NoCost(), {}),
    (ProportionalCost([0.001, 0.002, 0.0005, 0.003]), {}),
    (FixedCost(3.0, threshold=0.01), {"equity": np.array([1e3, 2e3, 5e3, 1e4, 7e2])}),
    (SpreadCost(), {"spread": np.array([0.001, np.nan, 0.003, 0.002])}),
    (SpreadCost(fallback_spread=0.01), {"spread": np.array([0.001, np.nan, 0.003, 0.002])}),
    (
        SquareRootImpact(fallback_volatility=0.02),
        {"volatility": np.array([0.01, 0.02, 0.03, 0.04])},
    ),
    (
        CompositeCost([ProportionalCost(0.001), SpreadCost(fallback_spread=0.002)]),
        {"spread": np.array([0.001, 0.002, 0.003, 0.004])},
    ),
]


@pytest.mark.parametrize(("model", "market"), MODELS, ids=lambda value: type(value).__name__)
@FEW
@given(data=st.data())
def test_batched_calls_agree_with_one_account_at_a_time(
    model: CostModel, market: dict[str, Any], data: st.DataObject
) -> None:
    trades = data.draw(hnp.arrays(np.float64, (5, 4), elements=trade_values))
    if "spread" in market and model.fallbacks == {}:
        trades[:, 1] = 0.0  # that asset has no spread and no fallback: it cannot trade
    batch = model(trades, **market)
    assert isinstance(batch, np.ndarray)
    assert batch.shape == (5,)
    for row in range(5):
        one = {key: value[row] if key == "equity" else value for key, value in market.items()}
        single = model(trades[row], **one)
        assert isinstance(single, np.float64)
        assert single == pytest.approx(batch[row], rel=1e-13, abs=1e-300)
        assert single >= 0.0


def test_daily_rebalancing_costs_on_real_prices(sp500_returns: NDArray[np.float64]) -> None:
    # A 50/50 stock/cash portfolio rebalanced daily trades the drift back: its
    # proportional cost over the history equals rate * total turnover.
    weight = 0.5
    drifted = weight * (1.0 + sp500_returns) / (1.0 + weight * sp500_returns)
    trades = (weight - drifted)[:, None]
    model = ProportionalCost(0.001)
    costs = model(trades)
    assert costs.shape == sp500_returns.shape
    np.testing.assert_allclose(costs, 0.001 * np.abs(weight - drifted), rtol=1e-15)
    # the half-spread model with a spread of 0.2% is the same cost
    np.testing.assert_allclose(SpreadCost()(trades, spread=0.002), costs, rtol=1e-15)


@given(st.floats(1.0, 1e12))
def test_a_rate_of_one_or_more_is_refused_naming_the_value(rate: float) -> None:
    # 1 would pay the whole trade: a rate given in basis points or percent by mistake.
    with pytest.raises(
        ValueError, match=rf"transaction_cost must be a rate in \[0, 1\).*got {rate!r}"
    ):
        as_cost_model(rate)
    with pytest.raises(
        ValueError, match=rf"ProportionalCost: rate must be a rate in \[0, 1\).*{rate!r}"
    ):
        ProportionalCost(rate)
    with pytest.raises(
        ValueError, match=r"ProportionalCost: rate must be a rate in \[0, 1\).*asset"
    ):
        ProportionalCost([0.001, rate])
    with pytest.raises(ValueError, match=rf"SpreadCost: half_spread must be .*< 1.*got {rate!r}"):
        SpreadCost(rate)
    with pytest.raises(ValueError, match=r"SpreadCost: fallback_spread must be .*\[0.0, 2.0\)"):
        SpreadCost(fallback_spread=2 * rate)


@given(st.floats(0.0, 1.0, exclude_max=True))
def test_rates_below_one_are_kept(rate: float) -> None:
    model = as_cost_model(rate)
    assert isinstance(model, ProportionalCost) and model.rate == rate
    assert ProportionalCost([rate, 0.0]).rate[0] == rate  # type: ignore[index]
    assert SpreadCost(rate).half_spread == rate
    assert SpreadCost(fallback_spread=2 * rate).fallback_spread == 2 * rate


@given(
    st.one_of(
        st.floats(1.0, 1e12),
        st.floats(max_value=0.0, exclude_max=True),
        st.sampled_from([math.nan, math.inf, -math.inf]),
    )
)
def test_the_rate_rule_has_one_message(rate: float) -> None:
    # as_cost_model (an env's transaction_cost) and ProportionalCost check the
    # same [0, 1) rule; the words differ only in the argument's name.
    with pytest.raises(ValueError, match=r"\[0, 1\)") as given_to_an_env:
        as_cost_model(rate, "X")
    with pytest.raises(ValueError, match=r"\[0, 1\)") as given_to_the_model:
        ProportionalCost(rate)
    assert str(given_to_the_model.value).replace("ProportionalCost: rate", "X", 1) == str(
        given_to_an_env.value
    )
    assert "[0, 1)" in str(given_to_an_env.value) and "basis points" in str(given_to_an_env.value)
