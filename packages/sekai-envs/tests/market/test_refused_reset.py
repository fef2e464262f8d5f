"""A reset refused for a bad option leaves a native market env as usable as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai.registry as registry


def _same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            _same(a[key], b[key])
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "Market-v0"])
def test_a_refused_reset_leaves_the_vector_env_usable(env_id: str) -> None:
    vec = registry.make_vec(env_id, 3, lookback=3, episode_length=5)
    twin = registry.make_vec(env_id, 3, lookback=3, episode_length=5)
    vec.reset(seed=0)
    # The default source is a model, whose episodes take no "start": the third option is bad.
    with pytest.raises(ValueError, match="unknown reset option"):
        vec.reset(seed=0, options=[None, None, {"start": 1}])
    _same(vec.reset(seed=1).observations, twin.reset(seed=1).observations)
    space = vec.action_space
    space.seed(0)
    for _ in range(7):  # through an autoreset
        actions = np.stack([space.sample() for _ in range(3)])
        a, b = vec.step(actions), twin.step(actions)
        _same(a.observations, b.observations)
        np.testing.assert_array_equal(a.rewards, b.rewards)
