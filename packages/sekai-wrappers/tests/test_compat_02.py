# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-wrappers: every wrapper, its signature and members, the
0.2 module paths, and the behaviours 0.2 code relies on.

The expected API is sekai 0.2's, written down as data below. A signature is
compatible when it accepts every call 0.2's accepts: same parameter names, order
and defaults; extra parameters only if they cannot be required.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, Sequence

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (
    Entry,
    ListedName,
    check_name,
    cls,
    listed_problems,
    parameters_listing,
)

# -- sekai 0.2's listing for sekai-wrappers --------------------------------------------------------

API: dict[str, dict[str, Entry]] = {
    "sekai.wrappers": {
        "ActionMaskObservation": cls(
            "env, *, key=action_mask",
            "observation(obs)",
            attrs="env key observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "ActionRepeat": cls(
            "env, repeat",
            "async async_step(action)",
            "step(action)",
            attrs="env repeat",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "AutoReset": cls(
            "env",
            "async async_step(action)",
            "step(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "ClipAction": cls(
            "env",
            "action(action)",
            "reverse_action(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "ClipReward": cls(
            "env, min_reward=-inf, max_reward=inf",
            "reward(reward)",
            attrs="env max_reward min_reward",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "DelayAction": cls(
            "env, delay, *, noop=None",
            "action(action)",
            "async async_reset(*, seed=None, options=None)",
            "property pending_actions",
            "reset(*, seed=None, options=None)",
            attrs="delay env noop",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "DelayObservation": cls(
            "env, delay, *, padding=zeros",
            "observation(obs)",
            attrs="delay env padding",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "DtypeObservation": cls(
            "env, dtype",
            "observation(obs)",
            attrs="dtype env observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "FilterObservation": cls(
            "env, keys",
            "observation(obs)",
            attrs="env keys observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "FlattenObservation": cls(
            "env",
            "observation(obs)",
            attrs="env observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "FrameStackObservation": cls(
            "env, num_stack, *, padding=reset",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env num_stack observation_space padding",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "NormalizeObservation": cls(
            "env, epsilon=1e-08, *, stats=running, halflife=1000.0, clip=None",
            "load_state_dict(state)",
            "property obs_rms",
            "observation(obs)",
            "state_dict()",
            attrs="env epsilon normalizer observation_space update_running_mean",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "NormalizeReward": cls(
            "env, gamma=0.99, epsilon=1e-08",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env epsilon gamma return_rms update_running_mean",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "OrderEnforcing": cls(
            "env",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property has_reset",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "PadSequenceObservation": cls(
            "env, max_length=None, *, truncate=tail",
            "observation(obs)",
            attrs="env max_length observation_space truncate",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "RecordEpisodeStatistics": cls(
            "env, tracker=None, deque_size=100",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property episode_stats",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env tracker",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "RescaleAction": cls(
            "env, min_action, max_action",
            "action(action)",
            "reverse_action(action)",
            attrs="action_space env max_action min_action",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "RescaleObservation": cls(
            "env, min_obs, max_obs",
            "observation(obs)",
            attrs="env max_obs min_obs observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "StickyAction": cls(
            "env, repeat_action_probability",
            "action(action)",
            "async async_reset(*, seed=None, options=None)",
            "reset(*, seed=None, options=None)",
            attrs="env repeat_action_probability",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "TimeAwareObservation": cls(
            "env, max_episode_steps=None, *, normalize_time=True, dict_key=time",
            "observation(obs)",
            attrs="dict_key env max_episode_steps normalize_time observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "TimeLimit": cls(
            "env, max_episode_steps",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "property elapsed_steps",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env max_episode_steps",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "TransformObservation": cls(
            "env, func=None, new_observation_space=None, *, fn=None",
            "observation(obs)",
            attrs="env func observation_space",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
        "TransformReward": cls(
            "env, func=None, *, fn=None",
            "reward(reward)",
            attrs="env func",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
    },
}

IMPORT_PATHS: dict[str, str] = {
    "sekai.wrappers": "ActionMaskObservation ActionRepeat AutoReset ClipAction ClipReward DelayAction DelayObservation DtypeObservation FilterObservation FlattenObservation FrameStackObservation NormalizeObservation NormalizeReward OrderEnforcing PadSequenceObservation RecordEpisodeStatistics RescaleAction RescaleObservation StickyAction TimeAwareObservation TimeLimit TransformObservation TransformReward",
    "sekai.wrappers.action_mask_obs": "ActType ActionMaskObservation",
    "sekai.wrappers.action_repeat": "ActType ActionRepeat ObsType",
    "sekai.wrappers.autoreset": "ActType AutoReset ObsType",
    "sekai.wrappers.clip_action": "ClipAction ObsType",
    "sekai.wrappers.clip_reward": "ActType ClipReward ObsType",
    "sekai.wrappers.delay_action": "ActType DelayAction ObsType SeedType",
    "sekai.wrappers.delay_obs": "ActType DelayObservation",
    "sekai.wrappers.dtype_obs": "ActType DtypeObservation",
    "sekai.wrappers.filter_obs": "ActType FilterObservation",
    "sekai.wrappers.flatten_obs": "ActType FlattenObservation",
    "sekai.wrappers.frame_stack": "ActType FrameStackObservation SeedType",
    "sekai.wrappers.normalize_obs": "ActType NormalizeObservation",
    "sekai.wrappers.normalize_reward": "ActType NormalizeReward ObsType SeedType",
    "sekai.wrappers.order_enforcing": "ActType ObsType OrderEnforcing SeedType",
    "sekai.wrappers.pad_sequence_obs": "ActType PadSequenceObservation",
    "sekai.wrappers.rescale_action": "ObsType RescaleAction",
    "sekai.wrappers.rescale_obs": "ActType RescaleObservation",
    "sekai.wrappers.stats": "ActType ObsType RecordEpisodeStatistics SeedType",
    "sekai.wrappers.sticky_action": "ActType ObsType SeedType StickyAction",
    "sekai.wrappers.time_aware_obs": "ActType TimeAwareObservation",
    "sekai.wrappers.time_limit": "ActType ObsType SeedType TimeLimit",
    "sekai.wrappers.transform_obs": "ActType F TransformObservation",
    "sekai.wrappers.transform_reward": "ActType ObsType TransformReward",
}


# -- envs to build the wrappers around ------------------------------------------------------------


class BoxEnv(Env[np.ndarray, np.ndarray]):
    """Box observations and actions; an action mask; ``terminate_after`` steps per episode."""

    def __init__(self, terminate_after: int = 3) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), dtype=np.float32)
        self.action_space = Box(-2.0, 2.0, (2,), dtype=np.float32)
        self.terminate_after = terminate_after
        self.t = 0
        self.actions: list[np.ndarray] = []

    def action_mask(self) -> np.ndarray:
        return np.array([True, False])

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(self.rng.uniform(-1, 1, 2).astype(np.float32), {})

    def step(self, action: np.ndarray) -> StepResult[np.ndarray]:
        self.actions.append(np.array(action))
        self.t += 1
        obs = self.rng.uniform(-1, 1, 2).astype(np.float32)
        return StepResult(obs, float(self.t), self.t >= self.terminate_after, False, {"t": self.t})


class DictEnv(BoxEnv):
    def __init__(self) -> None:
        super().__init__()
        self.observation_space = Dict(a=Box(-1.0, 1.0, (2,)), b=Discrete(3))  # type: ignore[assignment]

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        first = super().reset(seed=seed, options=options)
        return ResetResult({"a": first.observation, "b": 1}, first.info)

    def step(self, action: Any) -> StepResult[Any]:
        r = super().step(action)
        return StepResult({"a": r.observation, "b": 2}, r.reward, r.terminated, r.truncated, r.info)


class SeqEnv(BoxEnv):
    def __init__(self) -> None:
        super().__init__()
        self.observation_space = Sequence(Box(0.0, 1.0, (2,)), max_length=3)  # type: ignore[assignment]

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        super().reset(seed=seed, options=options)
        return ResetResult((np.full(2, 0.5, np.float32),), {})

    def step(self, action: Any) -> StepResult[Any]:
        r = super().step(action)
        return StepResult((), r.reward, r.terminated, r.truncated, r.info)


def _builders() -> dict[str, Callable[[], Any]]:
    import sekai.wrappers as w

    return {
        "ActionMaskObservation": lambda: w.ActionMaskObservation(BoxEnv()),
        "ActionRepeat": lambda: w.ActionRepeat(BoxEnv(), 2),
        "AutoReset": lambda: w.AutoReset(BoxEnv()),
        "ClipAction": lambda: w.ClipAction(BoxEnv()),
        "ClipReward": lambda: w.ClipReward(BoxEnv(), 0.0, 1.0),
        "DelayAction": lambda: w.DelayAction(BoxEnv(), 2),
        "DelayObservation": lambda: w.DelayObservation(BoxEnv(), 1),
        "DtypeObservation": lambda: w.DtypeObservation(BoxEnv(), np.float64),
        "FilterObservation": lambda: w.FilterObservation(DictEnv(), ["a"]),
        "FlattenObservation": lambda: w.FlattenObservation(DictEnv()),
        "FrameStackObservation": lambda: w.FrameStackObservation(BoxEnv(), 3),
        "NormalizeObservation": lambda: w.NormalizeObservation(BoxEnv()),
        "NormalizeReward": lambda: w.NormalizeReward(BoxEnv()),
        "OrderEnforcing": lambda: w.OrderEnforcing(BoxEnv()),
        "PadSequenceObservation": lambda: w.PadSequenceObservation(SeqEnv()),
        "RecordEpisodeStatistics": lambda: w.RecordEpisodeStatistics(BoxEnv()),
        "RescaleAction": lambda: w.RescaleAction(BoxEnv(), -1.0, 1.0),
        "RescaleObservation": lambda: w.RescaleObservation(BoxEnv(), 0.0, 1.0),
        "StickyAction": lambda: w.StickyAction(BoxEnv(), 0.25),
        "TimeAwareObservation": lambda: w.TimeAwareObservation(BoxEnv(), 10),
        "TimeLimit": lambda: w.TimeLimit(BoxEnv(), 10),
        "TransformObservation": lambda: w.TransformObservation(BoxEnv(), lambda obs: obs),
        "TransformReward": lambda: w.TransformReward(BoxEnv(), lambda r: r),
    }


BUILDERS = _builders()
CASES = [(module, name) for module, entries in API.items() for name in entries]


# -- the listing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_wrapper_of_the_listing_is_there_with_a_compatible_signature(
    module: str, name: str
) -> None:
    assert check_name(module, name, API[module][name], BUILDERS.get(name)) == []


# The parameters listing of 0.2 (tools/api-0.2-parameters.md), sections of sekai-wrappers
# (sekai.wrappers and sekai.rendering).
PARAMETERS = parameters_listing("sekai.wrappers", "sekai.rendering")
PARAMETER_CASES = [(module, listed) for module, names in PARAMETERS.items() for listed in names]


def test_the_parameters_listing_has_every_section_of_sekai_wrappers() -> None:
    rendering = "canvas charts dashboard recorder renderer text theme"
    wrappers = (
        "action_mask_obs action_repeat autoreset clip_action clip_reward delay_action "
        "delay_obs dtype_obs filter_obs flatten_obs frame_stack normalize_obs "
        "normalize_reward order_enforcing pad_sequence_obs rescale_action rescale_obs stats "
        "sticky_action time_aware_obs time_limit transform_obs transform_reward"
    )
    assert sorted(PARAMETERS) == sorted(
        ["sekai.rendering", "sekai.wrappers"]
        + [f"sekai.rendering.{name}" for name in rendering.split()]
        + [f"sekai.wrappers.{name}" for name in wrappers.split()]
    )
    assert len(PARAMETER_CASES) == 106  # the lines of those sections


@pytest.mark.parametrize(
    ("module", "listed"), PARAMETER_CASES, ids=[f"{m}.{n.name}" for m, n in PARAMETER_CASES]
)
def test_every_function_and_method_takes_the_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed, BUILDERS.get(listed.name)) == []


@pytest.mark.parametrize("path", sorted(IMPORT_PATHS))
def test_every_import_path_offers_its_names(path: str) -> None:
    module = importlib.import_module(path)
    names = IMPORT_PATHS[path].split()
    assert [name for name in names if not hasattr(module, name)] == []
    # The same objects as the package's (the module is where 0.2 defined them).
    package = ".".join(path.split(".")[:2])
    listed = API.get(package, {})
    exported = importlib.import_module(package)
    assert [
        n for n in names if n in listed and getattr(module, n) is not getattr(exported, n)
    ] == []


def test_old_wrapper_paths_are_thin_re_exports() -> None:
    import sekai.core
    import sekai.wrappers
    from sekai.wrappers.frame_stack import FrameStackObservation
    from sekai.wrappers.normalize_obs import NormalizeObservation
    from sekai.wrappers.stats import RecordEpisodeStatistics
    from sekai.wrappers.time_limit import TimeLimit

    assert FrameStackObservation is sekai.wrappers.FrameStackObservation
    assert NormalizeObservation is sekai.wrappers.NormalizeObservation
    assert RecordEpisodeStatistics is sekai.wrappers.RecordEpisodeStatistics
    assert TimeLimit is sekai.core.TimeLimit is sekai.wrappers.TimeLimit
    from sekai.core.order_enforcing import OrderEnforcing

    assert OrderEnforcing is sekai.wrappers.OrderEnforcing  # make() applies this very class
    frame_stack = importlib.import_module("sekai.wrappers.frame_stack")
    assert "Thin re-export" in (frame_stack.__doc__ or "")
    assert frame_stack.__all__ == ["ActType", "FrameStackObservation", "SeedType"]
    assert sekai.wrappers.frame_stack is frame_stack  # reachable as an attribute too


# -- behaviours ----------------------------------------------------------------------------------


def test_a_tracker_overriding_only_the_0_2_hooks_receives_every_call() -> None:
    from sekai.registry import EnvSpec
    from sekai.stats import EpisodeStats, StatsTracker
    from sekai.wrappers import AutoReset, RecordEpisodeStatistics

    class Calls(StatsTracker):
        def __init__(self) -> None:
            self.calls: list[tuple[Any, ...]] = []

        def on_reset(self, env_id: str | None, seed: int | None) -> None:
            self.calls.append(("reset", env_id, seed))

        def on_step(self, reward: float, terminated: bool, truncated: bool, info: Any) -> None:
            self.calls.append(("step", reward, terminated, truncated, info["t"]))

        def on_episode_end(self, stats: EpisodeStats) -> None:
            self.calls.append(("end", stats.episode_return, stats.episode_length))

        def summary(self) -> dict[str, Any]:
            return {"calls": len(self.calls)}

    inner = BoxEnv(terminate_after=2)
    inner.spec = EnvSpec("Box-v0", entry_point=BoxEnv)
    tracker = Calls()
    env = AutoReset(RecordEpisodeStatistics(inner, tracker=tracker))
    env.reset(seed=4)
    for _ in range(3):
        env.step(np.zeros(2, np.float32))
    assert tracker.calls == [
        ("reset", "Box-v0", 4),
        ("step", 1.0, False, False, 1),
        ("step", 2.0, True, False, 2),
        ("end", 3.0, 2),
        # The next episode started inside AutoReset: announced before its first step.
        ("reset", "Box-v0", None),
        ("step", 1.0, False, False, 1),
    ]
    assert env.get_attr("tracker").summary() == {"calls": 6}


def test_a_tracker_with_only_record_is_still_called() -> None:
    from sekai.stats import EpisodeStats
    from sekai.wrappers import RecordEpisodeStatistics

    class Recorder:
        def __init__(self) -> None:
            self.episodes: list[EpisodeStats] = []

        def record(self, stats: EpisodeStats) -> None:
            self.episodes.append(stats)

    recorder = Recorder()
    env = RecordEpisodeStatistics(BoxEnv(terminate_after=1), tracker=recorder)  # type: ignore[arg-type]
    env.reset(seed=0)
    env.step(np.zeros(2, np.float32))
    assert [e.episode_length for e in recorder.episodes] == [1]
    with pytest.raises(TypeError, match="tracker must be a StatsTracker"):
        RecordEpisodeStatistics(BoxEnv(), tracker=object())  # type: ignore[arg-type]


def test_default_tracker_summarises_the_episodes() -> None:
    from sekai.wrappers import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(BoxEnv(terminate_after=2), deque_size=5)
    env.reset(seed=0)
    for _ in range(4):
        if env.step(np.zeros(2, np.float32)).done:
            env.reset()
    assert env.tracker.summary() == {
        "num_episodes": 2,
        "mean_return": 3.0,
        "mean_length": 2.0,
        "episodes": 2,
    }
    assert env.tracker.mean_return() == 3.0


def test_clip_reward_accepts_none_and_no_bounds() -> None:
    from sekai.wrappers import ClipReward

    env = ClipReward(BoxEnv(), min_reward=None, max_reward=1.5)
    env.reset(seed=0)
    assert [env.step(np.zeros(2, np.float32)).reward for _ in range(2)] == [1.0, 1.5]
    passthrough = ClipReward(BoxEnv())
    passthrough.reset(seed=0)
    assert [passthrough.step(np.zeros(2, np.float32)).reward for _ in range(2)] == [1.0, 2.0]


def test_delay_action_shows_its_pending_actions() -> None:
    from sekai.wrappers import DelayAction

    inner = BoxEnv()
    env = DelayAction(inner, 2)
    env.reset(seed=0)
    assert [a.tolist() for a in env.pending_actions] == [[0.0, 0.0], [0.0, 0.0]]
    env.step(np.ones(2, np.float32))
    assert [a.tolist() for a in env.pending_actions] == [[0.0, 0.0], [1.0, 1.0]]
    assert inner.actions[-1].tolist() == [0.0, 0.0]


def test_normalize_observation_keeps_its_normalizer() -> None:
    from sekai.utils.normalization import ObservationNormalizer
    from sekai.wrappers import NormalizeObservation

    env = NormalizeObservation(BoxEnv(), stats="ewm", halflife=10.0)
    assert isinstance(env.normalizer, ObservationNormalizer)
    assert env.obs_rms is env.normalizer.obs_rms
    env.reset(seed=0)
    count = env.obs_rms.count
    env.update_running_mean = False
    assert env.normalizer.update_running_mean is False
    env.step(np.zeros(2, np.float32))
    assert env.obs_rms.count == count


def test_observation_wrappers_take_obs() -> None:
    import sekai.wrappers as w
    from sekai.core import ObservationWrapper

    for name in w.__all__:
        cls = getattr(w, name)
        if issubclass(cls, ObservationWrapper):
            assert list(inspect.signature(cls.observation).parameters) == ["self", "obs"], name


def test_seed_type_is_importable_where_0_2_code_imports_it() -> None:
    from sekai.utils.seeding import SeedType
    from sekai.wrappers.delay_action import SeedType as A
    from sekai.wrappers.frame_stack import SeedType as B
    from sekai.wrappers.normalize_reward import SeedType as C
    from sekai.wrappers.order_enforcing import SeedType as D
    from sekai.wrappers.stats import SeedType as E
    from sekai.wrappers.sticky_action import SeedType as F
    from sekai.wrappers.time_limit import SeedType as G

    assert A is B is C is D is E is F is G is SeedType
