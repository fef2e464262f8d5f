"""Registration of the reference environments (the ``sekai.envs`` entry point)."""

from __future__ import annotations

from sekai.registry import register

__all__ = ["register_envs"]


def register_envs() -> None:
    """Register every reference environment of ``sekai.envs``.

    Installed as the ``sekai`` entry point of the ``sekai.envs`` group, so the
    global registry calls it the first time it looks for an id it does not
    know (e.g. ``sekai.make("CartPole-v1")``); while it runs, ``register``
    acts on the registry that asked. Nothing is imported but this module:
    the environments are named by ``"module:attr"`` strings, imported when an
    environment is first made.
    """
    register(
        "CartPole-v1",
        entry_point="sekai.envs.cartpole:CartPoleEnv",
        vector_entry_point="sekai.envs.cartpole_vector:CartPoleVecEnv",
        max_episode_steps=500,
        reward_threshold=475.0,
    )
    register(
        "Portfolio-v0",
        entry_point="sekai.envs.portfolio:PortfolioEnv",
        vector_entry_point="sekai.envs.portfolio_vector:PortfolioVecEnv",
    )
    register("MarketMaking-v0", entry_point="sekai.envs.market_making:MarketMakingEnv")
    # The same two-agent market under the name the architecture notes give it.
    register("MarketMicrostructure-v0", entry_point="sekai.envs.market_making:MarketMakingEnv")
