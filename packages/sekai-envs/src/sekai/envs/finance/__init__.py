"""Market environments: trading, portfolios, a changing universe, market making, execution, books.

Every environment here is built on the markets toolkit `sekai.finance`
(point-in-time data, simulators, costs, rewards, the account), so data,
costs, rewards and metrics are shared rather than re-implemented per env.

Environments (id: single env / native vector env):

- ``Trading-v0``: `TradingEnv` / `TradingVecEnv`: one asset,
  discrete target positions;
- ``Portfolio-v0``: `PortfolioEnv` / `PortfolioVecEnv`: weights
  across assets and cash;
- ``Market-v0``: `MarketEnv` / `MarketVecEnv`: a universe whose assets
  list and delist, on fixed slots with availability masks;
- ``MarketMaking-v0``: `MarketMakingEnv` / `MarketMakingVecEnv`
  (Avellaneda & Stoikov);
- ``OptimalExecution-v0``: `OptimalExecutionEnv` /
  `OptimalExecutionVecEnv` (Almgren & Chriss);
- ``LimitOrderBook-v0``: `LimitOrderBookEnv`, and the multi-agent
  `LimitOrderBookMarket`.

Baselines: `buy_and_hold` (Trading-v0), `equal_weight`
(Portfolio-v0, Market-v0) and `market_making_optimum` (MarketMaking-v0's
exact optimum, a `MarketMakingOptimum`). Helpers: `default_market` (Market-v0's
default model) and, in
`sekai.envs.finance.market`, `random_correlation`,
`sample_window`, `simulate_gbm` and ``validate_prices``. The
vector envs are also importable from `sekai.envs.finance.vector`.

Importing this package is cheap: each name loads its module on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sekai.envs.finance._market_making_optimum import (
        MarketMakingOptimum as MarketMakingOptimum,
        market_making_optimum as market_making_optimum,
    )
    from sekai.envs.finance.lob_env import (
        LimitOrderBookEnv as LimitOrderBookEnv,
        LimitOrderBookMarket as LimitOrderBookMarket,
    )
    from sekai.envs.finance.market import (
        random_correlation as random_correlation,
        sample_window as sample_window,
        simulate_gbm as simulate_gbm,
    )
    from sekai.envs.finance.market_env import (
        MarketEnv as MarketEnv,
        default_market as default_market,
    )
    from sekai.envs.finance.market_making import MarketMakingEnv as MarketMakingEnv
    from sekai.envs.finance.optimal_execution import OptimalExecutionEnv as OptimalExecutionEnv
    from sekai.envs.finance.portfolio import (
        PortfolioEnv as PortfolioEnv,
        equal_weight as equal_weight,
    )
    from sekai.envs.finance.rendering import (
        LimitOrderBookMarketRenderer as LimitOrderBookMarketRenderer,
        LimitOrderBookRenderer as LimitOrderBookRenderer,
        MarketMakingRenderer as MarketMakingRenderer,
        MarketMicrostructureRenderer as MarketMicrostructureRenderer,
        MarketRenderer as MarketRenderer,
        OptimalExecutionRenderer as OptimalExecutionRenderer,
        PortfolioRenderer as PortfolioRenderer,
        TradingRenderer as TradingRenderer,
    )
    from sekai.envs.finance.trading import (
        TradingEnv as TradingEnv,
        buy_and_hold as buy_and_hold,
    )
    from sekai.envs.finance.vector import (
        MarketMakingVecEnv as MarketMakingVecEnv,
        MarketVecEnv as MarketVecEnv,
        OptimalExecutionVecEnv as OptimalExecutionVecEnv,
        PortfolioVecEnv as PortfolioVecEnv,
        TradingVecEnv as TradingVecEnv,
    )

__all__ = [
    "LimitOrderBookEnv",
    "LimitOrderBookMarket",
    "LimitOrderBookMarketRenderer",
    "LimitOrderBookRenderer",
    "MarketEnv",
    "MarketMakingEnv",
    "MarketMakingOptimum",
    "MarketMakingRenderer",
    "MarketMakingVecEnv",
    "MarketMicrostructureRenderer",
    "MarketRenderer",
    "MarketVecEnv",
    "OptimalExecutionEnv",
    "OptimalExecutionRenderer",
    "OptimalExecutionVecEnv",
    "PortfolioEnv",
    "PortfolioRenderer",
    "PortfolioVecEnv",
    "TradingEnv",
    "TradingRenderer",
    "TradingVecEnv",
    "buy_and_hold",
    "default_market",
    "equal_weight",
    "market_making_optimum",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
]

# name -> module under sekai.envs.finance that defines (or re-exports) it
_LAZY: dict[str, str] = {
    "LimitOrderBookEnv": "lob_env",
    "LimitOrderBookMarket": "lob_env",
    "MarketEnv": "market_env",
    "MarketMakingEnv": "market_making",
    "OptimalExecutionEnv": "optimal_execution",
    "PortfolioEnv": "portfolio",
    "TradingEnv": "trading",
    "MarketMakingVecEnv": "vector",
    "MarketVecEnv": "vector",
    "OptimalExecutionVecEnv": "vector",
    "PortfolioVecEnv": "vector",
    "TradingVecEnv": "vector",
    # the renderers need sekai.rendering (sekai-envs[render]); imported only when asked for
    "LimitOrderBookMarketRenderer": "rendering",
    "LimitOrderBookRenderer": "rendering",
    "MarketMakingRenderer": "rendering",
    "MarketMicrostructureRenderer": "rendering",
    "MarketRenderer": "rendering",
    "OptimalExecutionRenderer": "rendering",
    "PortfolioRenderer": "rendering",
    "TradingRenderer": "rendering",
    "buy_and_hold": "trading",
    "default_market": "market_env",
    "equal_weight": "portfolio",
    "MarketMakingOptimum": "_market_making_optimum",
    "market_making_optimum": "_market_making_optimum",
    "random_correlation": "market",
    "sample_window": "market",
    "simulate_gbm": "market",
}


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
