"""Vectorised environments: many sub-environments stepped as one batch.

Backends: :class:`SyncVecEnv` (sequential, in process), :class:`AsyncVecEnv`
(concurrent with asyncio) and :class:`NativeVecEnv` (the base of simulators
that advance every sub-env at once with array operations). They all follow the
contract of :class:`VecEnv`: same-step autoreset, frozen sub-envs without it,
one seeding rule, typed results. ``Vec*`` wrappers transform a whole vector env.
"""

from sekai.vector.async_vec_env import AsyncVecEnv
from sekai.vector.native import InfoArrays, NativeVecEnv, shared
from sekai.vector.proc_vec_env import ProcVecEnv
from sekai.vector.results import VecResetResult, VecStepResult, stack_infos
from sekai.vector.sync_vec_env import SyncVecEnv
from sekai.vector.vec_env import VecEnv
from sekai.vector.wrappers import (
    VecActionWrapper,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecObservationWrapper,
    VecRecordEpisodeStatistics,
    VecRewardWrapper,
    VecTransformObservation,
    VecTransformReward,
    VecWrapper,
)

__all__ = [  # noqa: RUF022 (grouped by topic)
    # vector environments
    "VecEnv",
    "SyncVecEnv",
    "AsyncVecEnv",
    "ProcVecEnv",
    "NativeVecEnv",
    "InfoArrays",
    "shared",
    # results
    "VecResetResult",
    "VecStepResult",
    "stack_infos",
    # wrapper base classes
    "VecWrapper",
    "VecObservationWrapper",
    "VecRewardWrapper",
    "VecActionWrapper",
    # ready-made wrappers
    "VecRecordEpisodeStatistics",
    "VecNormalizeObservation",
    "VecNormalizeReward",
    "VecTransformObservation",
    "VecTransformReward",
]
