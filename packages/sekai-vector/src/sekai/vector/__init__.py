"""Vectorised environments: many sub-environments stepped as one batch.

Backends: `SyncVecEnv` (sequential, in process), `AsyncVecEnv`
(concurrent with asyncio), `ProcVecEnv` (worker processes),
``RayVecEnv`` (Ray actors, with the extra ``sekai-vector[ray]``) and
`NativeVecEnv` (the base of simulators that advance every sub-env at
once with array operations). They all follow the contract of `VecEnv`:
same-step autoreset, frozen sub-envs without it, one seeding rule, typed
results. ``Vec*`` wrappers transform a whole vector env.

``RayVecEnv`` is loaded on first use (``sekai.vector.RayVecEnv`` or ``from
sekai.vector import RayVecEnv``), so importing this package never imports
Ray; without Ray installed, that use raises ImportError naming the extra. It
is not in ``__all__``: ``from sekai.vector import *`` must work, and stay
fast, without Ray.

sekai 0.2's module paths ``sekai.vector.result`` and ``sekai.vector.vec_wrapper``
are thin re-exports of ``sekai.vector.results`` and
``sekai.vector.wrappers.base``, listed in ``sekai.vector._old_paths``.
"""

from typing import TYPE_CHECKING, Any

from sekai._aliases import install as _install_aliases
from sekai.vector._old_paths import VECTOR_ALIASES
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

if TYPE_CHECKING:
    from sekai.vector.ray_vec_env import RayVecEnv as RayVecEnv

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


_LAZY = ("RayVecEnv",)


def __getattr__(name: str) -> Any:
    if name == "RayVecEnv":
        from sekai.vector.ray_vec_env import RayVecEnv

        return RayVecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# sekai 0.2's module paths (sekai.vector.result, sekai.vector.vec_wrapper).
_install_aliases(__name__, VECTOR_ALIASES)
