"""StickyAction: repeats with its own RNG derived from the reset seed."""

from __future__ import annotations

import numpy as np
import pytest

from sekai.wrappers import AutoReset, StickyAction


def play(env, seed, n=200):
    env.reset(seed=seed)
    for i in range(n):
        env.step(i % 3)
    return list(env.unwrapped.actions)


def test_zero_probability_never_repeats(counter_env) -> None:
    env = StickyAction(counter_env(episode_length=1000), 0.0)
    assert play(env, 0, 30) == [i % 3 for i in range(30)]


def test_repeats_at_about_the_given_rate(counter_env) -> None:
    env = StickyAction(counter_env(episode_length=1000), 0.5)
    executed = play(env, 0, 400)
    chosen = [i % 3 for i in range(400)]
    repeated = sum(e != c for e, c in zip(executed, chosen, strict=True))
    # A repeat changes the action except when it equals the new one (never here:
    # consecutive chosen actions differ), so about half the steps differ.
    assert 140 < repeated < 260
    assert executed[0] == 0  # nothing to repeat on the first step
    for prev, now, c in zip(executed, executed[1:], chosen[1:], strict=False):
        assert now in (prev, c)


def test_same_seed_same_decisions(counter_env) -> None:
    a = play(StickyAction(counter_env(episode_length=1000), 0.3), 11)
    b = play(StickyAction(counter_env(episode_length=1000), 0.3), 11)
    c = play(StickyAction(counter_env(episode_length=1000), 0.3), 12)
    assert a == b
    assert a != c


def test_generator_seed_uses_its_seed_sequence_without_drawing(counter_env) -> None:
    g1 = np.random.default_rng(5)
    g2 = np.random.default_rng(5)
    a = StickyAction(counter_env(episode_length=1000), 0.3)
    b = StickyAction(counter_env(episode_length=1000), 0.3)
    assert play(a, g1) == play(b, g2)


def test_does_not_touch_the_env_stream(counter_env) -> None:
    plain = counter_env(episode_length=1000)
    sticky = StickyAction(counter_env(episode_length=1000), 0.5)
    plain.reset(seed=3)
    sticky.reset(seed=3)
    for i in range(20):
        plain.step(i % 3)
        sticky.step(i % 3)
    assert plain.rng.random() == sticky.unwrapped.rng.random()
    assert sticky.sticky_rng is not sticky.unwrapped.rng


def test_a_reused_action_array_is_repeated_by_value(space_env) -> None:
    # A policy writing every action into the same array: a repeat must execute the
    # previous action's values, not the buffer's new ones.
    from sekai.spaces import Box

    executed = []
    inner = space_env(Box(0.0, 1.0, (1,)), Box(-1.0, 1.0, (1,)), episode_length=1000)
    original = inner.step

    def step(action):
        executed.append(float(action[0]))
        return original(action)

    inner.step = step
    env = StickyAction(inner, 0.5)
    env.reset(seed=0)
    buffer = np.zeros(1, np.float32)
    chosen = [float(np.float32(i / 100)) for i in range(200)]
    for value in chosen:
        buffer[:] = value
        env.step(buffer)
    repeats = sum(e != c for e, c in zip(executed, chosen, strict=True))
    assert repeats > 50
    for prev, now, c in zip(executed, executed[1:], chosen[1:], strict=False):
        assert now in (prev, c)


def test_reset_forgets_the_previous_action(counter_env) -> None:
    env = StickyAction(counter_env(episode_length=1000), 0.99)
    env.reset(seed=0)
    env.step(2)
    env.reset(seed=0)
    env.step(1)
    assert env.unwrapped.actions[-1] == 1


@pytest.mark.parametrize(
    ("p", "error"), [(1.0, ValueError), (-0.1, ValueError), ("0.5", TypeError)]
)
def test_rejects_bad_probability(counter_env, p, error) -> None:
    with pytest.raises(error, match="repeat_action_probability"):
        StickyAction(counter_env(), p)


@pytest.mark.parametrize(
    ("seed", "error"), [(-1, ValueError), (3.7, TypeError), ("3", TypeError), (True, TypeError)]
)
def test_rejects_bad_seeds_before_touching_the_env(space_env, seed, error) -> None:
    from sekai.spaces import Box

    inner = space_env(Box(0.0, 1.0, (1,)))
    env = StickyAction(inner, 0.5)
    with pytest.raises(error, match=f"StickyAction: seed must be .*, got {seed!r}"):
        env.reset(seed=seed)
    assert inner.resets == 0


def test_warns_around_autoreset(counter_env) -> None:
    with pytest.warns(UserWarning, match="StickyAction is wrapped around an AutoReset"):
        StickyAction(AutoReset(counter_env()), 0.25)


def test_check_env(space_env, any_space, assert_conforms) -> None:
    assert_conforms(StickyAction(space_env(any_space), 0.25), check_determinism=True)


def test_same_seed_same_trajectory(counter_env, rollout, same) -> None:
    actions = [i % 3 for i in range(25)]
    a = rollout(StickyAction(counter_env(episode_length=6), 0.4), 8, actions)
    b = rollout(StickyAction(counter_env(episode_length=6), 0.4), 8, actions)
    assert same(a, b)


def test_own_stream_differs_from_the_env_stream_of_the_same_seed(counter_env) -> None:
    env = StickyAction(counter_env(), 0.5)
    env.reset(seed=3)
    ours = env.sticky_rng.random(5)
    assert not np.array_equal(ours, np.random.default_rng(3).random(5))
    env.reset(seed=3)
    np.testing.assert_array_equal(env.sticky_rng.random(5), ours)
