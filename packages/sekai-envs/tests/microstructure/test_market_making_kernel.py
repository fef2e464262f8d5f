"""MarketMaking-v0's kernel: one config for both envs, and one step they both run exactly alike."""

from __future__ import annotations

import dataclasses
import inspect
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import sekai.registry as registry
from sekai.core import Env, TimeLimit
from sekai.envs.finance._market_making_config import MarketMakingConfig
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv
from sekai.vector import SyncVecEnv

NUM_ENVS = 3
_PARAMETERS = (
    "s0",
    "sigma",
    "total_time",
    "n_steps",
    "fill_intensity",
    "fill_decay",
    "risk_aversion",
    "max_inventory",
    "order_size",
    "max_offset",
)


# -- one declaration of the parameters ------------------------------------------------------------


def test_the_single_envs_signature_is_the_configs() -> None:
    # The env spells out sekai 0.2's signature; the config declares the parameters:
    # same names, order and defaults, all keyword-only.
    parameters = list(inspect.signature(MarketMakingEnv).parameters.values())
    fields = dataclasses.fields(MarketMakingConfig)
    assert [(p.name, p.default, p.kind) for p in parameters] == [
        (f.name, f.default, inspect.Parameter.KEYWORD_ONLY) for f in fields
    ]
    assert all(f.kw_only for f in fields)
    assert MarketMakingConfig.parameter_names() == _PARAMETERS


def test_the_vector_envs_signature_is_0_2s() -> None:
    signature = inspect.signature(MarketMakingVecEnv)
    assert str(signature) == (
        "(num_envs: 'int', *, autoreset: 'bool' = True, max_episode_steps: 'int | None' = None, "
        "**kwargs: 'Any') -> 'None'"
    )


def test_the_config_checks_and_normalises_naming_its_owner() -> None:
    config = MarketMakingConfig(s0=7, n_steps=np.int64(4))
    assert type(config.s0) is float and type(config.n_steps) is int
    assert config.dt == 0.25 and config.move_scale == 1.0
    with pytest.raises(ValueError, match="MarketMakingConfig: sigma"):
        MarketMakingConfig(sigma=-1.0)
    with pytest.raises(ValueError, match="MarketMakingEnv: max_inventory"):
        MarketMakingEnv(order_size=3, max_inventory=2)
    with pytest.raises(TypeError, match="MarketMakingVecEnv: n_steps"):
        MarketMakingVecEnv(2, n_steps=2.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.sigma = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "build",
    [MarketMakingVecEnv, lambda n, **kw: registry.make_vec("MarketMaking-v0", num_envs=n, **kw)],
)
def test_an_unknown_keyword_of_the_vector_env_is_named(build: Any) -> None:
    with pytest.raises(TypeError, match=r"'sgima'.*s0, sigma, total_time, n_steps") as error:
        build(2, sgima=1.0)
    assert ", ".join(_PARAMETERS) in str(error.value)
    with pytest.raises(TypeError, match="'owner'"):
        build(2, owner="me")


def test_make_vec_passes_the_keywords_to_the_config() -> None:
    env = registry.make_vec("MarketMaking-v0", num_envs=4, n_steps=5, sigma=1.0, max_offset=2.0)
    assert isinstance(env, MarketMakingVecEnv)
    assert env.config == MarketMakingConfig(n_steps=5, sigma=1.0, max_offset=2.0)
    assert (env.n_steps, env.sigma, env.max_offset, env.dt) == (5, 1.0, 2.0, 0.2)
    assert env.get_attr("sigma") == [1.0] * 4


@pytest.mark.parametrize(
    "build",
    [MarketMakingEnv, lambda **kwargs: MarketMakingVecEnv(2, **kwargs)],
    ids=["single", "native"],
)
def test_parameters_read_the_config_and_are_read_only(build: Any) -> None:
    env = build(fill_intensity=90.0)
    config = env.config
    assert (env.A, env.k, env.dt) == (90.0, config.fill_decay, config.dt)
    for name in (
        "s0",
        "sigma",
        "total_time",
        "n_steps",
        "risk_aversion",
        "max_inventory",
        "order_size",
        "max_offset",
    ):
        assert getattr(env, name) == getattr(config, name)
    with pytest.raises(AttributeError, match="sigma is read-only"):
        env.sigma = 3.0


def test_state_reads_and_writes() -> None:
    single = MarketMakingEnv()
    single.reset(seed=0)
    single.inventory = 3  # the closed form in another state (see test_market_making)
    assert single.inventory == 3 and single.get_attr("inventory") == 3
    native = MarketMakingVecEnv(2)
    native.reset(seed=0)
    mids = native.mid
    mids[0] = -1.0  # a copy: the env's state is untouched
    np.testing.assert_array_equal(native.mid, [100.0, 100.0])
    with pytest.raises(AttributeError, match="mid is read-only"):
        native.set_attr("mid", [1.0, 2.0])


# -- one step: single env == native vector env == SyncVecEnv --------------------------------------


def _same(a: Any, b: Any, where: str) -> None:
    """Equal, bit for bit and type for type (NaN equals NaN)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: {a.keys()} != {b.keys()}"
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    else:
        assert type(a) is type(b) and a == b, f"{where}: {a!r} != {b!r}"


@st.composite
def _kwargs(draw: st.DrawFn) -> dict[str, Any]:
    order_size = draw(st.integers(1, 3))
    return {
        "s0": draw(st.floats(-500.0, 500.0)),
        "sigma": draw(st.floats(0.0, 5.0)),
        "n_steps": draw(st.integers(1, 6)),
        "risk_aversion": draw(st.floats(0.0, 2.0)),
        "order_size": order_size,
        "max_inventory": draw(st.integers(order_size, 3 * order_size)),
        "max_offset": draw(st.floats(0.01, 6.0)),
        "fill_intensity": draw(st.sampled_from([140.0, 2000.0])),  # 2000: limits bind
    }


def _actions(rng: np.random.Generator, high: float) -> np.ndarray:
    actions = rng.uniform(0.0, high, (NUM_ENVS, 2))
    # now and then a bound exactly
    edges = rng.random((NUM_ENVS, 2))
    actions[edges < 0.1] = 0.0
    actions[edges > 0.9] = high
    return actions.astype(np.float32)


@settings(max_examples=15, deadline=None)
@given(
    kwargs=_kwargs(),
    seeds=st.lists(st.integers(0, 2**32 - 1), min_size=NUM_ENVS, max_size=NUM_ENVS),
    limits=st.none() | st.lists(st.integers(1, 7), min_size=NUM_ENVS, max_size=NUM_ENVS),
    action_seed=st.integers(0, 2**16),
)
def test_single_native_and_sync_agree_step_for_step(
    kwargs: dict[str, Any], seeds: list[int], limits: list[int] | None, action_seed: int
) -> None:
    # Per-sub-env time limits put the sub-envs out of step (they autoreset apart).
    def single(i: int) -> Env[Any, Any]:
        env = MarketMakingEnv(**kwargs)
        return env if limits is None else TimeLimit(env, limits[i])

    singles = [single(i) for i in range(NUM_ENVS)]
    sync = SyncVecEnv([lambda i=i: single(i) for i in range(NUM_ENVS)])  # type: ignore[misc]
    native = MarketMakingVecEnv(NUM_ENVS, max_episode_steps=limits, **kwargs)  # type: ignore[arg-type]

    first_sync, first_native = sync.reset(seed=seeds), native.reset(seed=seeds)
    _same(first_sync.observations, first_native.observations, "reset observations")
    for i, env in enumerate(singles):
        result = env.reset(seed=seeds[i])
        _same(result.observation, first_native.observations[i], f"reset observation {i}")
        _same(result.info, first_native.infos[i], f"reset info {i}")
        _same(first_sync.infos[i], first_native.infos[i], f"sync reset info {i}")

    rng = np.random.default_rng(action_seed)
    high = float(np.float32(kwargs["max_offset"]))
    resets = 0
    for step in range(2 * kwargs["n_steps"] + 3):  # at least one autoreset
        actions = _actions(rng, high)
        a, b = sync.step(actions), native.step(actions)
        for name in ("observations", "rewards", "terminated", "truncated"):
            _same(getattr(a, name), getattr(b, name), f"step {step} {name}")
        for i, env in enumerate(singles):
            where = f"step {step} sub-env {i}"
            _same(a.infos[i], b.infos[i], f"{where} sync info")
            result = env.step(actions[i])
            info = dict(b.infos[i])
            assert result.reward == b.rewards[i], where
            assert (result.terminated, result.truncated) == (b.terminated[i], b.truncated[i])
            if result.terminated or result.truncated:  # the native env reset it within the step
                resets += 1
                _same(result.observation, info.pop("final_observation"), where)
                _same(result.info, info.pop("final_info"), where)
                again = env.reset()  # continues the sub-env's stream, as autoreset does
                _same(again.info, info.pop("reset_info"), where)
                _same(again.observation, b.observations[i], where)
            else:
                _same(result.observation, b.observations[i], where)
            _same(result.info, info, where)
    assert resets >= NUM_ENVS
