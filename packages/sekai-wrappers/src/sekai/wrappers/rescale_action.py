"""RescaleAction: a policy acting in a fixed range, an env with its own bounds."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import ActionWrapper, Env, ObsType
from sekai.error import InvalidAction
from sekai.spaces import Box
from sekai.utils.masking import supports_action_mask
from sekai.wrappers._box import as_bound, clip_into, require_box

__all__ = ["RescaleAction"]


class RescaleAction(ActionWrapper[ObsType, NDArray[np.float32], NDArray[np.float32]]):
    """Rescales continuous actions from ``[min_action, max_action]`` to the env's range.

    Useful when a policy outputs actions in a fixed range (e.g. ``[-1, 1]``)
    and the env expects another one. Each component is mapped affinely from
    ``[min_action, max_action]`` onto ``[low, high]`` of the env's Box and
    clipped to the env's bounds; `reverse_action` maps the other way
    and clips to ``[min_action, max_action]``. The wrapper's action space is
    ``Box(min_action, max_action)`` with the env's shape and dtype; an action
    of another shape is refused rather than broadcast.

    Action masks: if the env implements ``action_mask()`` (see
    `sekai.utils.masking`), the components its mask sets to ``False``
    reach the env as the env's zero (``env.action_space.zero()``), as the
    mask convention requires, whatever the policy put there. Rescaling would
    otherwise turn this wrapper's zero (what ``sample(mask=...)`` puts in a
    masked component) into the middle of the env's range.
    `reverse_action` does not apply the mask.

    Args:
        env: An environment with a floating-point Box action space with
            finite bounds.
        min_action: Lower bound(s) of the policy's actions.
        max_action: Upper bound(s) of the policy's actions.

    Raises:
        TypeError: The action space is not a floating-point Box, or a bound
            is not numeric.
        ValueError: The env's bounds are not finite, a bound is not finite or
            does not broadcast, or ``min_action >= max_action`` somewhere.
    """

    def __init__(
        self,
        env: Env[ObsType, NDArray[np.float32]],
        min_action: float | NDArray[np.float32],
        max_action: float | NDArray[np.float32],
    ) -> None:
        owner = "RescaleAction"
        space = require_box(env.action_space, owner, "action", bounded=True)
        if space.dtype.kind != "f":
            raise TypeError(f"{owner} needs a floating-point Box action space, got {space!r}")
        low = as_bound(min_action, space.shape, owner, "min_action")
        high = as_bound(max_action, space.shape, owner, "max_action")
        if bool(np.any(low >= high)):
            raise ValueError(
                f"{owner}: min_action must be < max_action everywhere, got "
                f"min_action={min_action!r}, max_action={max_action!r}"
            )
        super().__init__(env)
        self.min_action: NDArray[np.float64] = low
        self.max_action: NDArray[np.float64] = high
        env_low = space.low.astype(np.float64)
        env_range = space.high.astype(np.float64) - env_low
        scale = env_range / (high - low)
        self._scale, self._offset = scale, env_low - low * scale
        self._inverse_scale = np.divide(
            high - low, env_range, out=np.zeros_like(env_range), where=env_range > 0
        )
        self._dtype = space.dtype
        self._shape = space.shape
        self._env_low, self._env_high, self._env_zero = space.low, space.high, space.zero()
        wrapper_space = Box(low, high, space.shape, space.dtype)
        self.action_space = wrapper_space
        self._low, self._high = wrapper_space.low, wrapper_space.high
        self._masked = supports_action_mask(env)

    def action(self, action: NDArray[np.float32]) -> NDArray[np.float32]:
        """Map one action onto the env's range (masked components become the env's zero).

        Raises:
            InvalidAction: The action does not have the action space's shape.
        """
        value = np.asarray(action, dtype=np.float64)
        if value.shape != self._shape:
            raise InvalidAction(
                f"RescaleAction: expected an action of shape {self._shape}, got one of shape "
                f"{value.shape}: {action!r}"
            )
        value = value * self._scale + self._offset
        out: NDArray[Any] = clip_into(value.astype(self._dtype), self._env_low, self._env_high)
        if self._masked:
            mask = self.env.action_mask()  # type: ignore[attr-defined]
            if mask is not None:
                out = np.where(np.asarray(mask, dtype=np.bool_), out, self._env_zero)
        return out

    def reverse_action(self, action: NDArray[np.float32]) -> NDArray[np.float32]:
        """Map one env action back onto ``[min_action, max_action]``."""
        value = (np.asarray(action, dtype=np.float64) - self._env_low) * self._inverse_scale
        return clip_into((value + self.min_action).astype(self._dtype), self._low, self._high)
