"""Real daily returns shared by the money tests (costs, rewards, account, metrics).

The S&P 500 history shipped inside ``arch`` (1999-2018, adjusted closes): a
test-only dependency, read from the installed package, never downloaded.
"""

from __future__ import annotations

import numpy as np
import pytest
from arch.data import sp500
from numpy.typing import NDArray


@pytest.fixture(scope="session")
def sp500_prices() -> NDArray[np.float64]:
    prices: NDArray[np.float64] = sp500.load()["Adj Close"].to_numpy(dtype=np.float64)
    assert prices.shape == (5031,)
    return prices


@pytest.fixture(scope="session")
def sp500_returns(sp500_prices: NDArray[np.float64]) -> NDArray[np.float64]:
    returns: NDArray[np.float64] = sp500_prices[1:] / sp500_prices[:-1] - 1.0
    return returns
