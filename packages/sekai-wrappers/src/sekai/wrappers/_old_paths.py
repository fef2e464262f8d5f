"""sekai-wrappers' table of sekai 0.2 module paths (installed by `sekai._aliases`).

sekai 0.2 named most wrapper modules with short suffixes (``frame_stack``,
``normalize_obs``, ``stats``, ...); each old path is a thin re-export of the
module that holds the wrapper now. ``sekai.wrappers.time_limit`` re-exports
``sekai.core.time_limit``, where ``TimeLimit`` lives (``make()`` applies it).
"""

from __future__ import annotations

from sekai._aliases import AliasTable

__all__ = ["WRAPPERS_ALIASES"]

_PREFIX = "sekai.wrappers."

WRAPPERS_ALIASES: AliasTable = {
    "sekai.wrappers": {
        "action_mask_obs": (
            _PREFIX + "action_mask_observation",
            ("ActType", "ActionMaskObservation"),
        ),
        "delay_obs": (_PREFIX + "delay_observation", ("ActType", "DelayObservation")),
        "dtype_obs": (_PREFIX + "dtype_observation", ("ActType", "DtypeObservation")),
        "filter_obs": (_PREFIX + "filter_observation", ("ActType", "FilterObservation")),
        "flatten_obs": (_PREFIX + "flatten_observation", ("ActType", "FlattenObservation")),
        "frame_stack": (
            _PREFIX + "frame_stack_observation",
            ("ActType", "FrameStackObservation", "SeedType"),
        ),
        "normalize_obs": (
            _PREFIX + "normalize_observation",
            ("ActType", "NormalizeObservation"),
        ),
        "pad_sequence_obs": (
            _PREFIX + "pad_sequence_observation",
            ("ActType", "PadSequenceObservation"),
        ),
        "rescale_obs": (_PREFIX + "rescale_observation", ("ActType", "RescaleObservation")),
        "stats": (
            _PREFIX + "record_episode_statistics",
            ("ActType", "ObsType", "RecordEpisodeStatistics", "SeedType"),
        ),
        "time_aware_obs": (
            _PREFIX + "time_aware_observation",
            ("ActType", "TimeAwareObservation"),
        ),
        "time_limit": ("sekai.core.time_limit", ("ActType", "ObsType", "SeedType", "TimeLimit")),
        "transform_obs": (
            _PREFIX + "transform_observation",
            ("ActType", "F", "TransformObservation"),
        ),
    },
}
"""Old module name under ``sekai.wrappers`` -> (module now, the names 0.2 code imports)."""
