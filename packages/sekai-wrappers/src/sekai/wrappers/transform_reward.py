"""TransformReward: apply any callable to every reward."""

from __future__ import annotations

from collections.abc import Callable

from sekai.core import ActType, Env, ObsType, RewardWrapper
from sekai.wrappers._checks import resolve_func

__all__ = ["TransformReward"]


class TransformReward(RewardWrapper[ObsType, ActType]):
    """Applies ``func`` to every reward.

    ``func`` was called ``fn`` before sekai 0.2: ``fn=`` is still accepted
    and emits a [`DeprecatedAPI`][sekai.error.DeprecatedAPI] warning (a
    ``DeprecationWarning``).

    Args:
        env: The environment to wrap.
        func: The transformation, called with one reward.
        fn: Deprecated name of ``func``.

    Raises:
        TypeError: ``func`` is missing or not callable, or both ``func`` and
            ``fn`` are given.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[float], float] | None = None,
        *,
        fn: Callable[[float], float] | None = None,
    ) -> None:
        self.func: Callable[[float], float] = resolve_func("TransformReward", func, fn)
        super().__init__(env)

    def reward(self, reward: float) -> float:
        """Return ``func(reward)``."""
        return self.func(reward)
