"""Typed results of ``VecEnv.step()`` and ``VecEnv.reset()``, and :func:`stack_infos`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai.core import InfoDict, ObsType

__all__ = ["VecResetResult", "VecStepResult", "stack_infos"]


@dataclass(frozen=True, eq=False)
class VecStepResult(Generic[ObsType]):
    """What :meth:`VecEnv.step <sekai.vector.VecEnv.step>` returns.

    The batched counterpart of :class:`~sekai.core.StepResult`, with one entry
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
            :func:`stack_infos` for the other layout).
    """

    observations: ObsType
    rewards: NDArray[np.float64]
    terminated: NDArray[np.bool_]
    truncated: NDArray[np.bool_]
    infos: list[InfoDict]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """``terminated | truncated``: which sub-envs finished an episode on this step."""
        return np.logical_or(self.terminated, self.truncated)

    @property
    def num_envs(self) -> int:
        """Number of sub-envs in the batch."""
        return len(self.infos)


@dataclass(frozen=True, eq=False)
class VecResetResult(Generic[ObsType]):
    """What :meth:`VecEnv.reset <sekai.vector.VecEnv.reset>` returns.

    Attributes:
        observations: The batch of first observations (see
            :class:`VecStepResult`).
        infos: One reset info dict per sub-env.
    """

    observations: ObsType
    infos: list[InfoDict]

    @property
    def dones(self) -> NDArray[np.bool_]:
        """All ``False``, shape ``(num_envs,)``: no sub-env is done right after a reset.

        Mirrors :attr:`VecStepResult.dones`, so one loop condition covers the
        reset and the steps that follow.
        """
        return np.zeros(len(self.infos), dtype=bool)

    @property
    def num_envs(self) -> int:
        """Number of sub-envs in the batch."""
        return len(self.infos)


def _stack(values: list[Any]) -> NDArray[Any]:
    try:
        array = np.asarray(values)
    except ValueError:  # ragged values
        array = None
    if array is None or array.dtype == object or array.shape[:1] != (len(values),):
        array = np.empty(len(values), dtype=object)
        for i, value in enumerate(values):
            array[i] = value
    return array


def stack_infos(infos: list[InfoDict]) -> dict[str, Any]:
    """Turn per-env info dicts into one dict of arrays with a leading ``num_envs`` axis.

    Only keys present in every dict are kept. Numbers and equally shaped
    arrays stack into numeric arrays; anything else (dicts, dataclasses,
    arrays of different shapes) goes into a 1-D object array with one entry
    per sub-env.

    Args:
        infos: The ``infos`` of a :class:`VecStepResult` or
            :class:`VecResetResult`.

    Returns:
        ``{key: array}``; empty when ``infos`` is empty or no key is shared.

    Example:
        >>> stacked = stack_infos([{"cash": 1.0, "id": "a"}, {"cash": 2.5}])
        >>> stacked
        {'cash': array([1. , 2.5])}
    """
    if not infos:
        return {}
    first, rest = infos[0], infos[1:]
    keys = [key for key in first if all(key in info for info in rest)]
    return {key: _stack([info[key] for info in infos]) for key in keys}
