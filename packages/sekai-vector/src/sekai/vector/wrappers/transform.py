"""VecTransformObservation and VecTransformReward: apply a function to every batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._internal.validation import check_callable
from sekai.core import ActType, ObsType
from sekai.spaces import Space
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers.base import VecObservationWrapper, VecRewardWrapper

__all__ = ["VecTransformObservation", "VecTransformReward"]


class VecTransformObservation(VecObservationWrapper[Any, ActType, Any]):
    """Applies ``func`` to every batch of observations (and to terminal observations).

    ``func`` receives a whole batch (leading ``num_envs`` axis); terminal
    observations from autoreset infos go through it as batches of one.

    Args:
        venv: The vector env to wrap.
        func: The transformation of a batch.
        new_observation_space: The single-env observation space after the
            transformation; ``None`` keeps the wrapped env's.

    Raises:
        TypeError: ``func`` is not callable, or ``new_observation_space`` is
            neither a Space nor ``None``.

    Examples:
        >>> vec = VecTransformObservation(vec, lambda obs: obs / 255.0)  # doctest: +SKIP
    """

    def __init__(
        self,
        venv: VecEnv[Any, ActType],
        func: Callable[[Any], Any],
        new_observation_space: Space[Any] | None = None,
    ) -> None:
        check_callable(func, "VecTransformObservation: func")
        if new_observation_space is not None and not isinstance(new_observation_space, Space):
            raise TypeError(
                "VecTransformObservation: new_observation_space must be a sekai.spaces.Space "
                f"or None, got {new_observation_space!r}"
            )
        super().__init__(venv)
        self.func = func
        if new_observation_space is not None:
            self.observation_space = new_observation_space

    def observation(self, obs: Any) -> Any:
        """Return ``func(obs)``."""
        return self.func(obs)


class VecTransformReward(VecRewardWrapper[ObsType, ActType]):
    """Applies ``func`` to every batch of rewards, a float64 ``(num_envs,)`` array.

    The result is converted to float64.

    Args:
        venv: The vector env to wrap.
        func: The transformation of a batch of rewards.

    Raises:
        TypeError: ``func`` is not callable.

    Examples:
        >>> vec = VecTransformReward(vec, np.sign)  # doctest: +SKIP
    """

    def __init__(
        self,
        venv: VecEnv[ObsType, ActType],
        func: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    ) -> None:
        check_callable(func, "VecTransformReward: func")
        super().__init__(venv)
        self.func = func

    def reward(self, rewards: Any) -> Any:
        """Return ``func(rewards)``."""
        return self.func(rewards)
