"""Avellaneda & Stoikov (2008), section 4: the simulation table with the paper's parameters.

1000 sessions of each strategy (the paper's sample size) on the native vector
env, which gives the single env's sessions exactly (checked below for a few).
Every figure of the paper's table for gamma = 0.1 is matched: profits and the
standard deviations to within 5%, the mean final inventories (near 0, where a
relative tolerance means nothing) to within the sampling error of the
difference of two 1000-session means. The model's own exact moments are
matched to the sampling error.

The expected figures sit 2-4% above the paper's: over 50 000 sessions the
inventory strategy makes 64.33 (+2.2%), std 6.09 (+3.3%), with a final
inventory std of 2.92 (+4.2%); the symmetric strategy's exact moments are
68.63 (+2.1%), std 13.77 (+2.5%) and 8.84 (+2.1%). A 1000-session standard
deviation has a sampling error of about 2.2%, so the paper's own figures are
that uncertain.
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
RELATIVE = 0.05  # the target for the profits and the standard deviations

# The paper's table for gamma = 0.1: (spread, mean profit, std of profit, mean and std of
# the final inventory).
PAPER_INVENTORY = (1.29, 62.94, 5.89, 0.10, 2.80)
PAPER_SYMMETRIC = (1.29, 67.21, 13.43, -0.018, 8.66)

Sessions = dict[str, np.ndarray]


def _sessions(
    policy: str, episodes: int = EPISODES, seed: int = SEED, *, spread_time_term: bool = False
) -> Sessions:
    """Final profit, final inventory and mean quoted spread of ``episodes`` sessions."""
    env = MarketMakingVecEnv(episodes, autoreset=False)
    env.reset(seed=seed)
    symmetric = np.full((episodes, 2), SYMMETRIC_SPREAD / 2, dtype=np.float32)
    spreads = []
    for _ in range(env.n_steps):
        if policy == "inventory":
            action = env.avellaneda_stoikov_action(spread_time_term=spread_time_term)
        else:
            action = symmetric
        spreads.append(action.astype(np.float64).sum(axis=1))
        result = env.step(action)
    assert bool(result.terminated.all())
    return {
        "profit": env.wealth,
        "inventory": env.inventory.astype(np.float64),
        "spread": np.mean(spreads, axis=0),
    }


def _assert_matches_the_paper(sessions: Sessions, paper: tuple[float, ...]) -> None:
    spread, mean, std, inventory_mean, inventory_std = paper
    summary = pnl_summary(sessions["profit"])
    inventory = sessions["inventory"]
    assert float(sessions["spread"].mean()) == pytest.approx(spread, abs=0.01)
    assert summary.mean_pnl == pytest.approx(mean, rel=RELATIVE)
    assert summary.pnl_volatility == pytest.approx(std, rel=RELATIVE)
    assert float(inventory.std()) == pytest.approx(inventory_std, rel=RELATIVE)
    # two independent 1000-session means: 3 standard errors of their difference
    tolerance = 3 * math.sqrt(2) * inventory_std / math.sqrt(len(inventory))
    assert float(inventory.mean()) == pytest.approx(inventory_mean, abs=tolerance)


@pytest.fixture(scope="module")
def inventory_strategy() -> Sessions:
    return _sessions("inventory")


@pytest.fixture(scope="module")
def symmetric_strategy() -> Sessions:
    return _sessions("symmetric")


def test_the_inventory_strategy_matches_the_papers_table(inventory_strategy: Sessions) -> None:
    _assert_matches_the_paper(inventory_strategy, PAPER_INVENTORY)


def test_the_symmetric_strategy_matches_the_papers_table(symmetric_strategy: Sessions) -> None:
    _assert_matches_the_paper(symmetric_strategy, PAPER_SYMMETRIC)


def test_the_spread_formulas_time_term_is_not_the_papers_simulation() -> None:
    # Formula (30)'s gamma sigma**2 (T - t) widens the spread to 1.49 on average,
    # not the table's 1.29, and disperses the profits about 11% more than the
    # paper reports (6.57 over 50 000 sessions, against 5.89 +- 2%).
    sessions = _sessions("inventory", spread_time_term=True)
    assert float(sessions["spread"].mean()) == pytest.approx(1.49, abs=0.01)
    assert pnl_summary(sessions["profit"]).pnl_volatility > (1 + RELATIVE) * PAPER_INVENTORY[2]


def test_the_inventory_strategy_trades_profit_for_much_less_risk(
    inventory_strategy: Sessions, symmetric_strategy: Sessions
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


def test_the_vector_sessions_are_the_single_envs(inventory_strategy: Sessions) -> None:
    env = MarketMakingEnv()
    seeds = make_seed_sequence(SEED, EPISODES)
    for i in (0, 1, 999):
        env.reset(seed=seeds[i])
        for _ in range(env.n_steps):
            env.step(env.avellaneda_stoikov_action())
        assert env.wealth == inventory_strategy["profit"][i]
