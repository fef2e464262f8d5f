"""Fixtures of the market-env tests: real price histories and trajectory comparison."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.envs._registration import register_envs
from sekai.finance import MarketData
from sekai.registry import EnvRegistry


def _same(a: Any, b: Any, where: str = "") -> None:
    """Assert two (nested) results are equal: dicts by key, sequences by item, arrays exactly."""
    if isinstance(a, dict):
        assert isinstance(b, dict), where
        assert a.keys() == b.keys(), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            _same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)


@pytest.fixture
def assert_same() -> Callable[..., None]:
    """``assert_same(a, b)``: exact equality of nested observations, infos and arrays."""
    return _same


@pytest.fixture
def registry() -> EnvRegistry:
    """A private registry holding the reference environments."""
    registry = EnvRegistry()
    registry.register_namespace("sekai", register_envs)
    registry.all_specs()
    return registry


@pytest.fixture(scope="session")
def sp500_frame() -> Any:
    """The S&P 500 daily history shipped with ``arch`` (1999-2018), a DataFrame."""
    data = pytest.importorskip("arch.data.sp500")
    return data.load()


@pytest.fixture(scope="session")
def sp500(sp500_frame: Any) -> MarketData:
    """The S&P 500's adjusted close as one-asset MarketData (dated rows)."""
    return MarketData.from_pandas(sp500_frame["Adj Close"])


@pytest.fixture(scope="session")
def indices(sp500_frame: Any) -> MarketData:
    """S&P 500 and NASDAQ adjusted closes (complete panel) with a volume field."""
    pd = pytest.importorskip("pandas")
    nasdaq = pytest.importorskip("arch.data.nasdaq").load()
    close = pd.concat(
        {"sp500": sp500_frame["Adj Close"], "nasdaq": nasdaq["Adj Close"]}, axis=1, sort=True
    ).dropna()
    volume = pd.concat(
        {"sp500": sp500_frame["Volume"], "nasdaq": nasdaq["Volume"]}, axis=1, sort=True
    ).reindex(close.index)
    return MarketData.from_pandas(close, fields={"volume": volume.astype(float)})
