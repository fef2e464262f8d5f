"""An example sekai plugin that depends on sekai-core alone."""

from __future__ import annotations

__all__ = ["register_envs"]


def register_envs() -> None:
    """Register this plugin's environments (called lazily by the sekai registry)."""
    from sekai.registry import register

    register(
        "example/RandomWalk-v0",
        entry_point="sekai_example_plugin.random_walk:RandomWalkEnv",
        max_episode_steps=200,
    )
