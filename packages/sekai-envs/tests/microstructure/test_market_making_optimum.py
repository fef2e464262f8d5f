"""MarketMaking-v0's exact optimum, and the exact moments of a quoting rule.

The optimum is checked three ways: its value against Monte Carlo episodes of
the real env (to 4 standard errors), against Avellaneda & Stoikov's quotes,
and, on a session of two steps, against a brute-force search over every
history, run through the env's own step. The exact moments are checked
against the enumeration of every path of a small session.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import sekai.envs
import sekai.envs.finance as finance
import sekai.registry as registry
from sekai.core import TimeLimit
from sekai.envs.finance._market_making_config import MarketMakingConfig
from sekai.envs.finance._market_making_kernel import advance, fill_probability, start_sessions
from sekai.envs.finance._market_making_optimum import (
    MarketMakingOptimum,
    avellaneda_stoikov_table,
    market_making_optimum,
    quote_moments,
)
from sekai.envs.finance._market_making_state import ArrayState
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv

# A two-step session small enough to search every history: A dt = 1.2, so a
# quote nearer than log(1.2) / k = 0.091 fills surely; the inventory is capped
# at ±1, so some states quote one side only.
TINY = MarketMakingConfig(
    n_steps=2,
    total_time=1.0,
    fill_intensity=2.4,
    fill_decay=2.0,
    risk_aversion=0.2,
    sigma=2.0,
    max_inventory=1,
    max_offset=3.0,
)

# The eight outcomes of a step: a draw of 0 fills a quoted side (its chance is
# positive), a draw of 1 never does; the mid moves up or down.
OUTCOMES = tuple(itertools.product((0.0, 1.0), (0.0, 1.0), (1.0, -1.0)))


def _episode_rewards(
    vec: MarketMakingVecEnv, policy: str, optimum: MarketMakingOptimum
) -> np.ndarray:
    """The summed rewards of one episode of every sub-env, quoting with ``policy``."""
    observations = vec.reset(seed=2024).observations
    total = np.zeros(vec.num_envs)
    for _ in range(vec.n_steps):
        action = optimum(observations) if policy == "optimum" else vec.avellaneda_stoikov_action()
        result = vec.step(action)
        observations, total = result.observations, total + result.rewards
    assert bool(result.terminated.all())
    return total


# -- the default env --------------------------------------------------------------------------


def test_the_optimum_of_the_papers_parameters_beats_avellaneda_stoikov() -> None:
    env = MarketMakingEnv()
    optimum = market_making_optimum(env)
    assert optimum.value == pytest.approx(66.875, abs=5e-4)
    closed_form = quote_moments(env, *avellaneda_stoikov_table(env)).reward
    assert closed_form == pytest.approx(63.937, abs=5e-4)
    with_time_term = quote_moments(env, *avellaneda_stoikov_table(env, spread_time_term=True))
    symmetric = np.full((env.n_steps, 101), np.float32(0.645))
    for other in (
        closed_form,
        with_time_term.reward,
        quote_moments(env, symmetric, symmetric).reward,
    ):
        assert other < optimum.value - 2.0
    # The values are those of following the quotes: the exact moments agree.
    own = quote_moments(env, optimum.bid_offsets, optimum.ask_offsets)
    assert own.reward == pytest.approx(optimum.value, rel=1e-12)


def test_monte_carlo_episodes_earn_the_optimums_value() -> None:
    # The real env, the policy reading its observations: the mean episode reward
    # is within 4 standard errors of the value; and, on the same seeds, the
    # optimum's gain over Avellaneda & Stoikov is the exact one, also at 4 SE.
    episodes = 4000
    vec = MarketMakingVecEnv(episodes, autoreset=False)
    optimum = market_making_optimum(vec)
    rewards = _episode_rewards(vec, "optimum", optimum)
    standard_error = rewards.std(ddof=1) / math.sqrt(episodes)
    assert rewards.mean() == pytest.approx(optimum.value, abs=4 * standard_error)
    gains = rewards - _episode_rewards(vec, "avellaneda-stoikov", optimum)
    exact_gain = optimum.value - quote_moments(vec, *avellaneda_stoikov_table(vec)).reward
    gain_error = gains.std(ddof=1) / math.sqrt(episodes)
    assert gains.mean() == pytest.approx(exact_gain, abs=4 * gain_error)
    assert gains.mean() > 4 * gain_error


def test_the_single_env_plays_the_policy_from_its_observations() -> None:
    env = MarketMakingEnv(n_steps=20, max_inventory=3)
    optimum = market_making_optimum(TimeLimit(env, 100))  # a wrapper's config is read
    observation, done = env.reset(seed=5).observation, False
    while not done:
        t, inventory = env.elapsed_steps, env.inventory
        action = optimum(observation)
        assert action.dtype == np.float32 and env.action_space.contains(action)
        j = inventory + 3
        assert action.tolist() == [optimum.bid_offsets[t, j], optimum.ask_offsets[t, j]]
        result = env.step(action)
        observation, done = result.observation, result.done
    # The terminal observation gets the last step's quotes rather than an error.
    last = [optimum.bid_offsets[-1, env.inventory + 3], optimum.ask_offsets[-1, env.inventory + 3]]
    assert optimum(observation).tolist() == last


def test_the_avellaneda_stoikov_table_is_the_envs_closed_form() -> None:
    env = MarketMakingEnv(n_steps=20, max_inventory=30)
    bids, asks = avellaneda_stoikov_table(env)
    env.reset(seed=0)
    for t in range(env.n_steps):
        held = env.inventory
        for inventory in range(-30, 31):
            env.inventory = inventory  # the closed form in another state
            expected = [bids[t, inventory + 30], asks[t, inventory + 30]]
            np.testing.assert_array_equal(
                env.avellaneda_stoikov_action(), np.array(expected, np.float32)
            )
        env.inventory = held
        env.step(env.avellaneda_stoikov_action())
    assert bids.min() == 0.0 and asks.min() == 0.0  # clipped at the mid, as the env's


def test_the_quotes_mirror_in_the_inventory_and_lean_against_it() -> None:
    optimum = market_making_optimum(MarketMakingEnv())
    np.testing.assert_array_equal(optimum.bid_offsets, optimum.ask_offsets[:, ::-1])
    np.testing.assert_allclose(optimum.values, optimum.values[:, ::-1], rtol=1e-12, atol=1e-12)
    # The longer the inventory, the farther the bid (until the side is not quoted;
    # a short enough inventory bids at the mid itself), the lower the value.
    middle = 50
    assert np.all(np.diff(optimum.bid_offsets[:, :-1], axis=1) >= 0)
    assert np.all(np.diff(optimum.bid_offsets[:, middle - 5 : middle + 5], axis=1) > 0)
    assert optimum.bid_offsets.min() == 0.0
    assert np.all(optimum.values[:-1, middle] > optimum.values[:-1, middle + 10])
    # The side the env does not quote at the cap holds the farthest quote.
    assert np.all(optimum.bid_offsets[:, -1] == 5.0) and np.all(optimum.ask_offsets[:, 0] == 5.0)
    assert not optimum.values.flags.writeable


def test_order_size_and_the_fill_cap() -> None:
    # Lots of 2 within ±5: the inventories are -4..4 in steps of 2; with A dt = 2 a
    # quote nearer than log(2) / k fills surely, so none is quoted nearer.
    config = MarketMakingConfig(
        n_steps=10, fill_intensity=20.0, order_size=2, max_inventory=5, max_offset=2.0
    )
    optimum = market_making_optimum(config)
    assert optimum.inventories.tolist() == [-4, -2, 0, 2, 4]
    assert optimum.bid_offsets.min() >= np.float32(math.log(2.0) / 1.5)
    own = quote_moments(config, optimum.bid_offsets, optimum.ask_offsets)
    assert own.reward == pytest.approx(optimum.value, rel=1e-12)
    observation = np.array([[2 / 5, 0.5], [-4 / 5, 1.0]], np.float32)
    np.testing.assert_array_equal(
        optimum(observation),
        [
            [optimum.bid_offsets[5, 3], optimum.ask_offsets[5, 3]],
            [optimum.bid_offsets[0, 0], optimum.ask_offsets[0, 0]],
        ],
    )


# -- brute force on a tiny session ----------------------------------------------------------


def _best_expected_reward(grid: np.ndarray) -> float:
    """The most any policy quoting from ``grid`` can expect: a search over every history.

    Each history is a session of the env's kernel (its own step, with its
    mid-price and cash), each of its actions is tried in each of the eight
    outcomes of the step, weighted by their chances; nothing assumes that
    the value depends on the inventory alone.
    """
    pairs = np.array(list(itertools.product(grid, grid)))

    def best(state: ArrayState, steps_left: int) -> np.ndarray:
        nodes = state.size
        if steps_left == 0:
            return np.zeros(nodes)
        expected = np.zeros(nodes * len(pairs))
        offsets = np.tile(pairs, (nodes, 1))
        for bid_draw, ask_draw, move in OUTCOMES:
            child = state.take(np.repeat(np.arange(nodes), len(pairs)))
            bid_chance = fill_probability(offsets[:, 0], TINY, child)
            ask_chance = fill_probability(offsets[:, 1], TINY, child)
            weight = 0.5 * (bid_chance if bid_draw == 0.0 else 1 - bid_chance)
            weight = weight * (ask_chance if ask_draw == 0.0 else 1 - ask_chance)
            draws = np.tile([bid_draw, ask_draw], (child.size, 1))
            _, reward = advance(TINY, child, offsets, draws, np.full(child.size, move))
            expected += weight * (reward + best(child, steps_left - 1))
        best_reward: np.ndarray = expected.reshape(nodes, len(pairs)).max(axis=1)
        return best_reward

    root = ArrayState(1)
    start_sessions(TINY, root)
    return float(best(root, TINY.n_steps)[0])


def test_a_tiny_session_against_a_search_over_every_history() -> None:
    optimum = market_making_optimum(TINY)
    # The optimum quotes inside the range (0.635 and 0.536 at inventory 0), at the
    # fill cap (unwinding at ±1) and at the bound (the side not quoted at ±1).
    assert 0.5 < optimum.bid_offsets[0, 1] < 0.7 and 0.5 < optimum.bid_offsets[1, 1] < 0.6
    assert optimum.bid_offsets[0, 0] == np.float32(math.log(1.2) / 2.0)
    grid = np.linspace(0.0, 3.0, 13)
    # No policy on a grid does better than the optimum...
    assert _best_expected_reward(grid) < optimum.value
    # ...and on a grid that holds the optimum's quotes, the best is the optimum.
    with_optimum = np.union1d(grid, np.concatenate([optimum.bid_offsets, optimum.ask_offsets]))
    assert _best_expected_reward(with_optimum) == pytest.approx(optimum.value, rel=1e-12)


def test_exact_moments_against_every_path_of_a_small_session() -> None:
    # Random quotes by (step, inventory), four steps, inventories -2..2: every one
    # of the 8**4 paths through the env's kernel, weighted by its chance.
    config = MarketMakingConfig(
        n_steps=4, fill_intensity=300.0, fill_decay=1.0, max_inventory=2, sigma=3.0
    )
    rng = np.random.default_rng(0)
    bids, asks = rng.uniform(0.0, 2.0, (2, 4, 5))
    played_bids, played_asks = bids.astype(np.float32), asks.astype(np.float32)
    state = ArrayState(1)
    start_sessions(config, state)
    chance = np.ones(1)
    rewards = np.zeros(1)
    for t in range(config.n_steps):
        rows = np.repeat(np.arange(state.size), len(OUTCOMES))
        state, chance, rewards = state.take(rows), chance[rows], rewards[rows]
        j = state.inventory + 2
        offsets = np.stack([played_bids[t, j], played_asks[t, j]], axis=1).astype(np.float64)
        draws = np.tile([outcome[:2] for outcome in OUTCOMES], (len(rows) // 8, 1))
        moves = np.tile([outcome[2] for outcome in OUTCOMES], len(rows) // 8)
        bid_chance = fill_probability(offsets[:, 0], config, state)
        ask_chance = fill_probability(offsets[:, 1], config, state)
        chance = chance * 0.5 * np.where(draws[:, 0] == 0.0, bid_chance, 1 - bid_chance)
        chance = chance * np.where(draws[:, 1] == 0.0, ask_chance, 1 - ask_chance)
        _, reward = advance(config, state, offsets, draws, moves)
        rewards = rewards + reward
    assert chance.sum() == pytest.approx(1.0, rel=1e-12)
    profit = state.wealth
    moments = quote_moments(config, bids, asks)
    assert moments.reward == pytest.approx(float(chance @ rewards), rel=1e-12)
    assert moments.profit_mean == pytest.approx(float(chance @ profit), rel=1e-12)
    variance = float(chance @ (profit - chance @ profit) ** 2)
    assert moments.profit_variance == pytest.approx(variance, rel=1e-10)
    law = [float(chance[state.inventory == q].sum()) for q in moments.inventories]
    np.testing.assert_allclose(moments.final_inventory, law, rtol=1e-12, atol=1e-15)
    held = state.inventory.astype(np.float64)
    assert moments.inventory_mean == pytest.approx(float(chance @ held), abs=1e-12)
    inventory_variance = float(chance @ (held - chance @ held) ** 2)
    assert moments.inventory_variance == pytest.approx(inventory_variance, rel=1e-12)


def test_exact_moments_of_constant_quotes_are_the_closed_form() -> None:
    # Quotes at delta fill with chance p whatever the state, so (while the cap
    # of ±50 is out of reach) the profit has mean 2 N p delta and variance
    # 2 p (1 - p) (N delta**2 + sigma**2 dt N (N + 1) / 2).
    env = MarketMakingEnv()
    delta = float(np.float32(0.645))
    quotes = np.full((env.n_steps, 101), delta)
    moments = quote_moments(env, quotes, quotes)
    p, n = env.fill_probability(delta), env.n_steps
    assert moments.profit_mean == pytest.approx(2 * n * p * delta, rel=1e-8)
    variance = 2 * p * (1 - p) * (n * delta**2 + env.sigma**2 * env.dt * n * (n + 1) / 2)
    assert moments.profit_variance == pytest.approx(variance, rel=1e-8)
    # The cap at 5.7 standard deviations trims the inventory's variance by 4e-8.
    assert moments.inventory_variance == pytest.approx(2 * n * p * (1 - p), rel=1e-6)


# -- the API ----------------------------------------------------------------------------------


def test_it_is_exported_and_refuses_what_is_not_a_market_making_env() -> None:
    assert (
        sekai.envs.market_making_optimum is finance.market_making_optimum is market_making_optimum
    )
    assert sekai.envs.MarketMakingOptimum is finance.MarketMakingOptimum is MarketMakingOptimum
    made = market_making_optimum(registry.make("MarketMaking-v0", n_steps=5))
    assert made.values.shape == (6, 101) and made.bid_offsets.shape == (5, 101)
    with pytest.raises(
        TypeError, match=r"MarketMaking-v0 env.*got OrderEnforcing <OrderEnforcing<TradingEnv"
    ):
        market_making_optimum(registry.make("Trading-v0"))
    with pytest.raises(TypeError, match="got int 3"):
        market_making_optimum(3)


def test_observations_of_another_env_are_refused() -> None:
    optimum = market_making_optimum(MarketMakingEnv(n_steps=10, max_inventory=4, order_size=2))
    with pytest.raises(ValueError, match=r"shape \(2,\) or a batch \(n, 2\), got shape \(3,\)"):
        optimum(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"shape \(2,\) or a batch"):
        optimum(np.zeros((2, 2, 2), np.float32))
    for bad in ([0.25, 1.0], [1.5, 1.0], [0.0, 1.2], [0.0, -0.1]):  # inventory 1 is not a lot of 2
        with pytest.raises(ValueError, match=r"multiple of 2 within ±4, 0 to 10 steps left"):
            optimum(np.array(bad, np.float32))


def test_exact_moments_refuse_quotes_of_the_wrong_shape_or_range() -> None:
    env = MarketMakingEnv(n_steps=3, max_inventory=2)
    good = np.ones((3, 5))
    with pytest.raises(ValueError, match=r"bid_offsets must be \(3, 5\) distances in \[0, 5\]"):
        quote_moments(env, np.ones((3, 4)), good)
    with pytest.raises(ValueError, match="ask_offsets must be"):
        quote_moments(env, good, np.full((3, 5), 6.0))
