"""Avellaneda & Stoikov (2008), section 4: the simulation table with the paper's parameters.

1000 sessions of each strategy (the paper's sample size) on the native vector
env, which gives the single env's sessions exactly (checked below for a few).
The paper leaves small details of its simulation open, so its numbers are
matched to about 5%; the model's own exact moments are matched to the
sampling error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv
from sekai.finance.metrics import pnl_summary
from sekai.utils.seeding import make_seed_sequence

EPISODES = 1000
SEED = 2008
SYMMETRIC_SPREAD = 1.29  # the paper: the inventory strategy's average spread, centred on the mid

# The paper's table for gamma = 0.1: (mean profit, std of profit, std of final inventory).
PAPER_INVENTORY = (62.94, 5.89, 2.80)
PAPER_SYMMETRIC = (67.21, 13.43, 8.66)


def _sessions(policy: str, episodes: int = EPISODES, seed: int = SEED) -> dict[str, np.ndarray]:
    """Final profit, final inventory and mean quoted spread of ``episodes`` sessions."""
    env = MarketMakingVecEnv(episodes, autoreset=False)
    env.reset(seed=seed)
    symmetric = np.full((episodes, 2), SYMMETRIC_SPREAD / 2, dtype=np.float32)
    spreads = []
    for _ in range(env.n_steps):
        action = env.avellaneda_stoikov_action() if policy == "inventory" else symmetric
        spreads.append(action.astype(np.float64).sum(axis=1))
        result = env.step(action)
    assert bool(result.terminated.all())
    return {
        "profit": env.wealth,
        "inventory": env.inventory.astype(np.float64),
        "spread": np.mean(spreads, axis=0),
    }


@pytest.fixture(scope="module")
def inventory_strategy() -> dict[str, np.ndarray]:
    return _sessions("inventory")


@pytest.fixture(scope="module")
def symmetric_strategy() -> dict[str, np.ndarray]:
    return _sessions("symmetric")


def test_the_inventory_strategy_matches_the_papers_table(
    inventory_strategy: dict[str, np.ndarray],
) -> None:
    summary = pnl_summary(inventory_strategy["profit"])
    mean, std, inventory_std = PAPER_INVENTORY
    assert summary.mean_pnl == pytest.approx(mean, rel=0.05)
    # The spread formula's time term makes this strategy's profits a little more
    # dispersed than the paper reports (6.5 against 5.89): a gap of about 10%,
    # well beyond the 2% sampling error, from a detail the paper leaves open.
    assert summary.pnl_volatility == pytest.approx(std, rel=0.15)
    assert float(np.std(inventory_strategy["inventory"])) == pytest.approx(inventory_std, rel=0.1)
    # gamma sigma**2 (T - t) + (2 / gamma) log(1 + gamma / k): 1.29 plus 0.2 on average
    assert float(inventory_strategy["spread"].mean()) == pytest.approx(1.49, abs=0.01)


def test_the_symmetric_strategy_matches_the_papers_table(
    symmetric_strategy: dict[str, np.ndarray],
) -> None:
    summary = pnl_summary(symmetric_strategy["profit"])
    mean, std, inventory_std = PAPER_SYMMETRIC
    assert summary.mean_pnl == pytest.approx(mean, rel=0.05)
    assert summary.pnl_volatility == pytest.approx(std, rel=0.05)
    assert float(np.std(symmetric_strategy["inventory"])) == pytest.approx(inventory_std, rel=0.05)


def test_the_inventory_strategy_trades_profit_for_much_less_risk(
    inventory_strategy: dict[str, np.ndarray], symmetric_strategy: dict[str, np.ndarray]
) -> None:
    # The paper's conclusion: a slightly lower mean, a much lower variance.
    inventory, symmetric = inventory_strategy["profit"], symmetric_strategy["profit"]
    assert inventory.mean() < symmetric.mean()
    assert inventory.std() < 0.6 * symmetric.std()
    assert inventory_strategy["inventory"].std() < 0.5 * symmetric_strategy["inventory"].std()


def test_the_symmetric_strategy_has_the_models_exact_moments() -> None:
    # Constant quotes at delta fill with probability p per side and step, whatever
    # the price, so the profit's mean is 2 N p delta and, the inventory being a sum
    # of independent +-1 steps held through independent moves, its variance is
    # 2 p (1 - p) (N delta**2 + sigma**2 dt N (N + 1) / 2).
    episodes = 4000
    sessions = _sessions("symmetric", episodes, seed=1)
    env = MarketMakingEnv()
    delta = float(np.float32(SYMMETRIC_SPREAD / 2))
    p = env.fill_probability(delta)
    n = env.n_steps
    mean = 2 * n * p * delta
    variance = 2 * p * (1 - p) * (n * delta**2 + env.sigma**2 * env.dt * n * (n + 1) / 2)
    profits = sessions["profit"]
    assert profits.mean() == pytest.approx(mean, abs=4 * math.sqrt(variance / episodes))
    assert profits.std() == pytest.approx(math.sqrt(variance), rel=4 / math.sqrt(2 * episodes))


def test_the_vector_sessions_are_the_single_envs(
    inventory_strategy: dict[str, np.ndarray],
) -> None:
    env = MarketMakingEnv()
    seeds = make_seed_sequence(SEED, EPISODES)
    for i in (0, 1, 999):
        env.reset(seed=seeds[i])
        for _ in range(env.n_steps):
            env.step(env.avellaneda_stoikov_action())
        assert env.wealth == inventory_strategy["profit"][i]
