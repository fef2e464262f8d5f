"""ClipAction: clip continuous actions into the env's bounds."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActionWrapper, Env, ObsType
from sekai.error import InvalidAction
from sekai.spaces import Box
from sekai.wrappers._box import clip_into, require_box

__all__ = ["ClipAction"]


class ClipAction(ActionWrapper[ObsType, NDArray[np.float32], NDArray[np.float32]]):
    """Clips continuous actions to the bounds of the env's Box action space.

    Useful when a policy (e.g. a Gaussian one) can output values outside the
    valid range. The wrapper accepts any finite-or-not array of the right
    shape: its action space is the env's shape and dtype with infinite
    bounds. Clipped actions have the env's dtype. An action of another shape
    is refused rather than broadcast (a scalar would otherwise become the
    same value in every component).

    Args:
        env: An environment with a floating-point Box action space.

    Raises:
        TypeError: The action space is not a floating-point Box.
    """

    def __init__(self, env: Env[ObsType, NDArray[np.float32]]) -> None:
        space = require_box(env.action_space, "ClipAction", "action")
        if space.dtype.kind != "f":
            raise TypeError(f"ClipAction needs a floating-point Box action space, got {space!r}")
        super().__init__(env)
        self._low, self._high, self._dtype = space.low, space.high, space.dtype
        self._shape = space.shape
        self.action_space = Box(-np.inf, np.inf, space.shape, space.dtype)

    def action(self, action: NDArray[np.float32]) -> NDArray[np.float32]:
        """Clip one action into the env's bounds.

        Raises:
            InvalidAction: The action does not have the action space's shape.
        """
        value = np.asarray(action, dtype=self._dtype)
        if value.shape != self._shape:
            raise InvalidAction(
                f"ClipAction: expected an action of shape {self._shape}, got one of shape "
                f"{value.shape}: {action!r}"
            )
        return clip_into(value, self._low, self._high)

    def reverse_action(self, action: NDArray[np.float32]) -> NDArray[np.float32]:
        """An env action is already an action of this wrapper: returned as an array."""
        return np.asarray(action, dtype=self._dtype)
