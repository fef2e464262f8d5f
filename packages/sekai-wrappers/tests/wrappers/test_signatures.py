"""Every wrapper's constructor signature and generic base, as the API reference gives them.

Argument names, keyword-only markers and defaults are part of the public API:
code written for sekai 0.2 passes them by name.
"""

from __future__ import annotations

import inspect
import math
import typing
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai.wrappers
from sekai.core import ActionWrapper, ActType, ObservationWrapper, ObsType, RewardWrapper, Wrapper
from sekai.rendering import RecordFrames

P = inspect.Parameter
REQUIRED = P.empty
POS = P.POSITIONAL_OR_KEYWORD
KW = P.KEYWORD_ONLY

# name -> [(parameter, kind, default)], without ``self`` and ``env``.
SIGNATURES: dict[str, list[tuple[str, Any, Any]]] = {
    "AutoReset": [],
    "OrderEnforcing": [],
    "RecordEpisodeStatistics": [("tracker", POS, None), ("deque_size", POS, 100)],
    "TimeLimit": [("max_episode_steps", POS, REQUIRED)],
    "FlattenObservation": [],
    "NormalizeObservation": [
        ("epsilon", POS, 1e-8),
        ("stats", KW, "running"),
        ("halflife", KW, 1000.0),
        ("clip", KW, None),
    ],
    "FrameStackObservation": [("num_stack", POS, REQUIRED), ("padding", KW, "reset")],
    "TransformObservation": [
        ("func", POS, None),
        ("new_observation_space", POS, None),
        ("fn", KW, None),
    ],
    "RescaleObservation": [("min_obs", POS, REQUIRED), ("max_obs", POS, REQUIRED)],
    "DtypeObservation": [("dtype", POS, REQUIRED)],
    "TimeAwareObservation": [
        ("max_episode_steps", POS, None),
        ("normalize_time", KW, True),
        ("dict_key", KW, "time"),
    ],
    "DelayObservation": [("delay", POS, REQUIRED), ("padding", KW, "zeros")],
    "FilterObservation": [("keys", POS, REQUIRED)],
    "PadSequenceObservation": [("max_length", POS, None), ("truncate", KW, "tail")],
    "ActionMaskObservation": [("key", KW, "action_mask")],
    "ClipAction": [],
    "RescaleAction": [("min_action", POS, REQUIRED), ("max_action", POS, REQUIRED)],
    "StickyAction": [("repeat_action_probability", POS, REQUIRED)],
    "ActionRepeat": [("repeat", POS, REQUIRED)],
    "DelayAction": [("delay", POS, REQUIRED), ("noop", KW, None)],
    "NormalizeReward": [("gamma", POS, 0.99), ("epsilon", POS, 1e-8)],
    "TransformReward": [("func", POS, None), ("fn", KW, None)],
    "ClipReward": [("min_reward", POS, -math.inf), ("max_reward", POS, math.inf)],
}

F32 = NDArray[np.float32]
NDA = NDArray[Any]
BASES: dict[str, tuple[type, tuple[Any, ...]]] = {
    "AutoReset": (Wrapper, (ObsType, ActType, ObsType, ActType)),
    "OrderEnforcing": (Wrapper, (ObsType, ActType, ObsType, ActType)),
    "RecordEpisodeStatistics": (Wrapper, (ObsType, ActType, ObsType, ActType)),
    "FlattenObservation": (ObservationWrapper, (F32, ActType, Any)),
    "NormalizeObservation": (ObservationWrapper, (Any, ActType, Any)),
    "FrameStackObservation": (Wrapper, (Any, ActType, Any, ActType)),
    "TransformObservation": (ObservationWrapper, (Any, ActType, Any)),
    "RescaleObservation": (ObservationWrapper, (NDA, ActType, NDA)),
    "DtypeObservation": (ObservationWrapper, (NDA, ActType, NDA)),
    "TimeAwareObservation": (ObservationWrapper, (Any, ActType, Any)),
    "DelayObservation": (ObservationWrapper, (Any, ActType, Any)),
    "PadSequenceObservation": (ObservationWrapper, (Any, ActType, Any)),
    "ActionMaskObservation": (ObservationWrapper, (dict[str, Any], ActType, Any)),
    "ClipAction": (ActionWrapper, (ObsType, F32, F32)),
    "RescaleAction": (ActionWrapper, (ObsType, F32, F32)),
    "StickyAction": (ActionWrapper, (ObsType, ActType, ActType)),
    "ActionRepeat": (Wrapper, (ObsType, ActType, ObsType, ActType)),
    "DelayAction": (ActionWrapper, (ObsType, ActType, ActType)),
    "NormalizeReward": (Wrapper, (ObsType, ActType, ObsType, ActType)),
    "TransformReward": (RewardWrapper, (ObsType, ActType)),
}


def _parameters(cls: type) -> list[tuple[str, Any, Any]]:
    params = list(inspect.signature(cls).parameters.values())
    assert params[0].name == "env" and params[0].kind is POS and params[0].default is REQUIRED
    return [(p.name, p.kind, p.default) for p in params[1:]]


def test_every_exported_wrapper_has_a_checked_signature() -> None:
    assert set(SIGNATURES) == set(sekai.wrappers.__all__)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature(name: str) -> None:
    assert _parameters(getattr(sekai.wrappers, name)) == SIGNATURES[name]


@pytest.mark.parametrize("name", sorted(BASES))
def test_generic_base(name: str) -> None:
    (base,) = getattr(sekai.wrappers, name).__orig_bases__
    origin, args = BASES[name]
    assert typing.get_origin(base) is origin
    assert typing.get_args(base) == args


def test_record_frames_lives_in_rendering_and_takes_options_by_keyword() -> None:
    assert "RecordFrames" not in sekai.wrappers.__all__
    assert issubclass(RecordFrames, Wrapper)
    params = _parameters(RecordFrames)
    assert params[0] == ("renderer", POS, REQUIRED)
    assert all(kind is KW for _, kind, _ in params[1:])
    # At least these options (sekai 0.2 adds enabled / max_frames, see sekai.rendering).
    assert {n: d for n, _, d in params[1:]}.items() >= {
        "directory": None,
        "name_prefix": "episode",
        "format": "gif",
        "fps": 30.0,
        "episode_trigger": None,
        "close_renderer": True,
    }.items()
