"""The market-microstructure envs through sekai.compat: Gymnasium's checker, masks, PettingZoo."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
compat = pytest.importorskip("sekai.compat")

from gymnasium.utils.env_checker import check_env as gymnasium_check_env  # noqa: E402

from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket  # noqa: E402
from sekai.envs.finance.market_making import MarketMakingEnv  # noqa: E402
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv  # noqa: E402
from sekai.utils import flatten_action_mask, get_action_mask  # noqa: E402

SINGLE_AGENT: dict[str, Callable[[], Any]] = {
    "MarketMaking": MarketMakingEnv,
    "OptimalExecution": OptimalExecutionEnv,
    "LimitOrderBook": lambda: LimitOrderBookEnv(session_length=30.0),
}


@pytest.mark.parametrize("name", SINGLE_AGENT)
def test_gymnasium_check_env_passes(name: str) -> None:
    env = compat.to_gymnasium(SINGLE_AGENT[name]())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice about unbounded or unnormalised boxes
        gymnasium_check_env(env)
    env.close()


class ActionMasks(gymnasium.Wrapper):  # type: ignore[misc]
    """The protocol of sb3-contrib's MaskablePPO: ``action_masks()``, one flat bool vector."""

    def action_masks(self) -> np.ndarray:
        sekai_env = self.env.unwrapped.sekai_env
        mask = flatten_action_mask(sekai_env.action_space, get_action_mask(sekai_env))
        return mask.astype(bool)


def test_a_maskable_agent_runs_through_to_gymnasium() -> None:
    env = ActionMasks(compat.to_gymnasium(LimitOrderBookEnv(session_length=300.0, max_inventory=2)))
    nvec = env.action_space.nvec
    assert env.action_masks().shape == (int(nvec.sum()),)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    masked_buys = 0
    while True:
        flat = env.action_masks()
        # a masked policy: choose uniformly among the valid choices of each entry
        parts = np.split(flat, np.cumsum(nvec)[:-1])
        masked_buys += int(not parts[2][2])
        action = np.array([rng.choice(np.flatnonzero(part)) for part in parts])
        _, _, terminated, truncated, info = env.step(action)
        assert abs(info["inventory"]) <= 2
        if terminated or truncated:
            break
    assert masked_buys > 0  # the long limit was reached and buying masked


def test_parallel_api_test_passes_with_different_clocks_and_jitter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parallel_api_test = pytest.importorskip("pettingzoo.test").parallel_api_test
    env = LimitOrderBookMarket(
        3, decision_intervals=[1.0, 0.5, 2.0], jitter=0.2, session_length=40.0
    )
    parallel = compat.to_pettingzoo(env)
    parallel_api_test(parallel, num_cycles=1000)
    assert "Passed Parallel API test" in capsys.readouterr().out
    assert parallel.possible_agents == ["trader_0", "trader_1", "trader_2"]


def test_parallel_api_test_passes_with_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    parallel_api_test = pytest.importorskip("pettingzoo.test").parallel_api_test
    parallel_api_test(compat.to_pettingzoo(LimitOrderBookMarket(session_length=20.0)))
    assert "Passed Parallel API test" in capsys.readouterr().out
