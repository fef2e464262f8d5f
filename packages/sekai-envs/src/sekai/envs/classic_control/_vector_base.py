"""The base of the native classic-control vector envs: resets from per-env streams (private)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._common import choices
from sekai.envs.classic_control._initial_states import InitialStates
from sekai.error import InvalidAction
from sekai.spaces import Space
from sekai.vector import NativeVecEnv

__all__ = ["ClassicVecEnv", "check_discrete_actions"]

ActT = TypeVar("ActT")

Bounds = tuple[Any, Any]
"""The ``(low, high)`` of one reset's uniform draw: floats or arrays of ``width``."""


def check_discrete_actions(actions: Any, n: int, owner: str, num_envs: int) -> NDArray[np.intp]:
    """The batch of ``Discrete(n)`` actions as intp indices, or ``InvalidAction``."""
    if actions.dtype.kind not in "iu":
        raise InvalidAction(
            f"{owner} expects integer actions {choices(n)} of shape ({num_envs},), got {actions!r}"
        )
    indices: NDArray[np.intp] = actions.astype(np.intp, copy=False)
    # Read as unsigned, a negative action is huge: one comparison finds both faults.
    if indices.size and indices.view(np.uintp).max() >= n:
        raise InvalidAction(
            f"{owner} expects integer actions {choices(n)} of shape ({num_envs},), got {actions!r}"
        )
    return indices


class ClassicVecEnv(NativeVecEnv[NDArray[np.float32], ActT]):
    """A native vector env whose resets draw ``width`` uniform numbers per sub-env.

    Subclasses say how to read a reset's options (:meth:`_bounds`) and how to
    turn the draws into states (:meth:`_start`); this class draws them from
    each sub-env's own stream, in the order the single env draws them, ahead
    of time when it can (see :class:`InitialStates`).

    Args:
        num_envs: Number of sub-envs.
        observation_space: One sub-env's observation space.
        action_space: One sub-env's action space.
        width: Numbers drawn per reset.
        default_bounds: The ``(low, high)`` of a reset without options.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional time limit per episode.
    """

    def __init__(
        self,
        num_envs: int,
        observation_space: Space[NDArray[np.float32]],
        action_space: Space[ActT],
        *,
        width: int,
        default_bounds: Bounds,
        autoreset: bool,
        max_episode_steps: int | None,
    ) -> None:
        super().__init__(
            num_envs,
            observation_space,
            action_space,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self._default_bounds = default_bounds
        self._initial = InitialStates(self.num_envs, width, *default_bounds)

    @property
    def rngs(self) -> tuple[np.random.Generator, ...]:
        """The sub-envs' generators (see :attr:`NativeVecEnv.rngs`), each at its exact position.

        Initial states drawn ahead and not used yet are given back to the
        streams first, so a generator read here continues exactly where a
        single env's would.
        """
        self._initial.settle_all()
        return super().rngs

    def _followed_rngs(self) -> tuple[np.random.Generator, ...]:
        """The generators, with :attr:`_initial` following the current ones."""
        initial = self._initial
        rngs = self._rngs  # the base's tuple: self.rngs would settle every generator
        if rngs is None or rngs is not initial.rngs:  # first use, or re-seeded
            rngs = super().rngs
            initial.follow(rngs)
        return rngs

    @abstractmethod
    def _bounds(self, options: dict[str, Any]) -> Bounds:
        """The ``(low, high)`` of a reset with these (non-empty) options; checks them."""

    @abstractmethod
    def _start(self, indices: NDArray[np.intp], draws: NDArray[np.float64]) -> None:
        """Set the sub-envs in ``indices`` to the initial states ``draws`` describe."""

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        initial = self._initial
        self._followed_rngs()
        # Autoreset passes only None: counted in C, before the general check.
        if options.count(None) == len(options) or all(not option for option in options):
            self._start(indices, initial.take(indices))
            return
        # Every option is checked before anything is drawn.
        bounds = [None if not option else self._bounds(option) for option in options]
        default_low, default_high = self._default_bounds
        draws = np.empty((len(indices), initial.width))
        for row, (index, bound) in enumerate(zip(indices.tolist(), bounds, strict=True)):
            if bound is None or (
                np.array_equal(bound[0], default_low) and np.array_equal(bound[1], default_high)
            ):
                draws[row] = initial.take(np.array([index], dtype=np.intp))[0]
            else:
                draws[row] = initial.draw(index, *bound)
        self._start(indices, draws)
