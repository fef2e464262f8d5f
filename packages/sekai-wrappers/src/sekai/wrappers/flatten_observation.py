"""FlattenObservation: any fixed-shape observation as one float32 vector."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import flatten, flatten_space

__all__ = ["FlattenObservation"]


class FlattenObservation(ObservationWrapper[NDArray[np.float32], ActType, Any]):
    """Flattens observations of a nested space into 1-D ``float32`` arrays.

    Uses [`sekai.spaces.flatten`][sekai.spaces.flatten] (Boxes raveled, Discretes one-hot,
    Dicts and Tuples concatenated in order, a MaskedBox as its values then
    its mask); the observation space becomes
    [`sekai.spaces.flatten_space`][sekai.spaces.flatten_space] of the env's. The flattening function
    for the space is chosen once, at construction.

    Args:
        env: The environment to wrap.

    Raises:
        TypeError: The observation space cannot be flattened (it holds a
            ``Sequence``; see ``PadSequenceObservation``).
    """

    def __init__(self, env: Env[Any, ActType]) -> None:
        super().__init__(env)
        space = env.observation_space
        if not space.is_flattenable:
            raise TypeError(
                f"FlattenObservation needs a fixed-shape observation space, got {space!r} "
                "(wrap variable-length Sequence observations in PadSequenceObservation first)"
            )
        self.observation_space = flatten_space(space)
        self._flatten = partial(flatten.dispatch(type(space)), space)

    def observation(self, obs: Any) -> NDArray[np.float32]:
        """Flatten one observation."""
        return self._flatten(obs)
