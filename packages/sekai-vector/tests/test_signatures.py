"""The public signatures of sekai.vector: argument names, keyword-only markers and defaults."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

import sekai.vector as vector

_SEED_OPTIONS = "*, seed=None, options=None"

# (owner, member or None for the constructor, "name=default" list as written in the
# reference; "*" starts the keyword-only arguments). ``self`` is left out. The
# backends' trailing ``batch_size=None`` (partial batches) extends the reference,
# and so does every backend's ``step_timeout=None``.
SIGNATURES: list[tuple[Any, str | None, str]] = [
    (
        vector.SyncVecEnv,
        None,
        "env_fns, *, autoreset=True, copy=True, batch_size=None, step_timeout=None",
    ),
    (vector.AsyncVecEnv, None, "env_fns, *, autoreset=True, batch_size=None, step_timeout=None"),
    (
        vector.ProcVecEnv,
        None,
        "env_fns, *, autoreset=True, context=None, close_timeout=5.0, num_workers=None, "
        "shared_memory=None, batch_size=None, step_timeout=None",
    ),
    (
        vector.NativeVecEnv,
        None,
        "num_envs, observation_space, action_space, *, autoreset=True, max_episode_steps=None",
    ),
    (vector.VecEnv, "step", "actions"),
    (vector.VecEnv, "reset", _SEED_OPTIONS),
    (vector.VecEnv, "close", ""),
    # ``action``: the name sekai 0.2's Sync/Proc/NativeVecEnv gave the batch, kept as an alias.
    (vector.VecEnv, "async_step", "actions=Ellipsis, *, action=Ellipsis"),
    (vector.VecEnv, "async_reset", _SEED_OPTIONS),
    (vector.VecEnv, "send", "actions, env_ids=None"),
    (vector.VecEnv, "recv", ""),
    (vector.VecEnv, "async_recv", ""),
    (vector.VecEnv, "call", "method, *args, **kwargs"),
    (vector.VecEnv, "get_attr", "name"),
    (vector.VecEnv, "set_attr", "name, values"),
    (vector.NativeVecEnv, "_reset_envs", "indices, options"),
    (vector.NativeVecEnv, "_observe", ""),
    (vector.NativeVecEnv, "_step", "actions"),
    (vector.NativeVecEnv, "_reset_infos", "indices"),
    (vector, "shared", "member"),
    (vector, "stack_infos", "infos"),
    (vector.VecWrapper, None, "venv"),
    (vector.VecObservationWrapper, None, "venv"),
    (vector.VecObservationWrapper, "final_observation", "obs"),
    (vector.VecRewardWrapper, None, "venv"),
    (vector.VecActionWrapper, None, "venv"),
    (vector.VecRecordEpisodeStatistics, None, "venv, tracker=None, deque_size=100"),
    (
        vector.VecNormalizeObservation,
        None,
        "venv, epsilon=1e-08, *, stats='running', halflife=1000.0, clip=None",
    ),
    (vector.VecNormalizeObservation, "state_dict", ""),
    (vector.VecNormalizeObservation, "load_state_dict", "state"),
    (vector.VecNormalizeReward, None, "venv, gamma=0.99, epsilon=1e-08"),
    (vector.VecTransformObservation, None, "venv, func, new_observation_space=None"),
    (vector.VecTransformReward, None, "venv, func"),
]


def _render(func: Any) -> str:
    parts: list[str] = []
    star = False
    for param in inspect.signature(func).parameters.values():
        if param.name == "self":
            continue
        if param.kind is param.VAR_POSITIONAL:
            parts.append(f"*{param.name}")
            star = True
            continue
        if param.kind is param.VAR_KEYWORD:
            parts.append(f"**{param.name}")
            continue
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = param.name
        if param.default is not param.empty:
            text += f"={param.default!r}"
        parts.append(text)
    return ", ".join(parts)


@pytest.mark.parametrize(
    ("owner", "member", "expected"),
    SIGNATURES,
    ids=[f"{getattr(o, '__name__', o)}.{m or '__init__'}" for o, m, _ in SIGNATURES],
)
def test_signature_matches_the_reference(owner: Any, member: str | None, expected: str) -> None:
    assert _render(getattr(owner, member or "__init__")) == expected


def test_async_methods_are_coroutine_functions() -> None:
    for cls in (vector.VecEnv, vector.VecWrapper, vector.AsyncVecEnv, vector.ProcVecEnv):
        assert inspect.iscoroutinefunction(cls.async_step)
        assert inspect.iscoroutinefunction(cls.async_reset)


def test_abstract_members() -> None:
    assert vector.VecEnv.__abstractmethods__ == {"step", "reset", "close"}
    assert vector.NativeVecEnv.__abstractmethods__ == {"_reset_envs", "_observe", "_step"}


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        (vector.VecEnv, "batch_observation_space"),
        (vector.VecEnv, "batch_action_space"),
        (vector.ProcVecEnv, "shared_memory"),
        (vector.NativeVecEnv, "rng"),
        (vector.VecNormalizeObservation, "obs_rms"),
    ],
)
def test_properties(cls: type, name: str) -> None:
    assert isinstance(inspect.getattr_static(cls, name), property)


def test_result_fields() -> None:
    step_fields = [f.name for f in dataclasses.fields(vector.VecStepResult)]
    assert step_fields == ["observations", "rewards", "terminated", "truncated", "infos"]
    assert [f.name for f in dataclasses.fields(vector.VecResetResult)] == [
        "observations",
        "infos",
    ]


def test_bases() -> None:
    for cls in (vector.SyncVecEnv, vector.AsyncVecEnv, vector.ProcVecEnv, vector.NativeVecEnv):
        assert issubclass(cls, vector.VecEnv)
    assert issubclass(vector.VecObservationWrapper, vector.VecWrapper)
    assert issubclass(vector.VecRewardWrapper, vector.VecWrapper)
    assert issubclass(vector.VecActionWrapper, vector.VecWrapper)
    assert issubclass(vector.VecTransformObservation, vector.VecObservationWrapper)
    assert issubclass(vector.VecNormalizeObservation, vector.VecObservationWrapper)
    assert issubclass(vector.VecTransformReward, vector.VecRewardWrapper)
    for cls in (vector.VecRecordEpisodeStatistics, vector.VecNormalizeReward):
        assert issubclass(cls, vector.VecWrapper)
