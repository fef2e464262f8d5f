"""Reference environments: classic control and financial-market tasks.

Installing the ``sekai-envs`` distribution registers them with
``sekai.registry`` through the ``sekai.envs`` entry point, so
``sekai.make("CartPole-v1")`` works without importing this package first.
Importing ``sekai.envs`` is cheap: each environment class is imported on first
access.

Environments (id: single env / native vector env):

- classic control (`sekai.envs.classic_control`, which also has their
  renderers): ``CartPole-v1``: `CartPoleEnv` / `CartPoleVecEnv`;
  ``MountainCar-v0``: `MountainCarEnv` / `MountainCarVecEnv`;
  ``MountainCarContinuous-v0``: `ContinuousMountainCarEnv` /
  `ContinuousMountainCarVecEnv`; ``Pendulum-v1``: `PendulumEnv`
  / `PendulumVecEnv`; ``Acrobot-v1``: `AcrobotEnv` /
  `AcrobotVecEnv`;
- market tasks (`sekai.envs.finance`, built on `sekai.finance`):
  ``Trading-v0``: `TradingEnv` / `TradingVecEnv`;
  ``Portfolio-v0``: `PortfolioEnv` / `PortfolioVecEnv`, with the
  window samplers of `sekai.finance.sampling`; ``Market-v0``:
  `MarketEnv` / `MarketVecEnv`; their baseline policies `buy_and_hold` and
  `equal_weight`; ``MarketMaking-v0`` (Avellaneda-Stoikov):
  `MarketMakingEnv` / `MarketMakingVecEnv`, with its exact optimum
  `market_making_optimum` (a `MarketMakingOptimum`);
  ``OptimalExecution-v0`` (Almgren-Chriss): `OptimalExecutionEnv` /
  `OptimalExecutionVecEnv`; ``LimitOrderBook-v0``:
  `LimitOrderBookEnv`, and the multi-agent `LimitOrderBookMarket`;
- ``MarketMicrostructure-v0``: `MarketMicrostructureEnv` (multi-agent: a
  market maker and a directional trader).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sekai._aliases import install as _install_aliases
from sekai.envs._old_paths import ENVS_ALIASES

if TYPE_CHECKING:
    from sekai.envs._registration import register_envs as register_envs
    from sekai.envs.classic_control.acrobot import AcrobotEnv as AcrobotEnv
    from sekai.envs.classic_control.acrobot_vector import AcrobotVecEnv as AcrobotVecEnv
    from sekai.envs.classic_control.cartpole import CartPoleEnv as CartPoleEnv
    from sekai.envs.classic_control.cartpole_vector import CartPoleVecEnv as CartPoleVecEnv
    from sekai.envs.classic_control.continuous_mountain_car import (
        ContinuousMountainCarEnv as ContinuousMountainCarEnv,
    )
    from sekai.envs.classic_control.continuous_mountain_car_vector import (
        ContinuousMountainCarVecEnv as ContinuousMountainCarVecEnv,
    )
    from sekai.envs.classic_control.mountain_car import MountainCarEnv as MountainCarEnv
    from sekai.envs.classic_control.mountain_car_vector import (
        MountainCarVecEnv as MountainCarVecEnv,
    )
    from sekai.envs.classic_control.pendulum import PendulumEnv as PendulumEnv
    from sekai.envs.classic_control.pendulum_vector import PendulumVecEnv as PendulumVecEnv
    from sekai.envs.finance._market_making_optimum import (
        MarketMakingOptimum as MarketMakingOptimum,
        market_making_optimum as market_making_optimum,
    )
    from sekai.envs.finance.lob_env import (
        LimitOrderBookEnv as LimitOrderBookEnv,
        LimitOrderBookMarket as LimitOrderBookMarket,
    )
    from sekai.envs.finance.market_env import MarketEnv as MarketEnv
    from sekai.envs.finance.market_making import MarketMakingEnv as MarketMakingEnv
    from sekai.envs.finance.market_making_vector import MarketMakingVecEnv as MarketMakingVecEnv
    from sekai.envs.finance.market_vector import MarketVecEnv as MarketVecEnv
    from sekai.envs.finance.optimal_execution import OptimalExecutionEnv as OptimalExecutionEnv
    from sekai.envs.finance.optimal_execution_vector import (
        OptimalExecutionVecEnv as OptimalExecutionVecEnv,
    )
    from sekai.envs.finance.portfolio import (
        PortfolioEnv as PortfolioEnv,
        equal_weight as equal_weight,
    )
    from sekai.envs.finance.portfolio_vector import PortfolioVecEnv as PortfolioVecEnv
    from sekai.envs.finance.trading import (
        TradingEnv as TradingEnv,
        buy_and_hold as buy_and_hold,
    )
    from sekai.envs.finance.trading_vector import TradingVecEnv as TradingVecEnv
    from sekai.envs.microstructure import MarketMicrostructureEnv as MarketMicrostructureEnv
    from sekai.finance.sampling import (
        Episode as Episode,
        HistoricalSampler as HistoricalSampler,
        RegimeSwitchingSampler as RegimeSwitchingSampler,
        WindowSampler as EpisodeSampler,
    )

__all__ = [
    "AcrobotEnv",
    "AcrobotVecEnv",
    "CartPoleEnv",
    "CartPoleVecEnv",
    "ContinuousMountainCarEnv",
    "ContinuousMountainCarVecEnv",
    "Episode",
    "EpisodeSampler",
    "HistoricalSampler",
    "LimitOrderBookEnv",
    "LimitOrderBookMarket",
    "MarketEnv",
    "MarketMakingEnv",
    "MarketMakingOptimum",
    "MarketMakingVecEnv",
    "MarketMicrostructureEnv",
    "MarketVecEnv",
    "MountainCarEnv",
    "MountainCarVecEnv",
    "OptimalExecutionEnv",
    "OptimalExecutionVecEnv",
    "PendulumEnv",
    "PendulumVecEnv",
    "PortfolioEnv",
    "PortfolioVecEnv",
    "RegimeSwitchingSampler",
    "TradingEnv",
    "TradingVecEnv",
    "buy_and_hold",
    "equal_weight",
    "market_making_optimum",
    "register_envs",
]

# name: its module, or (its module, its name there) where it is exported under another name
_LAZY: dict[str, str | tuple[str, str]] = {
    "AcrobotEnv": "sekai.envs.classic_control.acrobot",
    "AcrobotVecEnv": "sekai.envs.classic_control.acrobot_vector",
    "CartPoleEnv": "sekai.envs.classic_control.cartpole",
    "CartPoleVecEnv": "sekai.envs.classic_control.cartpole_vector",
    "ContinuousMountainCarEnv": "sekai.envs.classic_control.continuous_mountain_car",
    "ContinuousMountainCarVecEnv": "sekai.envs.classic_control.continuous_mountain_car_vector",
    "MountainCarEnv": "sekai.envs.classic_control.mountain_car",
    "MountainCarVecEnv": "sekai.envs.classic_control.mountain_car_vector",
    "PendulumEnv": "sekai.envs.classic_control.pendulum",
    "PendulumVecEnv": "sekai.envs.classic_control.pendulum_vector",
    "MarketEnv": "sekai.envs.finance.market_env",
    "MarketVecEnv": "sekai.envs.finance.market_vector",
    "TradingEnv": "sekai.envs.finance.trading",
    "TradingVecEnv": "sekai.envs.finance.trading_vector",
    "buy_and_hold": "sekai.envs.finance.trading",
    "equal_weight": "sekai.envs.finance.portfolio",
    "MarketMakingEnv": "sekai.envs.finance.market_making",
    "MarketMakingVecEnv": "sekai.envs.finance.market_making_vector",
    "MarketMakingOptimum": "sekai.envs.finance._market_making_optimum",
    "market_making_optimum": "sekai.envs.finance._market_making_optimum",
    "OptimalExecutionEnv": "sekai.envs.finance.optimal_execution",
    "OptimalExecutionVecEnv": "sekai.envs.finance.optimal_execution_vector",
    "LimitOrderBookEnv": "sekai.envs.finance.lob_env",
    "LimitOrderBookMarket": "sekai.envs.finance.lob_env",
    "MarketMicrostructureEnv": "sekai.envs.microstructure",
    "PortfolioEnv": "sekai.envs.finance.portfolio",
    "PortfolioVecEnv": "sekai.envs.finance.portfolio_vector",
    "Episode": "sekai.finance.sampling",
    # sekai.finance.sampling's EpisodeSampler is 0.2's start sampler; here the name means
    # the base of window samplers, as it always has in sekai.envs.
    "EpisodeSampler": ("sekai.finance.sampling", "WindowSampler"),
    "HistoricalSampler": "sekai.finance.sampling",
    "RegimeSwitchingSampler": "sekai.finance.sampling",
    "register_envs": "sekai.envs._registration",
}


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        where = _LAZY.get(name)
        if where is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        module_name, attribute = (where, name) if isinstance(where, str) else where
        value = getattr(importlib.import_module(module_name), attribute)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))


_install_aliases(__name__, ENVS_ALIASES)
