"""FrameStackObservation: leaf-by-leaf stacking, padding modes, AutoReset warning."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from sekai.spaces import Box, Dict, Discrete, MaskedBox, MultiDiscrete, Sequence, zero_sample
from sekai.wrappers import AutoReset, FrameStackObservation


def test_reset_padding_repeats_the_first_observation(counter_env) -> None:
    env = FrameStackObservation(counter_env(), 3)
    start = env.reset(seed=0).info["start"]
    first = env.reset(seed=0).observation
    assert first.shape == (3, 1)
    assert first[:, 0].tolist() == [start] * 3
    assert env.step(0).observation[:, 0].tolist() == [start, start, start + 1]
    assert env.step(0).observation[:, 0].tolist() == [start, start + 1, start + 2]
    assert env.step(0).observation[:, 0].tolist() == [start + 1, start + 2, start + 3]


def test_zeros_padding_uses_the_space_zero(counter_env) -> None:
    env = FrameStackObservation(counter_env(), 3, padding="zeros")
    start = env.reset(seed=0).info["start"]
    obs = env.reset(seed=0).observation
    assert obs[:, 0].tolist() == [0, 0, start]
    assert env.step(0).observation[:, 0].tolist() == [0, start, start + 1]


def test_zeros_padding_is_the_zero_sample_of_every_leaf(space_env, same) -> None:
    # Zero clipped into the bounds for a Box, start for a Discrete, empty slots for a MaskedBox.
    space = Dict(
        {
            "price": Box(1.0, 2.0, (2,)),
            "regime": Discrete(3, start=5),
            "book": MaskedBox(0.0, 1.0, (2,), max_size=2),
        }
    )
    env = FrameStackObservation(space_env(space), 3, padding="zeros")
    obs = env.reset(seed=0).observation
    zero = zero_sample(space)
    assert obs["price"][:2].tolist() == [[1.0, 1.0]] * 2
    assert obs["regime"][:2].tolist() == [5, 5]

    def frame(x, i):
        return {k: frame(v, i) for k, v in x.items()} if isinstance(x, dict) else x[i]

    for i in range(2):
        assert same(frame(obs, i), zero)
    assert not same(frame(obs, 2), zero)
    assert obs in env.observation_space


def test_reset_clears_the_previous_episode(counter_env) -> None:
    env = FrameStackObservation(counter_env(), 2)
    env.reset(seed=0)
    env.step(0)
    start = env.reset(seed=1).info["start"]
    assert env.step(0).observation[:, 0].tolist() == [start, start + 1]


def test_stacks_are_fresh_arrays(counter_env) -> None:
    env = FrameStackObservation(counter_env(), 2)
    a = env.reset(seed=0).observation
    b = env.step(0).observation
    kept = a.copy()
    b[:] = -1
    np.testing.assert_array_equal(a, kept)


def test_nested_space_stacks_leaf_by_leaf(space_env) -> None:
    space = Dict(
        {
            "returns": Box(-1.0, 1.0, (5, 2)),
            "weights": Box(0.0, 1.0, (3,)),
            "regime": Discrete(3),
            "book": MaskedBox(0.0, 1.0, (2,), max_size=4),
        }
    )
    env = FrameStackObservation(space_env(space), 4)
    stacked = env.observation_space
    assert stacked["returns"].shape == (4, 5, 2)
    assert stacked["weights"].shape == (4, 3)
    assert isinstance(stacked["regime"], MultiDiscrete) and stacked["regime"].shape == (4,)
    assert stacked["book"]["values"].shape == (4, 4, 2)
    assert stacked["book"]["mask"].shape == (4, 4)
    obs = env.reset(seed=0).observation
    assert obs in stacked
    step = env.step(np.zeros(2, np.float32)).observation
    assert step in stacked
    np.testing.assert_array_equal(step["weights"][:3], obs["weights"][1:])


def test_unbatchable_space_is_rejected(space_env) -> None:
    with pytest.raises(TypeError, match="batched"):
        FrameStackObservation(space_env(Sequence(Box(0.0, 1.0, (1,)))), 2)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_stack": 0}, ValueError),
        ({"num_stack": 2.0}, TypeError),
        ({"num_stack": 2, "padding": "edge"}, ValueError),
    ],
)
def test_rejects_bad_arguments(counter_env, kwargs, error) -> None:
    with pytest.raises(error):
        FrameStackObservation(counter_env(), **kwargs)


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="FrameStackObservation is wrapped around an AutoReset"):
        FrameStackObservation(AutoReset(counter_env()), 2)


def test_async_matches_sync(counter_env) -> None:
    env = FrameStackObservation(counter_env(), 3)

    async def run():
        first = await env.async_reset(seed=2)
        return [first.observation] + [(await env.async_step(0)).observation for _ in range(3)]

    sync = [env.reset(seed=2).observation] + [env.step(0).observation for _ in range(3)]
    for a, b in zip(sync, asyncio.run(run()), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("padding", ["reset", "zeros"])
def test_check_env(space_env, any_space, assert_conforms, padding) -> None:
    assert_conforms(FrameStackObservation(space_env(any_space), 3, padding=padding))


def test_same_seed_same_trajectory(space_env, any_space, rollout, same) -> None:
    actions = [np.zeros(2, np.float32)] * 8
    a = rollout(FrameStackObservation(space_env(any_space), 3), 3, actions)
    b = rollout(FrameStackObservation(space_env(any_space), 3), 3, actions)
    assert same(a, b)


@pytest.mark.parametrize("padding", ["reset", "zeros"])
def test_an_env_reusing_its_buffers_gets_its_past_observations_stacked(buffer_env, padding) -> None:
    env = FrameStackObservation(buffer_env(), 3, padding=padding)
    pad = 0.0  # step 0 and the zero observation both hold t = 0
    first = env.reset(seed=0).observation
    assert first["t"][:, 0].tolist() == [pad, pad, 0.0]
    for t in range(1, 6):
        obs = env.step(0).observation
        expected = [max(t - 2, 0), max(t - 1, 0), t]
        assert obs["t"][:, 0].tolist() == expected
        # The MaskedBox leaf of every stacked step is the one of its own step.
        assert obs["book"]["mask"].sum(axis=1).tolist() == [k % 3 for k in expected]
        assert obs in env.observation_space
