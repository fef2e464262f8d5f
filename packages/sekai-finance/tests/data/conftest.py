"""Shared fixtures: small synthetic panels and the real S&P 500 history shipped with arch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.finance.data import MarketData


def panel(n_steps: int = 30, n_assets: int = 3, *, seed: int = 0, **kwargs: Any) -> MarketData:
    """A random-walk panel of positive prices stamped with business days."""
    rng = np.random.default_rng(seed)
    prices = 100.0 * np.exp(np.cumsum(rng.normal(0, 0.01, (n_steps, n_assets)), axis=0))
    kwargs.setdefault(
        "timestamps", np.arange(n_steps) * np.timedelta64(1, "D") + np.datetime64("2024-01-01")
    )
    return MarketData(prices, **kwargs)


@pytest.fixture
def make_panel() -> Any:
    return panel


@pytest.fixture
def data() -> MarketData:
    return panel(
        fields={"volume": np.arange(90.0).reshape(30, 3)},
        assets=["a", "b", "c"],
        exogenous={"rate": np.linspace(0, 1, 30), "curve": np.ones((30, 2))},
    )


@pytest.fixture(scope="session")
def sp500() -> Any:
    """Daily S&P 500 OHLCV, 1999-2018 (a DataFrame indexed by Date)."""
    loader = pytest.importorskip("arch.data.sp500")
    return loader.load()
