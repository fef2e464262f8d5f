"""The native vector envs of the market tasks (sekai 0.2's ``sekai.envs.finance.vector``).

Each class lives next to its single env and is loaded on first access:

- `TradingVecEnv` (``Trading-v0``), from `sekai.envs.finance.trading_vector`;
- `PortfolioVecEnv` (``Portfolio-v0``), from `sekai.envs.finance.portfolio_vector`;
- `MarketVecEnv` (``Market-v0``), from `sekai.envs.finance.market_vector`;
- `MarketMakingVecEnv` (``MarketMaking-v0``), from
  ``sekai.envs.finance.market_making_vector``;
- `OptimalExecutionVecEnv` (``OptimalExecution-v0``), from
  ``sekai.envs.finance.optimal_execution_vector``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sekai.envs.finance.market_making_vector import MarketMakingVecEnv as MarketMakingVecEnv
    from sekai.envs.finance.market_vector import MarketVecEnv as MarketVecEnv
    from sekai.envs.finance.optimal_execution_vector import (
        OptimalExecutionVecEnv as OptimalExecutionVecEnv,
    )
    from sekai.envs.finance.portfolio_vector import PortfolioVecEnv as PortfolioVecEnv
    from sekai.envs.finance.trading_vector import TradingVecEnv as TradingVecEnv

__all__ = [
    "MarketMakingVecEnv",
    "MarketVecEnv",
    "OptimalExecutionVecEnv",
    "PortfolioVecEnv",
    "TradingVecEnv",
]

_LAZY: dict[str, str] = {
    "MarketMakingVecEnv": "sekai.envs.finance.market_making_vector",
    "MarketVecEnv": "sekai.envs.finance.market_vector",
    "OptimalExecutionVecEnv": "sekai.envs.finance.optimal_execution_vector",
    "PortfolioVecEnv": "sekai.envs.finance.portfolio_vector",
    "TradingVecEnv": "sekai.envs.finance.trading_vector",
}


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
