"""OptimalExecution-v0's kernel: one config for both envs, one model both run, equal results."""

from __future__ import annotations

import dataclasses
import inspect
import math
from functools import partial
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.registry as registry
from sekai.envs.finance._optimal_execution_kernel import (
    ExecutionConfig,
    broadcast,
    select,
)
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution_vector import OptimalExecutionVecEnv
from sekai.vector import SyncVecEnv

PARAMETERS = [field.name for field in dataclasses.fields(ExecutionConfig)]

# -- one config: the signatures --------------------------------------------------------------------


def test_the_single_env_signature_is_the_configs() -> None:
    params = list(inspect.signature(OptimalExecutionEnv).parameters.values())
    declared = dataclasses.fields(ExecutionConfig)
    assert [p.name for p in params] == [f.name for f in declared]
    assert [p.default for p in params] == [f.default for f in declared]
    assert [p.annotation for p in params] == [f.type for f in declared]
    assert {p.kind for p in params} == {inspect.Parameter.KEYWORD_ONLY}


def test_the_vector_env_signature_is_0_2s() -> None:
    params = inspect.signature(OptimalExecutionVecEnv).parameters
    assert [(p.name, p.kind, p.default) for p in params.values()] == [
        ("num_envs", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
        ("autoreset", inspect.Parameter.KEYWORD_ONLY, True),
        ("max_episode_steps", inspect.Parameter.KEYWORD_ONLY, None),
        ("kwargs", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty),
    ]


def test_both_envs_build_the_same_config_and_read_their_attributes_from_it() -> None:
    kwargs: dict[str, Any] = {
        "n_steps": 4,
        "sigma": 0.5,
        "permanent_impact": 1e-7,
        "fixed_cost": 0.01,
    }
    single = OptimalExecutionEnv(**kwargs)
    native = OptimalExecutionVecEnv(3, **kwargs)
    made = registry.make_vec("OptimalExecution-v0", num_envs=3, **kwargs)
    assert isinstance(made, OptimalExecutionVecEnv)
    expected = ExecutionConfig(**kwargs)
    assert single.config == native.config == made.config == expected
    for env in (single, native):
        assert (env.X0, env.gamma, env.eta, env.epsilon) == (1e6, 1e-7, 2.5e-6, 0.01)
        assert (env.n_steps, env.sigma, env.tau) == (4, 0.5, 1.25)
        with pytest.raises(AttributeError, match="read-only"):
            env.sigma = 1.0
    assert native.get_attr("gamma") == [1e-7] * 3


def test_an_unknown_keyword_is_named_with_the_known_ones() -> None:
    with pytest.raises(TypeError, match="an unexpected keyword argument 'volatility'") as error:
        OptimalExecutionVecEnv(2, volatility=0.3)
    assert str(error.value).endswith(", ".join(PARAMETERS))
    with pytest.raises(TypeError, match="arguments 'spread', 'drift'; it takes"):
        OptimalExecutionVecEnv(2, spread=0.1, sigma=0.3, drift=0.0)
    with pytest.raises(TypeError, match="'owner'"):  # the config's keyword is not a parameter
        OptimalExecutionVecEnv(2, owner="me")
    with pytest.raises(TypeError, match="'volatility'"):
        registry.make_vec("OptimalExecution-v0", num_envs=2, volatility=0.3)


@pytest.mark.parametrize(
    ("owner", "make"),
    [
        ("OptimalExecutionEnv", lambda **kw: OptimalExecutionEnv(**kw)),
        ("OptimalExecutionVecEnv", lambda **kw: OptimalExecutionVecEnv(2, **kw)),
    ],
)
def test_bad_parameters_are_refused_naming_the_env(owner: str, make: Any) -> None:
    with pytest.raises(ValueError, match=f"{owner}: sigma must be .*>= 0.*-1.0"):
        make(sigma=-1.0)
    with pytest.raises(ValueError, match=f"{owner}: s0 must be .*> 0"):
        make(s0=0.0)
    with pytest.raises(TypeError, match=f"{owner}: n_steps must be an int"):
        make(n_steps=2.5)
    with pytest.raises(TypeError, match=f"{owner}: fixed_cost"):
        make(fixed_cost="cheap")


def test_the_config_holds_plain_numbers_and_its_derived_constants() -> None:
    config = ExecutionConfig(n_steps=np.int64(5), sigma=np.float32(0.5))
    assert type(config.n_steps) is int and type(config.sigma) is float
    assert config.tau == 1.0 and config.move_scale == 0.5
    assert config.eta_tilde == 2.5e-6 - 0.5 * 2.5e-7
    assert config.reward_scale == 1e4 / (1e6 * 50.0)
    assert ExecutionConfig(sigma=0.0).price_unit == 1.0


def test_select_and_broadcast_serve_numbers_and_arrays() -> None:
    assert select(True, 1.0, 2.0) == 1.0 and select(False, 1.0, 2.0) == 2.0
    assert select(np.bool_(False), 1.0, 2.0) == 2.0
    np.testing.assert_array_equal(select(np.array([True, False]), 1.0, 2.0), [1.0, 2.0])
    assert broadcast(3, 0.5) == 0.5
    assert broadcast(np.zeros(2, dtype=np.int64), 0.5).tolist() == [0.5, 0.5]


# -- one model: single env == native env == SyncVecEnv, step for step ------------------------------

KWARGS = st.fixed_dictionaries(
    {"n_steps": st.integers(1, 5)},
    optional={
        "initial_inventory": st.floats(1.0, 1e7),
        "s0": st.floats(1.0, 500.0),
        "sigma": st.one_of(st.just(0.0), st.floats(0.01, 5.0)),
        "total_time": st.floats(0.1, 10.0),
        "permanent_impact": st.floats(0.0, 1e-5),
        "temporary_impact": st.floats(0.0, 1e-4),
        "fixed_cost": st.floats(0.0, 0.5),
        "risk_aversion": st.floats(0.0, 1e-4),
    },
)


def _fractions(rng: np.random.Generator, count: int) -> np.ndarray:
    # 0 and 1 often: sub-envs then sell nothing, or finish early and reset alone
    kind = rng.integers(0, 3, size=(count, 1))
    return np.where(kind == 0, 0.0, np.where(kind == 1, 1.0, rng.uniform(size=(count, 1)))).astype(
        np.float32
    )


def _same(a: Any, b: Any, where: str) -> None:
    """Equal, bit for bit, and of the same type (NaN equals NaN)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: {a!r} != {b!r}"
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


_FIELDS = ("observations", "rewards", "terminated", "truncated", "infos")


def _fields(result: Any) -> dict[str, Any]:
    """A reset's or a step's result as a dict (the infos as a list)."""
    fields = {name: getattr(result, name) for name in _FIELDS if hasattr(result, name)}
    fields["infos"] = list(fields["infos"])
    return fields


def _check(expected: dict[str, Any], *results: Any, where: str) -> None:
    """Every vector result has ``expected``'s observations, rewards, flags and infos."""
    for result in results:
        _same(expected, _fields(result), where)


@settings(max_examples=15, deadline=None)
@given(
    kwargs=KWARGS,
    num_envs=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    action_seed=st.integers(0, 2**32 - 1),
)
def test_single_native_and_sync_agree_step_for_step_through_autoresets(
    kwargs: dict[str, Any], num_envs: int, seed: int, action_seed: int
) -> None:
    singles = [OptimalExecutionEnv(**kwargs) for _ in range(num_envs)]
    native = OptimalExecutionVecEnv(num_envs, **kwargs)
    sync = SyncVecEnv([partial(OptimalExecutionEnv, **kwargs)] * num_envs)
    seeds: list[Any] = [seed + i for i in range(num_envs)]
    firsts = [env.reset(seed=s) for env, s in zip(singles, seeds, strict=True)]
    expected = {
        "observations": np.stack([first.observation for first in firsts]),
        "infos": [first.info for first in firsts],
    }
    _check(expected, native.reset(seed=seeds), sync.reset(seed=seeds), where="reset")
    rng = np.random.default_rng(action_seed)
    autoresets = 0
    # every episode ends within n_steps: each sub-env autoresets at least once
    for step in range(2 * kwargs["n_steps"] + 1):
        actions = _fractions(rng, num_envs)
        observations, rewards, terminated, infos = [], [], [], []
        for i, env in enumerate(singles):
            result = env.step(actions[i])
            observation, info = result.observation, result.info
            if result.terminated:  # what the vector envs do: reset, continuing the stream
                autoresets += 1
                again = env.reset()
                info = {
                    **info,
                    "final_observation": observation,
                    "final_info": info,
                    "reset_info": again.info,
                }
                observation = again.observation
            observations.append(observation)
            rewards.append(result.reward)
            terminated.append(result.terminated)
            infos.append(info)
        expected = {
            "observations": np.stack(observations),
            "rewards": np.array(rewards),
            "terminated": np.array(terminated),
            "truncated": np.zeros(num_envs, dtype=bool),
            "infos": infos,
        }
        _check(expected, native.step(actions), sync.step(actions), where=f"step {step}")
    assert autoresets >= num_envs


@settings(max_examples=10, deadline=None)
@given(kwargs=KWARGS, seed=st.integers(0, 2**32 - 1), action_seed=st.integers(0, 2**32 - 1))
def test_native_and_sync_agree_when_finished_envs_freeze(
    kwargs: dict[str, Any], seed: int, action_seed: int
) -> None:
    num_envs = 4
    native = OptimalExecutionVecEnv(num_envs, autoreset=False, **kwargs)
    sync = SyncVecEnv([partial(OptimalExecutionEnv, **kwargs)] * num_envs, autoreset=False)
    a, b = native.reset(seed=seed), sync.reset(seed=seed)
    _check(_fields(b), a, where="reset")
    rng = np.random.default_rng(action_seed)
    for step in range(kwargs["n_steps"] + 2):  # every sub-env frozen for the last steps
        actions = _fractions(rng, num_envs)
        _check(_fields(sync.step(actions)), native.step(actions), where=f"step {step}")
    assert bool(native.frozen.all())
    # a frozen sub-env keeps its final state (the steps after its end left it alone)
    for name in ("inventory", "mid", "shortfall"):
        np.testing.assert_array_equal(getattr(native, name), sync.get_attr(name), err_msg=name)
    np.testing.assert_array_equal(native.twap_action(), np.stack(sync.call("twap_action")))
