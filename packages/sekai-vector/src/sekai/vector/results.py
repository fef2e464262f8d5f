"""Typed results of ``VecEnv.step()`` and ``VecEnv.reset()``, and `stack_infos`.

Like sekai.core's results they are not tuples: unpacking one the Gymnasium
way (``obs, infos = vec.reset()``) or iterating over it raises
`sekai.error.ResultNotIterable` (a ``TypeError``) naming the fields to read
and `sekai.compat.to_gymnasium_vector`, whose env returns tuples. Type
checkers see no ``__iter__``; at run time the refusing one makes
``isinstance(result, collections.abc.Iterable)`` ``True``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Generic, NoReturn

import numpy as np
from numpy.typing import NDArray

from sekai.core import InfoDict, ObsType
from sekai.core._equality import fields_equal
from sekai.core.results import refuse_delete, refuse_iteration, refuse_set, slot_writers
from sekai.vector._rows import stack_values

__all__ = ["VecResetResult", "VecStepResult", "stack_infos"]

_STEP_FIELDS = ("observations", "rewards", "terminated", "truncated", "infos", "env_ids")
_RESET_FIELDS = ("observations", "infos")


class _Rows:
    """The ``env_ids`` slot of `VecStepResult`, kept out of its dataclass fields.

    sekai 0.2 code reads ``dataclasses.fields(VecStepResult)``: the five
    fields stay what they were.
    """

    __slots__ = ("env_ids",)


@dataclass(frozen=True, eq=False, slots=True, init=False)
class VecStepResult(_Rows, Generic[ObsType]):
    """What [`VecEnv.step`][sekai.vector.VecEnv.step] returns.

    The batched counterpart of [`StepResult`][sekai.core.StepResult], with one entry
    per sub-env along the leading axis.

    Attributes:
        observations: The batch of observations, shape ``(num_envs, *obs_shape)``
            for array spaces (a dict / tuple of such batches for Dict / Tuple
            spaces). Freshly allocated for every step. For a sub-env that was
            reset by autoreset, its row is the new episode's first observation.
        rewards: float64 array of shape ``(num_envs,)``.
        terminated: bool array of shape ``(num_envs,)``.
        truncated: bool array of shape ``(num_envs,)``.
        infos: One info dict per sub-env (a list, not a dict of arrays; see
            `stack_infos` for the other layout). A
            [`NativeVecEnv`][sekai.vector.NativeVecEnv] builds this list the first
            time it is read, from a snapshot taken during the step, so a
            training loop that never reads it does not pay for thousands
            of dicts per step.
        env_ids: Which sub-envs the rows are, as an int64 array, for a
            partial batch (what [`VecEnv.recv`][sekai.vector.VecEnv.recv]
            returns when ``batch_size < num_envs``); ``None`` when the rows
            are every sub-env in order (what [`VecEnv.step`][sekai.vector.VecEnv.step] returns).

    Like [`StepResult`][sekai.core.StepResult], ``==`` compares the fields by value,
    looking inside numpy arrays (same shape, equal elements) and the dicts,
    tuples and lists holding them; ``hash()`` hashes the fields, as a frozen
    dataclass does, so it raises ``TypeError`` (the infos are a list).

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``) that names the fields
    to read and `sekai.compat.to_gymnasium_vector`, although
    ``isinstance(result, collections.abc.Iterable)`` is ``True``.
    """

    observations: ObsType
    rewards: NDArray[np.float64]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    infos: list[InfoDict]
    if TYPE_CHECKING:
        env_ids: NDArray[np.int64] | None

    def __init__(
        self,
        observations: ObsType,
        rewards: NDArray[np.float64],
        terminated: NDArray[np.bool_],
        truncated: NDArray[np.bool_],
        infos: list[InfoDict],
        env_ids: NDArray[np.int64] | None = None,
    ) -> None:
        _step_observations(self, observations)
        _step_rewards(self, rewards)
        _step_terminated(self, terminated)
        _step_truncated(self, truncated)
        _step_infos(self, infos)
        _step_env_ids(self, env_ids)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(self, other, _STEP_FIELDS)

    def __hash__(self) -> int:
        # The hash of the fields, as a frozen dataclass's (and sekai.core's
        # results): the arrays and the infos list make it raise TypeError, as
        # in sekai 0.2.
        return hash((self.observations, self.rewards, self.terminated, self.truncated, self.infos))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "vec.step(actions)", "to_gymnasium_vector")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (
                self.observations,
                self.rewards,
                self.terminated,
                self.truncated,
                self.infos,
                self.env_ids,
            ),
        )

    @property
    def dones(self) -> NDArray[np.bool_]:
        """``terminated | truncated``: which sub-envs finished an episode on this step."""
        return np.logical_or(self.terminated, self.truncated)

    @property
    def num_envs(self) -> int:
        """Number of sub-envs in the batch (its rows; ``batch_size`` for a partial batch)."""
        return len(self.rewards)


@dataclass(frozen=True, eq=False, slots=True, init=False)
class VecResetResult(Generic[ObsType]):
    """What [`VecEnv.reset`][sekai.vector.VecEnv.reset] returns.

    Attributes:
        observations: The batch of first observations (see
            `VecStepResult`).
        infos: One reset info dict per sub-env.

    ``==`` compares by value, as for `VecStepResult`.

    Not a tuple: unpacking or iterating over it raises
    `sekai.error.ResultNotIterable` (a ``TypeError``) that names the fields
    to read and `sekai.compat.to_gymnasium_vector`, although
    ``isinstance(result, collections.abc.Iterable)`` is ``True``.
    """

    observations: ObsType
    infos: list[InfoDict]

    def __init__(self, observations: ObsType, infos: list[InfoDict]) -> None:
        _reset_observations(self, observations)
        _reset_infos(self, infos)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return fields_equal(self, other, _RESET_FIELDS)

    def __hash__(self) -> int:
        return hash((self.observations, self.infos))

    if not TYPE_CHECKING:  # unpacking stays a type error for type checkers

        def __iter__(self) -> NoReturn:
            refuse_iteration(self, "vec.reset()", "to_gymnasium_vector")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.observations, self.infos))

    @property
    def dones(self) -> NDArray[np.bool_]:
        """All ``False``, shape ``(num_envs,)``: no sub-env is done right after a reset.

        Mirrors `VecStepResult.dones`, so one loop condition covers the
        reset and the steps that follow.
        """
        return np.zeros(len(self.infos), dtype=bool)

    @property
    def num_envs(self) -> int:
        """Number of sub-envs in the batch."""
        return len(self.infos)


(
    _step_observations,
    _step_rewards,
    _step_terminated,
    _step_truncated,
    _step_infos,
) = slot_writers(VecStepResult, "observations", "rewards", "terminated", "truncated", "infos")
_step_env_ids = _Rows.__dict__["env_ids"].__set__
_reset_observations, _reset_infos = slot_writers(VecResetResult, "observations", "infos")


class _DeferredInfos:
    """The recipe for a step's info dicts, stored in the ``infos`` slot until first read."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[[], list[InfoDict]]) -> None:
        self.build = build


class _InfosField:
    """``VecStepResult.infos``: the stored list, built first if it was deferred."""

    __slots__ = ("_slot",)

    def __init__(self, slot: Any) -> None:
        self._slot = slot

    def __get__(self, result: Any, owner: type | None = None) -> Any:
        if result is None:
            return self
        value = self._slot.__get__(result, owner)
        if type(value) is _DeferredInfos:
            value = value.build()
            self._slot.__set__(result, value)
        return value

    def __set__(self, result: Any, value: Any) -> None:
        refuse_set(result, "infos", value)

    def __delete__(self, result: Any) -> None:
        refuse_delete(result, "infos")


_infos_slot = VecStepResult.__dict__["infos"]
type.__setattr__(VecStepResult, "infos", _InfosField(_infos_slot))


def deferred_step_result(
    observations: ObsType,
    rewards: NDArray[np.float64],
    terminated: NDArray[np.bool_],
    truncated: NDArray[np.bool_],
    build_infos: Callable[[], list[InfoDict]],
    env_ids: NDArray[np.int64] | None = None,
) -> VecStepResult[ObsType]:
    """A `VecStepResult` whose ``infos`` are built by ``build_infos()`` when first read.

    ``build_infos`` must only use data that nothing changes afterwards (a
    snapshot of the step); it is called at most once per result.
    """
    result: VecStepResult[ObsType] = VecStepResult.__new__(VecStepResult)
    _step_observations(result, observations)
    _step_rewards(result, rewards)
    _step_terminated(result, terminated)
    _step_truncated(result, truncated)
    _step_infos(result, _DeferredInfos(build_infos))
    _step_env_ids(result, env_ids)
    return result


def step_result_like(
    result: VecStepResult[Any],
    observations: ObsType,
    rewards: NDArray[np.float64],
    infos: list[InfoDict] | None = None,
) -> VecStepResult[ObsType]:
    """``result`` with new observations and rewards (and infos, if given); same ``env_ids``.

    Without ``infos``, the new result takes ``result``'s infos; if those are
    not built yet, they stay deferred: a wrapper that only changes
    observations or rewards does not make every step build its info dicts.
    """
    if infos is None:
        stored = _infos_slot.__get__(result, VecStepResult)
        if type(stored) is _DeferredInfos:
            build = partial(getattr, result, "infos")
            return deferred_step_result(
                observations, rewards, result.terminated, result.truncated, build, result.env_ids
            )
        infos = stored
    return VecStepResult(
        observations, rewards, result.terminated, result.truncated, infos, result.env_ids
    )


def with_env_ids(
    result: VecStepResult[ObsType], env_ids: NDArray[np.int64] | None
) -> VecStepResult[ObsType]:
    """``result``'s fields (infos still deferred if they were) with ``env_ids``."""
    copy: VecStepResult[ObsType] = VecStepResult.__new__(VecStepResult)
    _step_observations(copy, result.observations)
    _step_rewards(copy, result.rewards)
    _step_terminated(copy, result.terminated)
    _step_truncated(copy, result.truncated)
    _step_infos(copy, _infos_slot.__get__(result, VecStepResult))
    _step_env_ids(copy, env_ids)
    return copy


def stack_infos(infos: list[InfoDict]) -> dict[str, Any]:
    """Turn per-env info dicts into one dict of arrays with a leading ``num_envs`` axis.

    Only keys present in every dict are kept. Numbers and equally shaped
    arrays stack into numeric arrays (strings into a string array); anything
    else (dicts, dataclasses, arrays of different shapes, a mix of strings
    and numbers) goes into a 1-D object array with one entry per sub-env,
    each value kept as it is.

    Args:
        infos: The ``infos`` of a `VecStepResult` or
            `VecResetResult`.

    Returns:
        ``{key: array}``; empty when ``infos`` is empty or no key is shared.

    Raises:
        TypeError: ``infos`` is not a list (or tuple) of dicts.

    Examples:
        >>> stacked = stack_infos([{"cash": 1.0, "id": "a"}, {"cash": 2.5}])
        >>> stacked
        {'cash': array([1. , 2.5])}
    """
    checked: object = infos
    if not isinstance(checked, (list, tuple)) or not all(isinstance(i, Mapping) for i in infos):
        raise TypeError(f"stack_infos expects a list of info dicts, got {infos!r}")
    if not infos:
        return {}
    first, rest = infos[0], infos[1:]
    keys = [key for key in first if all(key in info for info in rest)]
    return {key: stack_values([info[key] for info in infos]) for key in keys}
