"""RescaleObservation: map a bounded Box observation onto new bounds."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActType, Env, ObservationWrapper
from sekai.error import InvalidObservation
from sekai.spaces import Box
from sekai.spaces.box import float_dtype
from sekai.wrappers._box import as_bound, require_box

__all__ = ["RescaleObservation"]


class RescaleObservation(ObservationWrapper[NDArray[Any], ActType, NDArray[Any]]):
    """Maps a bounded Box observation affinely onto ``[min_obs, max_obs]``.

    Each component goes from ``[low, high]`` of the env's space to
    ``[min_obs, max_obs]`` (scalars or arrays broadcast to the observation
    shape); a component whose env bounds are equal maps to ``min_obs``.
    Results are clipped to the new bounds, so float rounding never leaves
    the space. Integer observations (e.g. ``uint8`` pixels) become
    ``float32``; floating observations keep their dtype.

    Args:
        env: An environment with a Box observation space with finite bounds.
        min_obs: Lower bound(s) of the rescaled observations.
        max_obs: Upper bound(s) of the rescaled observations.

    Raises:
        TypeError: The observation space is not a Box, or a bound is not numeric.
        ValueError: The env's bounds are not finite, a new bound is not
            finite or does not broadcast, or ``min_obs > max_obs`` somewhere.
    """

    def __init__(
        self,
        env: Env[NDArray[Any], ActType],
        min_obs: float | NDArray[Any],
        max_obs: float | NDArray[Any],
    ) -> None:
        space = require_box(
            env.observation_space, "RescaleObservation", "observation", bounded=True
        )
        low = as_bound(min_obs, space.shape, "RescaleObservation", "min_obs")
        high = as_bound(max_obs, space.shape, "RescaleObservation", "max_obs")
        if bool(np.any(low > high)):
            raise ValueError(
                f"RescaleObservation: min_obs must be <= max_obs, got min_obs={min_obs!r}, "
                f"max_obs={max_obs!r}"
            )
        super().__init__(env)
        dtype = float_dtype(space.dtype)
        self.min_obs: NDArray[np.float64] = low
        self.max_obs: NDArray[np.float64] = high
        env_low = space.low.astype(np.float64)
        env_range = space.high.astype(np.float64) - env_low
        span = np.divide(high - low, env_range, out=np.zeros_like(env_range), where=env_range > 0)
        self._scale = span
        self._offset = low - env_low * span
        self._dtype = dtype
        self._shape = space.shape
        box = Box(low, high, space.shape, dtype)
        self._low, self._high = box.low, box.high
        self.observation_space = box

    def observation(self, obs: NDArray[Any]) -> NDArray[Any]:
        """Rescale one observation.

        Raises:
            InvalidObservation: The observation does not have the env's
                observation shape.
        """
        value = np.asarray(obs, dtype=np.float64)
        if value.shape != self._shape:
            raise InvalidObservation(
                f"RescaleObservation: expected an observation of shape {self._shape}, got one "
                f"of shape {value.shape}: {obs!r}"
            )
        # asarray: for a Box of shape () the arithmetic gives a numpy scalar.
        out: NDArray[Any] = np.asarray((value * self._scale + self._offset).astype(self._dtype))
        np.maximum(out, self._low, out=out)
        np.minimum(out, self._high, out=out)
        return out
