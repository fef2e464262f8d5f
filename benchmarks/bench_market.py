"""Market envs: each native vector env against SyncVecEnv over the same single env.

Trading-v0 (``TradingVecEnv``), Portfolio-v0 (``PortfolioVecEnv``) and
Market-v0 (``MarketVecEnv``) at 1024 sub-envs: ``sekai.make_vec(id, 1024,
**kwargs)`` (the native implementation, the id's ``vector_entry_point``) vs
``make_vec(id, 1024, vectorization_mode="sync", **kwargs)``, stepped with the
same random actions from the same seed (the two give the same trajectories). Each case runs more
steps than an episode lasts (252), so the native timing includes the resets
that draw every sub-env's next episode (a simulated path, a window of the
history or a window sampler's returns). Target: native >= 50x as fast as sync (Market-v0: 30x).

Cases: Trading-v0 on its default simulated prices (GBM) and on a price
history (a 5000-row path given as ``prices=``); Portfolio-v0 on the
regime-switching windows of returns that were its first default (a
``RegimeSwitchingSampler`` of 4 assets, lookback 20, given explicitly so the
numbers stay comparable), on its default, 0.2's simulated market (correlated
GBM, 5 assets, lookback 30) and on a 5-asset history with shorts; Market-v0 on
its default simulated universe (10 GBM stocks that list and delist, lookback
20) and on a 20-asset history whose assets list, delist and have gaps, on 15
slots. The ``*-next-open`` cases fill at the next row's open (``execution=
"next_open"``, an ``open`` field added to the histories): a step of two legs.

Timing and report: `_native_vs_sync`.
Run ``python benchmarks/bench_market.py [--quick] [cases...]``; results are
printed and written to ``benchmarks/results/bench_market.json``.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from _native_vs_sync import NUM_ENVS, compare, run_report

import sekai.registry as registry
from sekai.envs import RegimeSwitchingSampler
from sekai.finance import MarketData

RESULTS = Path(__file__).parent / "results" / "bench_market.json"


def _history(n_assets: int, rows: int = 5000) -> np.ndarray:
    """A synthetic daily price history (so the benchmark needs no data package)."""
    rng = np.random.default_rng(2024)
    returns = rng.normal(0.0003, 0.012, size=(rows, n_assets))
    return np.asarray(100.0 * np.exp(np.cumsum(returns, axis=0)))


def _listing_history(n_assets: int = 20, rows: int = 5000) -> MarketData:
    """A synthetic history whose assets list, delist and have gaps (NaN where unlisted)."""
    prices = _history(n_assets, rows)
    rng = np.random.default_rng(7)
    for asset in range(1, n_assets):  # the first asset stays listed throughout
        listed, delisted = sorted(rng.integers(0, rows, size=2).tolist())
        prices[:listed, asset] = np.nan
        if asset % 3 == 0:
            prices[delisted:, asset] = np.nan
        gap = int(rng.integers(0, rows - 30))
        prices[gap : gap + 20, asset] = np.nan
    return MarketData(prices)


def _with_opens(data: MarketData) -> MarketData:
    """The data with an ``open`` field (the previous close moved by a little noise)."""
    prices = data.prices
    opens = np.empty_like(prices)
    opens[0] = prices[0]
    noise = np.random.default_rng(11).normal(0.0, 0.004, prices[1:].shape)
    opens[1:] = prices[:-1] * np.exp(noise)
    return data.with_fields(open=opens)


def _cases() -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "trading-gbm": ("Trading-v0", {}),
        "trading-history": ("Trading-v0", {"prices": _history(1)[:, 0]}),
        "portfolio-windows": (
            "Portfolio-v0",
            {"sampler": RegimeSwitchingSampler(4), "lookback": 20, "capital": 1.0},
        ),
        "portfolio-gbm": ("Portfolio-v0", {}),
        "portfolio-history-short": (
            "Portfolio-v0",
            {"prices": _history(5), "allow_short": True, "max_leverage": 1.5},
        ),
        "market-simulated": ("Market-v0", {}),
        "market-history": ("Market-v0", {"data": _listing_history(), "max_assets": 15}),
        # Filled at the next row's open: a step of two legs around the fill.
        "trading-next-open": (
            "Trading-v0",
            {"data": _with_opens(MarketData(_history(1))), "execution": "next_open"},
        ),
        "portfolio-next-open": (
            "Portfolio-v0",
            {"data": _with_opens(MarketData(_history(5))), "execution": "next_open"},
        ),
        "market-next-open": (
            "Market-v0",
            {
                "data": _with_opens(_listing_history()),
                "max_assets": 15,
                "execution": "next_open",
            },
        ),
    }


# Market-v0's goal is lower: its step maps each sub-env's listed assets to slots, and its
# single env, which SyncVecEnv steps, is itself the most vectorised of the five.
TARGETS = {"Market-v0": 30.0}


def bench_case(
    env_id: str, kwargs: dict[str, Any], num_envs: int, steps: int, repeats: int
) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    native = registry.make_vec(env_id, num_envs, **kwargs)
    sync = registry.make_vec(env_id, num_envs, vectorization_mode="sync", **kwargs)
    result = {"env_id": env_id, **compare(native, sync, steps, repeats)}
    if env_id in TARGETS:
        result["target"] = TARGETS[env_id]
    return result


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    cases = _cases()
    selected = [arg for arg in argv if arg in cases] or list(cases)
    # More steps than an episode (252): the native timing includes a wave of resets.
    steps, repeats = (260, 2) if quick else (300, 4)
    benches = {
        name: partial(bench_case, *cases[name], NUM_ENVS, steps, repeats) for name in selected
    }
    run_report(RESULTS, "cases", benches)


if __name__ == "__main__":
    main(sys.argv[1:])
