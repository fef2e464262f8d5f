"""What a market env shows agents and wrappers (``env.now``) reads nothing after the decision row.

A policy that peeks at the execution side (the next row's price or time, a
view some rows later) gets LookAheadError on Trading-v0, Market-v0 (history
and simulated) and Market-v0's native vector env, and the env steps on
exactly as if nobody had peeked. A pickle of ``env.now`` holds no later row.
The env's own view of its data keeps the execution side.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai.registry as registry
from sekai.error import LookAheadError
from sekai.finance import MarketData
from sekai.finance.data import PointInTime, PointInTimeBatch

STEPS = 6
LENGTH = {"episode_length": 20}


def _prices(n_assets: int, rows: int = 60) -> np.ndarray:
    rng = np.random.default_rng(5)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (rows, n_assets)), axis=0))


SINGLE: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "Trading-v0 history": (
        "Trading-v0",
        lambda: {"data": MarketData(_prices(1)), "lookback": 3, **LENGTH},
    ),
    "Trading-v0 simulated": ("Trading-v0", lambda: {"lookback": 3, **LENGTH}),
    "Market-v0 history": (
        "Market-v0",
        lambda: {"data": MarketData(_prices(4)), "max_assets": 3, "lookback": 3, **LENGTH},
    ),
    "Market-v0 simulated": ("Market-v0", lambda: {"lookback": 3, **LENGTH}),
}

PEEKS: dict[str, Callable[[PointInTime], Any]] = {
    "execution_price()": lambda now: now.execution_price(),
    "execution_time": lambda now: now.execution_time,
    "advance(1)": lambda now: now.advance(),
    "advance(150)": lambda now: now.advance(150),
    "has_next": lambda now: now.has_next,
}


def _play(env_id: str, kwargs: dict[str, Any], peek: Callable[[Any], Any] | None) -> list[Any]:
    """STEPS steps of a fixed policy; with ``peek``, try it on ``env.now`` before each step."""
    env: Any = registry.make(env_id, **kwargs)
    first = env.reset(seed=0)
    seen: list[Any] = [first.observation]
    space = env.action_space
    space.seed(1)
    for _ in range(STEPS):
        if peek is not None:
            with pytest.raises(LookAheadError, match="this is an agent's view"):
                peek(env.now)
        result = env.step(space.sample())
        seen.append((result.observation, result.reward, result.info))
    env.close()
    return seen


@pytest.mark.parametrize("peek", list(PEEKS))
@pytest.mark.parametrize("case", list(SINGLE))
def test_a_peeking_policy_is_refused_and_the_env_steps_on(
    case: str, peek: str, assert_same: Callable[..., None]
) -> None:
    env_id, kwargs = SINGLE[case]
    peeked = _play(env_id, kwargs(), PEEKS[peek])
    assert_same(peeked, _play(env_id, kwargs(), None), case)


@pytest.mark.parametrize("case", list(SINGLE))
def test_env_now_is_an_agent_view_that_pickles_no_later_row(case: str) -> None:
    env_id, kwargs = SINGLE[case]
    env: Any = registry.make(env_id, **kwargs())
    env.reset(seed=0)
    space = env.action_space
    space.seed(2)
    for _ in range(3):
        env.step(space.sample())
    now = env.now
    assert isinstance(now, PointInTime) and now.is_agent_view
    t = now.index
    blob = pickle.dumps(now)
    copy = pickle.loads(blob)
    assert copy.is_agent_view and copy.index == t
    np.testing.assert_array_equal(np.asarray(copy.prices), np.asarray(now.prices))
    np.testing.assert_array_equal(copy.log_returns(3), now.log_returns(3))
    env.step(space.sample())
    following = env.now.prices.latest  # row t + 1, known one step later
    assert env.now.index == t + 1
    assert not any(price.tobytes() in blob for price in following[np.isfinite(following)])
    env.close()


def test_simulated_trading_hides_the_path_from_env_now_too() -> None:
    env: Any = registry.make("Trading-v0", lookback=3, episode_length=200)
    env.reset(seed=0)
    assert env.prices is None  # the simulated path is not exposed ...
    with pytest.raises(LookAheadError, match=r"advance\(150\) reads row 153"):
        env.now.advance(150)  # ... nor reachable from env.now
    assert len(env.price_history) == 4  # rows 0..3
    assert len(pickle.dumps(env.now)) < 2_000 and len(pickle.dumps(env.price_history)) < 1_000


def test_the_env_view_of_a_history_keeps_its_execution_side() -> None:
    data = MarketData(_prices(4))
    env: Any = registry.make("Market-v0", data=data, max_assets=3, lookback=3, **LENGTH)
    env.reset(seed=0, options={"start": 10})
    t = env.now.index
    assert t == 10
    np.testing.assert_array_equal(data.at(t).execution_price(), data.prices[t + 1])
    assert data.at(t).advance(3).index == t + 3 and not data.at(t).is_agent_view


# -- the native vector env ---------------------------------------------------------------------

VECTOR: dict[str, Callable[[], dict[str, Any]]] = {
    "history": lambda: {
        "data": MarketData(_prices(4)),
        "max_assets": 3,
        "lookback": 3,
        "episode_length": 4,
    },
    "simulated": lambda: {"lookback": 3, "episode_length": 4},  # resets draw new paths
}


def _replace_a_path(now: PointInTimeBatch) -> Any:
    ones = np.ones((1, 40, now.n_assets))
    return now.with_paths([0], ones)


BATCH_PEEKS: dict[str, Callable[[PointInTimeBatch], Any]] = {
    "execution_price()": lambda now: now.execution_price(),
    "execution_time": lambda now: now.execution_time,
    "advance(1)": lambda now: now.advance(),
    "advance(150)": lambda now: now.advance(150),
    "with_rows()": lambda now: now.with_rows(now.index + 1),
    "with_paths()": _replace_a_path,
}


def _play_vec(kwargs: dict[str, Any], peek: Callable[[Any], Any] | None) -> list[Any]:
    vec: Any = registry.make_vec("Market-v0", 2, **kwargs)
    first = vec.reset(seed=[0, 1])
    seen: list[Any] = [first.observations]
    space = vec.action_space
    space.seed(1)
    for _ in range(STEPS):  # through an autoreset
        if peek is not None:
            assert vec.now.is_agent_view
            with pytest.raises(LookAheadError, match="this is an agent's view"):
                peek(vec.now)
            with pytest.raises(TypeError, match="does not pickle"):
                pickle.dumps(vec.now)
        result = vec.step(np.stack([space.sample() for _ in range(2)]))
        seen.append((result.observations, result.rewards, result.infos))
    vec.close()
    return seen


@pytest.mark.parametrize("peek", list(BATCH_PEEKS))
@pytest.mark.parametrize("case", list(VECTOR))
def test_a_peeking_policy_is_refused_by_the_native_vector_env(
    case: str, peek: str, assert_same: Callable[..., None]
) -> None:
    peeked = _play_vec(VECTOR[case](), BATCH_PEEKS[peek])
    assert_same(peeked, _play_vec(VECTOR[case](), None), case)
