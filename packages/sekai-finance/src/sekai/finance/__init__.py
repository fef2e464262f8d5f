"""The sekai markets toolkit.

Everything a market environment needs besides the env itself, written once
and shared by every market env:

- `sekai.finance.data`: `MarketData`, point-in-time market data (look-ahead
  raises `sekai.error.LookAheadError`);
- `sekai.finance.sampling`: where each episode starts, and window samplers;
- `sekai.finance.simulators`: price models that simulate many paths at once;
- `sekai.finance.lob`: a limit order book, order-flow models, LOBSTER replay;
- `sekai.finance.costs`, `sekai.finance.rewards`, `sekai.finance.account`,
  `sekai.finance.metrics`: transaction costs, rewards, the account, metrics;
- `sekai.finance.features`, `sekai.finance.universe`: observations;
- `sekai.finance.rendering`: price, order-book and universe panels for
  dashboards (needs `sekai-finance[render]`);
- `check_market_env`: checks that a market env is honest (no look-ahead,
  rewards that match its equity, finite numbers, reproducible runs).

The names below load their module on first use, so ``import sekai.finance``
stays cheap; the submodules hold further helpers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "AccountConfig": "sekai.finance.account",
    "BACKGROUND": "sekai.finance.lob",
    "BlockBootstrap": "sekai.finance.simulators",
    "CointegratedPair": "sekai.finance.simulators",
    "CompositeCost": "sekai.finance.costs",
    "CostModel": "sekai.finance.costs",
    "DifferentialSharpe": "sekai.finance.rewards",
    "DrawdownPenalty": "sekai.finance.rewards",
    "EpisodeSampler": "sekai.finance.sampling",
    "Fill": "sekai.finance.lob",
    "FixedCost": "sekai.finance.costs",
    "FixedStart": "sekai.finance.sampling",
    "GARCH": "sekai.finance.simulators",
    "GBM": "sekai.finance.simulators",
    "Heston": "sekai.finance.simulators",
    "ListingProcess": "sekai.finance.simulators",
    "LogReturn": "sekai.finance.rewards",
    "MarketData": "sekai.finance.data",
    "MarketModel": "sekai.finance.simulators",
    "MeanReverting": "sekai.finance.simulators",
    "MeanVariance": "sekai.finance.rewards",
    "MertonJumpDiffusion": "sekai.finance.simulators",
    "NoCost": "sekai.finance.costs",
    "Order": "sekai.finance.lob",
    "OrderBook": "sekai.finance.lob",
    "OrderBookChart": "sekai.finance.rendering",
    "OrderFlow": "sekai.finance.lob",
    "PerformanceSummary": "sekai.finance.metrics",
    "PnLSummary": "sekai.finance.metrics",
    "PriceChart": "sekai.finance.rendering",
    "ProfitAndLoss": "sekai.finance.rewards",
    "ProportionalCost": "sekai.finance.costs",
    "RandomStart": "sekai.finance.sampling",
    "Randomized": "sekai.finance.simulators",
    "RecordPerformance": "sekai.finance.metrics",
    "RegimeSwitching": "sekai.finance.simulators",
    "RewardFunction": "sekai.finance.rewards",
    "SequentialStart": "sekai.finance.sampling",
    "Settlement": "sekai.finance.account",
    "Side": "sekai.finance.lob",
    "SimpleReturn": "sekai.finance.rewards",
    "Simulation": "sekai.finance.simulators",
    "SlotMap": "sekai.finance.universe",
    "SpreadCost": "sekai.finance.costs",
    "SquareRootImpact": "sekai.finance.costs",
    "StepOutcome": "sekai.finance.rewards",
    "Time": "sekai.finance.data",
    "TurnoverPenalty": "sekai.finance.rewards",
    "UniverseChart": "sekai.finance.rendering",
    "ZeroIntelligenceFlow": "sekai.finance.lob",
    "check_market_env": "sekai.finance._check",
    "performance_summary": "sekai.finance.metrics",
    "pnl_summary": "sekai.finance.metrics",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from sekai.finance._check import (
        check_market_env as check_market_env,
    )
    from sekai.finance.account import (
        AccountConfig as AccountConfig,
        Settlement as Settlement,
    )
    from sekai.finance.costs import (
        CompositeCost as CompositeCost,
        CostModel as CostModel,
        FixedCost as FixedCost,
        NoCost as NoCost,
        ProportionalCost as ProportionalCost,
        SpreadCost as SpreadCost,
        SquareRootImpact as SquareRootImpact,
    )
    from sekai.finance.data import (
        MarketData as MarketData,
        Time as Time,
    )
    from sekai.finance.lob import (
        BACKGROUND as BACKGROUND,
        Fill as Fill,
        Order as Order,
        OrderBook as OrderBook,
        Side as Side,
        ZeroIntelligenceFlow as ZeroIntelligenceFlow,
    )
    from sekai.finance.metrics import (
        PerformanceSummary as PerformanceSummary,
        PnLSummary as PnLSummary,
        RecordPerformance as RecordPerformance,
        performance_summary as performance_summary,
        pnl_summary as pnl_summary,
    )
    from sekai.finance.rendering import (
        OrderBookChart as OrderBookChart,
        PriceChart as PriceChart,
        UniverseChart as UniverseChart,
    )
    from sekai.finance.rewards import (
        DifferentialSharpe as DifferentialSharpe,
        DrawdownPenalty as DrawdownPenalty,
        LogReturn as LogReturn,
        MeanVariance as MeanVariance,
        ProfitAndLoss as ProfitAndLoss,
        RewardFunction as RewardFunction,
        SimpleReturn as SimpleReturn,
        StepOutcome as StepOutcome,
        TurnoverPenalty as TurnoverPenalty,
    )
    from sekai.finance.sampling import (
        EpisodeSampler as EpisodeSampler,
        FixedStart as FixedStart,
        RandomStart as RandomStart,
        SequentialStart as SequentialStart,
    )
    from sekai.finance.simulators import (
        GARCH as GARCH,
        GBM as GBM,
        BlockBootstrap as BlockBootstrap,
        CointegratedPair as CointegratedPair,
        Heston as Heston,
        ListingProcess as ListingProcess,
        MarketModel as MarketModel,
        MeanReverting as MeanReverting,
        MertonJumpDiffusion as MertonJumpDiffusion,
        Randomized as Randomized,
        RegimeSwitching as RegimeSwitching,
        Simulation as Simulation,
    )
    from sekai.finance.universe import (
        SlotMap as SlotMap,
    )
else:

    def __getattr__(name: str) -> Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
