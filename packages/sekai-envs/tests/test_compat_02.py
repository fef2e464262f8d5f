# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-envs: every env class of 0.2's ``sekai.envs`` listing, its
signature and members, every function and method of 0.2's ``sekai.envs*`` import paths with
its parameters, 0.2's module paths, and the spaces and info keys 0.2 code relies on.

The expected API is sekai 0.2's, written down as data below (from the markets
listing, the module paths 0.2 code imports from, and the facts about the market
envs) and, for the parameters of every function and method, the part of 0.2's
parameters listing for ``sekai.envs*`` kept next to this file
(``api-0.2-parameters.md``). A signature is compatible when it accepts every call
0.2's accepts: same parameter names, order and defaults; extra parameters only if
they cannot be required.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

import sekai.envs
import sekai.registry as registry
from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiDiscrete, Space
from sekai.utils.seeding import SeedType

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (
    Entry,
    ListedName,
    check_name,
    cls,
    listed_problems,
    parameters_listing,
)

# -- sekai 0.2's listing for sekai-envs ----------------------------------------------------------

API: dict[str, dict[str, Entry]] = {
    "sekai.envs": {
        "AcrobotEnv": cls(
            "",
            "class_attribute AVAIL_TORQUE",
            "class_attribute LINK_COM_POS_1",
            "class_attribute LINK_COM_POS_2",
            "class_attribute LINK_LENGTH_1",
            "class_attribute LINK_LENGTH_2",
            "class_attribute LINK_MASS_1",
            "class_attribute LINK_MASS_2",
            "class_attribute LINK_MOI",
            "class_attribute MAX_VEL_1",
            "class_attribute MAX_VEL_2",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "class_attribute book_or_nips",
            "class_attribute dt",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            "class_attribute torque_noise_max",
            attrs="action_space observation_space state",
            supports="__enter__ __exit__",
        ),
        "CartPoleEnv": cls(
            "sutton_barto_reward=False",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_space force_mag gravity kinematics_integrator length masscart masspole observation_space polemass_length state sutton_barto_reward tau theta_threshold_radians total_mass x_threshold",
            supports="__enter__ __exit__",
        ),
        "ContinuousMountainCarEnv": cls(
            "goal_velocity=0.0",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "staticmethod height(xs)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_space goal_position goal_velocity high_state low_state max_action max_position max_speed min_action min_position observation_space power state",
            supports="__enter__ __exit__",
        ),
        "LimitOrderBookEnv": cls(
            "*, flow=None, mid_price=10000, session_length=300.0, decision_interval=1.0, levels=5, max_quote_offset=5, order_size=1, max_inventory=20, inventory_penalty=0.01, max_trades=16, warmup=20.0",
            "class_attribute AGENT",
            "action_mask()",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property book",
            "property elapsed_steps",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_space core decision_interval n_steps observation_space trader",
            supports="__enter__ __exit__",
        ),
        "LimitOrderBookMarket": cls(
            "n_agents=2, *, decision_intervals=1.0, jitter=0.0, flow=None, mid_price=10000, session_length=300.0, levels=5, max_quote_offset=5, order_size=1, max_inventory=20, inventory_penalty=0.01, max_trades=16, warmup=20.0",
            "action_mask(agent)",
            "property book",
            "reset(*, seed=None, options=None)",
            "step(actions)",
            attrs="acting action_spaces agents core intervals jitter next_decision observation_spaces possible_agents traders",
            supports="__enter__ __exit__",
        ),
        "MarketEnv": cls(
            "data=None, *, model=None, max_assets=None, features=(), exogenous=(), lookback=20, episode_length=252, sampler=random, transaction_cost=0.001, reward=None, allow_short=False, max_leverage=1.0, cash_rate=0.0, margin_rate=None, borrow_rate=0.0, capital=1000000.0, dt=None, delisting_return=0.0, privileged_state=False",
            "action_mask()",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property elapsed_steps",
            "property settable episode_length",
            "property latent_state",
            "property settable lookback",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "property settable reward_fn",
            "property slot_assets",
            "step(action)",
            "target_weights(action)",
            "property timestamp",
            attrs="action_space capital config cost_model data delisting_return dt equity exogenous features max_assets model n_total observation_space privileged_state reward_fn sampler weights",
            supports="__enter__ __exit__",
        ),
        "MarketMakingEnv": cls(
            "*, s0=100.0, sigma=2.0, total_time=1.0, n_steps=200, fill_intensity=140.0, fill_decay=1.5, risk_aversion=0.1, max_inventory=50, order_size=1, max_offset=5.0",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "avellaneda_stoikov_action()",
            "property elapsed_steps",
            "fill_probability(offset)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            "property time_remaining",
            "property wealth",
            attrs="A action_space ask ask_filled bid bid_filled cash dt inventory k max_inventory max_offset mid n_steps observation_space order_size risk_aversion s0 sigma total_time",
            supports="__enter__ __exit__",
        ),
        "MountainCarEnv": cls(
            "goal_velocity=0.0",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "staticmethod height(xs)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_space force goal_position goal_velocity gravity high low max_position max_speed min_position observation_space state",
            supports="__enter__ __exit__",
        ),
        "OptimalExecutionEnv": cls(
            "*, initial_inventory=1000000.0, s0=50.0, sigma=0.95, total_time=5.0, n_steps=25, permanent_impact=2.5e-07, temporary_impact=2.5e-06, fixed_cost=0.0625, risk_aversion=1e-06",
            "almgren_chriss_actions()",
            "almgren_chriss_trajectory()",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property elapsed_steps",
            "expected_shortfall(trades)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="X0 action_space epsilon eta gamma inventory mid n_steps observation_space risk_aversion s0 shortfall sigma tau total_time",
            supports="__enter__ __exit__",
        ),
        "PendulumEnv": cls(
            "g=10.0",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="action_space dt g l last_u m max_speed max_torque observation_space state",
            supports="__enter__ __exit__",
        ),
        "PortfolioEnv": cls(
            "prices=None, *, data=None, n_assets=None, episode_length=252, lookback=30, transaction_cost=0.001, allow_short=False, mu=None, sigma=None, corr=None, dt=None, model=None, reward=None, sampler=random, capital=1000000.0",
            "action_to_weights(action)",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property elapsed_steps",
            "property settable episode_length",
            "property settable lookback",
            "class_attribute metadata",
            "property price_history",
            "reset(*, seed=None, options=None)",
            "property settable reward_fn",
            "step(action)",
            "property timestamp",
            attrs="action_space allow_short capital corr cost_model data dt model mu n_assets observation_space portfolio_value prices reward_fn sigma transaction_cost weights",
            supports="__enter__ __exit__",
        ),
        "TradingEnv": cls(
            "prices=None, *, data=None, episode_length=252, lookback=30, positions=(-1.0, 0.0, 1.0), transaction_cost=0.001, mu=0.05, sigma=0.2, dt=None, s0=100.0, model=None, reward=None, sampler=random, capital=1000000.0",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property elapsed_steps",
            "property settable episode_length",
            "property settable lookback",
            "class_attribute metadata",
            "property price",
            "property price_history",
            "reset(*, seed=None, options=None)",
            "property settable reward_fn",
            "step(action)",
            "property timestamp",
            attrs="action_space capital cost_model data dt equity model mu observation_space position positions prices reward_fn s0 sigma transaction_cost",
            supports="__enter__ __exit__",
        ),
    },
}

IMPORT_PATHS: dict[str, str] = {
    "sekai.envs": "AcrobotEnv CartPoleEnv ContinuousMountainCarEnv LimitOrderBookEnv LimitOrderBookMarket MarketEnv MarketMakingEnv MountainCarEnv OptimalExecutionEnv PendulumEnv PortfolioEnv TradingEnv",
    "sekai.envs.classic_control": "AcrobotEnv AcrobotRenderer CartPoleEnv CartPoleRenderer ContinuousMountainCarEnv MountainCarEnv MountainCarRenderer PendulumEnv PendulumRenderer",
    "sekai.envs.classic_control.acrobot": "AcrobotEnv SeedType bound pi wrap",
    "sekai.envs.classic_control.cartpole": "CartPoleEnv SeedType",
    "sekai.envs.classic_control.continuous_mountain_car": "ContinuousMountainCarEnv SeedType",
    "sekai.envs.classic_control.mountain_car": "MountainCarEnv SeedType",
    "sekai.envs.classic_control.pendulum": "DEFAULT_X DEFAULT_Y PendulumEnv SeedType angle_normalize",
    "sekai.envs.classic_control.rendering": "AcrobotRenderer CartPoleRenderer MountainCarRenderer PendulumRenderer",
    "sekai.envs.finance": "LimitOrderBookEnv LimitOrderBookMarket LimitOrderBookMarketRenderer LimitOrderBookRenderer MarketEnv MarketMakingEnv MarketMakingRenderer MarketMakingVecEnv MarketRenderer OptimalExecutionEnv OptimalExecutionRenderer OptimalExecutionVecEnv PortfolioEnv PortfolioRenderer PortfolioVecEnv TradingEnv TradingRenderer TradingVecEnv default_market random_correlation sample_window simulate_gbm",
    "sekai.envs.finance.lob_env": "LimitOrderBookEnv LimitOrderBookMarket",
    "sekai.envs.finance.market": "random_correlation sample_window simulate_gbm validate_prices",
    "sekai.envs.finance.market_env": "MarketEnv default_market",
    "sekai.envs.finance.market_making": "MarketMakingEnv SeedType",
    "sekai.envs.finance.optimal_execution": "OptimalExecutionEnv SeedType",
    "sekai.envs.finance.portfolio": "PortfolioEnv SeedType",
    "sekai.envs.finance.rendering": "LimitOrderBookMarketRenderer LimitOrderBookRenderer MarketMakingRenderer MarketRenderer OptimalExecutionRenderer PortfolioRenderer TradingRenderer",
    "sekai.envs.finance.trading": "SeedType TradingEnv",
    "sekai.envs.finance.vector": "MarketMakingVecEnv OptimalExecutionVecEnv PortfolioVecEnv TradingVecEnv",
}


# -- objects to check instance attributes on: every env made with its defaults -------------------

BUILDERS: dict[str, Callable[[], Any]] = {
    name: getattr(sekai.envs, name) for name in API["sekai.envs"]
}
CASES = [(module, name) for module, entries in API.items() for name in entries]


# -- the listing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_env_of_the_listing_is_there_with_a_compatible_signature(
    module: str, name: str
) -> None:
    assert check_name(module, name, API[module][name], BUILDERS.get(name)) == []


@pytest.mark.parametrize("path", sorted(IMPORT_PATHS))
def test_every_import_path_offers_its_names(path: str) -> None:
    module = importlib.import_module(path)
    names = IMPORT_PATHS[path].split()
    assert [name for name in names if not hasattr(module, name)] == []
    # The same objects as the package's (the module is where 0.2 defined them).
    assert [
        n
        for n in names
        if hasattr(sekai.envs, n) and getattr(module, n) is not getattr(sekai.envs, n)
    ] == []


def test_seed_type_is_importable_where_0_2_code_imports_it() -> None:
    modules = [path for path, names in IMPORT_PATHS.items() if "SeedType" in names.split()]
    assert len(modules) == 9
    for path in modules:
        module = importlib.import_module(path)
        assert module.SeedType is SeedType, path
        assert "SeedType" in module.__all__, path


# -- the parameters listing: every function and method of 0.2's sekai.envs* import paths ------

LISTING: dict[str, list[ListedName]] = parameters_listing("sekai.envs")
LISTED = [(module, listed) for module, names in LISTING.items() for listed in names]


def test_the_listing_covers_every_import_path_of_sekai_envs() -> None:
    assert sorted(LISTING) == sorted(IMPORT_PATHS)
    assert len(LISTED) == 78  # every "- " line of those sections


@pytest.mark.parametrize(("module", "listed"), LISTED, ids=[f"{m}.{n.name}" for m, n in LISTED])
def test_every_listed_function_and_method_takes_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed) == []


def test_0_2_calls_of_the_market_helpers() -> None:
    from sekai.envs.finance.market import random_correlation, sample_window, validate_prices

    rng = np.random.default_rng(0)
    corr = random_correlation(rng, 4, strength=0.5)
    assert corr.shape == (4, 4) and np.linalg.eigvalsh(corr).min() > 0.0
    prices = 100.0 * np.exp(np.random.default_rng(1).normal(0.0, 0.01, (50, 3)).cumsum(axis=0))
    window = sample_window(np.random.default_rng(2), prices, 10)
    assert window.shape == (10, 3)
    assert any(np.array_equal(window, prices[i : i + 10]) for i in range(41))
    np.testing.assert_array_equal(validate_prices(prices[:, 0], ndim=1, min_length=2), prices[:, 0])


def test_0_2_calls_of_the_portfolio_vector_env_and_renderers() -> None:
    vec = sekai.envs.finance.vector.PortfolioVecEnv(2, n_assets=3, lookback=5, episode_length=5)
    vec.reset(seed=0)
    weights = vec.action_to_weights(np.array([[1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(weights, [[0.25, 0.25, 0.0, 0.5], [0.0, 0.0, 0.0, 1.0]])
    vec.close()
    pytest.importorskip("PIL")
    from sekai.envs.classic_control.rendering import AcrobotRenderer, PendulumRenderer

    assert PendulumRenderer(size=64).render(_reset("Pendulum-v1")).shape == (64, 64, 3)
    assert AcrobotRenderer(96).render(_reset("Acrobot-v1")).shape == (96, 96, 3)


def _reset(env_id: str) -> Any:
    env = registry.make(env_id)
    env.reset(seed=0)
    return env


def test_project_weights_reads_a_long_only_action_as_market_v0_does() -> None:
    """``project_weights(scores, tradable, config, cash_score=...)`` is Market-v0's reading."""
    from sekai.finance.account import project_weights

    env = sekai.envs.MarketEnv(max_leverage=1.5)
    env.reset(seed=3)
    mask = env.action_mask()  # 0.2's int8 mask: the slots, then cash
    assert 0 < mask[:-1].sum() < len(mask) - 1  # some slots are empty
    rng = np.random.default_rng(4)
    for _ in range(20):
        action = rng.uniform(0.0, 1.0, len(mask)).astype(np.float32)
        expected = env.target_weights(action)
        got = project_weights(action[:-1], mask[:-1], env.config.account, cash_score=action[-1])
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0.0)


# -- spaces and info keys of the market envs made with their defaults ----------------------------
#
# A space's structure is its kind and shape (for a MaskedBox: slots and the shape of each;
# for a Dict: the structure of each key); the action spaces are compared whole.


class MarketCase(NamedTuple):
    env_id: str
    kwargs: dict[str, Any]
    observation: Any
    action: Space[Any]
    info: str  # the keys every step's info holds


MARKET_CASES = [
    MarketCase(
        "Trading-v0",
        {},
        ("Box", (31,)),  # the last 30 log returns, then the position
        Discrete(3),
        "equity position price asset_return cost turnover timestamp dt",
    ),
    MarketCase(
        "Portfolio-v0",
        {},  # correlated GBM, 5 assets, lookback 30
        {"returns": ("Box", (30, 5)), "weights": ("Box", (6,))},
        Box(0.0, 1.0, (6,), np.float32),
        "portfolio_value equity weights turnover cost asset_returns timestamp dt",
    ),
    MarketCase(
        "Portfolio-v0",
        {"allow_short": True},
        {"returns": ("Box", (30, 5)), "weights": ("Box", (6,))},
        Box(-1.0, 1.0, (5,), np.float32),
        "portfolio_value equity weights turnover cost asset_returns timestamp dt",
    ),
    MarketCase(
        "Market-v0",
        {},  # default_market(): 10 slots, lookback 20, log return and availability
        {
            "assets": ("MaskedBox", 10, (20, 2)),
            "portfolio": ("Box", (11,)),
            "account": ("Box", (2,)),
        },
        Box(0.0, 1.0, (11,), np.float32),
        "equity turnover cost financing gross_exposure n_assets weights timestamp dt latent_state",
    ),
    MarketCase(
        "MarketMaking-v0",
        {},
        ("Box", (2,)),  # inventory / max_inventory, fraction of the session left
        Box(0.0, 5.0, (2,), np.float32),
        "mid_price inventory cash wealth bid ask bid_filled ask_filled timestamp dt",
    ),
    MarketCase(
        "OptimalExecution-v0",
        {},
        ("Box", (3,)),
        Box(0.0, 1.0, (1,), np.float32),
        "shares_sold execution_price inventory mid_price implementation_shortfall shortfall_bps timestamp dt",
    ),
    MarketCase(
        "LimitOrderBook-v0",
        {},
        {
            "book": ("Box", (5, 4)),
            "trades": ("MaskedBox", 16, (3,)),
            "agent": ("Box", (6,)),
        },
        MultiDiscrete([6, 6, 3]),
        "timestamp dt mid_price spread inventory cash wealth fills",
    ),
]


def _structure(space: Space[Any]) -> Any:
    if isinstance(space, MaskedBox):  # a Dict of values and mask
        return ("MaskedBox", space.max_size, space.element_shape)
    if isinstance(space, Dict):
        return {key: _structure(value) for key, value in space.spaces.items()}
    if isinstance(space, Box):
        return ("Box", space.shape)
    return type(space).__name__


@pytest.mark.parametrize(
    "case",
    MARKET_CASES,
    ids=[f"{c.env_id}{'-' if c.kwargs else ''}{'-'.join(c.kwargs)}" for c in MARKET_CASES],
)
def test_market_envs_have_0_2_spaces_and_info_keys(case: MarketCase) -> None:
    env = registry.make(case.env_id, **case.kwargs)
    assert _structure(env.observation_space) == case.observation
    assert env.action_space == case.action
    result = env.reset(seed=0)
    assert result.observation in env.observation_space
    env.action_space.seed(0)
    for _ in range(3):
        result = env.step(env.action_space.sample())
        assert result.observation in env.observation_space
        assert set(case.info.split()) <= set(result.info)


def test_limit_order_book_market_has_0_2_agents_spaces_and_info_keys() -> None:
    market = sekai.envs.LimitOrderBookMarket()
    assert market.possible_agents == ["trader_0", "trader_1"]
    lob = MARKET_CASES[-1]
    for agent in market.possible_agents:
        assert _structure(market.observation_spaces[agent]) == lob.observation
        assert market.action_spaces[agent] == lob.action
    result = market.reset(seed=0)
    for agent, observation in result.observations.items():
        assert observation in market.observation_spaces[agent]
    actions = {agent: np.array([1, 1, 1]) for agent in market.acting}
    step = market.step(actions)
    for agent in market.possible_agents:
        assert set(lob.info.split()) <= set(step.info[agent])
