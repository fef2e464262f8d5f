"""ClipReward: rewards clipped into [min_reward, max_reward]."""

from __future__ import annotations

import math

import pytest

from sekai.wrappers import ClipReward


def test_rewards_are_clipped(counter_env, assert_conforms) -> None:
    env = ClipReward(counter_env(), 1.5, 2.5)
    env.reset(seed=0)
    assert [env.step(0).reward for _ in range(3)] == [1.5, 2.0, 2.5]
    assert_conforms(env)


def test_one_sided_bounds(counter_env) -> None:
    env = ClipReward(counter_env(), max_reward=2.0)
    env.reset(seed=0)
    assert [env.step(0).reward for _ in range(3)] == [1.0, 2.0, 2.0]


@pytest.mark.parametrize("bounds", [(None, None), (-math.inf, math.inf), (None, math.inf)])
def test_no_bound_is_a_no_op(counter_env, bounds) -> None:
    # sekai 0.2: None means no bound, and a ClipReward without bounds changes nothing.
    env = ClipReward(counter_env(), *bounds)
    assert (env.min_reward, env.max_reward) == (-math.inf, math.inf)
    env.reset(seed=0)
    assert [env.step(0).reward for _ in range(3)] == [1.0, 2.0, 3.0]


def test_none_is_one_open_side(counter_env) -> None:
    env = ClipReward(counter_env(), None, 2.0)
    env.reset(seed=0)
    assert [env.step(0).reward for _ in range(3)] == [1.0, 2.0, 2.0]


@pytest.mark.parametrize(
    ("bounds", "error", "match"),
    [
        ((2.0, 1.0), ValueError, "min_reward must be <="),
        ((math.nan, 1.0), ValueError, "NaN"),
        (("0", 1.0), TypeError, "min_reward"),
    ],
)
def test_rejects_bad_bounds(counter_env, bounds, error, match) -> None:
    with pytest.raises(error, match=match):
        ClipReward(counter_env(), *bounds)
