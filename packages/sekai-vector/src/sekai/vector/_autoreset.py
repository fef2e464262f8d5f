"""The autoreset and frozen-sub-env contract shared by every vector backend.

Autoreset (same step): when a sub-env's episode ends, it is reset within the
same ``step()``; the batch holds the new episode's first observation and the
sub-env's info holds the step's own keys plus ``"final_observation"``,
``"final_info"`` (the step's info) and ``"reset_info"``. A sub-env whose info
already carries ``"final_observation"`` reset itself (it is wrapped in
``AutoReset``), so it is neither reset again nor frozen.

Without autoreset, a finished sub-env is frozen until the next ``reset()``:
it is not stepped, and each later step reports its final observation, reward
0, its final flags and an empty info. :class:`FrozenEnvs` keeps that state.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai.core import FINAL_INFO, FINAL_OBSERVATION, RESET_INFO, Env, InfoDict, StepResult

Copier = Callable[[Any], Any]
"""Copies one observation (:func:`sekai.spaces._layout.copier_for` of the observation space)."""

__all__ = [
    "FINAL_INFO",
    "FINAL_OBSERVATION",
    "RESET_INFO",
    "Ending",
    "FrozenEnvs",
    "async_end_episode",
    "autoreset_info",
    "end_episode",
]

# FINAL_INFO, FINAL_OBSERVATION and RESET_INFO are defined once, in sekai.core,
# and re-exported here for the vector modules.


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
        info: Its info: :func:`autoreset_info` after an autoreset, else the
            step's own info.
        frozen: Whether it must be frozen (autoreset off).
    """

    observation: Any
    info: InfoDict
    frozen: bool


# Builds an Ending from a plain tuple, skipping the keyword-handling __new__
# of named tuples (a third of the rule's cost when light envs end often).
_ending = partial(tuple.__new__, Ending)


def end_episode(
    env: Env[Any, Any], result: StepResult[Any], autoreset: bool, copy: Copier
) -> Ending | None:
    """The per-sub-env rule, applied after ``env`` returned ``result`` from a step.

    ``None`` when the sub-env keeps running: its episode goes on, or it reset
    itself (its info carries ``"final_observation"``). Otherwise, with
    autoreset, the final observation (with ``copy``, the observation
    space's copier) and the info are copied (the reset may rewrite the env's
    buffers), the env is reset without a seed (it continues its stream) and
    the ending holds the new first observation; without autoreset the
    ending says to freeze it.
    """
    info = result.info
    if not (result.terminated or result.truncated) or FINAL_OBSERVATION in info:
        return None
    if not autoreset:
        return _ending((result.observation, info, True))
    final_observation, final_info = copy(result.observation), dict(info)
    reset = env.reset()
    return _ending(
        (reset.observation, autoreset_info(final_info, final_observation, reset.info), False)
    )


async def async_end_episode(
    env: Env[Any, Any], result: StepResult[Any], autoreset: bool, copy: Copier
) -> Ending | None:
    """:func:`end_episode` for async code: the reset is ``await env.async_reset()``."""
    info = result.info
    if not (result.terminated or result.truncated) or FINAL_OBSERVATION in info:
        return None
    if not autoreset:
        return _ending((result.observation, info, True))
    final_observation, final_info = copy(result.observation), dict(info)
    reset = await env.async_reset()
    return _ending(
        (reset.observation, autoreset_info(final_info, final_observation, reset.info), False)
    )
