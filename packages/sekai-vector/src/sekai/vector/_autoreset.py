"""The autoreset and frozen-sub-env contract shared by every vector backend.

Autoreset (same step): when a sub-env's episode ends, it is reset within the
same ``step()``; the batch holds the new episode's first observation and the
sub-env's info holds the step's own keys plus ``"final_observation"``,
``"final_info"`` (the step's info) and ``"reset_info"``. A sub-env whose info
already carries ``"final_observation"`` reset itself (it is wrapped in
``AutoReset``), so it is neither reset again nor frozen.

Without autoreset, a finished sub-env is frozen until the next ``reset()``:
it is not stepped, and each later step reports its final observation, reward
0, its final flags and an empty info. `FrozenEnvs` keeps that state.

One rule for the flags, on every backend: ``terminated`` and ``truncated``
must be bools (Python or numpy) or the numbers 0 and 1; anything else (0.5,
``"no"``, 2, ``None``) raises [`InvalidObservation`][sekai.error.InvalidObservation] naming
the sub-env, before that sub-env is reset or frozen. A reward must be a real
number that fits a float64, and an info a dict. The flag checks cost
nothing in a step where every flag is ``False`` (`flags_all_false`); the
others run only when an episode ends or a value is wrong, after one pass
in C over the batch (`rewards_array`, `infos_all_dicts`).

An exception a sub-env raises in its own ``step()`` or ``reset()`` reaches
the caller as it is, with a note naming the sub-env (`note_sub_env`,
Python 3.11+), as the worker errors of the remote backends do.
"""

from __future__ import annotations

import math
import numbers
import reprlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.core import (
    FINAL_INFO,
    FINAL_OBSERVATION,
    RESET_INFO,
    Env,
    InfoDict,
    ResetResult,
    StepResult,
)
from sekai.error import InvalidObservation

Copier = Callable[[Any], Any]
"""Copies one observation (`sekai.spaces._layout.copier_for` of the observation space)."""

__all__ = [
    "FINAL_INFO",
    "FINAL_OBSERVATION",
    "RESET_INFO",
    "Ending",
    "FrozenEnvs",
    "async_end_episode",
    "autoreset_info",
    "check_flags",
    "check_infos",
    "end_episode",
    "flags_all_false",
    "frozen_step",
    "infos_all_dicts",
    "merge_autoreset",
    "needs_autoreset",
    "note_sub_env",
    "rewards_array",
]

# FINAL_INFO, FINAL_OBSERVATION and RESET_INFO are defined once, in sekai.core,
# and re-exported here for the vector modules.


def flags_all_false(terminated: Sequence[Any], truncated: Sequence[Any]) -> bool:
    """Whether every flag is ``False`` (or 0): the common step, where no episode ended.

    Two scans in C, as cheap as looking for a ``True``; anything else (an
    ended episode, a flag of the wrong type) takes the slow path, which
    checks each flag (`check_flags`).
    """
    n = len(terminated)
    return terminated.count(False) == n and truncated.count(False) == n


def flag_ok(value: object) -> bool:
    """Whether ``value`` is a valid ``terminated`` / ``truncated``: a bool, or the number 0 or 1."""
    if value is True or value is False or isinstance(value, np.bool_):
        return True
    return isinstance(value, numbers.Real) and (value == 0 or value == 1)


def flag_error(index: int, name: str, value: object) -> InvalidObservation:
    """The error for sub-env ``index`` returning ``name=value`` (a flag that is not a bool)."""
    return InvalidObservation(
        f"sub-env {index} returned {name}={value!r} ({type(value).__name__}); a vector env "
        "needs True or False there (a Python or numpy bool, or the number 0 or 1)"
    )


def check_flags(terminated: Sequence[Any], truncated: Sequence[Any], ids: Sequence[int]) -> None:
    """Raise `InvalidObservation` for the first flag that is not a bool.

    ``ids`` are the sub-envs of the rows, in order. Scans in C find that
    every flag equals ``True`` or ``False`` (the ones that do are bools or
    numbers 0 / 1 in practice); only otherwise is each one looked at.
    """
    n = len(terminated)
    if (
        terminated.count(True) + terminated.count(False) == n
        and truncated.count(True) + truncated.count(False) == n
    ):
        return
    for k, index in enumerate(ids):
        if not flag_ok(terminated[k]):
            raise flag_error(index, "terminated", terminated[k])
        if not flag_ok(truncated[k]):
            raise flag_error(index, "truncated", truncated[k])


# The types a reward usually has: a batch of only these needs no closer look.
_PLAIN_REALS = frozenset(
    {float, int, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8}
)


def rewards_array(rewards: Sequence[Any], ids: Sequence[int] | None = None) -> NDArray[np.float64]:
    """The float64 array of a batch's rewards.

    ``ids`` are the sub-envs of the rows (default: ``0, 1, ...``).

    Raises:
        InvalidObservation: A reward is not a real number: ``None``, a bool,
            text (even text that reads as a number), an array, a dict, ...,
            or is an int too large for a float64 (``10**400``); the message
            names the first such sub-env.
    """
    if set(map(type, rewards)) <= _PLAIN_REALS:
        try:
            return np.array(rewards, dtype=np.float64)
        except OverflowError:
            pass  # an int beyond float64: found and named below
    for k, reward in enumerate(rewards):
        if not _is_real(reward):
            raise InvalidObservation(
                f"sub-env {k if ids is None else ids[k]} returned reward {reward!r} "
                f"({type(reward).__name__}); a reward must be a real number (not a bool, "
                "None or text)"
            )
        if not _fits_float(reward):
            raise InvalidObservation(
                f"sub-env {k if ids is None else ids[k]} returned reward {_huge(reward)} "
                f"({type(reward).__name__}), too large for a float64; a reward must be a "
                "real number that a float64 holds"
            )
    return np.array(rewards, dtype=np.float64)


def _fits_float(reward: Any) -> bool:
    """Whether a real number converts to a float64 (a huge int or Fraction does not)."""
    try:
        float(reward)
    except OverflowError:
        return False
    return True


def _huge(number: Any) -> str:
    """A number too large for a float, in scientific notation (its repr may run to pages)."""
    whole = abs(int(number))  # math.log10 takes ints of any size, not a huge Fraction
    exponent = math.floor(math.log10(whole))
    mantissa = whole / 10**exponent
    return f"{'-' if number < 0 else ''}{mantissa:.6g}e+{exponent}"


def infos_all_dicts(infos: Sequence[Any]) -> bool:
    """Whether every info is a plain dict: one pass in C (`check_infos` looks closer otherwise)."""
    return [*map(type, infos)].count(dict) == len(infos)


def info_error(index: int, info: object) -> InvalidObservation:
    """The error for sub-env ``index`` returning ``info``, which is not a dict."""
    return InvalidObservation(
        f"sub-env {index} returned info {reprlib.repr(info)} ({type(info).__name__}); a "
        "vector env needs a dict there (an empty dict when there is nothing to report)"
    )


def check_infos(infos: Sequence[Any], ids: Sequence[int]) -> None:
    """Raise `InvalidObservation` for the first info that is not a dict (subclasses pass).

    ``ids`` are the sub-envs of the rows, in order. Call it when
    `infos_all_dicts` is false.
    """
    for k, info in enumerate(infos):
        if not isinstance(info, dict):
            raise info_error(ids[k], info)


def note_sub_env(error: BaseException, index: int, call: str) -> None:
    """Say on ``error`` (Python 3.11+) that sub-env ``index`` raised it in its ``call``.

    The exception keeps its type and traceback: the note is added once,
    shown under the traceback (e.g. ``"(raised by sub-env 2 in its step())"``).
    """
    _add_note(error, f"(raised by sub-env {index} in its {call})")


def _add_note(error: BaseException, note: str) -> None:
    add_note = getattr(error, "add_note", None)  # Python 3.11+
    if add_note is not None and note not in getattr(error, "__notes__", ()):
        add_note(note)


def _is_real(reward: Any) -> bool:
    """A real number: an int or float of Python or numpy, or a 0-d numeric array; no bool."""
    if isinstance(reward, bool | np.bool_):
        return False
    if isinstance(reward, numbers.Real):
        return True
    return isinstance(reward, np.ndarray) and reward.ndim == 0 and reward.dtype.kind in "fiu"


def autoreset_info(step_info: InfoDict, final_observation: Any, reset_info: InfoDict) -> InfoDict:
    """The info of a sub-env that finished and was reset in the same step.

    A new dict: the step's info keys, plus the terminal observation, the
    step's info under ``"final_info"`` and the reset's info under
    ``"reset_info"``. The sub-env's own dicts are not modified. Pass copies
    made before the reset (``dict(info)`` and the space's copier): the reset
    may rewrite the env's buffers.
    """
    info = dict(step_info)
    info[FINAL_OBSERVATION] = final_observation
    info[FINAL_INFO] = step_info
    info[RESET_INFO] = reset_info
    return info


def needs_autoreset(result: StepResult[Any]) -> bool:
    """Whether a sub-env's step ``result`` calls for the vector env's autoreset (or freeze).

    True when the episode ended (``terminated`` or ``truncated``) and the
    sub-env did not reset itself (its info has no ``"final_observation"``).
    This is the test `end_episode` applies (sekai 0.2's
    ``sekai.vector.vec_env.needs_autoreset``).
    """
    return bool(result.terminated or result.truncated) and FINAL_OBSERVATION not in result.info


def frozen_step(final: StepResult[Any]) -> StepResult[Any]:
    """What a frozen sub-env reports on every step until the next reset.

    Given ``final``, the step that ended its episode: that step's
    observation, reward 0, its flags (so it stays done) and an empty info
    (sekai 0.2's ``sekai.vector.vec_env.frozen_step``; the backends write the
    same values straight into their batches).

    Raises:
        TypeError: ``final`` is not a `StepResult`.
    """
    if not isinstance(final, StepResult):
        raise TypeError(f"frozen_step: final must be a StepResult, got {final!r}")
    return StepResult(final.observation, 0.0, bool(final.terminated), bool(final.truncated), {})


def merge_autoreset(step: StepResult[Any], reset: ResetResult[Any]) -> StepResult[Any]:
    """What a sub-env that finished in ``step`` and was then reset (``reset``) reports.

    The reset's observation (the new episode's first), the step's reward
    and flags, and `autoreset_info` of the two (sekai 0.2's
    ``sekai.vector.vec_env.merge_autoreset``). Pass results the reset did
    not overwrite: copies, when the env reuses its buffers.

    Raises:
        TypeError: ``step`` is not a `StepResult` or ``reset`` not a `ResetResult`.
    """
    if not isinstance(step, StepResult) or not isinstance(reset, ResetResult):
        raise TypeError(
            f"merge_autoreset: expected a StepResult and a ResetResult, got {step!r} and {reset!r}"
        )
    info = autoreset_info(step.info, step.observation, reset.info)
    return StepResult(reset.observation, step.reward, step.terminated, step.truncated, info)


class FrozenEnvs:
    """Which sub-envs are frozen (autoreset off) and what they keep reporting.

    Attributes:
        mask: Bool array, True for frozen sub-envs (do not write to it).
        any: Whether at least one sub-env is frozen (a cheap test for the
            common case).
        observations: The final observation of each frozen sub-env.
        terminated: The final ``terminated`` flag of each frozen sub-env.
        truncated: The final ``truncated`` flag of each frozen sub-env.
    """

    __slots__ = ("any", "copy", "mask", "observations", "terminated", "truncated")

    def __init__(self, num_envs: int, copy: Copier) -> None:
        self.copy = copy
        self.mask: NDArray[np.bool_] = np.zeros(num_envs, dtype=bool)
        self.any = False
        self.observations: list[Any] = [None] * num_envs
        self.terminated: list[bool] = [False] * num_envs
        self.truncated: list[bool] = [False] * num_envs

    def freeze(self, index: int, observation: Any, terminated: bool, truncated: bool) -> None:
        """Freeze sub-env ``index`` with its final observation and flags."""
        self.mask[index] = True
        self.any = True
        self.observations[index] = self.copy(observation)
        self.terminated[index] = bool(terminated)
        self.truncated[index] = bool(truncated)

    def clear(self) -> None:
        """Unfreeze every sub-env (on ``reset()``)."""
        if self.any:
            self.mask[:] = False
            self.any = False
            n = len(self.observations)
            self.observations = [None] * n
            self.terminated = [False] * n
            self.truncated = [False] * n


class Ending(NamedTuple):
    """What became of a sub-env whose step ended its episode.

    Attributes:
        observation: Its row of the batch: the new episode's first
            observation (autoreset) or the final observation (frozen).
        info: Its info: `autoreset_info` after an autoreset, else the
            step's own info.
        frozen: Whether it must be frozen (autoreset off).
    """

    observation: Any
    info: InfoDict
    frozen: bool


# Builds an Ending from a plain tuple, skipping the keyword-handling __new__
# of named tuples (a third of the rule's cost when light envs end often).
_ending = partial(tuple.__new__, Ending)


def _check_ended_flags(result: StepResult[Any], index: int) -> None:
    """Raise unless both flags of an ended step are bools (before any reset or freeze)."""
    terminated: Any = result.terminated
    truncated: Any = result.truncated
    if terminated.__class__ is bool and truncated.__class__ is bool:
        return
    if not flag_ok(terminated):
        raise flag_error(index, "terminated", terminated)
    if not flag_ok(truncated):
        raise flag_error(index, "truncated", truncated)


def _note_autoreset(error: BaseException, index: int) -> None:
    """Say on ``error`` (Python 3.11+) that the autoreset of sub-env ``index`` raised it."""
    _add_note(error, f"(raised by the autoreset of sub-env {index}: its reset() after the episode)")


def end_episode(
    env: Env[Any, Any], result: StepResult[Any], autoreset: bool, copy: Copier, index: int
) -> Ending | None:
    """The per-sub-env rule, after ``env`` (sub-env ``index``) returned ``result`` from a step.

    ``None`` when the sub-env keeps running: its episode goes on, or it reset
    itself (its info carries ``"final_observation"``). Otherwise, with
    autoreset, the final observation (with ``copy``, the observation
    space's copier) and the info are copied (the reset may rewrite the env's
    buffers), the env is reset without a seed (it continues its stream) and
    the ending holds the new first observation; without autoreset the
    ending says to freeze it.

    Raises:
        InvalidObservation: A flag is neither a bool nor 0 / 1 (see
            `flag_ok`), or the info is not a dict; nothing was reset.
    """
    info = result.info
    if not (result.terminated or result.truncated):
        return None
    _check_ended_flags(result, index)
    if not isinstance(info, dict):
        raise info_error(index, info)
    if not needs_autoreset(result):  # it reset itself
        return None
    if not autoreset:
        return _ending((result.observation, info, True))
    final_observation, final_info = copy(result.observation), dict(info)
    try:
        reset = env.reset()
    except BaseException as error:
        _note_autoreset(error, index)
        raise
    return _ending(
        (reset.observation, autoreset_info(final_info, final_observation, reset.info), False)
    )


async def async_end_episode(
    env: Env[Any, Any], result: StepResult[Any], autoreset: bool, copy: Copier, index: int
) -> Ending | None:
    """`end_episode` for async code: the reset is ``await env.async_reset()``."""
    info = result.info
    if not (result.terminated or result.truncated):
        return None
    _check_ended_flags(result, index)
    if not isinstance(info, dict):
        raise info_error(index, info)
    if not needs_autoreset(result):  # it reset itself
        return None
    if not autoreset:
        return _ending((result.observation, info, True))
    final_observation, final_info = copy(result.observation), dict(info)
    try:
        reset = await env.async_reset()
    except BaseException as error:
        _note_autoreset(error, index)
        raise
    return _ending(
        (reset.observation, autoreset_info(final_info, final_observation, reset.info), False)
    )
