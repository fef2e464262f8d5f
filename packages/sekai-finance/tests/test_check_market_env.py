"""check_market_env on purpose-built envs: an honest one passes, each broken one is caught."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.finance import MarketData, check_market_env
from sekai.spaces import Box, Dict, Discrete


class ToyTrading(Env[Any, int]):
    """Long (1) or flat (0) in one asset, filled at the close the agent has seen.

    Observation: the last ``lookback`` log returns up to the decision row (a
    Dict with the position when ``as_dict``). Reward: the log growth of the
    equity. Each keyword breaks one promise on purpose.

    Args:
        data: One-asset MarketData, or None to simulate a random walk per episode.
        leak: Rows ahead the last return of the observation is read from (0: honest).
        reward_offset: Added to every reward.
        nan_at: The step whose observation holds a NaN.
        unseeded: Draw the start of an episode from the OS, not from the seed.
        exogenous_leak: Show the next row of the exogenous series ``"rate"``.
    """

    def __init__(
        self,
        data: MarketData | None,
        *,
        lookback: int = 5,
        episode_length: int = 40,
        leak: int = 0,
        reward_offset: float = 0.0,
        nan_at: int | None = None,
        unseeded: bool = False,
        as_dict: bool = False,
        exogenous_leak: bool = False,
    ) -> None:
        self.data = data
        self.lookback = lookback
        self.episode_length = episode_length
        self.leak = leak
        self.reward_offset = reward_offset
        self.nan_at = nan_at
        self.unseeded = unseeded
        self.as_dict = as_dict
        self.exogenous_leak = exogenous_leak
        returns = Box(-np.inf, np.inf, (lookback,), np.float64)
        self.observation_space: Any = (
            Dict({"returns": returns, "position": Box(0.0, 1.0, (1,), np.float64)})
            if as_dict
            else returns
        )
        self.action_space: Any = Discrete(2)
        self.steps_taken = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        data = self.data
        if data is None:  # a fresh random walk
            prices = 100.0 * np.exp(np.cumsum(self.rng.normal(0, 0.01, self.episode_length + 50)))
            data = MarketData(prices)
        self.played = data
        last = data.n_steps - self.episode_length - 1 - self.leak
        if self.unseeded:
            start = self.lookback + int.from_bytes(os.urandom(4), "little") % (last - self.lookback)
        else:
            start = int(self.rng.integers(self.lookback, last))
        self.now = data.at(start)
        self.equity, self.position, self.t = 1.0, 0.0, 0
        return ResetResult(self._observe(), self._info())

    def step(self, action: int) -> StepResult[Any]:
        self.position = float(action)
        price = float(self.now.prices.latest[0])
        growth = 1.0 + self.position * (float(self.now.execution_price()[0]) / price - 1.0)
        before = self.equity
        self.equity = before * growth
        self.now = self.now.advance()
        self.t += 1
        self.steps_taken += 1
        reward = math.log(self.equity / before) + self.reward_offset
        truncated = self.t >= self.episode_length
        return StepResult(self._observe(), reward, False, truncated, self._info())

    def _observe(self) -> Any:
        returns = self.now.log_returns(self.lookback)[:, 0].copy()
        if self.leak:
            full = self.played.prices[:, 0]  # the whole history: what an honest env never reads
            row = self.now.index
            returns[-1] = math.log(full[row + self.leak] / full[row + self.leak - 1])
        if self.exogenous_leak:
            returns[-1] = self.played.exogenous_series("rate")[self.now.index + 1]
        if self.nan_at is not None and self.t == self.nan_at:
            returns[0] = np.nan
        if self.as_dict:
            return {"returns": returns, "position": np.array([self.position])}
        return returns

    def _info(self) -> dict[str, Any]:
        return {"timestamp": self.now.time, "equity": self.equity}


@pytest.fixture(scope="module")
def sp500() -> MarketData:
    """The S&P 500 daily history shipped with ``arch`` (1999-2018), with its OHLCV fields."""
    frame = pytest.importorskip("arch.data.sp500").load()
    return MarketData.from_pandas(
        frame["Close"].rename("SPX"),
        fields={
            "open": frame["Open"],
            "high": frame["High"],
            "low": frame["Low"],
            "volume": frame["Volume"].astype(float),
        },
    )


def _errors(problems: list[str]) -> list[str]:
    return [problem for problem in problems if problem.startswith("ERROR: ")]


def test_an_honest_env_passes(sp500: MarketData) -> None:
    assert check_market_env(lambda data: ToyTrading(data), sp500, n_steps=200) == []


def test_an_env_peeking_at_the_next_price_is_caught(sp500: MarketData) -> None:
    problems = check_market_env(lambda data: ToyTrading(data, leak=1), sp500, n_steps=200)
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: look-ahead: what the agent saw at step ")
    # the entry that moved: the last return of the observation
    assert "observation[4] is " in problems[0]
    assert "changed when only the rows after " in problems[0]


def test_look_ahead_names_the_key_path_of_a_dict_observation(sp500: MarketData) -> None:
    problems = check_market_env(
        lambda data: ToyTrading(data, leak=2, as_dict=True), sp500, n_steps=100
    )
    assert len(problems) == 1 and "look-ahead" in problems[0], problems
    assert "observation['returns'][4] is " in problems[0]


def test_a_peek_at_a_later_exogenous_row_is_caught(sp500: MarketData) -> None:
    rate = np.random.default_rng(4).normal(0.02, 0.01, sp500.n_steps)
    data = sp500.with_exogenous(rate=rate)
    assert check_market_env(lambda d: ToyTrading(d), data, n_steps=100) == []
    problems = check_market_env(lambda d: ToyTrading(d, exogenous_leak=True), data, n_steps=100)
    assert len(problems) == 1 and "look-ahead" in problems[0], problems


def test_a_reward_off_by_a_constant_is_caught(sp500: MarketData) -> None:
    problems = check_market_env(
        lambda data: ToyTrading(data, reward_offset=1e-4), sp500, n_steps=50
    )
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: step 1: the reward ")
    assert "log growth of the equity" in problems[0] and "off by 0.0001" in problems[0]
    # the same env, told that its reward is something else
    assert check_market_env(lambda d: ToyTrading(d, reward_offset=1e-4), sp500, reward=None) == []


def test_an_env_without_equity_is_told_to_report_it_or_pass_reward_none(
    sp500: MarketData,
) -> None:
    class NoEquity(ToyTrading):
        def _info(self) -> dict[str, Any]:
            return {"timestamp": self.now.time}

    problems = check_market_env(lambda data: NoEquity(data), sp500, n_steps=30)
    assert len(problems) == 1 and "info['equity']" in problems[0] and "reward=None" in problems[0]
    assert check_market_env(lambda data: NoEquity(data), sp500, n_steps=30, reward=None) == []


def test_a_nan_in_an_observation_is_caught_with_its_step(sp500: MarketData) -> None:
    problems = check_market_env(lambda data: ToyTrading(data, nan_at=7), sp500, n_steps=30)
    assert problems == ["ERROR: step 7: the observation holds NaN at observation[0]"]


def test_an_infinite_equity_is_caught(sp500: MarketData) -> None:
    class Infinite(ToyTrading):
        def _info(self) -> dict[str, Any]:
            return {"timestamp": self.now.time, "equity": np.inf if self.t == 3 else self.equity}

    problems = check_market_env(lambda data: Infinite(data), sp500, n_steps=10, reward=None)
    assert problems == ["ERROR: step 3: info['equity'] is inf (inf)"]


def test_a_run_that_does_not_reproduce_is_caught(sp500: MarketData) -> None:
    problems = check_market_env(lambda data: ToyTrading(data, unseeded=True), sp500, n_steps=50)
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: not reproducible: ")
    assert "at reset(seed=...), observation[" in problems[0]


def test_without_data_the_look_ahead_check_is_skipped_with_a_warning() -> None:
    problems = check_market_env(lambda data: ToyTrading(data), None, n_steps=100)
    assert len(problems) == 1 and problems[0].startswith("WARNING: look-ahead not checked")
    assert "data is None" in problems[0]
    # the other checks still run
    broken = check_market_env(lambda data: ToyTrading(data, nan_at=2), None, n_steps=10)
    assert any("NaN" in problem for problem in _errors(broken))


def test_the_policy_chooses_the_actions(sp500: MarketData) -> None:
    made: list[ToyTrading] = []

    def make(data: MarketData | None) -> ToyTrading:
        made.append(ToyTrading(data, reward_offset=1.0))
        return made[-1]

    seen: list[Any] = []

    def always_flat(observation: Any, rng: np.random.Generator) -> int:
        seen.append(observation)
        assert isinstance(rng, np.random.Generator)
        return 0

    # flat all along: the equity never moves, and neither does a reward of 1 + log(1)
    problems = check_market_env(make, sp500, n_steps=20, policy=always_flat)
    assert len(seen) == 20 and made[0].steps_taken == 20
    assert len(_errors(problems)) == 1 and "off by 1" in problems[0]


def test_an_env_that_raises_is_reported(sp500: MarketData) -> None:
    class Raises(ToyTrading):
        def step(self, action: int) -> StepResult[Any]:
            if self.t == 4:
                raise RuntimeError("broken on purpose")
            return super().step(action)

    problems = check_market_env(lambda data: Raises(data), sp500, n_steps=10)
    assert problems[0] == (
        "ERROR: playing the env: after step 4, the env raised RuntimeError: broken on purpose"
    )

    def refuse(data: MarketData | None) -> ToyTrading:
        raise ValueError("no")

    assert check_market_env(refuse, sp500) == ["ERROR: make_env(data) raised ValueError: no"]


def test_bad_arguments_are_refused(sp500: MarketData) -> None:
    with pytest.raises(TypeError, match=r"data must be a sekai\.finance\.MarketData or None"):
        check_market_env(ToyTrading, np.ones(10))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reward must be 'log_equity' or None, got 'sharpe'"):
        check_market_env(ToyTrading, sp500, reward="sharpe")
    with pytest.raises(ValueError, match="n_steps"):
        check_market_env(ToyTrading, sp500, n_steps=0)
    with pytest.raises(TypeError, match="make_env"):
        check_market_env("ToyTrading", sp500)  # type: ignore[arg-type]


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    lookback=st.integers(1, 8),
    leak=st.integers(0, 3),
    as_dict=st.booleans(),
)
def test_a_leak_is_caught_and_only_a_leak(
    sp500: MarketData, seed: int, lookback: int, leak: int, as_dict: bool
) -> None:
    problems = check_market_env(
        lambda data: ToyTrading(data, lookback=lookback, leak=leak, as_dict=as_dict),
        sp500,
        n_steps=60,
        seed=seed,
    )
    if leak == 0:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems
