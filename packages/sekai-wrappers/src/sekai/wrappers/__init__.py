"""Wrappers that change observations, actions, rewards and episode control.

Every wrapper is a layer around a [`sekai.core.Env`][sekai.core.Env] and keeps its
``observation_space`` / ``action_space`` consistent with what it returns and
accepts. Wrappers that keep per-episode state (``TimeLimit``,
``TimeAwareObservation``, ``FrameStackObservation``, ``DelayObservation``,
``DelayAction``, ``StickyAction``) belong inside ``AutoReset`` and warn when
built around one.

``TimeLimit`` and ``OrderEnforcing`` live in `sekai.core` (``make()``
applies them) and are re-exported here.

sekai 0.2's module paths (``sekai.wrappers.frame_stack``,
``sekai.wrappers.normalize_obs``, ``sekai.wrappers.stats``, ...) are thin
re-export modules of the modules named here; see
`sekai.wrappers._old_paths`.
"""

from sekai._aliases import install as _install_aliases
from sekai.core import TimeLimit
from sekai.wrappers.action_mask_observation import ActionMaskObservation
from sekai.wrappers.action_repeat import ActionRepeat
from sekai.wrappers.autoreset import AutoReset
from sekai.wrappers.clip_action import ClipAction
from sekai.wrappers.clip_reward import ClipReward
from sekai.wrappers.delay_action import DelayAction
from sekai.wrappers.delay_observation import DelayObservation
from sekai.wrappers.dtype_observation import DtypeObservation
from sekai.wrappers.filter_observation import FilterObservation
from sekai.wrappers.flatten_observation import FlattenObservation
from sekai.wrappers.frame_stack_observation import FrameStackObservation
from sekai.wrappers.normalize_observation import NormalizeObservation
from sekai.wrappers.normalize_reward import NormalizeReward
from sekai.wrappers.order_enforcing import OrderEnforcing
from sekai.wrappers.pad_sequence_observation import PadSequenceObservation
from sekai.wrappers.record_episode_statistics import RecordEpisodeStatistics
from sekai.wrappers.rescale_action import RescaleAction
from sekai.wrappers.rescale_observation import RescaleObservation
from sekai.wrappers.sticky_action import StickyAction
from sekai.wrappers.time_aware_observation import TimeAwareObservation
from sekai.wrappers.transform_observation import TransformObservation
from sekai.wrappers.transform_reward import TransformReward

__all__ = [  # noqa: RUF022 (grouped by topic)
    # episode control
    "AutoReset",
    "OrderEnforcing",
    "RecordEpisodeStatistics",
    "TimeLimit",
    # observations
    "ActionMaskObservation",
    "DelayObservation",
    "DtypeObservation",
    "FilterObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "NormalizeObservation",
    "PadSequenceObservation",
    "RescaleObservation",
    "TimeAwareObservation",
    "TransformObservation",
    # actions
    "ActionRepeat",
    "ClipAction",
    "DelayAction",
    "RescaleAction",
    "StickyAction",
    # rewards
    "ClipReward",
    "NormalizeReward",
    "TransformReward",
]

from sekai.wrappers._old_paths import WRAPPERS_ALIASES

_install_aliases(__name__, WRAPPERS_ALIASES)
