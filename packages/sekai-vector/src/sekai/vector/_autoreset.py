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

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import InfoDict

__all__ = [
    "FINAL_INFO",
    "FINAL_OBSERVATION",
    "RESET_INFO",
    "FrozenEnvs",
    "autoreset_info",
    "copy_observation",
]

FINAL_OBSERVATION = "final_observation"
FINAL_INFO = "final_info"
RESET_INFO = "reset_info"


def copy_observation(observation: Any) -> Any:
    """A copy of an observation that the env's later steps and resets cannot change.

    An env may write every observation into the same buffer, so a final
    observation kept past the sub-env's reset (autoreset) or for the steps
    it stays frozen must be copied first. Arrays are copied; dicts and
    tuples are copied part by part; anything else is kept as it is.
    """
    if isinstance(observation, np.ndarray):
        return observation.copy()
    if isinstance(observation, dict):
        return {key: copy_observation(value) for key, value in observation.items()}
    if isinstance(observation, tuple):
        return tuple(copy_observation(value) for value in observation)
    return observation


def autoreset_info(step_info: InfoDict, final_observation: Any, reset_info: InfoDict) -> InfoDict:
    """The info of a sub-env that finished and was reset in the same step.

    A new dict: the step's info keys, plus the terminal observation, the
    step's info under ``"final_info"`` and the reset's info under
    ``"reset_info"``. The sub-env's own dicts are not modified. Pass copies
    made before the reset (``dict(info)`` and :func:`copy_observation`): the
    reset may rewrite the env's buffers.
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

    __slots__ = ("any", "mask", "observations", "terminated", "truncated")

    def __init__(self, num_envs: int) -> None:
        self.mask: NDArray[np.bool_] = np.zeros(num_envs, dtype=bool)
        self.any = False
        self.observations: list[Any] = [None] * num_envs
        self.terminated: list[bool] = [False] * num_envs
        self.truncated: list[bool] = [False] * num_envs

    def freeze(self, index: int, observation: Any, terminated: bool, truncated: bool) -> None:
        """Freeze sub-env ``index`` with its final observation and flags."""
        self.mask[index] = True
        self.any = True
        self.observations[index] = copy_observation(observation)
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
