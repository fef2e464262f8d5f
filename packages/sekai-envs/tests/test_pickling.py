"""Environments and samplers pickle (worker processes receive them that way)."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from sekai.envs.cartpole import CartPoleEnv
from sekai.envs.finance.portfolio import PortfolioEnv
from sekai.envs.microstructure import MarketMicrostructureEnv
from sekai.envs.samplers import HistoricalSampler


@pytest.mark.parametrize(
    "make",
    [
        CartPoleEnv,
        PortfolioEnv,
        lambda: PortfolioEnv(sampler=HistoricalSampler(np.zeros((300, 2)))),
        MarketMicrostructureEnv,
    ],
)
def test_round_trip_keeps_the_seeded_behaviour(make: Any) -> None:
    env = make()
    copy = pickle.loads(pickle.dumps(env))
    a, b = env.reset(seed=4), copy.reset(seed=4)
    first = a.observation if hasattr(a, "observation") else a.observations
    second = b.observation if hasattr(b, "observation") else b.observations
    if isinstance(first, dict):
        assert first.keys() == second.keys()
        for key in first:
            np.testing.assert_array_equal(first[key], second[key])
    else:
        np.testing.assert_array_equal(first, second)
