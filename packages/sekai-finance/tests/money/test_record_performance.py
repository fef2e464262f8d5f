"""RecordPerformance through a tiny trading env built on the money toolkit."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import empyrical
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.typing import NDArray

from sekai.core import FINAL_INFO, RESET_INFO, Env, ResetResult, StepResult, Wrapper
from sekai.finance.account import settle
from sekai.finance.costs import ProportionalCost
from sekai.finance.metrics import (
    PerformanceSummary,
    PnLSummary,
    RecordPerformance,
    performance_summary,
    pnl_summary,
)
from sekai.finance.rewards import LogReturn, StepOutcome
from sekai.spaces import Box
from sekai.stats import EpisodeStats
from sekai.utils.seeding import SeedType

Obs = NDArray[np.float32]


class ReplayEnv(Env[Obs, Any]):
    """Holds a target weight in one asset over a replay of returns, paying proportional costs.

    The action is the target weight; episodes end (truncated) after the
    returns run out. info has equity, turnover, cost and pnl, and dt (years
    per step) when given one: a number for every step, or one per step.
    """

    def __init__(
        self,
        returns: NDArray[np.float64],
        *,
        rate: float = 0.001,
        capital: float = 1000.0,
        equity_at_reset: bool = True,
        dt: object = None,
    ) -> None:
        self.observation_space = Box(-np.inf, np.inf, (1,), np.float32)
        self.action_space = Box(-1.0, 1.0, (1,), np.float32)
        self.returns = returns
        self.cost_model = ProportionalCost(rate)
        self.capital = capital
        self.equity_at_reset = equity_at_reset
        self.reward_fn = LogReturn()
        self.dt = dt

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[Obs]:
        self._set_rng(seed)
        self.t = 0
        self.weight = 0.0
        self.equity = self.capital
        info = {"equity": self.equity} if self.equity_at_reset else {}
        return ResetResult(np.zeros(1, np.float32), info)

    def step(self, action: Any) -> StepResult[Obs]:
        target = float(np.asarray(action).reshape(-1)[0])
        trades = np.array([target - self.weight])
        cost = self.cost_model(trades)
        settlement = settle([target], [self.returns[self.t]], 1 / 252)
        previous = self.equity
        self.equity = previous * (1.0 - cost) * settlement.growth
        outcome = StepOutcome.from_growth(
            (1.0 - cost) * settlement.growth,
            equity=self.equity,
            turnover=abs(trades[0]),
            cost=cost,
            previous_equity=previous,
        )
        self.weight = float(settlement.drifted[0])
        self.t += 1
        info = {
            "equity": self.equity,
            "turnover": outcome.turnover,
            "cost": cost,
            "pnl": outcome.pnl,
        }
        if self.dt is not None:
            info["dt"] = self.dt[self.t - 1] if isinstance(self.dt, list) else self.dt
        observation = np.array([self.weight], np.float32)
        return StepResult(
            observation, float(self.reward_fn(outcome)), False, self.t == self.returns.size, info
        )


class SameStepReset(Wrapper[Obs, Any, Obs, Any]):
    """The same-step autoreset contract (as sekai.wrappers.AutoReset), with sekai-core only."""

    _resets_itself = True

    def step(self, action: Any) -> StepResult[Obs]:
        result = self.env.step(action)
        if not (result.terminated or result.truncated):
            return result
        reset = self.env.reset()
        info = dict(result.info)
        info[FINAL_INFO] = result.info
        info[RESET_INFO] = reset.info
        return StepResult(
            reset.observation, result.reward, result.terminated, result.truncated, info
        )


class AddEpisodeStats(Wrapper[Obs, Any, Obs, Any]):
    """Puts an EpisodeStats in info["episode"] at the end of each episode."""

    def _after_step(self, result: StepResult[Obs]) -> StepResult[Obs]:
        if not result.truncated:
            return result
        info = dict(result.info)
        info["episode"] = EpisodeStats(1.0, 2, 0.0, 0.0, 0.0, False, True, {"kept": 1})
        return StepResult(result.observation, result.reward, False, True, info)


ACTIONS = [np.array([w], np.float32) for w in (1.0, 1.0, 0.5, -0.5, 0.0, 1.0, 1.0, 0.25)]


def expected_returns(
    returns: NDArray[np.float64], rate: float = 0.001
) -> tuple[list[float], list[float], list[float]]:
    """The env's net returns, turnovers and costs, computed by hand."""
    weight, net, turnovers, costs = 0.0, [], [], []
    for t, r in enumerate(returns):
        target = float(ACTIONS[t % len(ACTIONS)][0])
        turnover = abs(target - weight)
        cost = rate * turnover
        net.append((1.0 - cost) * (1.0 + target * r) - 1.0)
        turnovers.append(turnover)
        costs.append(cost)
        weight = target * (1.0 + r) / (1.0 + target * r)
    return net, turnovers, costs


def run_episode(env: Env[Obs, Any], steps: int, *, reset: bool = True) -> list[StepResult[Obs]]:
    if reset:
        env.reset(seed=0)
    return [env.step(ACTIONS[t % len(ACTIONS)]) for t in range(steps)]


@pytest.fixture
def returns(sp500_returns: NDArray[np.float64]) -> NDArray[np.float64]:
    return sp500_returns[:40]


def test_summary_at_the_end_of_each_episode(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns))
    results = run_episode(env, returns.size)
    assert all("episode" not in result.info for result in results[:-1])
    net, turnovers, costs = expected_returns(returns)
    expected = performance_summary(net, turnover=turnovers, costs=costs)
    summary = env.last_summary
    assert isinstance(summary, PerformanceSummary)
    assert summary.n_periods == returns.size
    for name, value in expected.as_dict().items():
        assert getattr(summary, name) == pytest.approx(value, rel=1e-9), name
    assert results[-1].info["episode"] == summary.as_dict()
    assert results[-1].info["equity"] == pytest.approx(
        1000.0 * np.prod(1.0 + np.array(net)), rel=1e-12
    )
    assert list(env.summaries) == [summary]


def test_summaries_and_their_mean(sp500_returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(sp500_returns[:30]), deque_size=2)
    firsts = []
    for start in (0, 30, 60):
        env.unwrapped.returns = sp500_returns[start : start + 30]  # type: ignore[attr-defined]
        run_episode(env, 30)
        firsts.append(env.last_summary)
    assert list(env.summaries) == firsts[1:]  # deque_size=2 keeps the last two
    mean = env.summary()
    assert mean["n_episodes"] == 2.0
    for name in ("sharpe_ratio", "max_drawdown", "total_cost", "mean_turnover"):
        values = [getattr(summary, name) for summary in firsts[1:]]
        assert mean[name] == pytest.approx(sum(values) / 2, rel=1e-12), name
    assert RecordPerformance(ReplayEnv(sp500_returns[:3])).summary() == {}


def test_async_steps_record_the_same(returns: NDArray[np.float64]) -> None:
    sync_env = RecordPerformance(ReplayEnv(returns))
    run_episode(sync_env, returns.size)
    async_env = RecordPerformance(ReplayEnv(returns))

    async def episode() -> StepResult[Obs]:
        await async_env.async_reset(seed=0)
        result = None
        for t in range(returns.size):
            result = await async_env.async_step(ACTIONS[t % len(ACTIONS)])
        assert result is not None
        return result

    last = asyncio.run(episode())
    assert async_env.last_summary == sync_env.last_summary
    assert last.info["episode"] == sync_env.last_summary.as_dict()  # type: ignore[union-attr]


@pytest.mark.parametrize("outside", [True, False], ids=["outside-autoreset", "inside-autoreset"])
def test_either_side_of_a_same_step_reset(returns: NDArray[np.float64], outside: bool) -> None:
    reference = RecordPerformance(ReplayEnv(returns))
    run_episode(reference, returns.size)
    if outside:
        env: Any = RecordPerformance(SameStepReset(ReplayEnv(returns)))
        recorder = env
    else:
        recorder = RecordPerformance(ReplayEnv(returns))
        env = SameStepReset(recorder)
    env.reset(seed=0)
    for _ in range(2):  # two episodes, the second started inside step()
        results = run_episode(env, returns.size, reset=False)
        assert results[-1].info["episode"] == reference.last_summary.as_dict()  # type: ignore[union-attr]
    assert len(recorder.summaries) == 2
    assert recorder.summaries[0] == recorder.summaries[1] == reference.last_summary


def test_with_sekai_wrappers_autoreset(returns: NDArray[np.float64]) -> None:
    wrappers = pytest.importorskip("sekai.wrappers")
    reference = RecordPerformance(ReplayEnv(returns))
    run_episode(reference, returns.size)
    env = RecordPerformance(wrappers.AutoReset(ReplayEnv(returns)))
    env.reset(seed=0)
    for _ in range(2):
        run_episode(env, returns.size, reset=False)
        assert env.last_summary == reference.last_summary


def test_without_equity_at_reset_the_first_step_is_the_start(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns, equity_at_reset=False))
    run_episode(env, returns.size)
    net, _, costs = expected_returns(returns)
    summary = env.last_summary
    assert isinstance(summary, PerformanceSummary)
    assert summary.n_periods == returns.size - 1
    assert summary.sharpe_ratio == pytest.approx(
        performance_summary(net[1:]).sharpe_ratio, rel=1e-9
    )
    assert summary.total_cost == pytest.approx(sum(costs), rel=1e-12)  # every step's cost counts
    # an episode of one step has no return: nothing is added
    short = RecordPerformance(ReplayEnv(returns[:1], equity_at_reset=False))
    result = run_episode(short, 1)[-1]
    assert "episode" not in result.info
    assert short.last_summary is None


def test_pnl_key_records_pnl_summaries(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns), pnl_key="pnl", periods_per_year=12)
    results = run_episode(env, returns.size)
    pnl = [result.info["pnl"] for result in results]
    summary = env.last_summary
    assert isinstance(summary, PnLSummary)
    assert summary == pnl_summary(pnl, 12)
    assert results[-1].info["episode"]["total_pnl"] == pytest.approx(
        results[-1].info["equity"] - 1000.0
    )


def test_turnover_and_costs_need_every_step(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns), turnover_key="missing", cost_key=None)
    run_episode(env, returns.size)
    assert env.last_summary is not None
    assert env.last_summary.mean_turnover is None  # type: ignore[union-attr]
    assert env.last_summary.total_cost is None  # type: ignore[union-attr]


def test_missing_equity_is_a_clear_error(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns), equity_key="wealth")
    env.reset(seed=0)
    with pytest.raises(KeyError, match=r"info\['wealth'\], which is missing"):
        env.step(ACTIONS[0])


def test_an_inner_episode_stats_gains_the_fields(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(AddEpisodeStats(ReplayEnv(returns)))
    stats = run_episode(env, returns.size)[-1].info["episode"]
    assert isinstance(stats, EpisodeStats)
    assert stats.episode_length == 2
    assert stats.extra["kept"] == 1
    assert stats.extra["sharpe_ratio"] == env.last_summary.sharpe_ratio  # type: ignore[union-attr]


def test_real_year_matches_empyrical(sp500_returns: NDArray[np.float64]) -> None:
    year = sp500_returns[2000:2252]
    env = RecordPerformance(ReplayEnv(year, rate=0.0005), risk_free=0.0001)
    run_episode(env, year.size)
    net = np.array(expected_returns(year, 0.0005)[0])
    summary = env.last_summary
    assert isinstance(summary, PerformanceSummary)
    assert math.isclose(summary.sharpe_ratio, empyrical.sharpe_ratio(net, 0.0001), rel_tol=1e-9)
    assert math.isclose(summary.sortino_ratio, empyrical.sortino_ratio(net, 0.0001), rel_tol=1e-9)
    assert math.isclose(summary.max_drawdown, -empyrical.max_drawdown(net), rel_tol=1e-9)
    assert math.isclose(summary.annualized_return, empyrical.annual_return(net), rel_tol=1e-9)


HOUR = 1.0 / (252 * 6.5)  # years per hour of a 6.5-hour trading day


def assert_summary(summary: object, expected: PerformanceSummary | PnLSummary) -> None:
    assert type(summary) is type(expected)
    for name, value in expected.as_dict().items():
        assert getattr(summary, name) == pytest.approx(value, rel=1e-9, nan_ok=True), name


def test_hourly_dt_annualises_with_hours(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns, dt=HOUR))
    run_episode(env, returns.size)
    net, turnovers, costs = expected_returns(returns)
    hourly = performance_summary(net, 252 * 6.5, turnover=turnovers, costs=costs)
    assert_summary(env.last_summary, hourly)
    daily = performance_summary(net, 252)
    assert env.last_summary.sharpe_ratio == pytest.approx(  # type: ignore[union-attr]
        daily.sharpe_ratio * math.sqrt(6.5), rel=1e-9
    )


def test_hourly_dt_annualises_pnl_with_hours(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns, dt=HOUR), pnl_key="pnl")
    results = run_episode(env, returns.size)
    pnl = [result.info["pnl"] for result in results]
    assert_summary(env.last_summary, pnl_summary(pnl, 252 * 6.5))


@settings(max_examples=50, deadline=None)
@given(
    dts=st.lists(
        st.floats(1e-6, 1.0, allow_nan=False, allow_infinity=False), min_size=12, max_size=12
    )
)
def test_a_varying_dt_gives_steps_over_years(dts: list[float]) -> None:
    returns = np.linspace(-0.02, 0.03, 12) * np.array([1, -1] * 6)
    env = RecordPerformance(ReplayEnv(returns, dt=dts))
    run_episode(env, returns.size)
    net, turnovers, costs = expected_returns(returns)
    per_year = len(dts) / math.fsum(dts)
    assert_summary(
        env.last_summary, performance_summary(net, per_year, turnover=turnovers, costs=costs)
    )


def test_each_episode_reads_its_own_dt(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns, dt=HOUR))
    run_episode(env, returns.size)
    env.unwrapped.dt = 1.0 / 12  # type: ignore[attr-defined]
    run_episode(env, returns.size)
    net, turnovers, costs = expected_returns(returns)
    first, second = env.summaries
    assert_summary(first, performance_summary(net, 252 * 6.5, turnover=turnovers, costs=costs))
    assert_summary(second, performance_summary(net, 12, turnover=turnovers, costs=costs))


def test_an_explicit_periods_per_year_wins_over_dt(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns, dt=HOUR), periods_per_year=12)
    run_episode(env, returns.size)
    net, turnovers, costs = expected_returns(returns)
    assert_summary(env.last_summary, performance_summary(net, 12, turnover=turnovers, costs=costs))
    assert env.periods_per_year == 12.0


def test_without_dt_it_is_252(returns: NDArray[np.float64]) -> None:
    env = RecordPerformance(ReplayEnv(returns))
    assert env.periods_per_year is None
    run_episode(env, returns.size)
    net, turnovers, costs = expected_returns(returns)
    assert_summary(env.last_summary, performance_summary(net, 252, turnover=turnovers, costs=costs))


@pytest.mark.parametrize(
    ("dt", "error", "pattern"),
    [
        (-HOUR, ValueError, r"info\['dt'\] \(years per step\) must be .* >= 0(\.0)?, got -"),
        (math.inf, ValueError, r"info\['dt'\] \(years per step\) must be a finite"),
        ("1h", TypeError, r"info\['dt'\] \(years per step\) must be .*, got '1h'"),
        (0.0, ValueError, r"must add up to .* got 0.0 years over 40 steps; pass periods_per_year="),
    ],
)
def test_a_bad_dt_is_a_clear_error(
    returns: NDArray[np.float64], dt: object, error: type[Exception], pattern: str
) -> None:
    env = RecordPerformance(ReplayEnv(returns, dt=dt))
    with pytest.raises(error, match=pattern):
        run_episode(env, returns.size)
    explicit = RecordPerformance(ReplayEnv(returns, dt=dt), periods_per_year=252)
    run_episode(explicit, returns.size)  # an explicit number never reads the dt
    assert explicit.last_summary is not None


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"deque_size": 0}, ValueError, r"deque_size must be an int >= 1, got 0"),
        (
            {"periods_per_year": -1},
            ValueError,
            r"periods_per_year must be a finite real number > 0",
        ),
        ({"equity_key": None}, TypeError, r"equity_key must be a str, got None"),
        ({"pnl_key": 3}, TypeError, r"pnl_key must be a str or None, got 3"),
        ({"risk_free": math.nan}, ValueError, r"risk_free must be a finite real number"),
    ],
)
def test_constructor_errors(kwargs: dict[str, Any], error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        RecordPerformance(ReplayEnv(np.zeros(3)), **kwargs)


def test_rejects_what_is_not_an_env() -> None:
    with pytest.raises(TypeError, match=r"RecordPerformance expects a sekai.core.Env"):
        RecordPerformance(object())  # type: ignore[arg-type]
