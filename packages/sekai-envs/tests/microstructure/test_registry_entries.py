"""The registry entries of the microstructure envs make what they name; the old game's names."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sekai.core import MultiAgentEnv
from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution_vector import OptimalExecutionVecEnv
from sekai.registry import EnvRegistry

_FINANCE = "sekai.envs.finance"
ENTRIES = {
    "MarketMaking-v0": (
        f"{_FINANCE}.market_making:MarketMakingEnv",
        f"{_FINANCE}.market_making_vector:MarketMakingVecEnv",
    ),
    "OptimalExecution-v0": (
        f"{_FINANCE}.optimal_execution:OptimalExecutionEnv",
        f"{_FINANCE}.optimal_execution_vector:OptimalExecutionVecEnv",
    ),
    "LimitOrderBook-v0": (f"{_FINANCE}.lob_env:LimitOrderBookEnv", None),
    "MarketMicrostructure-v0": ("sekai.envs.microstructure:MarketMicrostructureEnv", None),
}


@pytest.fixture
def registry() -> EnvRegistry:
    registry = EnvRegistry()
    for env_id, (entry_point, vector_entry_point) in ENTRIES.items():
        registry.register(env_id, entry_point, vector_entry_point=vector_entry_point)
    return registry


def test_the_entries_make_the_envs(registry: EnvRegistry) -> None:
    assert isinstance(registry.make("MarketMaking-v0").unwrapped, MarketMakingEnv)
    assert isinstance(registry.make("OptimalExecution-v0").unwrapped, OptimalExecutionEnv)
    assert isinstance(registry.make("LimitOrderBook-v0").unwrapped, LimitOrderBookEnv)
    assert isinstance(registry.make("MarketMicrostructure-v0"), MultiAgentEnv)
    env = registry.make("MarketMaking-v0", n_steps=10)
    assert env.unwrapped.n_steps == 10  # type: ignore[attr-defined]


@pytest.mark.parametrize("env_id", ["MarketMaking-v0", "OptimalExecution-v0"])
def test_make_vec_is_native_and_matches_sync(registry: EnvRegistry, env_id: str) -> None:
    native = registry.make_vec(env_id, 4)
    assert isinstance(native, (MarketMakingVecEnv, OptimalExecutionVecEnv))
    sync = registry.make_vec(env_id, 4, vectorization_mode="sync")
    a, b = native.reset(seed=11), sync.reset(seed=11)
    np.testing.assert_array_equal(a.observations, b.observations)
    rng = np.random.default_rng(0)
    space = native.action_space
    for _ in range(30):
        actions = rng.uniform(space.low, space.high, (4, *space.shape)).astype(np.float32)  # type: ignore[attr-defined]
        x, y = native.step(actions), sync.step(actions)
        np.testing.assert_array_equal(x.observations, y.observations)
        np.testing.assert_array_equal(x.rewards, y.rewards)


def test_the_old_two_agent_game_keeps_its_names() -> None:
    from sekai.envs import market_making

    with pytest.warns(DeprecationWarning, match="MarketMicrostructureEnv"):
        assert market_making.MarketMakingEnv is market_making.MarketMicrostructureEnv
    env = market_making.MarketMicrostructureEnv()
    assert env.possible_agents == ["market_maker", "trader"]


@pytest.mark.parametrize(
    "make",
    [
        MarketMakingEnv,
        OptimalExecutionEnv,
        lambda: LimitOrderBookEnv(session_length=10.0),
    ],
)
def test_the_envs_pickle_with_their_seeded_behaviour(make: object) -> None:
    # (worker processes receive single envs that way)
    env = make()  # type: ignore[operator]
    copy = pickle.loads(pickle.dumps(env))
    a, b = env.reset(seed=4), copy.reset(seed=4)
    first = getattr(a, "observation", None)
    first = a.observations if first is None else first
    second = getattr(b, "observation", None)
    second = b.observations if second is None else second
    if isinstance(first, dict):
        for key in ("book", "agent"):
            np.testing.assert_array_equal(first[key], second[key])
    else:
        np.testing.assert_array_equal(first, second)


def test_the_market_pickles() -> None:
    env = LimitOrderBookMarket(2, session_length=10.0)
    env.reset(seed=1)
    copy = pickle.loads(pickle.dumps(env))
    actions = {agent: np.array([1, 1, 1]) for agent in env.agents}
    a, b = env.step(actions), copy.step(actions)
    assert a.rewards == b.rewards
