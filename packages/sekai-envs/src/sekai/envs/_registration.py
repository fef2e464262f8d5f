"""Registration of the reference environments (the ``sekai.envs`` entry point)."""

from __future__ import annotations

from sekai.registry import register

__all__ = ["register_envs"]

_CLASSIC = "sekai.envs.classic_control"
_FINANCE = "sekai.envs.finance"
# The market envs take an episode sampler that sub-envs must not share: make_vec
# gives each sub-env of a non-native vector env its own sampler.spawn().
_SPAWN_SAMPLER = {"sampler": "sekai.finance.sampling:spawn_samplers"}

# id: (module, single env, native vector env, time limit, reward threshold), as in
# Gymnasium 1.x.
_CLASSIC_CONTROL: dict[str, tuple[str, str, str, int, float | None]] = {
    "CartPole-v1": ("cartpole", "CartPoleEnv", "CartPoleVecEnv", 500, 475.0),
    "MountainCar-v0": ("mountain_car", "MountainCarEnv", "MountainCarVecEnv", 200, -110.0),
    "MountainCarContinuous-v0": (
        "continuous_mountain_car",
        "ContinuousMountainCarEnv",
        "ContinuousMountainCarVecEnv",
        999,
        90.0,
    ),
    "Pendulum-v1": ("pendulum", "PendulumEnv", "PendulumVecEnv", 200, None),
    "Acrobot-v1": ("acrobot", "AcrobotEnv", "AcrobotVecEnv", 500, -100.0),
}


def register_envs() -> None:
    """Register every reference environment of ``sekai.envs``.

    Installed as the ``sekai`` entry point of the ``sekai.envs`` group, so the
    global registry calls it the first time it looks for an id it does not
    know (e.g. ``sekai.make("CartPole-v1")``); while it runs, ``register``
    acts on the registry that asked. Nothing is imported but this module:
    the environments are named by ``"module:attr"`` strings, imported when an
    environment is first made.
    """
    for env_id, (module, single, vector, limit, threshold) in _CLASSIC_CONTROL.items():
        register(
            env_id,
            entry_point=f"{_CLASSIC}.{module}:{single}",
            vector_entry_point=f"{_CLASSIC}.{module}_vector:{vector}",
            max_episode_steps=limit,
            reward_threshold=threshold,
        )
    register(
        "Portfolio-v0",
        entry_point=f"{_FINANCE}.portfolio:PortfolioEnv",
        vector_entry_point=f"{_FINANCE}.portfolio_vector:PortfolioVecEnv",
        per_env_kwargs=_SPAWN_SAMPLER,
    )
    register(
        "Trading-v0",
        entry_point=f"{_FINANCE}.trading:TradingEnv",
        vector_entry_point=f"{_FINANCE}.trading_vector:TradingVecEnv",
        per_env_kwargs=_SPAWN_SAMPLER,
    )
    register(
        "Market-v0",
        entry_point=f"{_FINANCE}.market_env:MarketEnv",
        vector_entry_point=f"{_FINANCE}.market_vector:MarketVecEnv",
        per_env_kwargs=_SPAWN_SAMPLER,
    )
    register(
        "MarketMaking-v0",
        entry_point=f"{_FINANCE}.market_making:MarketMakingEnv",
        vector_entry_point=f"{_FINANCE}.market_making_vector:MarketMakingVecEnv",
    )
    register(
        "OptimalExecution-v0",
        entry_point=f"{_FINANCE}.optimal_execution:OptimalExecutionEnv",
        vector_entry_point=f"{_FINANCE}.optimal_execution_vector:OptimalExecutionVecEnv",
    )
    register("LimitOrderBook-v0", entry_point=f"{_FINANCE}.lob_env:LimitOrderBookEnv")
    # This project's two-agent game (a market maker and a directional trader).
    register(
        "MarketMicrostructure-v0", entry_point="sekai.envs.microstructure:MarketMicrostructureEnv"
    )
