"""DelayAction: actions executed delay steps later, noop defaults and errors."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.spaces import Box, Discrete
from sekai.wrappers import AutoReset, DelayAction

OBS = Box(0.0, 1.0, (1,))


def test_actions_arrive_delay_steps_later(counter_env) -> None:
    inner = counter_env(episode_length=100)
    env = DelayAction(inner, 2, noop=1)
    env.reset(seed=0)
    for a in (0, 2, 0, 2):
        env.step(a)
    assert inner.actions == [1, 1, 0, 2]


def test_box_noop_defaults_to_the_zero_action(space_env) -> None:
    inner = space_env(OBS, Box(0.5, 1.0, (2,)), episode_length=100)
    env = DelayAction(inner, 1)
    env.reset(seed=0)
    env.step(np.ones(2, np.float32))
    env.step(np.full(2, 0.75, np.float32))
    np.testing.assert_array_equal(inner.actions[0], [0.5, 0.5])  # zero clipped into bounds
    np.testing.assert_array_equal(inner.actions[1], [1.0, 1.0])


def test_a_reused_action_array_is_delayed_by_value(space_env) -> None:
    # A policy writing every action into the same array must not change queued actions.
    executed = []
    inner = space_env(OBS, Box(-1.0, 1.0, (1,)), episode_length=100)
    original = inner.step

    def step(action):
        executed.append(float(action[0]))
        return original(action)

    inner.step = step
    env = DelayAction(inner, 2)
    env.reset(seed=0)
    buffer = np.zeros(1, np.float32)
    for i in range(5):
        buffer[:] = (i + 1) / 10
        env.step(buffer)
    np.testing.assert_allclose(executed, [0.0, 0.0, 0.1, 0.2, 0.3], rtol=1e-6)


def test_dict_actions_are_copied_too(space_env) -> None:
    from sekai.spaces import Dict

    inner = space_env(OBS, Dict({"size": Box(-1.0, 1.0, (1,))}), episode_length=100)
    env = DelayAction(inner, 1, noop={"size": np.zeros(1, np.float32)})
    env.reset(seed=0)
    action = {"size": np.full(1, 0.5, np.float32)}
    env.step(action)
    action["size"][:] = -0.5
    env.step(action)
    assert inner.actions[1]["size"].tolist() == [0.5]


def test_reset_refills_the_pipeline(counter_env) -> None:
    inner = counter_env(episode_length=100)
    env = DelayAction(inner, 1, noop=0)
    env.reset(seed=0)
    env.step(2)
    env.reset()
    env.step(1)
    assert inner.actions == [0, 0]


def test_delay_zero_needs_no_noop(counter_env) -> None:
    inner = counter_env()
    env = DelayAction(inner, 0)
    env.reset(seed=0)
    env.step(2)
    assert inner.actions == [2]


def test_non_box_space_requires_noop(counter_env) -> None:
    with pytest.raises(TypeError, match="noop is required"):
        DelayAction(counter_env(), 2)


@pytest.mark.parametrize(
    ("kwargs", "error"), [({"delay": -1}, ValueError), ({"delay": 1.0}, TypeError)]
)
def test_rejects_bad_delay(counter_env, kwargs, error) -> None:
    with pytest.raises(error, match="delay"):
        DelayAction(counter_env(), noop=0, **kwargs)


def test_rejects_noop_outside_the_space(counter_env) -> None:
    with pytest.raises(ValueError, match="noop 7"):
        DelayAction(counter_env(Discrete(3)), 1, noop=7)


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="DelayAction is wrapped around an AutoReset"):
        DelayAction(AutoReset(counter_env()), 1, noop=0)


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(DelayAction(space_env(any_space), 2))


def test_same_seed_same_trajectory(counter_env, rollout, same) -> None:
    actions = [i % 3 for i in range(15)]
    a = rollout(DelayAction(counter_env(episode_length=4), 2, noop=0), 8, actions)
    b = rollout(DelayAction(counter_env(episode_length=4), 2, noop=0), 8, actions)
    assert same(a, b)
