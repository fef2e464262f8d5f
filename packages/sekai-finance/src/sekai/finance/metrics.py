"""Performance metrics of a trading strategy, and a wrapper that records them per episode.

`performance_summary` condenses a series of periodic returns into the
usual figures (total and annualised return, volatility, Sharpe, Sortino,
maximum drawdown, Calmar, historical value at risk and expected shortfall,
hit rate, turnover and costs); `pnl_summary` does the same for a series
of profits and losses in currency. `RecordPerformance` computes one of
them at the end of every episode of a trading env from its info dicts.

The statistics are also available one by one (`sharpe_ratio`,
`max_drawdown`, ...). They agree with ``empyrical`` except that losses
(drawdowns, value at risk, expected shortfall) are positive numbers here and
the expected shortfall is the empirical tail mean (see
`conditional_value_at_risk`). Rates and the risk-free return are per
period, like the returns.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from sekai._internal.validation import check_int, check_real
from sekai.core import RESET_INFO, ActType, Env, ObsType, ResetResult, StepResult, Wrapper
from sekai.finance._money_stats import (
    annualized_return,
    annualized_volatility,
    calmar_ratio,
    check_level,
    check_periods_per_year,
    conditional_value_at_risk,
    drawdown_series,
    equity_curve,
    hit_rate,
    max_drawdown,
    returns_from_equity,
    series,
    sharpe_ratio,
    sortino_ratio,
    total_return,
    value_at_risk,
)
from sekai.stats import EpisodeStats

__all__ = [  # noqa: RUF022 (grouped by topic)
    # summaries
    "PerformanceSummary",
    "PnLSummary",
    "performance_summary",
    "pnl_summary",
    "RecordPerformance",
    # statistics
    "annualized_return",
    "annualized_volatility",
    "calmar_ratio",
    "conditional_value_at_risk",
    "drawdown_series",
    "equity_curve",
    "hit_rate",
    "max_drawdown",
    "returns_from_equity",
    "sharpe_ratio",
    "sortino_ratio",
    "total_return",
    "value_at_risk",
]


@dataclass(frozen=True)
class PerformanceSummary:
    """The performance of a series of periodic returns (see `performance_summary`).

    Attributes:
        n_periods: Number of returns.
        total_return: Compounded return over the series.
        annualized_return: Compound annual growth rate.
        annualized_volatility: Sample standard deviation times
            ``sqrt(periods_per_year)``.
        sharpe_ratio: Annualised Sharpe ratio of the excess returns.
        sortino_ratio: Annualised Sortino ratio.
        max_drawdown: Largest drop from a peak, a positive fraction.
        calmar_ratio: Annualised return over maximum drawdown.
        value_at_risk: Historical value at risk at the summary's level, a
            positive loss per period.
        conditional_value_at_risk: Historical expected shortfall at that
            level, a positive loss per period.
        hit_rate: Fraction of periods with a positive return.
        mean_turnover: Mean turnover per period, if turnover was given.
        total_cost: Sum of the transaction costs, if costs were given.
    """

    n_periods: int
    total_return: float
    annualized_return: float
    annualized_volatility: float
    sharpe_ratio: float
    sortino_ratio: float
    max_drawdown: float
    calmar_ratio: float
    value_at_risk: float
    conditional_value_at_risk: float
    hit_rate: float
    mean_turnover: float | None = None
    total_cost: float | None = None

    def as_dict(self) -> dict[str, float | int | None]:
        """The fields as a flat dict, in declaration order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


@dataclass(frozen=True)
class PnLSummary:
    """The performance of a series of profits and losses (see `pnl_summary`).

    Attributes:
        n_periods: Number of periods.
        total_pnl: Sum of the PnL.
        mean_pnl: Mean PnL per period.
        pnl_volatility: Sample standard deviation of the PnL per period.
        sharpe_ratio: ``mean_pnl / pnl_volatility * sqrt(periods_per_year)``.
        max_drawdown: Largest drop of the cumulative PnL from a peak: in PnL
            units, or as a fraction of the account value with a ``scale``.
        hit_rate: Fraction of periods with a positive PnL.
    """

    n_periods: int
    total_pnl: float
    mean_pnl: float
    pnl_volatility: float
    sharpe_ratio: float
    max_drawdown: float
    hit_rate: float

    def as_dict(self) -> dict[str, float | int]:
        """The fields as a flat dict, in declaration order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


def performance_summary(
    returns: ArrayLike,
    periods_per_year: float = 252,
    *,
    risk_free: float = 0.0,
    level: float = 0.95,
    turnover: ArrayLike | None = None,
    costs: ArrayLike | None = None,
) -> PerformanceSummary:
    """Summarise a series of simple returns, one per period.

    Args:
        returns: The strategy's simple returns (net of costs), 1-D, finite.
        periods_per_year: Periods in a year (252 trading days, 52 weeks, 12
            months, ...), for annualising.
        risk_free: The risk-free return per period, subtracted for the Sharpe
            and Sortino ratios.
        level: The confidence level of the value at risk and expected
            shortfall, in ``(0, 1)``.
        turnover: The turnover of each period, for ``mean_turnover``.
        costs: The transaction cost of each period, for ``total_cost``.

    Returns:
        The `PerformanceSummary`.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: ``returns`` is empty, a series is not 1-D or holds NaN or
            infinity, or a number is out of range.
    """
    values = series(returns, "performance_summary: returns")
    if values.size == 0:
        raise ValueError("performance_summary needs at least one return, got an empty series")
    per_year = check_periods_per_year(periods_per_year, "performance_summary: periods_per_year")
    rf = check_real(risk_free, "performance_summary: risk_free")
    confidence = check_level(level, "performance_summary: level")
    mean_turnover = None
    if turnover is not None:
        turnovers = series(turnover, "performance_summary: turnover")
        mean_turnover = float(turnovers.mean()) if turnovers.size else math.nan
    total_cost = None
    if costs is not None:
        total_cost = float(series(costs, "performance_summary: costs").sum())
    return PerformanceSummary(
        n_periods=int(values.size),
        total_return=total_return(values),
        annualized_return=annualized_return(values, per_year),
        annualized_volatility=annualized_volatility(values, per_year),
        sharpe_ratio=sharpe_ratio(values, per_year, risk_free=rf),
        sortino_ratio=sortino_ratio(values, per_year, rf),
        max_drawdown=max_drawdown(values),
        calmar_ratio=calmar_ratio(values, per_year),
        value_at_risk=value_at_risk(values, confidence),
        conditional_value_at_risk=conditional_value_at_risk(values, confidence),
        hit_rate=hit_rate(values),
        mean_turnover=mean_turnover,
        total_cost=total_cost,
    )


def pnl_summary(pnl: ArrayLike, periods_per_year: float = 252, *, scale: float = 0.0) -> PnLSummary:
    """Summarise a series of profits and losses in currency, one per period.

    For strategies whose returns are not defined (market making from zero
    capital, an inventory that changes sign): the figures are sums and means
    of the PnL itself.

    Args:
        pnl: The PnL of each period, 1-D, finite, at least one.
        periods_per_year: Periods in a year, to annualise the Sharpe ratio.
        scale: The capital the PnL is earned on (>= 0). With 0 (the default)
            the maximum drawdown is in PnL units, the largest fall of the
            cumulative PnL from its running peak (its start, 0, included);
            with a capital it is the largest fall of ``scale + cumulative PnL``
            as a fraction of its peak.

    Returns:
        The `PnLSummary`; its Sharpe ratio is NaN for fewer than two
        periods or a constant PnL.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: ``pnl`` is empty, not 1-D or not finite, or a number is
            out of range.
    """
    values = series(pnl, "pnl_summary: pnl")
    if values.size == 0:
        raise ValueError("pnl_summary needs at least one PnL, got an empty series")
    per_year = check_periods_per_year(periods_per_year, "pnl_summary: periods_per_year")
    capital = check_real(scale, "pnl_summary: scale", minimum=0.0)
    volatility = float(np.std(values, ddof=1)) if values.size > 1 else math.nan
    sharpe = math.nan
    if values.size > 1 and values.max() > values.min():
        sharpe = float(values.mean()) / volatility * math.sqrt(per_year)
    wealth = np.concatenate(([capital], capital + np.cumsum(values)))
    peak = np.maximum.accumulate(wealth)
    fall = peak - wealth
    drawdown = float(fall.max()) if capital == 0.0 else float((fall / peak).max())
    return PnLSummary(
        n_periods=int(values.size),
        total_pnl=float(values.sum()),
        mean_pnl=float(values.mean()),
        pnl_volatility=volatility,
        sharpe_ratio=sharpe,
        max_drawdown=drawdown,
        hit_rate=hit_rate(values),
    )


Summary = PerformanceSummary | PnLSummary

_DT = "dt"  # the info key of a step's length in years
_DEFAULT_PERIODS_PER_YEAR = 252.0  # trading days, when neither the caller nor the env says


class RecordPerformance(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Computes a performance summary of every episode of a trading env.

    Each step reads the account's value from ``info[equity_key]`` (or its PnL
    from ``info[pnl_key]``), and ``info[turnover_key]`` and ``info[cost_key]``
    when present. On the step that ends an episode (``terminated`` or
    ``truncated``) it computes a `PerformanceSummary` of the episode's
    returns (``equity[t] / equity[t - 1] - 1``), or a `PnLSummary` of
    its PnL when ``pnl_key`` is given, keeps it (`last_summary`,
    `summaries`) and returns a copy of the info whose ``"episode"``
    entry holds the summary's fields as a dict (``info["episode"]
    ["sharpe_ratio"]``). If an inner ``RecordEpisodeStatistics`` has already
    put an ``EpisodeStats`` there, the fields are added to its ``extra``
    instead (a dict already there gains the fields): place ``RecordPerformance``
    outside ``RecordEpisodeStatistics``.

    The equity at the start of an episode comes from the reset's info (or, for
    a step that ends an episode inside an inner ``AutoReset``, from
    ``info["reset_info"]``), so the wrapper works on either side of
    ``AutoReset``. An env that reports no equity at reset gives one return
    fewer per episode: the first step's equity is the starting point. An
    episode too short for a single return adds nothing. Steps go through the
    wrapper hooks, so ``async_step`` and ``async_reset`` record the same.

    Annualising needs the number of steps in a year. An explicit
    ``periods_per_year`` sets it. Left at ``None``, each episode takes it
    from the env: when its steps report ``info["dt"]``, the step's length in
    years (as Trading-v0, Portfolio-v0 and Market-v0 do), the episode has
    as many periods a year as its steps divided by the sum of their ``dt``
    (``1 / mean(dt)``). So hourly rows are annualised as hours, and a dt
    that varies from step to step (calendar time between rows) is averaged
    over the episode. When no step reports a ``dt`` it is 252, one step a
    trading day. Envs whose ``dt`` is not in years (MarketMaking-v0,
    OptimalExecution-v0 and LimitOrderBook-v0 count session time) need an
    explicit ``periods_per_year``.

    Args:
        env: The trading env to wrap.
        periods_per_year: Steps in a year, for annualising; ``None`` (the
            default) to take it from the steps' ``info["dt"]``, and 252 when
            they report none.
        equity_key: The info key holding the account value.
        pnl_key: The info key holding each step's PnL; when given the
            summaries are `PnLSummary` built from it and the equity is
            not needed.
        turnover_key: The info key holding each step's turnover (``None``:
            not recorded). A summary has ``mean_turnover`` when every step
            reported it.
        cost_key: The info key holding each step's transaction cost
            (``None``: not recorded), summed into ``total_cost`` likewise.
        risk_free: The risk-free return per step, for the Sharpe and Sortino
            ratios.
        deque_size: How many recent summaries `summaries` keeps (>= 1).

    Attributes:
        summaries: The most recent summaries, oldest first.
        last_summary: The summary of the last finished episode (``None``
            before the first).

    Raises:
        TypeError: An argument has the wrong type. Later, from a step: with
            ``periods_per_year=None``, an ``info["dt"]`` that is not a number.
        ValueError: ``periods_per_year`` is not > 0, ``risk_free`` is not
            finite or ``deque_size`` is below 1. Later, from a step: with
            ``periods_per_year=None``, an ``info["dt"]`` that is negative or
            not finite, or an episode whose ``dt`` add up to 0 (or so
            little that the periods per year overflow).
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        *,
        periods_per_year: float | None = None,
        equity_key: str = "equity",
        pnl_key: str | None = None,
        turnover_key: str | None = "turnover",
        cost_key: str | None = "cost",
        risk_free: float = 0.0,
        deque_size: int = 100,
    ) -> None:
        self.periods_per_year: float | None = (
            None
            if periods_per_year is None
            else check_periods_per_year(periods_per_year, "RecordPerformance: periods_per_year")
        )
        self.equity_key = _key(equity_key, "equity_key", optional=False)
        self.pnl_key = _key(pnl_key, "pnl_key")
        self.turnover_key = _key(turnover_key, "turnover_key")
        self.cost_key = _key(cost_key, "cost_key")
        self.risk_free = check_real(risk_free, "RecordPerformance: risk_free")
        size = check_int(deque_size, "RecordPerformance: deque_size", minimum=1)
        super().__init__(env)
        self.summaries: deque[Summary] = deque(maxlen=size)
        self.last_summary: Summary | None = None
        self._values: list[float] = []  # equities (start first, if known) or PnLs
        self._turnover: list[float] = []
        self._cost: list[float] = []
        self._dt: list[float] = []  # years per step, read when periods_per_year is None
        self._steps = 0

    def _start(self, info: Any) -> None:
        self._values.clear()
        self._turnover.clear()
        self._cost.clear()
        self._dt.clear()
        self._steps = 0
        if self.pnl_key is None and isinstance(info, Mapping) and self.equity_key in info:
            self._values.append(float(info[self.equity_key]))

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._start(result.info)
        return result

    def _after_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        info = result.info
        key = self.equity_key if self.pnl_key is None else self.pnl_key
        if key not in info:
            raise KeyError(
                f"RecordPerformance reads the step's info[{key!r}], which is missing "
                f"(the info has {sorted(info)}); pass equity_key= or pnl_key= naming the key "
                "that holds the account value or the step's PnL"
            )
        self._values.append(float(info[key]))
        self._steps += 1
        if self.turnover_key is not None and self.turnover_key in info:
            self._turnover.append(float(info[self.turnover_key]))
        if self.cost_key is not None and self.cost_key in info:
            self._cost.append(float(info[self.cost_key]))
        if self.periods_per_year is None and _DT in info:
            self._dt.append(
                check_real(
                    info[_DT],
                    f"RecordPerformance: info[{_DT!r}] (years per step)",
                    minimum=0.0,
                )
            )
        if not (result.terminated or result.truncated):
            return result
        summary = self._summarise()
        self._start(info.get(RESET_INFO))
        if summary is None:
            return result
        self.summaries.append(summary)
        self.last_summary = summary
        new_info = dict(info)
        new_info["episode"] = _with_fields(info.get("episode"), summary.as_dict())
        return StepResult(
            result.observation, result.reward, result.terminated, result.truncated, new_info
        )

    def _per_year(self) -> float:
        """The periods per year of the episode: the given number, else from its dt, else 252."""
        if self.periods_per_year is not None:
            return self.periods_per_year
        if not self._dt:
            return _DEFAULT_PERIODS_PER_YEAR
        years = math.fsum(self._dt)
        per_year = len(self._dt) / years if years > 0.0 else math.inf
        if not math.isfinite(per_year):
            raise ValueError(
                f"RecordPerformance: the episode's info[{_DT!r}] (years per step) must add "
                f"up to a length that gives a finite number of periods per year, got "
                f"{years!r} years over {len(self._dt)} steps; pass periods_per_year= to set it"
            )
        return per_year

    def _summarise(self) -> Summary | None:
        steps = self._steps
        turnover = self._turnover if len(self._turnover) == steps else None
        costs = self._cost if len(self._cost) == steps else None
        if self.pnl_key is not None:
            return pnl_summary(self._values, self._per_year())
        if len(self._values) < 2:
            return None
        return performance_summary(
            returns_from_equity(self._values),
            self._per_year(),
            risk_free=self.risk_free,
            turnover=turnover,
            costs=costs,
        )

    def summary(self) -> dict[str, float]:
        """The mean of each figure over the recorded episodes (`summaries`).

        NaN and missing (``None``) values are left out of the means; a figure
        no episode has is left out. ``"n_episodes"`` counts the episodes.
        Empty before the first episode ends.
        """
        if not self.summaries:
            return {}
        result: dict[str, float] = {"n_episodes": float(len(self.summaries))}
        collected: dict[str, list[float]] = {}
        for summary in self.summaries:
            for name, value in summary.as_dict().items():
                if value is not None and not math.isnan(value):
                    collected.setdefault(name, []).append(float(value))
        for name, values in collected.items():
            result[name] = math.fsum(values) / len(values)
        return result


def _key(value: object, what: str, *, optional: bool = True) -> Any:
    if (value is None and optional) or isinstance(value, str):
        return value
    expected = "a str or None" if optional else "a str"
    raise TypeError(f"RecordPerformance: {what} must be {expected}, got {value!r}")


def _with_fields(existing: object, fields: dict[str, Any]) -> object:
    """``info["episode"]`` with the summary's fields added (see RecordPerformance)."""
    if isinstance(existing, EpisodeStats):
        return dataclasses.replace(existing, extra={**existing.extra, **fields})
    if isinstance(existing, Mapping):
        return {**existing, **fields}
    return fields
