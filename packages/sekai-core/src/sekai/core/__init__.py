"""Environment base classes, wrapper base classes and result types.

Everything an environment author needs with only ``sekai-core`` installed::

    from sekai.core import Env, ResetResult, StepResult
"""

from sekai.core.env import ActType, Env
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.results import (
    AgentID,
    InfoDict,
    MAResetResult,
    MAStepResult,
    ObsType,
    ResetResult,
    StepResult,
)
from sekai.core.time_limit import TimeLimit
from sekai.core.wrapper import (
    ActionWrapper,
    ObservationWrapper,
    RewardWrapper,
    WActType,
    WObsType,
    Wrapper,
)
from sekai.utils.seeding import SeededRNG, SeedType

__all__ = [
    "ActType",
    "ActionWrapper",
    "AgentID",
    "Env",
    "InfoDict",
    "MAResetResult",
    "MAStepResult",
    "MultiAgentEnv",
    "ObsType",
    "ObservationWrapper",
    "ResetResult",
    "RewardWrapper",
    "SeedType",
    "SeededRNG",
    "StepResult",
    "TimeLimit",
    "WActType",
    "WObsType",
    "Wrapper",
]
