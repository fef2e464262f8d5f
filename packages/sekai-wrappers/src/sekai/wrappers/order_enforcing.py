"""OrderEnforcing: refuse to step an env that has not been reset."""

from __future__ import annotations

from sekai.core import ActType, Env, ObsType, ResetResult, Wrapper
from sekai.error import ResetRequired

__all__ = ["OrderEnforcing"]


class OrderEnforcing(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Raises :class:`~sekai.error.ResetRequired` when ``step()`` comes before ``reset()``.

    Many environments fail in obscure ways (or, worse, silently return
    garbage) when stepped before their first reset; in distributed setups
    the mistake is easy to make and hard to trace. This wrapper turns it into
    an immediate, explicit error. After :meth:`close` a new ``reset()`` is
    required as well. The async methods follow the same rule.

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

    def _after_reset(self, result: ResetResult[ObsType]) -> ResetResult[ObsType]:
        self._has_reset = True
        return result

    def _before_step(self, action: ActType) -> ActType:
        if not self._has_reset:
            raise self._error()
        return action

    def close(self) -> None:
        """Close the wrapped env; the next ``step()`` needs a ``reset()`` first."""
        self._has_reset = False
        self.env.close()

    def _error(self) -> ResetRequired:
        return ResetRequired(
            f"step() was called on {self.env} before reset(); call reset() first "
            "(also after close())"
        )
