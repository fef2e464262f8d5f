"""TransformObservation: apply any callable to every observation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import Space
from sekai.wrappers._checks import resolve_func

__all__ = ["TransformObservation"]

F = TypeVar("F", bound=Callable[[Any], Any])
"""The type of an observation transformation (sekai 0.2's name, for annotations)."""


class TransformObservation(ObservationWrapper[Any, ActType, Any]):
    """Applies ``func`` to every observation (the first one of each episode included).

    Pass ``new_observation_space`` whenever ``func`` changes the shape, dtype
    or bounds of the observations, so the wrapper's
    `observation_space` keeps containing them; without it the env's
    space is kept.

    ``func`` was called ``fn`` before sekai 0.2: ``fn=`` is still accepted
    and emits a [`DeprecatedAPI`][sekai.error.DeprecatedAPI] warning (a
    ``DeprecationWarning``).

    Args:
        env: The environment to wrap.
        func: The transformation, called with one observation.
        new_observation_space: The space of the transformed observations.
        fn: Deprecated name of ``func``.

    Raises:
        TypeError: ``func`` is missing or not callable, both ``func`` and
            ``fn`` are given, or ``new_observation_space`` is not a Space.
    """

    def __init__(
        self,
        env: Env[Any, ActType],
        func: Callable[[Any], Any] | None = None,
        new_observation_space: Space[Any] | None = None,
        *,
        fn: Callable[[Any], Any] | None = None,
    ) -> None:
        self.func: Callable[[Any], Any] = resolve_func("TransformObservation", func, fn)
        if new_observation_space is not None and not isinstance(new_observation_space, Space):
            raise TypeError(
                "TransformObservation: new_observation_space must be a sekai.spaces.Space, "
                f"got {new_observation_space!r}"
            )
        super().__init__(env)
        if new_observation_space is not None:
            self.observation_space = new_observation_space

    def observation(self, obs: Any) -> Any:
        """Return ``func(observation)``."""
        return self.func(obs)
