# ruff: noqa: E501 (the listing below keeps one signature per line)
"""sekai 0.2 compatibility of sekai-core: every public name, signature and member, and
the behaviours 0.2 code relies on.

The expected API is sekai 0.2's, written down as data below (from the listing of
0.2's framework and the module paths 0.2 code imports from). A signature is
compatible when it accepts every call 0.2's accepts: same parameter names, order
and defaults; extra parameters only if they cannot be required.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import importlib
import json
import logging
import math
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

# The listing harness, shared by every distribution's test (tools/compat02.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from compat02 import (
    Entry,
    ListedName,
    check_name,
    cls,
    func,
    listed_problems,
    listed_signature_problems,
    parameters_listing,
    parse_parameters_listing,
)

# -- sekai 0.2's listing for sekai-core -----------------------------------------------------------

API: dict[str, dict[str, Entry]] = {
    "sekai.core": {
        "ActionWrapper": cls(
            "env",
            "action(action)",
            "async async_step(action)",
            "reverse_action(action)",
            "step(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
            abstract="action",
        ),
        "Env": cls(
            "",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "close()",
            "get_attr(name)",
            "has_attr(name)",
            "class_attribute metadata",
            "reset(*, seed=None, options=None)",
            "set_attr(name, value)",
            "class_attribute spec",
            "step(action)",
            "property unwrapped",
            supports="__enter__ __exit__",
            abstract="reset step",
        ),
        "MAResetResult": cls(
            "observations, info",
            "property all_done",
            "property any_done",
            "attribute info",
            "attribute observations",
            fields="observations info",
            supports="__eq__ __hash__",
        ),
        "MAStepResult": cls(
            "observations, rewards, terminated, truncated, info",
            "property all_done",
            "property any_done",
            "attribute info",
            "attribute observations",
            "attribute rewards",
            "attribute terminated",
            "attribute truncated",
            fields="observations rewards terminated truncated info",
            supports="__eq__ __hash__",
        ),
        "MultiAgentEnv": cls(
            "",
            "action_space(agent)",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(actions)",
            "close()",
            "property max_num_agents",
            "property num_agents",
            "observation_space(agent)",
            "reset(*, seed=None, options=None)",
            "step(actions)",
            supports="__enter__ __exit__",
            abstract="reset step",
        ),
        "ObservationWrapper": cls(
            "env",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "observation(obs)",
            "reset(*, seed=None, options=None)",
            "step(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
            abstract="observation",
        ),
        "ResetResult": cls(
            "observation, info",
            "property done",
            "attribute info",
            "attribute observation",
            fields="observation info",
            supports="__eq__ __hash__",
        ),
        "RewardWrapper": cls(
            "env",
            "async async_step(action)",
            "reward(reward)",
            "step(action)",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
            abstract="reward",
        ),
        "StepResult": cls(
            "observation, reward, terminated, truncated, info",
            "property done",
            "attribute info",
            "attribute observation",
            "attribute reward",
            "attribute terminated",
            "attribute truncated",
            fields="observation reward terminated truncated info",
            supports="__eq__ __hash__",
        ),
        "Wrapper": cls(
            "env",
            "property settable action_space",
            "async async_reset(*, seed=None, options=None)",
            "async async_step(action)",
            "close()",
            "get_attr(name)",
            "has_attr(name)",
            "property metadata",
            "property settable observation_space",
            "reset(*, seed=None, options=None)",
            "property settable rng",
            "set_attr(name, value)",
            "property settable spec",
            "step(action)",
            "property unwrapped",
            attrs="env",
            supports="__enter__ __exit__ __iter__ __len__",
        ),
    },
    "sekai.error": {
        "AsyncCallPending": cls(""),
        "DeprecatedAPI": cls("old, new"),
        "EnvAlreadyRegistered": cls("id"),
        "EnvNotFound": cls("id, suggestions=()", attrs="id suggestions"),
        "InvalidAction": cls("action, space"),
        "InvalidObservation": cls("obs, space"),
        "LookAheadError": cls("msg"),
        "ResetRequired": cls("message=None"),
        "SekaiError": cls("*args, **kwargs"),
        "SpaceMismatch": cls("msg"),
        "VecEnvClosed": cls(""),
        "VecEnvWorkerError": cls(
            "rank, exc_type, message, remote_traceback", attrs="exc_type rank remote_traceback"
        ),
    },
    "sekai.spaces": {
        "Box": cls(
            "low, high, shape=None, dtype=<class numpy.float32>, seed=None",
            "contains(x)",
            "property dtype",
            "classmethod from_jsonable(data)",
            "property is_bounded",
            "property is_flattenable",
            "sample(mask=None)",
            "property shape",
            "to_jsonable()",
            "zero()",
            attrs="high low",
            supports="__contains__ __eq__ __hash__",
        ),
        "Dict": cls(
            "spaces=None, seed=None, **spaces_kwargs",
            "contains(x)",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "items()",
            "keys()",
            "sample(mask=None)",
            "seed(seed=None)",
            "to_jsonable()",
            "values()",
            attrs="spaces",
            supports="__contains__ __eq__ __getitem__ __hash__ __len__ __setitem__",
        ),
        "Discrete": cls(
            "n, seed=None, start=0",
            "contains(x)",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "sample(mask=None)",
            "to_jsonable()",
            attrs="n start",
            supports="__contains__ __eq__ __hash__",
        ),
        "MaskedBox": cls(
            "low, high, shape=None, *, max_size, dtype=<class numpy.float32>, fill_value=None, seed=None",
            "contains(x)",
            "property element_shape",
            "empty()",
            "classmethod from_jsonable(data)",
            "pack(values, slots=None)",
            "sample(mask=None)",
            "to_jsonable()",
            "unpack(x)",
            "property value_dtype",
            attrs="element_space fill_value max_size spaces",
            supports="__contains__ __eq__ __getitem__ __hash__ __len__ __setitem__",
        ),
        "MultiBinary": cls(
            "n, seed=None",
            "contains(x)",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "sample(mask=None)",
            "to_jsonable()",
            attrs="n",
            supports="__contains__ __eq__ __hash__",
        ),
        "MultiDiscrete": cls(
            "nvec, dtype=<class numpy.int64>, seed=None, start=None",
            "contains(x)",
            "property dtype",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "sample(mask=None)",
            "to_jsonable()",
            attrs="nvec start",
            supports="__contains__ __eq__ __hash__",
        ),
        "Sequence": cls(
            "feature_space, *, max_length=None, stack=False, seed=None",
            "contains(x)",
            "elements(x)",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "pack(items)",
            "sample(mask=None)",
            "seed(seed=None)",
            "to_jsonable()",
            attrs="feature_space max_length stack",
            supports="__contains__ __eq__ __hash__",
        ),
        "Space": cls(
            "shape=None, dtype=None, seed=None",
            "contains(x)",
            "property dtype",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "property rng",
            "sample(mask=None)",
            "seed(seed=None)",
            "property shape",
            "to_jsonable()",
            supports="__contains__",
            abstract="contains is_flattenable sample",
        ),
        "Tuple": cls(
            "spaces, seed=None",
            "contains(x)",
            "classmethod from_jsonable(data)",
            "property is_flattenable",
            "sample(mask=None)",
            "seed(seed=None)",
            "to_jsonable()",
            attrs="spaces",
            supports="__contains__ __eq__ __getitem__ __hash__ __len__",
        ),
        "batch_space": func("space, n"),
        "concatenate": func("space, items"),
        "flatdim": func("space"),
        "flatten": func("space, x"),
        "flatten_space": func("space"),
        "iterate": func("space, batch"),
        "register_space_type": func("name"),
        "space_from_jsonable": func("data"),
        "unflatten": func("space, x"),
        "zero_sample": func("space"),
    },
    "sekai.registry": {
        "EnvRegistry": cls(
            "",
            "all_specs()",
            "deregister(id)",
            "make(id, *, max_episode_steps=None, **kwargs)",
            "pprint()",
            "register(id, entry_point, *, reward_threshold=None, nondeterministic=False, max_episode_steps=None, kwargs=None, additional_wrappers=(), vector_entry_point=None)",
            "register_namespace(namespace, loader)",
            "spec(id)",
            supports="__contains__ __len__",
        ),
        "EnvSpec": cls(
            "id, entry_point=None, reward_threshold=None, nondeterministic=False, max_episode_steps=None, kwargs=<factory>, additional_wrappers=<factory>, vector_entry_point=None",
            "class_attribute entry_point",
            "classmethod from_json(s)",
            "make(**kwargs)",
            "class_attribute max_episode_steps",
            "class_attribute nondeterministic",
            "pprint()",
            "class_attribute reward_threshold",
            "to_json()",
            "class_attribute vector_entry_point",
            attrs="name namespace version",
            fields="id entry_point reward_threshold nondeterministic max_episode_steps kwargs additional_wrappers vector_entry_point",
            supports="__eq__ __hash__",
        ),
        "WrapperSpec": cls(
            "name, entry_point, kwargs=<factory>",
            fields="name entry_point kwargs",
            supports="__eq__ __hash__",
        ),
        "all_specs": func(""),
        "deregister": func("id"),
        "make": func("id, *, max_episode_steps=None, **kwargs"),
        "make_vec": func(
            "id, num_envs=1, *, vectorization_mode=None, vector_kwargs=None, wrappers=(), **env_kwargs"
        ),
        "pprint_registry": func(""),
        "register": func("id, entry_point, **kwargs"),
        "register_namespace": func("namespace, loader"),
        "spec": func("id"),
    },
    "sekai.utils": {
        "ExponentialMovingStats": cls(
            "shape=(), halflife=1000.0",
            "property decay",
            "load_state_dict(state)",
            "normalize(x, epsilon=1e-08)",
            "state_dict()",
            "property std",
            "update(batch)",
            "update_from_moments(batch_mean, batch_var, batch_count)",
            attrs="count halflife mean var weight",
        ),
        "RunningMeanStd": cls(
            "shape=(), epsilon=0.0001",
            "load_state_dict(state)",
            "normalize(x, epsilon=1e-08)",
            "state_dict()",
            "property std",
            "update(batch)",
            "update_from_moments(batch_mean, batch_var, batch_count)",
            attrs="count epsilon mean var",
        ),
        "action_mask_space": func("space"),
        "flatten_action_mask": func("space, mask"),
        "get_action_mask": func("env"),
        "make_seed_sequence": func("base_seed, n"),
        "np_random": func("seed=None"),
        "supports_action_mask": func("env"),
    },
    "sekai.stats": {
        "EpisodeStats": cls(
            "episode_return, episode_length, elapsed_time, start_time, end_time, terminated, truncated, extra=<factory>",
            "property done",
            "attribute elapsed_time",
            "attribute end_time",
            "attribute episode_length",
            "attribute episode_return",
            "attribute extra",
            "attribute start_time",
            "attribute terminated",
            "attribute truncated",
            fields="episode_return episode_length elapsed_time start_time end_time terminated truncated extra",
            supports="__eq__ __hash__",
        ),
        "InMemoryTracker": cls(
            "max_episodes=100",
            "mean_length()",
            "mean_return()",
            "on_episode_end(stats)",
            "on_reset(env_id, seed)",
            "on_step(reward, terminated, truncated, info)",
            "summary()",
            attrs="episodes max_episodes",
        ),
        "LoggingTracker": cls(
            "logger=None",
            "on_episode_end(stats)",
            "on_reset(env_id, seed)",
            "on_step(reward, terminated, truncated, info)",
            "summary()",
            attrs="logger",
        ),
        "StatsTracker": cls(
            "*args, **kwargs",
            "on_episode_end(stats)",
            "on_reset(env_id, seed)",
            "on_step(reward, terminated, truncated, info)",
            "summary()",
        ),
    },
}

IMPORT_PATHS: dict[str, str] = {
    "sekai.core": "ActionWrapper Env MAResetResult MAStepResult MultiAgentEnv ObservationWrapper ResetResult RewardWrapper StepResult Wrapper",
    "sekai.core.env": "ActType Env ObsType SeedType",
    "sekai.core.multi_agent": "ActType AgentID MultiAgentEnv ObsType SeedType",
    "sekai.core.result": "AgentID MAResetResult MAStepResult ObsType ResetResult StepResult",
    "sekai.core.wrapper": "ActType ActionWrapper ObsType ObservationWrapper RewardWrapper SeedType WActType WObsType Wrapper",
    "sekai.error": "AsyncCallPending DeprecatedAPI EnvAlreadyRegistered EnvNotFound InvalidAction InvalidObservation LookAheadError ResetRequired SekaiError SpaceMismatch VecEnvClosed VecEnvWorkerError",
    "sekai.registry": "EnvRegistry EnvSpec WrapperSpec all_specs deregister make make_vec pprint_registry register register_namespace spec",
    "sekai.registry.registry": "EnvRegistry all_specs deregister make make_vec pprint_registry register register_namespace spec",
    "sekai.registry.spec": "ENV_ID_RE EnvSpec WrapperSpec",
    "sekai.spaces": "Box Dict Discrete MaskedBox MultiBinary MultiDiscrete Sequence Space Tuple batch_space concatenate flatdim flatten flatten_space iterate register_space_type space_from_jsonable unflatten zero_sample",
    "sekai.spaces.box": "Box SeedType float_dtype",
    "sekai.spaces.dict": "Dict SeedType",
    "sekai.spaces.discrete": "Discrete SeedType",
    "sekai.spaces.masked_box": "MaskedBox SeedType",
    "sekai.spaces.multi_binary": "MultiBinary SeedType",
    "sekai.spaces.multi_discrete": "MultiDiscrete SeedType",
    "sekai.spaces.sequence": "SeedType Sequence",
    "sekai.spaces.space": "SeedType Space T",
    "sekai.spaces.tuple": "SeedType Tuple",
    "sekai.spaces.utils": "batch_space concatenate flatdim flatten flatten_space iterate register_space_type space_from_jsonable unflatten zero_sample",
    "sekai.stats": "EpisodeStats InMemoryTracker LoggingTracker StatsTracker",
    "sekai.stats.collectors": "InMemoryTracker LoggingTracker",
    "sekai.stats.tracker": "EpisodeStats StatsTracker",
    "sekai.utils": "ExponentialMovingStats RunningMeanStd action_mask_space flatten_action_mask get_action_mask make_seed_sequence np_random supports_action_mask",
    "sekai.utils.checker": "check_env",
    "sekai.utils.masking": "action_mask_space flatten_action_mask get_action_mask supports_action_mask",
    "sekai.utils.normalization": "ObservationNormalizer",
    "sekai.utils.pickle": "CloudpickleWrapper",
    "sekai.utils.running_stats": "ExponentialMovingStats RunningMeanStd",
    "sekai.utils.seeding": "SeedType child_seeds make_seed_sequence np_random",
}


# -- objects to check instance attributes on ------------------------------------------------------


def _builders() -> dict[str, Callable[[], Any]]:
    from sekai.core import ActionWrapper, ObservationWrapper, RewardWrapper, Wrapper
    from sekai.error import EnvNotFound, VecEnvWorkerError
    from sekai.registry import EnvSpec
    from sekai.spaces import (
        Box,
        Dict,
        Discrete,
        MaskedBox,
        MultiBinary,
        MultiDiscrete,
        Sequence,
        Tuple,
    )
    from sekai.stats import InMemoryTracker, LoggingTracker
    from sekai.utils import ExponentialMovingStats, RunningMeanStd

    class Obs(ObservationWrapper[Any, Any, Any]):
        def observation(self, obs: Any) -> Any:
            return obs

    class Rew(RewardWrapper[Any, Any]):
        def reward(self, reward: float) -> float:
            return reward

    class Act(ActionWrapper[Any, Any, Any]):
        def action(self, action: Any) -> Any:
            return action

    return {
        "Wrapper": lambda: Wrapper(Walk()),
        "ObservationWrapper": lambda: Obs(Walk()),
        "RewardWrapper": lambda: Rew(Walk()),
        "ActionWrapper": lambda: Act(Walk()),
        "EnvNotFound": lambda: EnvNotFound("CartPol-v1", ["CartPole-v1"]),
        "VecEnvWorkerError": lambda: VecEnvWorkerError(2, "ValueError", "bad", "Traceback..."),
        "Box": lambda: Box(0.0, 1.0, (2,)),
        "Dict": lambda: Dict(a=Discrete(2)),
        "Discrete": lambda: Discrete(3),
        "MaskedBox": lambda: MaskedBox(0.0, 1.0, (2,), max_size=3),
        "MultiBinary": lambda: MultiBinary(3),
        "MultiDiscrete": lambda: MultiDiscrete([2, 3]),
        "Sequence": lambda: Sequence(Discrete(2), max_length=3),
        "Tuple": lambda: Tuple([Discrete(2)]),
        "EnvSpec": lambda: EnvSpec("ns/Walk-v0", entry_point=Walk),
        "ExponentialMovingStats": lambda: ExponentialMovingStats((2,)),
        "RunningMeanStd": lambda: RunningMeanStd((2,)),
        "InMemoryTracker": InMemoryTracker,
        "LoggingTracker": LoggingTracker,
    }


# -- an env as 0.2 code writes one -----------------------------------------------------------------


def _walk_class() -> type:
    from sekai.core import Env, ResetResult, StepResult
    from sekai.error import InvalidAction
    from sekai.spaces import Box, Discrete

    class Walk(Env[np.ndarray, np.int64]):
        """A walk on a line: action 0 moves left, 1 right; ends at |x| >= 3 or after 20 steps."""

        metadata = {"render_modes": []}  # noqa: RUF012

        def __init__(self, start: float = 0.0) -> None:
            self.observation_space = Box(-3.0, 3.0, (1,), dtype=np.float32)
            self.action_space = Discrete(2)
            self.start = start
            self.x = start
            self.t = 0

        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
            self._set_rng(seed)
            self.x = self.start + float(self.rng.uniform(-0.5, 0.5))
            self.t = 0
            return ResetResult(np.array([self.x], np.float32), {"t": 0})

        def step(self, action: np.int64) -> StepResult[np.ndarray]:
            if action not in self.action_space:
                raise InvalidAction(action, self.action_space)
            self.x = float(np.clip(self.x + (1.0 if action else -1.0), -3.0, 3.0))
            self.t += 1
            return StepResult(
                np.array([self.x], np.float32), 1.0, abs(self.x) >= 3.0, self.t >= 20, {"t": self.t}
            )

    return Walk


Walk = _walk_class()
BUILDERS = _builders()
CASES = [(module, name) for module, entries in API.items() for name in entries]


# -- the listing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_name_of_the_listing_is_there_with_a_compatible_signature(
    module: str, name: str
) -> None:
    assert check_name(module, name, API[module][name], BUILDERS.get(name)) == []


# The parameters listing of 0.2 (tools/api-0.2-parameters.md), sections of sekai-core.
PARAMETERS = parameters_listing(
    "sekai.core", "sekai.error", "sekai.registry", "sekai.spaces", "sekai.stats", "sekai.utils"
)
PARAMETER_CASES = [(module, listed) for module, names in PARAMETERS.items() for listed in names]


def test_the_parameters_listing_has_every_section_of_sekai_core() -> None:
    sections = (
        "sekai.core sekai.core.env sekai.core.multi_agent sekai.core.result sekai.core.wrapper "
        "sekai.error sekai.registry sekai.registry.registry sekai.registry.spec sekai.spaces "
        "sekai.spaces.box sekai.spaces.dict sekai.spaces.discrete sekai.spaces.masked_box "
        "sekai.spaces.multi_binary sekai.spaces.multi_discrete sekai.spaces.sequence "
        "sekai.spaces.space sekai.spaces.tuple sekai.spaces.utils sekai.stats "
        "sekai.stats.collectors sekai.stats.tracker sekai.utils sekai.utils.checker "
        "sekai.utils.masking sekai.utils.normalization sekai.utils.pickle "
        "sekai.utils.running_stats sekai.utils.seeding"
    )
    assert sorted(PARAMETERS) == sorted(sections.split())
    assert len(PARAMETER_CASES) == 121  # the lines of those sections


@pytest.mark.parametrize(
    ("module", "listed"), PARAMETER_CASES, ids=[f"{m}.{n.name}" for m, n in PARAMETER_CASES]
)
def test_every_function_and_method_takes_the_0_2_parameters(
    module: str, listed: ListedName
) -> None:
    assert listed_problems(module, listed, BUILDERS.get(listed.name)) == []


def test_the_parameters_harness_tells_what_a_0_2_call_would_miss() -> None:
    def renamed(values: Any, n: int = 1) -> None: ...
    def aliased(values: Any = None, n: int = 1, *, x: Any = None) -> None: ...
    def required_default(x: Any, *, n: int) -> None: ...

    assert listed_signature_problems(renamed, "x, n=…") == [
        "positional parameter 0 is 'values', not 'x'"
    ]
    assert listed_signature_problems(aliased, "x, n=…") == []  # x kept as a keyword alias
    assert listed_signature_problems(required_default, "x, *, n=…") == [
        "n has no default (0.2 gives it one)"
    ]
    assert listed_signature_problems(renamed, "values, n, extra") == [
        "no positional parameter 'extra'"
    ]
    parsed = parse_parameters_listing(
        "## `pkg.mod`\n\n- class `A(x, *, y=…)`: `m(a, b=…)`, `n()`\n- class `B`\n- `f(*args, **kw)`\n"
    )
    assert parsed == {
        "pkg.mod": [
            ListedName("A", "class", "x, *, y=…", (("m", "a, b=…"), ("n", ""))),
            ListedName("B", "class", None),
            ListedName("f", "function", "*args, **kw"),
        ]
    }
    with pytest.raises(ValueError, match="not understood"):
        parse_parameters_listing("## `pkg.mod`\n- something else\n")


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


def test_old_paths_are_thin_re_exports() -> None:
    import sekai.core.result as result
    import sekai.core.results as results
    import sekai.registry
    import sekai.registry.env_spec as env_spec
    import sekai.spaces
    import sekai.spaces.utils as utils

    assert result.StepResult is results.StepResult
    assert result.__doc__ and "Thin re-export of `sekai.core.results`" in result.__doc__
    assert "StepResult" not in vars(result) or vars(result)["StepResult"] is results.StepResult
    assert utils.flatten is sekai.spaces.flatten
    from sekai.registry.registry import make, spec
    from sekai.registry.spec import ENV_ID_RE, EnvSpec

    assert make is sekai.registry.make and spec is sekai.registry.spec
    assert EnvSpec is env_spec.EnvSpec
    assert ENV_ID_RE.fullmatch("qc/Market-v0").group("namespace") == "qc"
    # Importing the old module path keeps the function sekai.registry.spec, as in 0.2.
    importlib.import_module("sekai.registry.spec")
    assert callable(sekai.registry.spec)
    with pytest.raises(AttributeError, match=r"alias of 'sekai.core.results'"):
        result.NoSuchName  # noqa: B018


def test_importing_sekai_core_stays_light() -> None:
    code = "import sys, sekai.core; print(sorted(m for m in sys.modules if m.startswith('sekai')))"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(ast.literal_eval(output))
    assert not loaded & {"sekai.registry", "sekai.spaces", "sekai.stats", "sekai.wrappers"}


# -- environments and wrappers, written as 0.2 code writes them ------------------------------------


def test_a_bare_env_answers_has_get_and_set_attr() -> None:
    env = Walk(start=1.0)
    assert env.has_attr("start") and env.has_attr("rng") and not env.has_attr("missing")
    assert env.get_attr("start") == 1.0
    env.set_attr("start", 2.0)
    assert env.start == 2.0
    with pytest.raises(AttributeError, match="missing"):
        env.get_attr("missing")
    with pytest.raises(AttributeError, match="missing"):
        env.set_attr("missing", 1)  # nothing is created
    assert not hasattr(env, "missing")


def test_wrappers_answer_has_attr_for_every_layer() -> None:
    from sekai.core import ObservationWrapper

    class Scale(ObservationWrapper[Any, Any, Any]):
        def __init__(self, env: Any, factor: float) -> None:
            super().__init__(env)
            self.factor = factor

        def observation(self, obs: Any) -> Any:
            return obs * self.factor

    env = Scale(Walk(start=1.0), 10.0)
    assert env.has_attr("factor") and env.has_attr("start") and not env.has_attr("missing")
    env.set_attr("start", 0.0)
    assert env.unwrapped.start == 0.0
    first = env.reset(seed=3).observation
    assert first == pytest.approx(Walk().reset(seed=3).observation * 10.0)
    assert asyncio.run(env.async_step(1)).observation == pytest.approx(first + 10.0)
    assert len(env) == 2 and list(env)[-1] is env.unwrapped


def test_results_hash_like_frozen_dataclasses() -> None:
    from sekai.core import MAResetResult, MAStepResult, ResetResult, StepResult

    results = [
        StepResult(1, 0.5, False, True, {}),
        ResetResult(1, {}),
        MAStepResult({"a": 1}, {"a": 0.0}, {"a": False}, {"a": False}, {"a": {}}),
        MAResetResult({"a": 1}, {"a": {}}),
    ]
    for result in results:
        with pytest.raises(TypeError, match="unhashable"):
            hash(result)  # every result holds a dict, as in 0.2
        assert result == pickle.loads(pickle.dumps(result))


def test_make_applies_order_enforcing() -> None:
    from sekai.error import ResetRequired
    from sekai.registry import EnvRegistry

    registry = EnvRegistry()
    registry.register("Walk-v0", Walk, max_episode_steps=5)
    env = registry.make("Walk-v0")
    assert [type(layer).__name__ for layer in env] == ["TimeLimit", "OrderEnforcing", "Walk"]
    with pytest.raises(ResetRequired, match="before reset"):
        env.step(1)
    env.reset(seed=0)
    assert env.step(1).info["elapsed_steps"] == 1


def test_make_of_a_misspelt_id_names_the_suggestions() -> None:
    from sekai.error import EnvNotFound
    from sekai.registry import EnvRegistry

    registry = EnvRegistry()
    registry.register("CartPole-v1", Walk)
    with pytest.raises(EnvNotFound) as caught:
        registry.make("CartPol-v1")
    assert caught.value.id == "CartPol-v1"
    assert caught.value.suggestions == ("CartPole-v1",)
    assert "'CartPole-v1'" in str(caught.value)
    assert isinstance(caught.value, LookupError)


def test_registry_register_takes_the_spec_fields_by_keyword() -> None:
    from sekai.registry import EnvRegistry, EnvSpec, WrapperSpec

    registry = EnvRegistry()
    spec = registry.register(
        "ns/Walk-v2",
        Walk,
        reward_threshold=10.0,
        nondeterministic=True,
        max_episode_steps=7,
        kwargs={"start": 1.0},
        additional_wrappers=(WrapperSpec("W", "sekai.core:Wrapper"),),
        vector_entry_point=None,
    )
    assert len(registry) == 1 and "ns/Walk-v2" in registry
    assert (spec.namespace, spec.name, spec.version) == ("ns", "Walk", 2)
    with pytest.raises(TypeError, match=r"\['colour'\]"):
        registry.register("Other-v0", Walk, colour="red")  # type: ignore[call-arg]
    # 0.2's keyword s=; an entry point outside sekai and the plugins needs the opt-in.
    restored = EnvSpec.from_json(
        s=EnvSpec("Walk-v0", "pkg.mod:Walk").to_json(), trust_entry_points=True
    )
    assert restored == EnvSpec("Walk-v0", "pkg.mod:Walk")
    with pytest.raises(TypeError, match="unhashable"):
        hash(restored)


# -- errors --------------------------------------------------------------------------------------


def test_errors_keep_their_0_2_constructors_and_attributes() -> None:
    from sekai.error import (
        AsyncCallPending,
        DeprecatedAPI,
        EnvAlreadyRegistered,
        EnvNotFound,
        InvalidAction,
        InvalidObservation,
        LookAheadError,
        ResetRequired,
        SekaiError,
        SpaceMismatch,
        VecEnvClosed,
        VecEnvWorkerError,
    )
    from sekai.spaces import Box, Discrete

    found = EnvNotFound("Foo-v0", ["Foo-v1"])
    assert (found.id, found.suggestions) == ("Foo-v0", ("Foo-v1",))
    assert "'Foo-v0'" in str(found) and "'Foo-v1'" in str(found)
    assert EnvAlreadyRegistered("Foo-v0").id == "Foo-v0"
    assert "'Foo-v0'" in str(EnvAlreadyRegistered("Foo-v0"))
    action = InvalidAction(5, Discrete(3))
    assert "5" in str(action) and "Discrete(3)" in str(action) and isinstance(action, ValueError)
    obs = InvalidObservation(np.array([9.0]), Box(0.0, 1.0, (1,)))
    assert "9." in str(obs) and "Box(0.0, 1.0" in str(obs)
    assert "reset()" in str(ResetRequired()) and str(ResetRequired("custom")) == "custom"
    deprecated = DeprecatedAPI("fn", "func")
    assert "fn" in str(deprecated) and "func" in str(deprecated)
    assert isinstance(deprecated, DeprecationWarning)
    assert str(AsyncCallPending()) and str(VecEnvClosed())
    assert str(LookAheadError(msg="future")) == "future" == str(SpaceMismatch(msg="future"))
    worker = VecEnvWorkerError(3, "ZeroDivisionError", "division by zero", "Traceback ...")
    assert (worker.rank, worker.exc_type, worker.remote_traceback) == (
        3,
        "ZeroDivisionError",
        "Traceback ...",
    )
    assert "ZeroDivisionError" in str(worker) and "Traceback ..." in str(worker)
    assert worker.index == 3 and worker.worker_traceback == "Traceback ..."
    # The form sekai's vector backends raise: a ready-made message, index, traceback.
    legacy = VecEnvWorkerError("worker 1 died", 1, None)
    assert (legacy.rank, legacy.index, str(legacy)) == (1, 1, "worker 1 died")
    for error in (found, action, worker, deprecated, SekaiError("plain")):
        restored = pickle.loads(pickle.dumps(error))
        assert type(restored) is type(error) and str(restored) == str(error)
        assert vars(restored) == vars(error)


def test_a_single_message_still_works_for_every_error() -> None:
    from sekai.error import InvalidAction, InvalidObservation

    assert str(InvalidAction("weights must sum to 1")) == "weights must sum to 1"
    assert str(InvalidObservation("bad row")) == "bad row"


# -- spaces --------------------------------------------------------------------------------------


def test_discrete_and_multi_discrete_take_0_2_positional_orders() -> None:
    from sekai.spaces import Discrete, MultiDiscrete

    # Discrete(5, 42) is seeded with 42 (its start stays 0), as in 0.2.
    a, b = Discrete(5, 42), Discrete(5, seed=42)
    assert a.start == 0
    assert [a.sample() for _ in range(8)] == [b.sample() for _ in range(8)]
    assert Discrete(3, None, 2).start == 2
    space = MultiDiscrete([2, 3], np.int32, 7, [1, 0])
    assert space.dtype == np.int32 and space.start.tolist() == [1, 0]
    other = MultiDiscrete([2, 3], dtype=np.int32, seed=7, start=[1, 0])
    assert [space.sample().tolist() for _ in range(5)] == [
        other.sample().tolist() for _ in range(5)
    ]


def _every_space() -> list[Any]:
    from sekai.spaces import (
        Box,
        Dict,
        Discrete,
        MaskedBox,
        MultiBinary,
        MultiDiscrete,
        Sequence,
        Tuple,
    )

    return [
        Box(-np.inf, np.inf, (2,)),
        Box(0, 255, (2, 2), dtype=np.uint8),
        Discrete(4, start=-1),
        MultiDiscrete([[2, 3], [4, 5]], start=[[0, 1], [2, 3]]),
        MultiBinary((2, 3)),
        Dict({"b": Discrete(2), "a": Box(0.0, 1.0, (1,))}),
        Tuple([Discrete(2), MultiBinary(2)]),
        Sequence(Box(0.0, 1.0, (2,)), max_length=4, stack=True),
        MaskedBox(-1.0, 1.0, (2,), max_size=3),
        MaskedBox(0.0, 1.0, (), max_size=2, fill_value=np.nan),
    ]


@pytest.mark.parametrize("space", _every_space(), ids=repr)
def test_spaces_round_trip_through_their_0_2_json(space: Any) -> None:
    from sekai.spaces import Space, space_from_jsonable

    data = space.to_jsonable()
    assert isinstance(data["type"], str)
    text = json.dumps(data, allow_nan=False)
    for rebuilt in (
        space_from_jsonable(json.loads(text)),
        Space.from_jsonable(json.loads(text)),
        type(space).from_jsonable(json.loads(text)),
        space.from_jsonable(json.loads(text)),  # a classmethod called on an instance
    ):
        assert rebuilt == space and type(rebuilt) is type(space)
        assert hash(rebuilt) == hash(space)


@pytest.mark.parametrize("space", _every_space(), ids=repr)
def test_spaces_still_convert_samples_to_json(space: Any) -> None:
    space.seed(0)
    samples = [space.sample() for _ in range(3)]
    restored = space.from_jsonable(json.loads(json.dumps(space.to_jsonable(samples))))
    assert len(restored) == 3 and all(item in space for item in restored)


def test_register_space_type_takes_the_name_first() -> None:
    from sekai.spaces import Dict, Space, register_space_type, space_from_jsonable

    class Angle(Space[float]):
        def __init__(self, limit: float = np.pi, seed: Any = None) -> None:
            self.limit = limit
            super().__init__((), np.dtype(np.float64), seed)

        @property
        def is_flattenable(self) -> bool:
            return False

        def sample(self, mask: Any = None) -> float:
            return float(self.rng.uniform(-self.limit, self.limit))

        def contains(self, x: Any) -> bool:
            return isinstance(x, float) and abs(x) <= self.limit

        def to_jsonable(self, samples: Any = None) -> Any:
            if samples is not None:
                return list(samples)
            return {"type": "test02.Angle", "limit": self.limit}

        @classmethod
        def from_jsonable(cls, data: Any) -> Angle:  # type: ignore[override]
            return cls(data["limit"])

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Angle) and other.limit == self.limit

        def __hash__(self) -> int:
            return hash(self.limit)

    assert register_space_type("test02.Angle", Angle) is Angle
    assert space_from_jsonable({"type": "test02.Angle", "limit": 1.5}) == Angle(1.5)
    nested = Dict(heading=Angle(2.0))
    assert space_from_jsonable(json.loads(json.dumps(nested.to_jsonable()))) == nested


def test_a_registered_subclass_writing_its_own_type_name_round_trips() -> None:
    from sekai.spaces import Box, Dict, Sequence, Tuple, register_space_type, space_from_jsonable

    class Prices(Box):
        """A Box that names itself in its description (sekai 0.2 style), decoder inherited."""

        def to_jsonable(self, samples: Any = None) -> Any:
            if samples is not None:
                return super().to_jsonable(samples)
            return {**self.to_json_dict(), "type": "test02.Prices"}

    assert register_space_type("test02.Prices", Prices) is Prices
    prices = Prices(0.0, 10.0, (2,))
    rebuilt = space_from_jsonable(prices.to_jsonable())
    assert type(rebuilt) is Prices and rebuilt == prices
    assert type(Prices.from_jsonable(prices.to_jsonable())) is Prices
    nested = Dict(p=prices, t=Tuple([prices]), s=Sequence(prices, max_length=2))
    back = space_from_jsonable(json.loads(json.dumps(nested.to_jsonable())))
    assert [type(s).__name__ for s in (back["p"], back["t"][0], back["s"].feature_space)] == [
        "Prices",
        "Prices",
        "Prices",
    ]
    # The name is the subclass's only: a plain Box refuses it.
    with pytest.raises(ValueError, match="expected the description of a Box, got one of a"):
        Box.from_jsonable(prices.to_jsonable())


def test_register_space_type_with_the_name_alone_decorates_the_class() -> None:
    from sekai.spaces import Discrete, flatdim, register_space_type, space_from_jsonable

    @register_space_type("test02.Dice", flatdim=lambda space: 1)
    class Dice(Discrete):
        def to_jsonable(self, samples: Any = None) -> Any:
            if samples is not None:
                return super().to_jsonable(samples)
            return {**self.to_json_dict(), "type": "test02.Dice"}

    assert isinstance(Dice, type) and Dice.__name__ == "Dice"
    assert type(space_from_jsonable(Dice(6).to_jsonable())) is Dice
    assert flatdim(Dice(6)) == 1  # the utilities given to the decorator form apply
    with pytest.raises(ValueError, match=r"already registered under the name 'test02\.Dice'"):
        register_space_type("test02.Dice")(Dice)


def test_masked_box_needs_a_slot() -> None:
    from sekai.spaces import MaskedBox

    with pytest.raises(ValueError, match="MaskedBox: max_size must be an int >= 1, got 0"):
        MaskedBox(0.0, 1.0, (2,), max_size=0)
    assert MaskedBox(0.0, 1.0, (2,), max_size=1)["mask"].n == 1


def test_box_is_bounded_is_a_property_that_can_also_be_called() -> None:
    from sekai.spaces import Box

    assert Box(0.0, 1.0, (2,)).is_bounded
    half = Box(0.0, np.inf, (2,))
    assert not half.is_bounded and half.is_bounded == False  # noqa: E712
    assert half.is_bounded("below") and not half.is_bounded("above")
    assert repr(half.is_bounded) == "False"


@given(
    low=st.sampled_from([-np.inf, -1.0, 0.0]),
    high=st.sampled_from([1.0, 2.0, np.inf]),
    infinite_component=st.booleans(),
)
def test_box_is_bounded_unpacks_to_0_2_pair(
    low: float, high: float, infinite_component: bool
) -> None:
    from sekai.spaces import Box

    lows, highs = np.full(3, low), np.full(3, high)
    if infinite_component:  # one unbounded component makes the side unbounded
        lows[1], highs[2] = -np.inf, np.inf
    box = Box(lows, highs, (3,), dtype=np.float64)
    below, above = box.is_bounded  # sekai 0.2: a pair of bools
    assert below is bool(np.isfinite(lows).all()) and above is bool(np.isfinite(highs).all())
    assert box.is_bounded == (below, above) and tuple(box.is_bounded) == (below, above)
    assert (box.is_bounded[0], box.is_bounded[1], len(box.is_bounded)) == (below, above, 2)
    assert bool(box.is_bounded) == (below and above)
    assert box.is_bounded("below") == below and box.is_bounded("above") == above
    assert Box(0, 5, (2,), dtype=np.int64).is_bounded == (True, True)


def test_masked_box_pack_unpack_empty_and_sample_with_a_slot_mask() -> None:
    from sekai.spaces import MaskedBox

    space = MaskedBox(-1.0, 1.0, (2,), max_size=4, fill_value=-9.0, seed=0)
    assert space.value_dtype == np.float32 and space.fill_value.tolist() == [-9.0, -9.0]
    empty = space.empty()
    assert empty["mask"].tolist() == [0, 0, 0, 0] and (empty["values"] == -9.0).all()
    packed = space.pack(np.array([[0.1, 0.2], [0.3, 0.4]]), slots=[3, 1])
    assert packed["mask"].tolist() == [0, 1, 0, 1] and packed in space
    values, slots = space.unpack(packed)
    assert slots.tolist() == [1, 3]
    np.testing.assert_allclose(values, [[0.3, 0.4], [0.1, 0.2]], rtol=1e-6)
    assert space.pack([[0.5, 0.5]])["mask"].tolist() == [1, 0, 0, 0]
    for _ in range(20):
        sample = space.sample(mask=np.array([1, 0, 1, 0], np.int8))
        assert sample in space and sample["mask"][[1, 3]].tolist() == [0, 0]
        assert (sample["values"][sample["mask"] == 0] == -9.0).all()
    with pytest.raises(ValueError, match="do not fit"):
        space.pack(np.zeros((5, 2)))
    with pytest.raises(TypeError, match="fixed"):
        space["values"] = space["mask"]


def test_sequence_pack_and_elements() -> None:
    from sekai.spaces import Box, Discrete, Sequence

    stacked = Sequence(Box(0.0, 1.0, (2,)), max_length=3, stack=True)
    packed = stacked.pack([[0.1, 0.2], [0.3, 0.4]])
    assert packed.shape == (2, 2) and packed.dtype == np.float32 and packed in stacked
    np.testing.assert_allclose(stacked.elements(packed), [[0.1, 0.2], [0.3, 0.4]], rtol=1e-6)
    plain = Sequence(Discrete(3), max_length=3)
    assert plain.pack([1, 2]) == (1, 2) and plain.elements((1, 2)) == [1, 2]
    with pytest.raises(ValueError, match="max_length"):
        plain.pack([0, 0, 0, 0])


def test_dict_setitem_iterate_and_seed() -> None:
    from sekai.spaces import Box, Dict, Discrete, batch_space, concatenate, iterate

    space = Dict(a=Discrete(2))
    space["b"] = Box(0.0, 1.0, (2,))
    assert list(space.keys()) == ["a", "b"]
    with pytest.raises(TypeError, match="Space"):
        space["c"] = 3  # type: ignore[assignment]
    assert space.seed(5) == 5 and type(space.seed(5)) is int
    samples = [space.sample() for _ in range(3)]
    batch = concatenate(space, samples)
    rows = list(iterate(batch_space(space, 3), batch=batch))
    assert [row["a"] for row in rows] == [s["a"] for s in samples]


# -- utils and stats -----------------------------------------------------------------------------


def test_seeding_helpers() -> None:
    from sekai.utils import make_seed_sequence, np_random
    from sekai.utils.seeding import SeedType, child_seeds

    generator = np.random.default_rng(11)
    same, seed = np_random(generator)
    assert same is generator and seed == 11
    assert np_random(7)[1] == 7
    # 0.2's order: the parent's generator, the seed it used, how many children.
    rng, used = np_random(3)
    assert child_seeds(rng, used, 2) == make_seed_sequence(3, 2)
    assert child_seeds(rng=None, seed_used=3, n=2) == make_seed_sequence(3, 2)
    assert child_seeds(None, None, 2) == [None, None]
    drawn = child_seeds(np.random.default_rng(0), None, 2)
    assert drawn == child_seeds(np.random.default_rng(0), None, 2) and len(set(drawn)) == 2
    with pytest.raises(TypeError, match=r"rng must be a numpy\.random\.Generator or None, got 5"):
        child_seeds(5, None, 2)  # type: ignore[arg-type]
    assert SeedType is not None


def test_running_stats_normalize_and_merge_moments() -> None:
    from sekai.utils import ExponentialMovingStats, RunningMeanStd

    rms = RunningMeanStd((2,), epsilon=1e-4)
    assert rms.epsilon == 1e-4
    batch = np.array([[1.0, 2.0], [3.0, 6.0]])
    rms.update(batch)
    expected = (batch - rms.mean) / np.sqrt(rms.var + 1e-8)
    assert rms.normalize(batch) == pytest.approx(expected)
    one, many = ExponentialMovingStats((), halflife=3.0), ExponentialMovingStats((), halflife=3.0)
    assert one.decay == pytest.approx(0.5 ** (1 / 3))
    for x in [1.0, 4.0, -2.0]:
        one.update(np.array([x]))
        many.update_from_moments(x, 0.0, 1)
    assert (many.mean, many.var, many.count) == pytest.approx((one.mean, one.var, one.count))
    assert many.normalize(np.array(0.0)) == pytest.approx(-one.mean / np.sqrt(one.var + 1e-8))


def test_observation_normalizer() -> None:
    from sekai.spaces import Box, Dict, Discrete
    from sekai.utils.normalization import ObservationNormalizer

    normalizer = ObservationNormalizer(Dict(x=Box(-5.0, 5.0, (2,)), k=Discrete(3)), clip=3.0)
    out = normalizer({"x": np.array([1.0, 2.0]), "k": 1})
    assert out["k"] == 1 and out["x"].dtype == np.float64
    assert normalizer.observation_space["x"] == Box(-3.0, 3.0, (2,), dtype=np.float64)
    state = normalizer.state_dict()
    normalizer.update_running_mean = False
    normalizer({"x": np.array([100.0, 100.0]), "k": 0})
    assert normalizer.state_dict()["x"]["count"] == state["x"]["count"]


def test_cloudpickle_wrapper_without_cloudpickle(monkeypatch: pytest.MonkeyPatch) -> None:
    from sekai.utils.pickle import CloudpickleWrapper

    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # as if it were not installed
    wrapped = pickle.loads(pickle.dumps(CloudpickleWrapper(functools.partial(int, "7"))))
    assert wrapped() == 7
    with pytest.raises(pickle.PicklingError, match=r"sekai-vector\[proc\] distribution") as info:
        pickle.dumps(CloudpickleWrapper(lambda: 1))
    assert "`pip install cloudpickle`" in str(info.value)


def test_cloudpickle_wrapper_carries_a_lambda() -> None:
    pytest.importorskip("cloudpickle", reason="needs cloudpickle (sekai-vector[proc])")
    from sekai.utils.pickle import CloudpickleWrapper

    wrapped = pickle.loads(pickle.dumps(CloudpickleWrapper(lambda: Walk(start=2.0))))
    assert wrapped().start == 2.0


def test_action_mask_space_takes_the_space() -> None:
    from sekai.spaces import Dict, Discrete, MultiDiscrete
    from sekai.utils import action_mask_space

    assert action_mask_space(space=Dict(a=Discrete(3), b=MultiDiscrete([2, 2]))).n == 7


def test_episode_stats_fields_can_be_assigned() -> None:
    from sekai.stats import EpisodeStats, InMemoryTracker

    stats = EpisodeStats(1.0, 3, 0.1, 0.0, 0.1, True, False)
    tracker = InMemoryTracker()
    tracker.on_episode_end(stats)
    stats.episode_return = 5.0  # sekai 0.2's dataclass is not frozen
    stats.extra = {"pnl": 2.0}
    assert (stats.episode_return, stats.extra) == (5.0, {"pnl": 2.0})
    assert tracker.mean_return() == 5.0  # the tracker holds the same object
    assert EpisodeStats(5.0, 3, 0.1, 0.0, 0.1, True, False, {"pnl": 2.0}) == stats


def test_trackers_follow_the_0_2_protocol() -> None:
    from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker, StatsTracker

    def stats(ret: float, length: int) -> EpisodeStats:
        return EpisodeStats(ret, length, 0.1, 0.0, 0.1, True, False)

    tracker = InMemoryTracker(max_episodes=2)
    assert tracker.max_episodes == 2 and isinstance(tracker, StatsTracker)
    tracker.on_reset("Walk-v0", 0)
    tracker.on_step(1.0, False, False, {})
    for ret in (1.0, 2.0, 4.0):
        tracker.on_episode_end(stats(ret, 3))
    assert tracker.mean_return() == 3.0 and tracker.mean_length() == 3.0
    assert tracker.mean_return == 3.0  # also readable as a value
    summary = tracker.summary()
    assert summary == {"num_episodes": 2, "mean_return": 3.0, "mean_length": 3.0, "episodes": 2}
    assert [e.episode_return for e in tracker.episodes] == [2.0, 4.0]
    logging_tracker = LoggingTracker(logger=logging.getLogger("test02"))
    logging_tracker.on_episode_end(stats(2.0, 4))
    assert logging_tracker.summary() == {
        "num_episodes": 1,
        "mean_return": 2.0,
        "mean_length": 4.0,
        "episodes": 1,
    }
    empty = InMemoryTracker().summary()
    assert empty["num_episodes"] == 0 and math.isnan(empty["mean_return"])

    class OnlyEnds(StatsTracker):
        def __init__(self) -> None:
            self.ends: list[EpisodeStats] = []

        def on_episode_end(self, stats: EpisodeStats) -> None:
            self.ends.append(stats)

    only = OnlyEnds()
    only.on_reset(None, None)
    only.on_step(0.0, False, False, {})
    only.on_episode_end(stats(1.0, 1))
    assert isinstance(only, StatsTracker) and only.summary() == {} and len(only.ends) == 1


# -- check_env, as a new user meets it -------------------------------------------------------------


def test_check_env_warns_about_an_observation_dtype_that_differs_from_the_space() -> None:
    from sekai.utils import check_env

    class Float64(Walk):  # type: ignore[misc, valid-type]
        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            result = super().reset(seed=seed, options=options)
            return type(result)(result.observation.astype(np.float64), result.info)

    report = check_env(Float64())
    assert [line for line in report if line.startswith("ERROR")] == []
    assert any("dtype float64" in line and line.startswith("WARNING") for line in report)
    assert check_env(Walk()) == []


def test_check_env_reports_an_env_that_accepts_actions_outside_its_space() -> None:
    from sekai.core import StepResult
    from sekai.utils import check_env

    class Lenient(Walk):  # type: ignore[misc, valid-type]
        def step(self, action: Any) -> StepResult[np.ndarray]:
            return super().step(np.int64(min(int(action), 1)))

    report = check_env(Lenient())
    assert any("accepted the action" in line and "Discrete(2)" in line for line in report)
    assert not any(
        "accepted the action" in line for line in check_env(Lenient(), check_action_space=False)
    )


def test_check_env_without_reset_seed_check_ignores_an_unseeded_reset() -> None:
    from sekai.core import ResetResult
    from sekai.utils import check_env

    class IgnoresSeed(Walk):  # type: ignore[misc, valid-type]
        def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[np.ndarray]:
            return super().reset(seed=None, options=options)

    assert [
        line for line in check_env(IgnoresSeed(), check_reset_seed=False) if "ERROR" in line
    ] == []
    assert any("reset(seed=123) is not reproducible" in line for line in check_env(IgnoresSeed()))


def test_two_is_bounded_flags_compare_as_their_pairs() -> None:
    from sekai.spaces import Box

    below_only = Box(0.0, np.inf, (2,)).is_bounded  # (True, False)
    above_only = Box(-np.inf, 0.0, (2,)).is_bounded  # (False, True)
    assert not below_only and not above_only  # both unbounded on some side...
    assert below_only != above_only  # ...but 0.2's pairs differ, and so do the flags
    assert below_only == Box(1.0, np.inf, (3,)).is_bounded
    assert Box(0.0, 1.0).is_bounded == Box(-5.0, 5.0).is_bounded
