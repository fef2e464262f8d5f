"""Vector wrappers: layers that transform a whole [`VecEnv`][sekai.vector.VecEnv]."""

# sekai 0.2 code imports the type variables from here too.
from sekai.core import ActType as ActType, ObsType as ObsType
from sekai.utils.seeding import SeedType as SeedType
from sekai.vector.wrappers.base import (
    VecActionWrapper,
    VecObservationWrapper,
    VecRewardWrapper,
    VecWrapper,
)
from sekai.vector.wrappers.normalize_observation import StatsKind, VecNormalizeObservation
from sekai.vector.wrappers.normalize_reward import VecNormalizeReward
from sekai.vector.wrappers.record_episode_statistics import VecRecordEpisodeStatistics
from sekai.vector.wrappers.transform import VecTransformObservation, VecTransformReward

__all__ = [  # noqa: RUF022 (grouped by topic)
    # base classes
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
    "StatsKind",
]
