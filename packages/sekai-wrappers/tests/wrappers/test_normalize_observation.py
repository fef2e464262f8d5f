"""NormalizeObservation: per-Box and per-MaskedBox statistics, ewm, clip, state."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Dict, Discrete, MaskedBox, Tuple
from sekai.utils import ExponentialMovingStats, RunningMeanStd
from sekai.wrappers import NormalizeObservation


class FeedEnv(Env):
    """Returns the observations of a fixed list, one per reset/step."""

    def __init__(self, space, observations):
        self.observation_space = space
        self.action_space = Discrete(2)
        self.observations = list(observations)
        self.i = 0

    def reset(self, *, seed=None, options=None):
        self._set_rng(seed)
        self.i = 0
        return ResetResult(self.observations[0], {})

    def step(self, action):
        self.i += 1
        return StepResult(self.observations[self.i], 0.0, False, False, {})


def test_box_matches_sample_statistics() -> None:
    data = np.random.default_rng(0).normal(3.0, 2.0, size=(50, 2))
    env = NormalizeObservation(FeedEnv(Box(-np.inf, np.inf, (2,), np.float64), data))
    outs = [env.reset(seed=0).observation] + [env.step(0).observation for _ in range(49)]
    rms = env.obs_rms
    assert isinstance(rms, RunningMeanStd)
    np.testing.assert_allclose(rms.mean, data.mean(axis=0), rtol=1e-4)
    np.testing.assert_allclose(rms.var, data.var(axis=0), rtol=1e-3)
    last = outs[-1]
    assert last.dtype == np.float64
    np.testing.assert_allclose(last, (data[-1] - rms.mean) / np.sqrt(rms.var + 1e-8))


def test_epsilon_is_added_to_the_variance() -> None:
    data = np.array([[0.0], [2.0], [4.0]])
    env = NormalizeObservation(FeedEnv(Box(-np.inf, np.inf, (1,), np.float64), data), epsilon=5.0)
    env.reset(seed=0)
    env.step(0)
    out = env.step(0).observation
    rms = env.obs_rms
    np.testing.assert_allclose(out, (4.0 - rms.mean) / np.sqrt(rms.var + 5.0))
    assert env.epsilon == 5.0


def test_integer_box_becomes_float64(space_env) -> None:
    env = NormalizeObservation(space_env(Box(0, 255, (4, 3), np.uint8)))
    obs = env.reset(seed=0).observation
    assert obs.dtype == np.float64
    assert env.observation_space.dtype == np.float64
    assert env.observation_space.shape == (4, 3)


def test_nested_space_mirrors_statistics_and_passes_other_leaves(space_env) -> None:
    space = Dict(
        {
            "price": Box(-1.0, 1.0, (2,)),
            "regime": Discrete(3),
            "pair": Tuple((Box(0.0, 1.0, (1,)), Discrete(2))),
        }
    )
    inner = space_env(space)
    env = NormalizeObservation(inner)
    raw = inner.reset(seed=1).observation
    obs = env.reset(seed=1).observation
    assert obs["regime"] == raw["regime"]
    assert obs["pair"][1] == raw["pair"][1]
    assert obs["price"].dtype == np.float64
    rms = env.obs_rms
    assert set(rms) == {"price", "regime", "pair"}
    assert isinstance(rms["price"], RunningMeanStd) and rms["regime"] is None
    assert isinstance(rms["pair"], tuple) and rms["pair"][1] is None
    assert isinstance(env.observation_space["regime"], Discrete)


def test_masked_box_uses_occupied_slots_only() -> None:
    space = MaskedBox(-100.0, 100.0, (1,), max_size=3)
    padding_value = 50.0  # would bias the statistics if counted
    observations = [
        {
            "values": np.array([[v], [v + 2.0], [padding_value]], np.float32),
            "mask": np.array([1, 1, 0], np.int8),
        }
        for v in (0.0, 4.0, 8.0)
    ]
    env = NormalizeObservation(FeedEnv(space, observations))
    env.reset(seed=0)
    env.step(0)
    out = env.step(0).observation
    held = np.array([0.0, 2.0, 4.0, 6.0, 8.0, 10.0])
    rms = env.obs_rms
    assert rms.shape == (1,)
    np.testing.assert_allclose(rms.mean, [held.mean()], rtol=1e-4)
    np.testing.assert_allclose(rms.var, [held.var()], rtol=1e-3)
    assert out["values"][2, 0] == 0.0  # empty slot
    assert out["values"].dtype == np.float64
    assert env.observation_space["values"].dtype == np.float64
    np.testing.assert_array_equal(out["mask"], [1, 1, 0])
    np.testing.assert_allclose(out["values"][0], (8.0 - rms.mean) / np.sqrt(rms.var + 1e-8))
    assert out in env.observation_space
    assert isinstance(env.observation_space, MaskedBox)


def test_ewm_tracks_recent_data() -> None:
    data = np.concatenate([np.zeros((200, 1)), np.full((200, 1), 10.0)])
    space = Box(-np.inf, np.inf, (1,), np.float64)
    running = NormalizeObservation(FeedEnv(space, data))
    ewm = NormalizeObservation(FeedEnv(space, data), stats="ewm", halflife=10.0)
    for env in (running, ewm):
        env.reset(seed=0)
        for _ in range(399):
            env.step(0)
    assert isinstance(ewm.obs_rms, ExponentialMovingStats)
    assert ewm.obs_rms.mean[0] > 9.9
    assert 4.0 < running.obs_rms.mean[0] < 6.0


def test_clip_bounds_values_and_space() -> None:
    data = np.array([[0.0], [0.0], [0.0], [1000.0]])
    env = NormalizeObservation(FeedEnv(Box(-np.inf, np.inf, (1,)), data), clip=1.5)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    out = env.step(0).observation
    assert out[0] == 1.5
    assert env.observation_space.high[0] == 1.5 and env.observation_space.low[0] == -1.5


def test_freezing_statistics(space_env) -> None:
    env = NormalizeObservation(space_env(Box(-1.0, 1.0, (3,))))
    env.reset(seed=0)
    env.step(np.zeros(2, np.float32))
    env.update_running_mean = False
    before = env.state_dict()
    for _ in range(3):
        env.step(np.zeros(2, np.float32))
    after = env.state_dict()
    np.testing.assert_array_equal(before["mean"], after["mean"])
    assert before["count"] == after["count"]


def test_state_dict_round_trip(space_env, any_space, same) -> None:
    a = NormalizeObservation(space_env(any_space))
    a.reset(seed=0)
    for _ in range(4):
        a.step(np.zeros(2, np.float32))
    b = NormalizeObservation(space_env(any_space))
    b.load_state_dict(a.state_dict())
    assert same(b.state_dict(), a.state_dict())
    a.update_running_mean = b.update_running_mean = False
    assert same(a.reset(seed=9).observation, b.reset(seed=9).observation)


def test_load_state_dict_rejects_mismatches(space_env) -> None:
    env = NormalizeObservation(space_env(Dict({"a": Box(0.0, 1.0, (2,)), "b": Discrete(2)})))
    with pytest.raises(ValueError, match="keys"):
        env.load_state_dict({"a": None})
    with pytest.raises(ValueError, match=r"state\['a'\]"):
        env.load_state_dict(
            {"a": {"mean": np.zeros(3), "var": np.ones(3), "count": 1.0}, "b": None}
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"stats": "median"}, "stats"),
        ({"halflife": 0.0}, "halflife"),
        ({"clip": -1.0}, "clip"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"clip": float("nan")}, "clip"),
    ],
)
def test_rejects_bad_arguments(space_env, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        NormalizeObservation(space_env(Box(0.0, 1.0, (2,))), **kwargs)


@pytest.mark.parametrize("stats", ["running", "ewm"])
def test_check_env(space_env, any_space, assert_conforms, stats) -> None:
    env = NormalizeObservation(space_env(any_space), stats=stats, halflife=5.0, clip=3.0)
    # Statistics move between seeded resets, so reproducibility is checked frozen.
    assert_conforms(env, check_reset_seed=False, check_async=False)
    env.update_running_mean = False
    assert_conforms(env)


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 8
    a = rollout(NormalizeObservation(space_env(any_space)), 3, actions)
    b = rollout(NormalizeObservation(space_env(any_space)), 3, actions)
    assert same(a, b)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2), min_size=2, max_size=20))
def test_normalised_values_follow_the_formula(rows) -> None:
    data = np.array(rows)
    env = NormalizeObservation(FeedEnv(Box(-np.inf, np.inf, (2,), np.float64), data))
    out = env.reset(seed=0).observation
    for _ in range(1, len(rows)):
        out = env.step(0).observation
    rms = env.obs_rms
    np.testing.assert_allclose(out, (data[-1] - rms.mean) / np.sqrt(rms.var + 1e-8), atol=1e-9)
    assert np.all(np.isfinite(out))
    # The per-step update agrees with RunningMeanStd fed the same samples one by one.
    reference = RunningMeanStd((2,))
    for row in data:
        reference.update(row[np.newaxis])
    np.testing.assert_allclose(rms.mean, reference.mean, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rms.var, reference.var, rtol=1e-9, atol=1e-9)
    assert rms.count == pytest.approx(reference.count)


def test_a_deep_copy_has_independent_statistics(space_env, any_space, same) -> None:
    import copy

    env = NormalizeObservation(space_env(any_space))
    env.reset(seed=0)
    twin = copy.deepcopy(env)
    before = env.state_dict()
    for _ in range(3):
        twin.step(np.zeros(2, np.float32))
    assert same(env.state_dict(), before)
