"""OrderEnforcing: refuse to step an env that has not been reset.

Thin re-export: the class lives in `sekai.core.order_enforcing`, because
[`sekai.registry.make`][sekai.registry.make] (in sekai-core) applies it to every env it builds.
"""

from sekai.core.order_enforcing import ActType, ObsType, OrderEnforcing, SeedType

__all__ = ["ActType", "ObsType", "OrderEnforcing", "SeedType"]
