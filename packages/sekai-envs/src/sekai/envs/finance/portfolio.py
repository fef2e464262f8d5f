"""Portfolio-v0 at sekai 0.2's import path (``sekai.envs.finance.portfolio``).

The environment is defined in `sekai.envs.portfolio`, next to its native
vector env and its episode samplers; this module re-exports it with its
baseline policy, so both import paths give the same class.
"""

from __future__ import annotations

from sekai.envs.portfolio import PortfolioEnv, equal_weight
from sekai.utils.seeding import SeedType

__all__ = ["PortfolioEnv", "SeedType", "equal_weight"]
