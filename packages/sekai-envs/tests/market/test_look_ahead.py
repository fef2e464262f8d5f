"""No market env shows the future: changing every row after the decision row changes nothing seen.

For each windowed market env, single and native, on a history: play some
steps from a fixed start, then play them again on a copy of the history whose
rows after the last decision row are replaced by another continuation. Every
observation, reward and info up to that decision row must be the same, bit for
bit: a kernel that read a later row would see the difference.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai.registry as registry
from sekai.finance import MarketData

START, STEPS, ROWS = 12, 6, 40

CASES: dict[str, tuple[int, dict[str, Any]]] = {
    "Trading-v0": (1, {"lookback": 4, "episode_length": 10}),
    "Portfolio-v0": (3, {"lookback": 4, "episode_length": 10}),
    "Market-v0": (3, {"lookback": 4, "episode_length": 10, "max_assets": 3}),
}


def _prices(n_assets: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, (ROWS, n_assets)), axis=0))


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)


def _play(env_id: str, data: MarketData, kwargs: dict[str, Any], native: bool) -> list[Any]:
    options = {"start": START}
    build = registry.make_vec if native else registry.make
    env = build(env_id, 2, data=data, **kwargs) if native else build(env_id, data=data, **kwargs)
    seen: list[Any] = []
    first = env.reset(seed=0, options=options)
    seen.append(first.observations if native else first.observation)
    space = env.action_space
    space.seed(1)
    for _ in range(STEPS):
        action = np.stack([space.sample() for _ in range(2)]) if native else space.sample()
        result = env.step(action)
        if native:
            seen.append((result.observations, result.rewards, result.infos))
        else:
            seen.append((result.observation, result.reward, result.info))
    env.close()
    return seen


@pytest.mark.parametrize("native", [False, True], ids=["single", "native"])
@pytest.mark.parametrize("env_id", list(CASES))
def test_rows_after_the_decision_row_change_nothing_seen(env_id: str, native: bool) -> None:
    n_assets, kwargs = CASES[env_id]
    prices = _prices(n_assets, seed=3)
    # After STEPS steps from START the decision row is START + STEPS: the last fill read
    # row START + STEPS, so every later row may change.
    later = START + STEPS + 1
    other = prices.copy()
    other[later:] = _prices(n_assets, seed=4)[later:] * 1.7
    assert not np.array_equal(prices, other)
    kept = _play(env_id, MarketData(prices), kwargs, native)
    changed = _play(env_id, MarketData(other), kwargs, native)
    _same(kept, changed, f"{env_id} {'native' if native else 'single'}")
