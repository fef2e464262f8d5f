"""Reference environments: classic control and financial-market tasks.

Installing the ``sekai-envs`` distribution registers them with
``sekai.registry`` through the ``sekai.envs`` entry point, so
``sekai.make("CartPole-v1")`` works without importing this package first.
Importing ``sekai.envs`` is cheap: each environment class is imported on first
access.

Environments (id: single env / native vector env):

- ``CartPole-v1``: :class:`CartPoleEnv` / :class:`CartPoleVecEnv`;
- ``Portfolio-v0``: :class:`PortfolioEnv` / :class:`PortfolioVecEnv`, with the
  episode samplers of :mod:`sekai.envs.samplers`;
- ``MarketMaking-v0``: :class:`MarketMakingEnv` (multi-agent).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sekai.envs._registration import register_envs as register_envs
    from sekai.envs.cartpole import CartPoleEnv as CartPoleEnv
    from sekai.envs.cartpole_vector import CartPoleVecEnv as CartPoleVecEnv
    from sekai.envs.market_making import MarketMakingEnv as MarketMakingEnv
    from sekai.envs.portfolio import PortfolioEnv as PortfolioEnv
    from sekai.envs.portfolio_vector import PortfolioVecEnv as PortfolioVecEnv
    from sekai.envs.samplers import (
        Episode as Episode,
        EpisodeSampler as EpisodeSampler,
        HistoricalSampler as HistoricalSampler,
        RegimeSwitchingSampler as RegimeSwitchingSampler,
    )

__all__ = [
    "CartPoleEnv",
    "CartPoleVecEnv",
    "Episode",
    "EpisodeSampler",
    "HistoricalSampler",
    "MarketMakingEnv",
    "PortfolioEnv",
    "PortfolioVecEnv",
    "RegimeSwitchingSampler",
    "register_envs",
]

_LAZY: dict[str, str] = {
    "CartPoleEnv": "sekai.envs.cartpole",
    "CartPoleVecEnv": "sekai.envs.cartpole_vector",
    "MarketMakingEnv": "sekai.envs.market_making",
    "PortfolioEnv": "sekai.envs.portfolio",
    "PortfolioVecEnv": "sekai.envs.portfolio_vector",
    "Episode": "sekai.envs.samplers",
    "EpisodeSampler": "sekai.envs.samplers",
    "HistoricalSampler": "sekai.envs.samplers",
    "RegimeSwitchingSampler": "sekai.envs.samplers",
    "register_envs": "sekai.envs._registration",
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
