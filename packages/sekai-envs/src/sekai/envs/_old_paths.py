"""sekai-envs' table of old module paths (installed by `sekai._aliases`).

Before the market envs moved under `sekai.envs.finance` and the two-agent game
got a module named after it, these paths held them; CartPole's and the window
samplers' first paths are kept too. Each old path is a thin re-export of the
module that holds the names now, so every import that worked keeps working and
gives the very same objects.
"""

from __future__ import annotations

from sekai._aliases import AliasTable

__all__ = ["ENVS_ALIASES"]

ENVS_ALIASES: AliasTable = {
    "sekai.envs": {
        "cartpole": (
            "sekai.envs.classic_control.cartpole",
            ("CartPoleEnv", "cartpole_reset_bounds"),
        ),
        "cartpole_vector": ("sekai.envs.classic_control.cartpole_vector", ("CartPoleVecEnv",)),
        # `sekai.envs` maps EpisodeSampler to sekai.finance.sampling's WindowSampler.
        "samplers": (
            "sekai.envs",
            ("Episode", "EpisodeSampler", "HistoricalSampler", "RegimeSwitchingSampler"),
        ),
        "portfolio": ("sekai.envs.finance.portfolio", ("PortfolioEnv", "SeedType", "equal_weight")),
        "portfolio_vector": ("sekai.envs.finance.portfolio_vector", ("PortfolioVecEnv",)),
        "market_making": (
            "sekai.envs.microstructure",
            ("MARKET_MAKER", "TRADER", "MarketMicrostructureEnv"),
        ),
    },
}
"""sekai-envs' old paths, all below ``sekai.envs``."""
