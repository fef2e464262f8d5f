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
        ratio_leak: Show the ratio of two fields of the next row (``("close", "open")``,
            ...) as the last entry, in float32.
        stale: Fill at the close before the last one: a step earns the move the agent saw.
        fixed_start: Start every episode at the first row it can.
        leak_from_episode: The first episode (1, 2, ...) in which ``leak`` applies.
        info_leak: Report the next close as ``info["peek"]``.
        float32_reward: Hand out the reward rounded to float32.
        raise_on_seed: Raise in ``reset`` when given this seed.
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
        ratio_leak: tuple[str, str] | None = None,
        stale: bool = False,
        fixed_start: bool = False,
        leak_from_episode: int = 1,
        info_leak: bool = False,
        float32_reward: bool = False,
        raise_on_seed: int | None = None,
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
        self.ratio_leak = ratio_leak
        self.stale = stale
        self.fixed_start = fixed_start
        self.leak_from_episode = leak_from_episode
        self.info_leak = info_leak
        self.float32_reward = float32_reward
        self.raise_on_seed = raise_on_seed
        self.episodes = 0
        returns = Box(-np.inf, np.inf, (lookback,), np.float64)
        self.observation_space: Any = (
            Dict({"returns": returns, "position": Box(0.0, 1.0, (1,), np.float64)})
            if as_dict
            else returns
        )
        self.action_space: Any = Discrete(2)
        self.steps_taken = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        if seed is not None and seed == self.raise_on_seed:
            raise RuntimeError(f"no episode for seed {seed}")
        self._set_rng(seed)
        self.episodes += 1
        data = self.data
        if data is None:  # a fresh random walk
            prices = 100.0 * np.exp(np.cumsum(self.rng.normal(0, 0.01, self.episode_length + 50)))
            data = MarketData(prices)
        self.played = data
        last = data.n_steps - self.episode_length - 1 - self.leak
        if self.fixed_start:
            start = self.lookback
        elif self.unseeded:
            start = self.lookback + int.from_bytes(os.urandom(4), "little") % (last - self.lookback)
        else:
            start = int(self.rng.integers(self.lookback, last))
        self.now = data.at(start)
        self.equity, self.position, self.t = 1.0, 0.0, 0
        return ResetResult(self._observe(), self._info())

    def step(self, action: int) -> StepResult[Any]:
        self.position = float(action)
        price = float(self.now.prices.latest[0])
        fill = float(self.now.execution_price()[0])
        if self.stale:  # the last move the agent saw, earned again
            price, fill = float(self.played.prices[self.now.index - 1, 0]), price
        growth = 1.0 + self.position * (fill / price - 1.0)
        before = self.equity
        self.equity = before * growth
        self.now = self.now.advance()
        self.t += 1
        self.steps_taken += 1
        reward = math.log(self.equity / before) + self.reward_offset
        if self.float32_reward:
            reward = float(np.float32(reward))
        truncated = self.t >= self.episode_length
        return StepResult(self._observe(), reward, False, truncated, self._info())

    def _observe(self) -> Any:
        returns = self.now.log_returns(self.lookback)[:, 0].copy()
        if self.leak and self.episodes >= self.leak_from_episode:
            full = self.played.prices[:, 0]  # the whole history: what an honest env never reads
            row = self.now.index
            returns[-1] = math.log(full[row + self.leak] / full[row + self.leak - 1])
        if self.ratio_leak is not None:
            top, bottom = (
                self.played.field(name)[self.now.index + 1, 0] for name in self.ratio_leak
            )
            returns[-1] = np.float32(top / bottom)
        if self.exogenous_leak:
            returns[-1] = self.played.exogenous_series("rate")[self.now.index + 1]
        if self.nan_at is not None and self.t == self.nan_at:
            returns[0] = np.nan
        if self.as_dict:
            return {"returns": returns, "position": np.array([self.position])}
        return returns

    def _info(self) -> dict[str, Any]:
        info = {"timestamp": self.now.time, "equity": self.equity}
        if self.info_leak:
            info["peek"] = float(self.played.prices[self.now.index + 1, 0])
        return info


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


@pytest.mark.parametrize("fields", [("close", "open"), ("volume", "close"), ("high", "low")])
def test_a_peek_at_a_ratio_of_the_next_row_is_caught(
    sp500: MarketData, fields: tuple[str, str]
) -> None:
    """A ratio of two fields does not move when the whole row is scaled by one factor."""
    problems = check_market_env(lambda d: ToyTrading(d, ratio_leak=fields), sp500, n_steps=100)
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems
    assert "observation[4] is " in problems[0]


def test_the_changed_rows_stay_valid_bars(sp500: MarketData) -> None:
    seen: list[MarketData] = []

    def make(data: MarketData | None) -> ToyTrading:
        assert data is not None
        seen.append(data)
        return ToyTrading(data)

    assert check_market_env(make, sp500, n_steps=100) == []
    changed = [data for data in seen if data is not sp500]
    assert changed
    for data in changed:
        bars = {name: data.field(name)[:, 0] for name in ("open", "high", "low", "close")}
        assert np.all(bars["high"] >= np.maximum(bars["open"], bars["close"]))
        assert np.all(bars["low"] <= np.minimum(bars["open"], bars["close"]))
        assert np.all(data.field("volume") >= 0) and np.all(data.prices > 0)
        # every field of a changed row moved by at least 4 % (float32 cannot hide it)
        moved = np.abs(np.log(data.field("volume") / sp500.field("volume")))
        first = int(np.argmax(moved > 0))
        assert np.all(moved[first:] > 0.04)


def test_an_env_that_ignores_its_data_argument_is_caught(sp500: MarketData) -> None:
    # it even peeks at the next price, but always at the rows it was built with
    problems = check_market_env(lambda d: ToyTrading(sp500, leak=1), sp500, n_steps=100)
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: changing the rows after t changed nothing: ")
    assert "does make_env use its data argument" in problems[0]


def test_a_stale_fill_is_caught(sp500: MarketData) -> None:
    """The step from t earns close[t] / close[t - 1], a move the agent saw before acting."""
    problems = check_market_env(lambda d: ToyTrading(d, stale=True), sp500, n_steps=100)
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: changing the rows after t changed nothing: ")
    assert "fill at prices already seen" in problems[0]


def test_a_leak_from_the_second_episode_on_is_caught(sp500: MarketData) -> None:
    """Every episode starts at the same rows: the first one is honest, the later ones peek."""
    make = lambda d: ToyTrading(d, fixed_start=True, leak=1, leak_from_episode=2)  # noqa: E731
    problems = check_market_env(make, sp500, n_steps=120)
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems
    assert "the reset after step 40" in problems[0] or "step 4" in problems[0]
    fair = lambda d: ToyTrading(d, fixed_start=True)  # noqa: E731
    assert check_market_env(fair, sp500, n_steps=120) == []


def test_a_peek_through_the_info_is_caught(sp500: MarketData) -> None:
    problems = check_market_env(lambda d: ToyTrading(d, info_leak=True), sp500, n_steps=100)
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems
    assert "info['peek'] is " in problems[0]


def test_info_keys_that_differ_between_runs_are_not_look_ahead(sp500: MarketData) -> None:
    class Timed(ToyTrading):
        def _info(self) -> dict[str, Any]:
            return {**super()._info(), "wall_time": float(int.from_bytes(os.urandom(4), "little"))}

    assert check_market_env(lambda d: Timed(d), sp500, n_steps=100) == []


def test_float32_rewards_pass(sp500: MarketData) -> None:
    assert check_market_env(lambda d: ToyTrading(d, float32_reward=True), sp500, n_steps=200) == []


def test_look_ahead_checks_sets_the_number_of_decision_times(sp500: MarketData) -> None:
    built: list[MarketData | None] = []

    def make(data: MarketData | None) -> ToyTrading:
        built.append(data)
        return ToyTrading(data)

    for checks in (1, 12):
        built.clear()
        assert check_market_env(make, sp500, n_steps=200, look_ahead_checks=checks) == []
        changed = {id(data) for data in built if data is not sp500}
        assert len(changed) == checks
    with pytest.raises(ValueError, match="look_ahead_checks"):
        check_market_env(make, sp500, look_ahead_checks=0)


class Dated(ToyTrading):
    """Refuses data whose exogenous ``"day"`` is not increasing, as an env may; with
    ``peek``, shows the next day's count."""

    def __init__(self, data: MarketData | None, *, peek: bool = False, **kwargs: Any) -> None:
        assert data is not None
        if not np.all(np.diff(data.exogenous_series("day")) > 0):
            raise ValueError("day must increase")
        super().__init__(data, **kwargs)
        self.peek = peek

    def _observe(self) -> Any:
        returns = super()._observe()
        if self.peek and self.now.index + 1 < self.played.n_steps:
            returns[0] = self.played.exogenous_series("day")[self.now.index + 1]
        return returns


def test_a_monotone_exogenous_series_stays_monotone(sp500: MarketData) -> None:
    data = sp500.with_exogenous(day=np.cumsum(np.full(sp500.n_steps, 1.5)))
    assert check_market_env(lambda d: Dated(d), data, n_steps=100) == []
    problems = check_market_env(lambda d: Dated(d, peek=True), data, n_steps=100)
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems


def test_an_exogenous_peek_with_one_row_left_is_caught(sp500: MarketData) -> None:
    """Episodes of one step that end on the last row: only one row follows t."""
    data = sp500[-10:].with_exogenous(day=np.arange(10.0) + 1.0)

    class LastRows(Dated):
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
            self._set_rng(seed)
            self.played = self.data  # type: ignore[assignment]
            self.now = self.data.at(self.data.n_steps - 2)  # type: ignore[union-attr]
            self.equity, self.position, self.t = 1.0, 0.0, 0
            return ResetResult(self._observe(), self._info())

    make = lambda d: LastRows(d, peek=True, lookback=2, episode_length=1)  # noqa: E731
    problems = check_market_env(make, data, n_steps=5)
    assert len(problems) == 1 and problems[0].startswith("ERROR: look-ahead"), problems


def test_a_single_env_that_fails_for_another_sub_env_is_reported(sp500: MarketData) -> None:
    SyncVecEnv = pytest.importorskip("sekai.vector").SyncVecEnv

    def native(data: MarketData | None) -> Any:
        return SyncVecEnv([lambda: ToyTrading(data)] * 2)

    assert check_market_env(lambda d: ToyTrading(d), sp500, n_steps=30, native=native) == []
    problems = check_market_env(
        lambda d: ToyTrading(d, raise_on_seed=1), sp500, n_steps=30, native=native
    )
    assert len(problems) == 1 and problems[0].startswith("ERROR: native parity: "), problems
    assert "RuntimeError: no episode for seed 1" in problems[0]


def test_native_parity_compares_dtypes(sp500: MarketData) -> None:
    SyncVecEnv = pytest.importorskip("sekai.vector").SyncVecEnv
    DtypeObservation = pytest.importorskip("sekai.wrappers").DtypeObservation

    def native(data: MarketData | None) -> Any:
        return SyncVecEnv([lambda: DtypeObservation(ToyTrading(data), np.float32)])

    problems = check_market_env(lambda d: ToyTrading(d), sp500, n_steps=30, native=native)
    assert len(problems) == 1, problems
    assert problems[0].startswith("ERROR: native parity: native(data) differs")
    assert "observation spaces differ: native observation_space Box(" in problems[0]
    assert "float32" in problems[0]
