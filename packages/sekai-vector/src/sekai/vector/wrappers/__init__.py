"""Vector wrappers: layers that transform a whole :class:`~sekai.vector.VecEnv`."""

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
