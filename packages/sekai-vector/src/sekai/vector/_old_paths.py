"""sekai-vector's table of sekai 0.2 module paths (installed by `sekai._aliases`).

sekai 0.2 defined the vector results in ``sekai.vector.result`` and the vector
wrapper base classes in ``sekai.vector.vec_wrapper``; each old path is a thin
re-export of the module that holds them now.
"""

from __future__ import annotations

from sekai._aliases import AliasTable

__all__ = ["VECTOR_ALIASES"]

VECTOR_ALIASES: AliasTable = {
    "sekai.vector": {
        "result": (
            "sekai.vector.results",
            ("ObsType", "VecResetResult", "VecStepResult", "stack_infos"),
        ),
        "vec_wrapper": (
            "sekai.vector.wrappers.base",
            (
                "ActType",
                "ObsType",
                "SeedType",
                "VecActionWrapper",
                "VecObservationWrapper",
                "VecRewardWrapper",
                "VecWrapper",
                "WActType",
                "WObsType",
            ),
        ),
    },
}
"""Old module name under ``sekai.vector`` -> (module now, the names 0.2 code imports)."""
