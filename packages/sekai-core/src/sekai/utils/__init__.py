"""Seeding, running statistics, action masking and the env checker.

Submodules: `seeding`, `running_stats`,
`masking`, `checker`. Their public names are
re-exported here and loaded on first use: ``sekai.spaces`` depends on
``sekai.utils.seeding`` while the checker depends on ``sekai.spaces``, so an eager
import here would be circular. Two more submodules are imported by name only:
`normalization` (``ObservationNormalizer``) and
`pickle` (``CloudpickleWrapper``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sekai.utils.seeding import SeededRNG, SeedType, make_seed_sequence, np_random

_LAZY: dict[str, str] = {
    "RunningMeanStd": "sekai.utils.running_stats",
    "ExponentialMovingStats": "sekai.utils.running_stats",
    "supports_action_mask": "sekai.utils.masking",
    "get_action_mask": "sekai.utils.masking",
    "action_mask_space": "sekai.utils.masking",
    "flatten_action_mask": "sekai.utils.masking",
    "check_env": "sekai.utils.checker",
}

__all__ = ["SeedType", "SeededRNG", "make_seed_sequence", "np_random", *_LAZY]

if TYPE_CHECKING:
    # What the lazy loader below returns, spelled out for type checkers.
    from sekai.utils.checker import check_env as check_env
    from sekai.utils.masking import (
        action_mask_space as action_mask_space,
        flatten_action_mask as flatten_action_mask,
        get_action_mask as get_action_mask,
        supports_action_mask as supports_action_mask,
    )
    from sekai.utils.running_stats import (
        ExponentialMovingStats as ExponentialMovingStats,
        RunningMeanStd as RunningMeanStd,
    )
else:

    def __getattr__(name: str) -> Any:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
