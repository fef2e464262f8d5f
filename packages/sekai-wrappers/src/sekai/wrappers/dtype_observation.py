"""DtypeObservation: cast Box observations to another dtype."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai.core import ActType, Env, ObservationWrapper
from sekai.spaces import Box
from sekai.wrappers._box import require_box

__all__ = ["DtypeObservation"]


class DtypeObservation(ObservationWrapper[NDArray[Any], ActType, NDArray[Any]]):
    """Casts Box observations to ``dtype`` (e.g. a float64 simulator feeding a float32 policy).

    The bounds of the new space are the old ones cast the same way, so every
    cast observation stays inside it (casts are monotonic; finite float
    bounds too large for the new float dtype become infinite). Casting to an
    integer dtype truncates towards zero and needs finite bounds that fit in
    that dtype.

    Args:
        env: An environment with a Box observation space.
        dtype: A numeric numpy dtype.

    Raises:
        TypeError: The observation space is not a Box, or ``dtype`` is not a
            numeric dtype.
        ValueError: An integer ``dtype`` with infinite bounds, or bounds that
            do not fit in it.
    """

    def __init__(self, env: Env[NDArray[Any], ActType], dtype: DTypeLike) -> None:
        space = require_box(env.observation_space, "DtypeObservation", "observation")
        if dtype is None:  # numpy reads None as float64
            raise TypeError("DtypeObservation: dtype must be a numpy dtype, got None")
        try:
            target = np.dtype(dtype)
        except TypeError as error:
            raise TypeError(
                f"DtypeObservation: dtype must be a numpy dtype, got {dtype!r}"
            ) from error
        if target.kind not in "iuf":
            raise TypeError(
                f"DtypeObservation: dtype must be an integer or floating dtype, got {dtype!r}"
            )
        if target.kind in "iu":
            if not (np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))):
                raise ValueError(
                    f"DtypeObservation: cannot cast {space!r} to {target}: integer boxes need "
                    "finite bounds"
                )
            info = np.iinfo(target)
            if space.low.min(initial=0) < info.min or space.high.max(initial=0) > info.max:
                raise ValueError(
                    f"DtypeObservation: the bounds of {space!r} do not fit in {target} "
                    f"([{info.min}, {info.max}])"
                )
            low, high = np.trunc(space.low).astype(target), np.trunc(space.high).astype(target)
        else:
            with np.errstate(over="ignore"):
                low, high = space.low.astype(target), space.high.astype(target)
        super().__init__(env)
        self.dtype = target
        self.observation_space = Box(low, high, space.shape, target)

    def observation(self, obs: NDArray[Any]) -> NDArray[Any]:
        """Cast one observation (a new array)."""
        return np.asarray(obs).astype(self.dtype)
