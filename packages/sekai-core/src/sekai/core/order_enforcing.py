"""OrderEnforcing: refuse to step an env that has not been reset."""

from __future__ import annotations

from typing import Any

from sekai.core.env import ActType, Env
from sekai.core.results import ObsType, ResetResult, StepResult
from sekai.core.wrapper import Wrapper
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["ActType", "ObsType", "OrderEnforcing", "SeedType"]


class OrderEnforcing(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Raises [`ResetRequired`][sekai.error.ResetRequired] when ``step()`` comes before ``reset()``.

    Many environments fail in obscure ways (or, worse, silently return
    garbage) when stepped before their first reset; in distributed setups
    the mistake is easy to make and hard to trace. This wrapper turns it into
    an immediate, explicit error. After `close` a new ``reset()`` is
    required as well. The async methods follow the same rule.

    [`sekai.registry.make`][sekai.registry.make] puts it directly around every single-agent
    env it builds (inside the time limit), as sekai 0.2 did; it lives in
    ``sekai.core`` for that reason and is exported by ``sekai.wrappers``.

    Args:
        env: The environment to wrap.
    """

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        super().__init__(env)
        self._has_reset = False

    @property
    def has_reset(self) -> bool:
        """Whether ``reset()`` has been called (since the last ``close()``)."""
        return self._has_reset

    # step and reset are written out (rather than through the hooks) because
    # make() puts this layer around every env: it should cost one flag check.

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Reset the wrapped env; ``step()`` is allowed from now on."""
        result = self.env.reset(seed=seed, options=options)
        self._has_reset = True
        return result

    def step(self, action: ActType) -> StepResult[ObsType]:
        """Step the wrapped env.

        Raises:
            ResetRequired: ``reset()`` has not been called (since ``close()``).
        """
        if not self._has_reset:
            raise self._reset_required()
        return self.env.step(action)

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async form of `reset`."""
        result = await self.env.async_reset(seed=seed, options=options)
        self._has_reset = True
        return result

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async form of `step`."""
        if not self._has_reset:
            raise self._reset_required()
        return await self.env.async_step(action)

    def _reset_required(self) -> ResetRequired:
        return ResetRequired(
            f"step() was called on {self.env} before reset(); call reset() first "
            "(also after close())"
        )

    def close(self) -> None:
        """Close the wrapped env; the next ``step()`` needs a ``reset()`` first."""
        self._has_reset = False
        self.env.close()
