"""sekai 0.2 compatibility of sekai-finance: every function and method of 0.2's ``sekai.finance``
import paths, with its parameters (names, order, keyword-only marks, defaults), and the calls
of 0.2 code that these parameters describe.

The expected API is the part of sekai 0.2's parameters listing for ``sekai.finance*``, read
by the shared harness (tools/compat02.py) from its verbatim copy in tools/. A signature is
compatible when it accepts every call 0.2's accepts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import ListedName, listed_problems, parameters_listing

LISTING: dict[str, list[ListedName]] = parameters_listing("sekai.finance")
CASES = [(module, listed) for module, names in LISTING.items() for listed in names]


def test_the_listing_covers_every_import_path_of_sekai_finance() -> None:
    assert sorted(LISTING) == [
        "sekai.finance",
        *(
            f"sekai.finance.{name}"
            for name in [
                "account",
                "costs",
                "data",
                "features",
                "lob",
                "metrics",
                "rendering",
                "rewards",
                "sampling",
                "simulators",
                "universe",
            ]
        ),
    ]
    assert len(CASES) == 136  # every "- " line of those sections


@pytest.mark.parametrize(("module", "listed"), CASES, ids=[f"{m}.{n.name}" for m, n in CASES])
def test_every_listed_function_and_method_takes_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed) == []


# -- the calls of 0.2 code that the listing describes ------------------------------------------


def test_0_2_calls_of_the_features() -> None:
    from sekai.finance import features

    x = np.exp(np.random.default_rng(0).normal(0.0, 0.01, (60, 2)).cumsum(axis=0))
    returns = features.log_returns(x)
    assert features.ewm_mean(x, 5.0).shape == x.shape
    assert features.ewm_std(x, 5.0, min_periods=3).shape == x.shape
    assert np.isnan(features.rolling_mean(x, 10, min_periods=10)[8]).all()
    assert not np.isnan(features.rolling_mean(x, 10, min_periods=5)[8]).any()
    assert features.rolling_std(x, 10, min_periods=3, ddof=1).shape == x.shape
    assert features.rolling_zscore(x, 10, min_periods=3).shape == x.shape
    volatility = features.realized_volatility(returns, 20, periods_per_year=252)
    np.testing.assert_array_equal(volatility, features.rolling_std(returns, 20) * np.sqrt(252))
    features.check_causal(features.log_returns, x, n_checks=4, rng=np.random.default_rng(1))
    features.check_causal(fn=features.lag, x=x, rtol=0.0, atol=0.0)
    joined = features.asof_join(np.arange(10), np.array([2, 6]), np.array([1.0, 2.0]), lag=1)
    np.testing.assert_array_equal(joined[2:], [np.nan, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0])


def test_0_2_calls_of_the_account_and_metrics() -> None:
    from sekai.finance.account import AccountConfig, project_weights, settle
    from sekai.finance.metrics import sharpe_ratio, sortino_ratio

    config = AccountConfig()
    held = settle(np.array([0.5, 0.5]), np.array([0.1, 0.0]), cost=0.01, dt=1 / 252, config=config)
    assert held.growth == pytest.approx(0.99 * 1.05, rel=1e-15)
    weights = project_weights(np.array([1.0, 3.0]), np.array([True, False]), config)
    np.testing.assert_array_equal(weights, [1.0, 0.0])
    shares = project_weights(np.array([1.0, 3.0]), np.array([True, True]), config, cash_score=4.0)
    np.testing.assert_array_equal(shares, [0.125, 0.375])
    returns = np.random.default_rng(2).normal(0.0005, 0.01, 300)
    assert sharpe_ratio(returns, 252, 0.0001) == sharpe_ratio(returns, risk_free=0.0001)
    assert sortino_ratio(returns, 252, 0.0001) == sortino_ratio(returns, target=0.0001)


def test_0_2_calls_of_the_start_samplers() -> None:
    from sekai.finance.data import Time
    from sekai.finance.sampling import (
        FixedStart,
        RandomStart,
        first_start,
        resolve_start,
        sample_start,
    )

    assert first_start(20, 5) == 20 and first_start(3, 10) == 10
    rng = np.random.default_rng(0)
    start = sample_start(RandomStart(), rng, n_starts=50, episode_length=30, lookback=20, warmup=5)
    assert 20 <= start < 70
    assert sample_start(FixedStart(7), rng, n_starts=50, episode_length=30, lookback=20) == 27
    stamps = np.arange(0, 1000, 10)
    assert resolve_start(25, timestamps=stamps, lookback=20, n_starts=50) == 25
    assert resolve_start(Time(251), timestamps=stamps, lookback=20, n_starts=50, warmup=5) == 26
    with pytest.raises(ValueError, match="valid first rows are 20 to 69"):
        resolve_start(70, timestamps=stamps, lookback=20, n_starts=50)


# -- the harness's reading of the listing (tools/compat02.py) -------------------------------
