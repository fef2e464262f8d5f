"""transaction_cost: a rate of 1 or more is refused by every market env, naming the env."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import MarketEnv, PortfolioEnv, TradingEnv
from sekai.finance.data import MarketData
from sekai.registry import make_vec

PRICES = 100.0 * np.exp(np.cumsum(np.random.default_rng(0).normal(0.0, 0.01, (80, 2)), axis=0))

BUILDERS: dict[str, Callable[[Any], object]] = {
    "TradingEnv": lambda cost: TradingEnv(
        PRICES[:, 0], lookback=5, episode_length=10, transaction_cost=cost
    ),
    "PortfolioEnv": lambda cost: PortfolioEnv(
        PRICES, lookback=5, episode_length=10, transaction_cost=cost
    ),
    "MarketEnv": lambda cost: MarketEnv(
        MarketData(PRICES), lookback=5, episode_length=10, transaction_cost=cost
    ),
    **{
        f"{env_id} vector": (
            lambda cost, env_id=env_id: make_vec(
                env_id, num_envs=2, episode_length=10, transaction_cost=cost
            )
        )
        for env_id in ("Trading-v0", "Portfolio-v0", "Market-v0")
    },
}


@pytest.mark.parametrize("cost", [1, 1.0, 10.0, 25])
@pytest.mark.parametrize("owner", sorted(BUILDERS))
def test_a_rate_of_one_or_more_is_refused(owner: str, cost: float) -> None:
    with pytest.raises(
        ValueError,
        match=(
            r"(Trading|Portfolio|Market)(Vec)?Env: transaction_cost must be a rate in \[0, 1\)"
            rf".*got {cost!r}"
        ),
    ):
        BUILDERS[owner](cost)


@pytest.mark.parametrize("owner", sorted(BUILDERS))
def test_rates_below_one_still_build(owner: str) -> None:
    env = BUILDERS[owner](0.999)
    close = getattr(env, "close", None)
    if close is not None:
        close()
