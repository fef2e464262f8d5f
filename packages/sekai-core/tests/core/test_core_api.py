"""The public API of sekai.core, sekai.stats and sekai.utils as the reference documents it.

Signatures (argument names, keyword-only markers, defaults), base classes,
abstract methods and which methods are coroutines are part of the contract:
code written against the documented API must run unchanged.
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
import typing
from typing import Any, Generic

import pytest

from sekai.core import (
    ActionWrapper,
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ObservationWrapper,
    ResetResult,
    RewardWrapper,
    StepResult,
    TimeLimit,
    Wrapper,
)
from sekai.core.env import ActType, ObsType
from sekai.core.results import AgentID
from sekai.core.wrapper import WActType, WObsType
from sekai.stats import EpisodeStats
from sekai.utils import SeededRNG, check_env, make_seed_sequence, np_random

P = inspect.Parameter
KW, POS = P.KEYWORD_ONLY, P.POSITIONAL_OR_KEYWORD


def _params(function: Any) -> list[tuple[str, Any, Any]]:
    """(name, kind, default) of every parameter except ``self``."""
    return [
        (p.name, p.kind, p.default)
        for p in inspect.signature(function).parameters.values()
        if p.name != "self"
    ]


RESET = [("seed", KW, None), ("options", KW, None)]


@pytest.mark.parametrize("cls", [Env, MultiAgentEnv])
def test_env_classes_have_the_documented_methods(cls: type) -> None:
    action_name = "action" if cls is Env else "actions"
    assert _params(cls.reset) == RESET
    assert _params(cls.async_reset) == RESET
    assert _params(cls.step) == [(action_name, POS, P.empty)]
    assert _params(cls.async_step) == [(action_name, POS, P.empty)]
    assert _params(cls.close) == []
    assert inspect.iscoroutinefunction(cls.async_reset)
    assert inspect.iscoroutinefunction(cls.async_step)
    assert not inspect.iscoroutinefunction(cls.step)
    assert cls.__abstractmethods__ == frozenset({"reset", "step"})


def test_env_bases_and_unwrapped() -> None:
    assert Env.__bases__ == (SeededRNG, abc.ABC, Generic)
    assert Env.__orig_bases__[-1] == Generic[ObsType, ActType]  # type: ignore[attr-defined]
    unwrapped = Env.__dict__["unwrapped"]
    assert isinstance(unwrapped, property)
    assert typing.get_type_hints(unwrapped.fget)["return"] == Env[ObsType, ActType]


def test_time_limit_signature() -> None:
    assert _params(TimeLimit.__init__) == [
        ("env", POS, P.empty),
        ("max_episode_steps", POS, P.empty),
    ]
    assert TimeLimit.__orig_bases__ == (Wrapper[ObsType, ActType, ObsType, ActType],)  # type: ignore[attr-defined]


def test_multi_agent_env_bases_and_per_agent_members() -> None:
    assert MultiAgentEnv.__bases__ == (SeededRNG, abc.ABC, Generic)
    assert (
        MultiAgentEnv.__orig_bases__[-1]  # type: ignore[attr-defined]
        == Generic[ObsType, ActType, AgentID]
    )
    assert isinstance(MultiAgentEnv.__dict__["num_agents"], property)
    assert isinstance(MultiAgentEnv.__dict__["max_num_agents"], property)
    assert _params(MultiAgentEnv.observation_space) == [("agent", POS, P.empty)]
    assert _params(MultiAgentEnv.action_space) == [("agent", POS, P.empty)]
    # Inputs are typed as documented: any agent key, not only the env's AgentID.
    annotations = {
        name: inspect.signature(getattr(MultiAgentEnv, name)).parameters[param].annotation
        for name, param in [
            ("observation_space", "agent"),
            ("action_space", "agent"),
            ("step", "actions"),
            ("async_step", "actions"),
        ]
    }
    assert annotations == {
        "observation_space": "Any",
        "action_space": "Any",
        "step": "dict[Any, ActType]",
        "async_step": "dict[Any, ActType]",
    }


@pytest.mark.parametrize(
    ("cls", "orig_bases"),
    [
        (Wrapper, (Env[WObsType, WActType], Generic[WObsType, WActType, ObsType, ActType])),
        (
            ObservationWrapper,
            (Wrapper[WObsType, ActType, ObsType, ActType], Generic[WObsType, ActType, ObsType]),
        ),
        (RewardWrapper, (Wrapper[ObsType, ActType, ObsType, ActType], Generic[ObsType, ActType])),
        (
            ActionWrapper,
            (Wrapper[ObsType, WActType, ObsType, ActType], Generic[ObsType, WActType, ActType]),
        ),
    ],
)
def test_wrapper_classes_bases_and_constructor(cls: type, orig_bases: tuple[Any, ...]) -> None:
    assert cls.__orig_bases__ == orig_bases  # type: ignore[attr-defined]
    assert _params(cls.__init__) == [("env", POS, P.empty)]


def test_wrapper_inspects_its_stack() -> None:
    assert _params(Wrapper.__iter__) == []
    assert _params(Wrapper.__len__) == []
    assert isinstance(Wrapper.__dict__["unwrapped"], property)


@pytest.mark.parametrize(
    ("cls", "fields", "generic"),
    [
        (
            StepResult,
            ["observation", "reward", "terminated", "truncated", "info"],
            Generic[ObsType],
        ),
        (ResetResult, ["observation", "info"], Generic[ObsType]),
        (
            MAStepResult,
            ["observations", "rewards", "terminated", "truncated", "info"],
            Generic[ObsType, AgentID],
        ),
        (MAResetResult, ["observations", "info"], Generic[ObsType, AgentID]),
    ],
)
def test_results_are_generic_dataclasses_with_the_documented_fields(
    cls: type, fields: list[str], generic: Any
) -> None:
    assert dataclasses.is_dataclass(cls)
    assert [f.name for f in dataclasses.fields(cls)] == fields
    assert _params(cls.__init__) == [(name, POS, P.empty) for name in fields]
    assert cls.__orig_bases__ == (generic,)  # type: ignore[attr-defined]


def test_result_properties() -> None:
    for cls in (StepResult, ResetResult):
        assert isinstance(cls.__dict__["done"], property)
    for cls in (MAStepResult, MAResetResult):
        assert isinstance(cls.__dict__["all_done"], property)
        assert isinstance(cls.__dict__["any_done"], property)


def test_check_env_signature() -> None:
    assert _params(check_env) == [
        ("env", POS, P.empty),
        ("n_steps", KW, 100),
        ("warn_on_anomaly", KW, True),
        ("check_obs_space", KW, True),
        ("check_action_space", KW, True),
        ("check_reset_seed", KW, True),
        ("check_determinism", KW, False),
        ("check_async", KW, True),
    ]
    assert typing.get_type_hints(check_env)["return"] == list[str]


def test_seeding_helpers_signatures() -> None:
    assert _params(np_random) == [("seed", POS, None)]
    assert _params(make_seed_sequence) == [("base_seed", POS, P.empty), ("n", POS, P.empty)]


def test_episode_stats_fields() -> None:
    fields = dataclasses.fields(EpisodeStats)
    assert [f.name for f in fields] == [
        "episode_return",
        "episode_length",
        "elapsed_time",
        "start_time",
        "end_time",
        "terminated",
        "truncated",
        "extra",
    ]
    assert fields[-1].default_factory is dict
    assert isinstance(EpisodeStats.__dict__["done"], property)
