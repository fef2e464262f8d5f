"""The base of the classic-control single envs: the state and its resets (private)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar, Generic, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["Bounds", "ClassicEnv"]

ActT = TypeVar("ActT")
FloatT = TypeVar("FloatT", bound=np.floating[Any])

Bounds = tuple[Any, Any]
"""The ``(low, high)`` of one reset's uniform draw: floats or arrays of ``width``."""


class ClassicEnv(Env[NDArray[np.float32], ActT], Generic[ActT, FloatT]):
    """A classic-control env: a short state vector, reset from uniform draws.

    The state is held in ``_state``, a list of ``_size`` numbers (``None``
    before the first reset), and read or assigned through `state`.
    `reset` reads its options with `_bounds`, draws ``_width``
    numbers from `rng` in one ``uniform`` call and hands them to
    `_start`. The native vector env of the task resets its sub-envs
    with the same `_bounds` and ``_width`` (see ``ClassicVecEnv``), so
    both consume a stream alike.

    Subclasses set ``_name`` (for messages), ``_size`` and ``_width``,
    implement `_bounds` and ``step``, and override `_start`,
    `_begin` or `_observation` where the defaults do not fit.
    ``FloatT`` is the scalar type of `state`.
    """

    _name: ClassVar[str]
    _size: ClassVar[int]
    _width: ClassVar[int]
    _state: list[Any] | None = None

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start a new episode from a random initial state (see the class docstring's *Reset*).

        Args:
            seed: Seed of the env's generator (see [`Env`][sekai.core.Env]).
            options: Other bounds of the initial-state distribution, under the
                keys the class docstring's *Reset* names (``"low"`` and
                ``"high"``; Pendulum's ``"x_init"`` and ``"y_init"``).

        Raises:
            ValueError: An option is not a finite real number, or the bounds
                are not valid (``low > high``; a negative Pendulum bound).
        """
        self._set_rng(seed)
        low, high = self._bounds(options)
        self._start(self.rng.uniform(low, high, size=self._width))
        return ResetResult(self._observation(), {})

    @property
    def state(self) -> NDArray[FloatT] | None:
        """The state, a fresh float64 array, or ``None`` before the first reset.

        Assigning a vector of finite numbers with the state's length sets it
        (e.g. to replay a trajectory from a given state); anything else raises
        ``ValueError``. The class docstring names the state variables.
        """
        state = self._state
        if state is None:
            return None
        return cast("NDArray[FloatT]", np.array(state, dtype=np.float64))

    @state.setter
    def state(self, value: Any) -> None:
        self._begin(self._checked_state(np.asarray(value, dtype=np.float64), value).tolist())

    def _checked_state(self, array: NDArray[Any], value: object) -> NDArray[Any]:
        """``array`` (``value`` converted) if it is ``_size`` finite numbers, else ValueError."""
        size = self._size
        if array.shape != (size,) or not bool(np.all(np.isfinite(array))):
            raise ValueError(f"{self._name} state must be {size} finite numbers, got {value!r}")
        return array

    @staticmethod
    @abstractmethod
    def _bounds(options: dict[str, Any] | None) -> Bounds:
        """The ``(low, high)`` of a reset with these options (``None``: defaults); checks them."""

    def _start(self, draws: NDArray[np.float64]) -> None:
        """Begin an episode from a reset's ``_width`` draws (default: the draws are the state)."""
        self._begin(draws.tolist())

    def _begin(self, values: list[Any]) -> None:
        """Make ``values`` the state, after a reset or an assignment to `state`."""
        self._state = values

    def _current_state(self) -> list[Any]:
        """The state; `ResetRequired` before the first reset (or assignment to `state`)."""
        state = self._state
        if state is None:
            raise ResetRequired(f"{self._name}: call reset() first")
        return state

    def _observation(self) -> NDArray[np.float32]:
        """The observation of the current state (default: the state rounded to float32)."""
        return np.array(self._state, dtype=np.float32)
