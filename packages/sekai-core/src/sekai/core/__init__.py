"""Environment base classes, wrapper base classes and result types.

Everything an environment author needs with only ``sekai-core`` installed::

    from sekai.core import Env, ResetResult, StepResult

The type variables (``ObsType``, ``ActType``, ``AgentID``, ``WObsType``,
``WActType``) and the ``InfoDict`` alias are importable from here too, for
annotations, but are not part of ``__all__``.

``sekai.core.result`` (sekai 0.2's name of `sekai.core.results`) is a
thin re-export module and can be imported as well.
"""

from sekai import _aliases
from sekai.core.env import ActType as ActType, Env
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.results import (
    FINAL_INFO,
    FINAL_OBSERVATION,
    RESET_INFO,
    AgentID as AgentID,
    InfoDict as InfoDict,
    MAResetResult,
    MAStepResult,
    ObsType as ObsType,
    ResetResult,
    StepResult,
)
from sekai.core.time_limit import TimeLimit
from sekai.core.wrapper import (
    ActionWrapper,
    ObservationWrapper,
    RewardWrapper,
    WActType as WActType,
    WObsType as WObsType,
    Wrapper,
)
from sekai.utils.seeding import SeededRNG, SeedType

__all__ = [  # noqa: RUF022 (grouped by topic)
    # environments
    "Env",
    "MultiAgentEnv",
    # wrappers
    "ActionWrapper",
    "ObservationWrapper",
    "RewardWrapper",
    "TimeLimit",
    "Wrapper",
    # results
    "MAResetResult",
    "MAStepResult",
    "ResetResult",
    "StepResult",
    # autoreset info keys
    "FINAL_INFO",
    "FINAL_OBSERVATION",
    "RESET_INFO",
    # seeding
    "SeedType",
    "SeededRNG",
]

_aliases.install(__name__, _aliases.CORE_ALIASES)
