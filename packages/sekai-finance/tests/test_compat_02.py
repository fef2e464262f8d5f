"""sekai 0.2 compatibility of sekai-finance: every function and method of 0.2's ``sekai.finance``
import paths, with its parameters (names, order, keyword-only marks, defaults), and the calls
of 0.2 code that these parameters describe.

The expected API is the part of sekai 0.2's parameters listing for ``sekai.finance*``, kept
next to this file (``api-0.2-parameters.md``) and read with the shared harness
(tools/compat02.py). A signature is compatible when it accepts every call 0.2's accepts.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (
    Entry,
    listed_problems,
    listed_signature_problems,
    parse_parameters_listing,
)

LISTING: dict[str, dict[str, Entry]] = parse_parameters_listing(
    (Path(__file__).parent / "api-0.2-parameters.md").read_text(encoding="utf-8")
)
CASES = [(module, name) for module, entries in LISTING.items() for name in entries]


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
    assert len(CASES) == 136  # every "- " line of the excerpt


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_listed_function_and_method_takes_0_2_parameters(module: str, name: str) -> None:
    assert listed_problems(module, name, LISTING[module][name]) == []


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


def _f(x: Any, window: Any = 3, *, min_periods: Any = None) -> None: ...


def _g(weights: Any, returns: Any, dt: Any, config: Any = None, *, cost: Any = 0.0) -> None: ...


@pytest.mark.parametrize(
    ("listed", "problems"),
    [
        ("x, window=…, *, min_periods=…", []),
        ("x, window, *, min_periods=…", []),  # a default where 0.2 has none is fine
        ("x, window=5", ["window defaults to '3', not '5'"]),  # a value is compared
        ("values, window=…", ["positional parameter 0 is 'x', not 'values'"]),
        ("x, window=…, *, min_periods=…, ddof=…", ["no keyword parameter 'ddof'"]),
        ("x, window=…, halflife", ["no positional parameter 'halflife'"]),
    ],
)
def test_the_harness_reads_listed_defaults(listed: str, problems: list[str]) -> None:
    assert listed_signature_problems(_f, listed) == problems


def test_the_harness_requires_a_default_the_listing_has() -> None:
    def no_default(x: Any, window: Any, *, min_periods: Any) -> None: ...

    assert listed_signature_problems(no_default, "x, window=…, *, min_periods=…") == [
        "window has no default (0.2's has one)",
        "min_periods has no default (0.2's has one)",
    ]


def test_the_harness_accepts_a_required_keyword_that_is_positional_here() -> None:
    # 0.2's settle: every call passes dt= and config= by keyword, which _g accepts.
    assert listed_signature_problems(_g, "weights, returns, *, cost, dt, config") == []
    assert listed_signature_problems(_g, "weights, returns, *, cost, config") == [
        "extra required parameter 'dt'"  # 0.2 calls without dt would fail here
    ]
    assert listed_signature_problems(_g, "weights, returns, *, cost, dt=…, config") == [
        "dt has no default (0.2's has one)"
    ]
