"""TransformReward: func, deprecated fn=."""

from __future__ import annotations

import pytest

from sekai.error import DeprecatedAPI
from sekai.wrappers import TransformReward


def test_func_is_applied(counter_env, assert_conforms) -> None:
    env = TransformReward(counter_env(), lambda r: 10.0 * r)
    env.reset(seed=0)
    assert [env.step(0).reward for _ in range(3)] == [10.0, 20.0, 30.0]
    assert_conforms(env)


def test_fn_still_works_with_a_deprecation_warning(counter_env) -> None:
    with pytest.warns(DeprecationWarning, match="func") as record:
        env = TransformReward(counter_env(), fn=lambda r: -r)
    assert record[0].category is DeprecatedAPI
    assert record[0].filename == __file__
    env.reset(seed=0)
    assert env.step(0).reward == -1.0


def test_func_and_fn_together_are_rejected(counter_env) -> None:
    with pytest.raises(TypeError, match="not both"):
        TransformReward(counter_env(), lambda r: r, fn=lambda r: r)


def test_func_is_required(counter_env) -> None:
    with pytest.raises(TypeError, match="func is required"):
        TransformReward(counter_env())
