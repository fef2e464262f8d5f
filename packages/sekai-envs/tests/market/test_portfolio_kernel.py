"""Portfolio-v0's kernel: one config, one step, the same in the single env and the native env.

The single env runs the kernel on one row, `PortfolioVecEnv` on one row per
sub-env; for the same seed and actions both must give, bit for bit, what
``SyncVecEnv`` over single envs gives, autoresets included, on each of the
three kinds of data (a history, a model, a window sampler's returns).
"""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.envs import PortfolioEnv, PortfolioVecEnv, RegimeSwitchingSampler
from sekai.envs._registration import register_envs
from sekai.envs.finance._portfolio_config import PortfolioConfig
from sekai.envs.finance._portfolio_weights import short_targets, target_weights
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import AccountConfig, MarketData, SpreadCost, SquareRootImpact
from sekai.registry import EnvRegistry
from sekai.utils.seeding import make_seed_sequence

N = 3  # sub-envs
REGISTRY = EnvRegistry()
REGISTRY.register_namespace("sekai", register_envs)
REGISTRY.all_specs()  # loads the namespace


def _panel(rows: int, n_assets: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (rows, n_assets)), axis=0))


def _dated(rows: int, n_assets: int) -> MarketData:
    """A history stamped with dates and quoted with a spread (a field the costs read)."""
    stamps = np.datetime64("2020-01-01") + np.arange(rows).astype("timedelta64[D]")
    data = MarketData(_panel(rows, n_assets), timestamps=stamps)
    return data.with_fields(spread=np.full((rows, n_assets), 0.0004))


# -- the config --------------------------------------------------------------------------------


def _parameters(function: Callable[..., Any], skip: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [
        (name, parameter.kind, parameter.default, parameter.annotation)
        for name, parameter in inspect.signature(function).parameters.items()
        if name not in skip
    ]


def test_the_env_signature_is_the_configs() -> None:
    # from_arguments declares the keywords; the env repeats them for readers and type checkers.
    env = _parameters(PortfolioEnv.__init__, ("self",))
    config = _parameters(PortfolioConfig.from_arguments, ("owner",))
    assert env == config
    zero_two = "prices data n_assets episode_length lookback transaction_cost allow_short mu "
    zero_two += "sigma corr dt model reward sampler capital"
    assert [entry[0] for entry in env][:15] == zero_two.split()
    vector = inspect.signature(PortfolioVecEnv.__init__).parameters
    assert [(name, p.kind, p.default) for name, p in vector.items()] == [
        ("self", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
        ("num_envs", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
        ("autoreset", inspect.Parameter.KEYWORD_ONLY, True),
        ("max_episode_steps", inspect.Parameter.KEYWORD_ONLY, None),
        ("kwargs", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty),
    ]


def test_the_vector_env_refuses_unknown_keywords() -> None:
    # The message names the env and the keyword, and lists the keywords it takes.
    with pytest.raises(TypeError, match=r"PortfolioVecEnv .*'lookbak'.* lookback, "):
        PortfolioVecEnv(2, lookbak=5)
    with pytest.raises(ValueError, match="PortfolioVecEnv: lookback"):
        PortfolioVecEnv(2, lookback=0)


def test_the_settable_lengths_check_again_and_end_the_episode() -> None:
    env = PortfolioEnv(_panel(60, 2), lookback=5, episode_length=10)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="needs 61 rows"):
        env.episode_length = 55
    assert env.episode_length == 10
    env.step(np.ones(3, np.float32))  # a refused value changes nothing
    env.episode_length = 4
    with pytest.raises(ResetRequired):
        env.step(np.ones(3, np.float32))
    env.lookback = 3
    assert env.config.observation_space()["returns"].shape == (3, 2)
    assert env.reset(seed=0).observation["returns"].shape == (3, 2)
    for _ in range(4):
        result = env.step(np.ones(3, np.float32))
    assert result.truncated and env.elapsed_steps == 4 and env.time == 2 + 4
    with pytest.raises(ValueError, match="lookback"):
        env.lookback = 0


def test_lookback_and_capital_none_mean_the_defaults() -> None:
    env = PortfolioEnv(lookback=None, capital=None)  # type: ignore[arg-type]
    assert env.lookback == 30 and env.capital == 1_000_000.0


def test_attributes_before_the_first_reset() -> None:
    env = PortfolioEnv(n_assets=2)
    assert env.time == 0 and env.timestamp == 0 and env.elapsed_steps == 0
    assert env.price_history is None and env.portfolio_value == 1_000_000.0
    np.testing.assert_array_equal(env.weights, [0.0, 0.0, 0.0])
    for method in (env.action_mask, lambda: env.action_to_weights(np.ones(3))):
        with pytest.raises(ResetRequired):
            method()
    with pytest.raises(AttributeError, match="read-only"):
        env.n_assets = 3


def test_a_pickled_env_continues_the_same_episode_and_the_next() -> None:
    cases: list[dict[str, Any]] = [
        {"n_assets": 2},
        {"sampler": RegimeSwitchingSampler(2)},
        {"prices": _panel(80, 2)},
    ]
    action = np.ones(3, np.float32)
    for kwargs in cases:
        env = PortfolioEnv(lookback=3, episode_length=6, **kwargs)
        env.reset(seed=3)
        env.step(action)
        copy = pickle.loads(pickle.dumps(env))
        for step in range(12):  # the rest of this episode, then a new one
            if step == 5:
                a, b = env.reset(), copy.reset()
            else:
                a, b = env.step(action), copy.step(action)  # type: ignore[assignment]
            _same(a.observation, b.observation, f"{kwargs} step {step}")
            _same(a.info, b.info, f"{kwargs} step {step}", types=True)


# -- target weights ------------------------------------------------------------------------------


_values = st.sampled_from([0.0, -0.0, 0.25, 1.0, 0.7, 3.0, 1e-9])


@settings(max_examples=60, deadline=None)
@given(
    scores=st.lists(_values, min_size=6, max_size=6),
    weights=st.lists(st.floats(-2.0, 2.0), min_size=6, max_size=6),
    leverage=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_all_tradable_targets_are_bit_for_bit_those_of_a_tradable_table(
    scores: list[float], weights: list[float], leverage: float
) -> None:
    actions = np.array(scores).reshape(2, 3)
    current = np.array(weights).reshape(2, 3)
    ones = np.ones((2, 3))
    fast, full = (
        target_weights(actions, current, None, leverage),
        target_weights(actions, current, ones, leverage),
    )
    assert fast.tobytes() == full.tobytes()
    account = AccountConfig(allow_short=True, max_leverage=leverage)
    signed = np.array(scores[:4]).reshape(2, 2) - 0.5 * np.array(scores[2:]).reshape(2, 2)
    fast, full = (
        short_targets(signed, current, None, account),
        short_targets(signed, current, ones, account),
    )
    assert fast.tobytes() == full.tobytes()


# -- single = native = sync ---------------------------------------------------------------------


def _kwargs(kind: str, short: bool, cost: Any, lookback: int, length: int) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "lookback": lookback,
        "episode_length": length,
        "allow_short": short,
        "transaction_cost": cost,
    }
    if kind == "history":
        kwargs["prices"] = _panel(40, 2)
    elif kind == "dated":
        kwargs.update(data=_dated(40, 2), sampler="sequential")
        if not isinstance(cost, SquareRootImpact):
            kwargs["transaction_cost"] = SpreadCost()
    elif kind == "model":
        # volatile and levered: some sub-envs are wiped out at different steps
        kwargs.update(mu=0.0, sigma=3.0, n_assets=2, dt=1 / 12, max_leverage=3.0)
    else:
        kwargs["sampler"] = RegimeSwitchingSampler(2, halt_probability=0.2, resume_probability=0.5)
    return kwargs


def _same(a: Any, b: Any, where: str, types: bool = False) -> None:
    """Exact equality of nested results; with ``types``, of the Python types too.

    A native env's info dicts hold Python scalars where a single env's may hold
    numpy ones (a timestamp), as they always have: ``types`` is for comparing
    single envs with SyncVecEnv, which hands their infos on as they are.
    """
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: {a.keys()} != {b}"
        for key in a:
            _same(a[key], b[key], f"{where}/{key}", types)
    else:
        assert not types or type(a) is type(b), f"{where}: {a!r} vs {b!r}"
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where, strict=True)


def _singles(kwargs: dict[str, Any], seed: int) -> tuple[list[PortfolioEnv], list[Any]]:
    envs = []
    for _ in range(N):
        own = dict(kwargs)
        sampler: Any = own.get("sampler")
        if hasattr(sampler, "spawn"):
            own["sampler"] = sampler.spawn()  # as make_vec gives each sub-env its own
        envs.append(PortfolioEnv(**own))
    seeds = make_seed_sequence(seed, N)
    return envs, [env.reset(seed=s) for env, s in zip(envs, seeds, strict=True)]


@settings(max_examples=15, deadline=None)
@given(
    kind=st.sampled_from(["history", "dated", "model", "windows"]),
    short=st.booleans(),
    cost=st.sampled_from([0.0, 0.002, 0.05, SquareRootImpact()]),
    lookback=st.integers(2, 4),
    length=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_single_native_and_sync_take_the_same_steps(
    kind: str, short: bool, cost: Any, lookback: int, length: int, seed: int
) -> None:
    kwargs = _kwargs(kind, short, cost, lookback, length)
    native = REGISTRY.make_vec("Portfolio-v0", N, **kwargs)
    sync = REGISTRY.make_vec("Portfolio-v0", N, vectorization_mode="sync", **kwargs)
    assert isinstance(native, PortfolioVecEnv)
    singles, resets = _singles(kwargs, seed)
    first = native.reset(seed=seed), sync.reset(seed=seed)
    for i, reset in enumerate(resets):
        for started in first:
            _same({k: v[i] for k, v in started.observations.items()}, reset.observation, "reset")
        _same(first[0].infos[i], reset.info, "native reset info")
        _same(first[1].infos[i], reset.info, "sync reset info", types=True)
    rng = np.random.default_rng(seed)
    width = singles[0].config.action_shape[0]
    for step in range(2 * length + 2):  # through at least one autoreset of every sub-env
        actions = rng.random((N, width)).astype(np.float32)
        actions[rng.random((N, width)) < 0.25] = 0.0
        if short:
            actions = 2.0 * actions - 1.0
        masks = native.action_mask()
        targets = native.action_to_weights(actions)
        for i, env in enumerate(singles):
            np.testing.assert_array_equal(masks[i], env.action_mask(), strict=True)
            assert targets[i].tobytes() == env.action_to_weights(actions[i]).tobytes()
        results = native.step(actions), sync.step(actions)
        for i, env in enumerate(singles):
            single = env.step(actions[i])
            info = single.info
            observation = single.observation
            if single.terminated or single.truncated:
                reset = env.reset()
                info = {
                    **info,
                    "final_observation": single.observation,
                    "final_info": single.info,
                    "reset_info": reset.info,
                }
                observation = reset.observation
            where = f"{kind} step {step} sub-env {i}"
            for result in results:
                _same({k: v[i] for k, v in result.observations.items()}, observation, where)
                assert result.rewards[i] == single.reward, where
                assert result.terminated[i] == single.terminated, where
                assert result.truncated[i] == single.truncated, where
            _same(results[0].infos[i], info, f"native {where}")
            _same(results[1].infos[i], info, f"sync {where}", types=True)
    sync.close()


@settings(max_examples=10, deadline=None)
@given(
    kind=st.sampled_from(["history", "dated", "model", "windows"]),
    short=st.booleans(),
    length=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_frozen_sub_envs_match_sync(kind: str, short: bool, length: int, seed: int) -> None:
    # Without autoreset a finished sub-env is frozen until reset(); both backends agree on
    # every step, and again after a reset that continues the generators' streams.
    kwargs = _kwargs(kind, short, 0.002, 2, length)
    frozen = {"autoreset": False}
    native = REGISTRY.make_vec("Portfolio-v0", N, vector_kwargs=frozen, **kwargs)
    sync = REGISTRY.make_vec(
        "Portfolio-v0", N, vectorization_mode="sync", vector_kwargs=frozen, **kwargs
    )
    rng = np.random.default_rng(seed)
    width = PortfolioConfig.from_arguments("test", **kwargs).action_shape[0]
    for reset_seed in (seed, None):
        a, b = native.reset(seed=reset_seed), sync.reset(seed=reset_seed)
        _same(a.observations, b.observations, "reset")
        for step in range(length + 3):
            actions = rng.random((N, width)).astype(np.float32)
            if short:
                actions = 2.0 * actions - 1.0
            x, y = native.step(actions), sync.step(actions)
            where = f"{kind} step {step}"
            _same(x.observations, y.observations, where)
            for name in ("rewards", "terminated", "truncated"):
                np.testing.assert_array_equal(
                    getattr(x, name), getattr(y, name), err_msg=f"{where} {name}", strict=True
                )
            for p, q in zip(x.infos, y.infos, strict=True):
                _same(p, q, where)
    sync.close()


def test_a_frozen_sub_env_stays_in_its_data() -> None:
    # The last window of a history and a simulated path both end one row after the last
    # decision: a frozen sub-env must not read past it, and must keep its state.
    prices = _panel(30, 2)
    for kwargs in ({"prices": prices, "sampler": 30 - 1 - 4 - 2}, {"n_assets": 2}):
        vec = PortfolioVecEnv(2, autoreset=False, lookback=2, episode_length=4, **kwargs)
        vec.reset(seed=1)
        action = np.ones((2, 3), np.float32)
        results = [vec.step(action) for _ in range(6)]
        assert [bool(r.truncated[0]) for r in results] == [False, False, False, True, True, True]
        np.testing.assert_array_equal(vec.time, [5, 5])
        for later in results[4:]:
            _same(later.observations, results[3].observations, "frozen")
            assert later.rewards.tolist() == [0.0, 0.0]


def test_vector_action_to_weights_checks_the_batch() -> None:
    vec = PortfolioVecEnv(2, n_assets=2, allow_short=True)
    vec.reset(seed=0)
    np.testing.assert_allclose(
        vec.action_to_weights(np.array([[0.5, -0.25], [1.0, 1.0]])),
        [[0.5, -0.25, 0.75], [0.5, 0.5, 0.0]],
    )
    with pytest.raises(InvalidAction, match="PortfolioVecEnv actions"):
        vec.action_to_weights(np.ones((3, 2)))
    assert repr(vec) == "PortfolioVecEnv(num_envs=2, n_assets=2)"
