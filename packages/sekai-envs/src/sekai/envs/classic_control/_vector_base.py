"""The base of the native classic-control vector envs: resets from per-env streams (private)."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.envs.classic_control._common import choices
from sekai.envs.classic_control._env_base import ClassicEnv
from sekai.envs.classic_control._initial_states import InitialStates
from sekai.error import InvalidAction
from sekai.vector import NativeVecEnv

__all__ = [
    "SMALL_BATCH",
    "ClassicVecEnv",
    "box_action_values",
    "check_box_actions",
    "check_discrete_actions",
    "discrete_action_list",
    "numbers_only",
]

SMALL_BATCH = 8
"""Batches up to this many sub-envs step row by row on Python floats (see `ClassicVecEnv`)."""

ActT = TypeVar("ActT")


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


def discrete_action_list(actions: Any, n: int, owner: str, num_envs: int) -> list[int]:
    """`check_discrete_actions` for a small batch: the actions as a list of ints.

    The same checks and the same error as `check_discrete_actions`, on
    Python ints (cheaper than numpy calls for a few sub-envs).
    """
    if actions.dtype.kind not in "iu":
        raise InvalidAction(
            f"{owner} expects integer actions {choices(n)} of shape ({num_envs},), got {actions!r}"
        )
    values: list[int] = actions.tolist()
    for value in values:
        if not 0 <= value < n:
            raise InvalidAction(
                f"{owner} expects integer actions {choices(n)} of shape ({num_envs},), "
                f"got {actions!r}"
            )
    return values


_NUMBERS = frozenset((float, int))


def numbers_only(values: tuple[Any, ...]) -> bool:
    """Whether every value is a Python float or int (no array, no numpy scalar).

    A parameter set per sub-env is an array, and a numpy scalar follows
    numpy's promotion rules, not Python's: either keeps the array code.
    """
    return all(map(_NUMBERS.__contains__, map(type, values)))


def box_action_values(actions: Any, owner: str, num_envs: int) -> NDArray[np.float32]:
    """`check_box_actions` for a small batch: the same result and errors, NaN found in Python."""
    if actions.dtype.kind not in "fiu":
        raise InvalidAction(
            f"{owner} expects real actions of shape ({num_envs}, 1), got {actions!r}"
        )
    values: NDArray[np.float32] = actions.reshape(num_envs).astype(np.float32)
    if any(map(math.isnan, values.tolist())):
        raise InvalidAction(f"{owner} expects real actions, got NaN in {actions!r}")
    return values


def check_box_actions(actions: Any, owner: str, num_envs: int) -> NDArray[np.float32]:
    """The batch of ``Box((1,), float32)`` actions as ``num_envs`` float32 values.

    Any real dtype is accepted and converted to float32 (the dtype of the
    action space); values outside the space's bounds are the env's to clip.

    Raises:
        InvalidAction: The actions are not real numbers, or one is NaN.
    """
    if actions.dtype.kind not in "fiu":
        raise InvalidAction(
            f"{owner} expects real actions of shape ({num_envs}, 1), got {actions!r}"
        )
    values: NDArray[np.float32] = actions.reshape(num_envs).astype(np.float32)
    if np.isnan(values).any():
        raise InvalidAction(f"{owner} expects real actions, got NaN in {actions!r}")
    return values


class ClassicVecEnv(NativeVecEnv[NDArray[np.float32], ActT]):
    """The native vector env of a classic-control task: every sub-env's state in one array.

    The task is that of the single env given to the constructor: its spaces,
    its state size and its resets. A reset draws the single env's ``_width``
    uniform numbers per sub-env, within the bounds its ``_bounds`` reads from
    the options, from each sub-env's own stream, in the order the single env
    draws them, ahead of time when it can (see `InitialStates`);
    subclasses turn the draws into states (`_start`) and implement
    ``_step``.

    Small batches (up to ``_small_batch`` sub-envs, `SMALL_BATCH` unless a
    subclass says otherwise) pay numpy's fixed cost per call more than they
    gain from arrays: there, while every parameter is a number (none set per
    sub-env), ``_step`` runs the single env's formulas row by row on Python
    floats, term for term in the same order, which gives the same bits as
    the array code.

    The states are held in ``_state``: float64, one row per sub-env, or one
    row per state variable when the class sets ``_by_variable`` (the
    subclass's ``_step`` may replace the array). `state` reads and
    assigns them; the default `_observe` rounds them to float32.

    Args:
        num_envs: Number of sub-envs.
        single: A single env of the task, with the parameters to start from.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional time limit per episode.
    """

    _by_variable: ClassVar[bool] = False
    _observe_checked: ClassVar[bool] = False  # every _observe here gives (num_envs, n) float32
    _small_batch: ClassVar[int] = SMALL_BATCH

    def __init__(
        self,
        num_envs: int,
        single: ClassicEnv[ActT, Any],
        *,
        autoreset: bool,
        max_episode_steps: int | None,
    ) -> None:
        super().__init__(
            num_envs,
            single.observation_space,
            single.action_space,
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self._option_bounds = single._bounds
        self._default_bounds = single._bounds(None)
        self._initial = InitialStates(self.num_envs, single._width, *self._default_bounds)
        self._size = size = single._size
        shape = (size, self.num_envs) if self._by_variable else (self.num_envs, size)
        self._state: NDArray[np.float64] = np.zeros(shape, dtype=np.float64)
        self._never = np.zeros(self.num_envs, dtype=np.bool_)  # a flag no sub-env raises
        self._small = self.num_envs <= self._small_batch  # step row by row (see the docstring)

    @property
    def state(self) -> NDArray[np.float64]:
        """The ``(num_envs, n)`` float64 states, one row per sub-env, a copy.

        Assigning an array of that shape with finite values sets the state of
        every sub-env (e.g. to start them from given states); anything else
        raises ``ValueError``. The class docstring names the ``n`` variables.
        """
        state = self._state
        rows: NDArray[np.float64] = (state.T if self._by_variable else state).copy()
        return rows

    @state.setter
    def state(self, value: Any) -> None:
        shape = (self.num_envs, self._size)
        array = np.asarray(value, dtype=np.float64)
        if array.shape != shape or not bool(np.all(np.isfinite(array))):
            raise ValueError(
                f"{type(self).__name__} state must be finite with shape {shape}, got {value!r}"
            )
        self._state[...] = array.T if self._by_variable else array
        self._assigned()

    def _assigned(self) -> None:
        """Called when `state` has been assigned; the default does nothing."""

    @property
    def rngs(self) -> tuple[np.random.Generator, ...]:
        """The sub-envs' generators (see `NativeVecEnv.rngs`), each at its exact position.

        Initial states drawn ahead and not used yet are given back to the
        streams first, so a generator read here continues exactly where a
        single env's would.
        """
        self._initial.settle_all()
        return super().rngs

    def _followed_rngs(self) -> tuple[np.random.Generator, ...]:
        """The generators, with `_initial` following the current ones."""
        initial = self._initial
        rngs = self._rngs  # the base's tuple: self.rngs would settle every generator
        if rngs is None or rngs is not initial.rngs:  # first use, or re-seeded
            rngs = super().rngs
            initial.follow(rngs)
        return rngs

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
        bounds = [None if not option else self._option_bounds(option) for option in options]
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

    def _observe(self) -> NDArray[np.float32]:
        """The states rounded to float32 (for one row per sub-env; else overridden)."""
        return self._state.astype(np.float32)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_envs={self.num_envs})"
