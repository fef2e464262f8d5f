"""The sekai.wrappers package: exports, and the AutoReset ordering warnings as a whole."""

from __future__ import annotations

import importlib
import warnings

import pytest

import sekai.core
import sekai.wrappers
from sekai.wrappers import (
    AutoReset,
    DelayAction,
    DelayObservation,
    FrameStackObservation,
    NormalizeReward,
    RecordEpisodeStatistics,
    StickyAction,
    TimeAwareObservation,
    TimeLimit,
)

SPEC_NAMES = {
    "AutoReset",
    "OrderEnforcing",
    "RecordEpisodeStatistics",
    "TimeLimit",
    "FlattenObservation",
    "NormalizeObservation",
    "FrameStackObservation",
    "TransformObservation",
    "RescaleObservation",
    "DtypeObservation",
    "TimeAwareObservation",
    "DelayObservation",
    "FilterObservation",
    "PadSequenceObservation",
    "ActionMaskObservation",
    "ClipAction",
    "RescaleAction",
    "StickyAction",
    "ActionRepeat",
    "DelayAction",
    "NormalizeReward",
    "TransformReward",
    "ClipReward",
}


def test_every_wrapper_is_exported() -> None:
    assert set(sekai.wrappers.__all__) == SPEC_NAMES
    for name in SPEC_NAMES:
        assert getattr(sekai.wrappers, name) is not None


def test_time_limit_is_the_core_class() -> None:
    assert TimeLimit is sekai.core.TimeLimit


def test_every_wrapper_module_declares_all() -> None:
    for name in sekai.wrappers.__all__:
        module = importlib.import_module(getattr(sekai.wrappers, name).__module__)
        assert name in module.__all__


def test_autoreset_carries_the_documented_marker() -> None:
    assert AutoReset._resets_itself is True


PER_EPISODE = [
    lambda env: TimeLimit(env, 5),
    lambda env: TimeAwareObservation(env, 5),
    lambda env: FrameStackObservation(env, 2),
    lambda env: DelayObservation(env, 1),
    lambda env: DelayAction(env, 1, noop=0),
    lambda env: StickyAction(env, 0.1),
]


@pytest.mark.parametrize("build", PER_EPISODE)
def test_per_episode_wrappers_warn_around_autoreset_at_any_depth(counter_env, build) -> None:
    with pytest.warns(UserWarning, match="AutoReset"):
        build(RecordEpisodeStatistics(AutoReset(counter_env())))


@pytest.mark.parametrize("build", PER_EPISODE)
def test_per_episode_wrappers_are_silent_inside_autoreset(counter_env, build) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AutoReset(build(counter_env()))


@pytest.mark.parametrize("build", [RecordEpisodeStatistics, NormalizeReward])
def test_wrappers_that_work_on_either_side_do_not_warn(counter_env, build) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(AutoReset(counter_env()))
