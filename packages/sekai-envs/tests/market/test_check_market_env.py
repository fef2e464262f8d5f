"""Every registered single-agent market env passes check_market_env, with each execution convention.

The envs on a history (Trading-v0, Portfolio-v0, Market-v0) play the S&P 500
daily history shipped with ``arch``, OHLCV fields included, under each
``execution`` convention, their native vector envs (one and two sub-envs)
compared step for step; the envs on their own simulators play without data,
so the kit skips the look-ahead check and says so, and nothing else.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

from sekai.core import MultiAgentEnv
from sekai.envs.finance._execution import EXECUTIONS
from sekai.finance import MarketData, check_market_env
from sekai.registry import EnvRegistry

N_STEPS = 300  # past the end of the first 252-step episode: autoresets are compared too
HISTORY_ENVS = ("Market-v0", "Portfolio-v0", "Trading-v0")
SIMULATED_ENVS = ("LimitOrderBook-v0", "MarketMaking-v0", "OptimalExecution-v0")


@pytest.fixture(scope="module")
def bars(sp500_frame: Any) -> MarketData:
    """The S&P 500 with its opens, highs, lows and volumes (``next_open`` fills at the open)."""
    frame = sp500_frame
    return MarketData.from_pandas(
        frame["Close"].rename("SPX"),
        fields={
            "open": frame["Open"],
            "high": frame["High"],
            "low": frame["Low"],
            "volume": frame["Volume"].astype(float),
        },
    )


def _market_ids(registry: EnvRegistry) -> list[str]:
    ids = []
    for spec in registry.all_specs():
        if not str(spec.entry_point).startswith("sekai.envs.finance."):
            continue
        env: Any = registry.make(spec.id)
        env.close()
        if not isinstance(env, MultiAgentEnv):
            ids.append(spec.id)
    return sorted(ids)


def test_the_cases_cover_every_registered_single_agent_market_env(registry: EnvRegistry) -> None:
    assert _market_ids(registry) == sorted(HISTORY_ENVS + SIMULATED_ENVS)
    for env_id in HISTORY_ENVS:  # each takes the execution convention
        creator = registry.make(env_id).unwrapped
        assert "execution" in inspect.signature(type(creator)).parameters, env_id


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("env_id", HISTORY_ENVS)
def test_history_envs_pass(
    env_id: str, execution: str, bars: MarketData, registry: EnvRegistry
) -> None:
    num_envs = 2 if execution == "close" else 1
    problems = check_market_env(
        lambda data: registry.make(env_id, data=data, execution=execution),
        bars,
        n_steps=N_STEPS,
        native=lambda data: registry.make_vec(
            env_id, num_envs, vectorization_mode="native", data=data, execution=execution
        ),
    )
    assert problems == []


@pytest.mark.parametrize("env_id", SIMULATED_ENVS)
def test_simulated_envs_pass_without_a_look_ahead_check(env_id: str, registry: EnvRegistry) -> None:
    spec = registry.spec(env_id)
    native = None
    if spec.vector_entry_point is not None:

        def native(data: MarketData | None) -> Any:
            return registry.make_vec(env_id, 1, vectorization_mode="native")

    problems = check_market_env(
        lambda data: registry.make(env_id), None, n_steps=N_STEPS, reward=None, native=native
    )
    assert len(problems) == 1 and problems[0].startswith("WARNING: look-ahead not checked")


def test_a_native_env_playing_another_game_is_caught(
    bars: MarketData, registry: EnvRegistry
) -> None:
    problems = check_market_env(
        lambda data: registry.make("Trading-v0", data=data),
        bars,
        n_steps=50,
        native=lambda data: registry.make_vec(
            "Trading-v0", 1, vectorization_mode="native", data=data, transaction_cost=0.01
        ),
    )
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: native parity: sub-env 0 of native(data) differs")
    assert "at step 1: reward: native " in problems[0] and " != single " in problems[0]


def test_a_leak_through_env_data_is_caught(bars: MarketData, registry: EnvRegistry) -> None:
    """A wrapper that reads the env's private full view: the kit sees what the guard cannot."""
    from sekai.core import ObservationWrapper

    class NextReturn(ObservationWrapper[Any, Any, Any]):
        def observation(self, observation: Any) -> Any:
            env: Any = self.env.unwrapped
            now = env._kernel.cursor.now()  # the env's own view, execution side
            peek = np.log(now.execution_price()[0, 0] / now.prices.latest()[0, 0])
            leaked = np.array(observation, copy=True)
            leaked[0] = peek
            return leaked

    problems = check_market_env(
        lambda data: NextReturn(registry.make("Trading-v0", data=data)), bars, n_steps=50
    )
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems
    assert "observation[0] is " in problems[0]
