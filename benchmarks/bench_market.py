"""Market envs: each native vector env against SyncVecEnv over the same single env.

Trading-v0 (``TradingVecEnv``) and Portfolio-v0 (``PortfolioVecEnv``) at 1024
sub-envs: ``sekai.make_vec(id, 1024, **kwargs)`` (the native implementation,
the id's ``vector_entry_point``) vs ``make_vec(id, 1024,
vectorization_mode="sync", **kwargs)``, stepped with the same random actions
from the same seed (the two give the same trajectories). Each case runs more
steps than an episode lasts (252), so the native timing includes the resets
that draw every sub-env's next episode (a simulated path, a window of the
history or a window sampler's returns). Target: native >= 50x as fast as sync.

Cases: Trading-v0 on its default simulated prices (GBM) and on a price
history (a 5000-row path given as ``prices=``); Portfolio-v0 on the
regime-switching windows of returns that were its first default (a
``RegimeSwitchingSampler`` of 4 assets, lookback 20, given explicitly so the
numbers stay comparable), on its default, 0.2's simulated market (correlated
GBM, 5 assets, lookback 30) and on a 5-asset history with shorts.

Timing: best CPU time per step (``time.process_time``) over repeats, the two
backends taking turns, so that other work on the machine affects both alike.
Run ``python benchmarks/bench_market.py [--quick] [cases...]``; results are
printed and written to ``benchmarks/results/bench_market.json``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry
from sekai.envs import RegimeSwitchingSampler

RESULTS = Path(__file__).parent / "results" / "bench_market.json"

NUM_ENVS = 1024
TARGET = 50.0


def _history(n_assets: int, rows: int = 5000) -> np.ndarray:
    """A synthetic daily price history (so the benchmark needs no data package)."""
    rng = np.random.default_rng(2024)
    returns = rng.normal(0.0003, 0.012, size=(rows, n_assets))
    return np.asarray(100.0 * np.exp(np.cumsum(returns, axis=0)))


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
    }


def _actions(vec: Any, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` batches of random actions from the single action space."""
    rng = np.random.default_rng(seed)
    space = vec.action_space
    n = getattr(space, "n", None)
    if n is not None:
        return [rng.integers(0, int(n), size=vec.num_envs) for _ in range(count)]
    low, high = space.low, space.high
    return [
        rng.uniform(low, high, size=(vec.num_envs, *space.shape)).astype(space.dtype)
        for _ in range(count)
    ]


def _runner(vec: Any, batches: list[np.ndarray]) -> Callable[[], None]:
    def run() -> None:
        step = vec.step
        for batch in batches:
            step(batch)

    return run


def bench_case(
    env_id: str, kwargs: dict[str, Any], num_envs: int, steps: int, repeats: int
) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    native = registry.make_vec(env_id, num_envs, **kwargs)
    sync = registry.make_vec(env_id, num_envs, vectorization_mode="sync", **kwargs)
    batches = _actions(native, steps)
    sync_steps = max(3, steps // 10)  # sync is slower: fewer steps give the same precision
    runs = {
        "native": (_runner(native, batches), steps),
        "sync": (_runner(sync, batches[:sync_steps]), sync_steps),
    }
    native.reset(seed=0)
    sync.reset(seed=0)
    best = dict.fromkeys(runs, math.inf)
    for _ in range(repeats):
        for name, (run, count) in runs.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], (time.process_time() - start) / count * 1e6)
    native.close()
    sync.close()
    return {
        "env_id": env_id,
        "num_envs": num_envs,
        "native_class": type(native).__name__,
        "native_us": best["native"],
        "sync_us": best["sync"],
        "speedup": best["sync"] / best["native"],
        "native_sub_env_steps_per_second": num_envs / best["native"] * 1e6,
        "sync_sub_env_steps_per_second": num_envs / best["sync"] * 1e6,
    }


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    cases = _cases()
    selected = [arg for arg in argv if arg in cases] or list(cases)
    # More steps than an episode (252): the native timing includes a wave of resets.
    steps, repeats = (260, 2) if quick else (300, 4)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "timing": "best CPU time per step over interleaved repeats",
        "target": f"native >= {TARGET:g}x sync at {NUM_ENVS} sub-envs",
        "target_speedup": TARGET,
        "cases": {},
    }
    print(f"python {report['python']}, numpy {report['numpy']}; {NUM_ENVS} sub-envs")
    print(f"{'case':<26} {'native us/step':>15} {'sync us/step':>13} {'speedup':>8}")
    for name in selected:
        env_id, kwargs = cases[name]
        result = bench_case(env_id, kwargs, NUM_ENVS, steps, repeats)
        report["cases"][name] = result
        verdict = "ok" if result["speedup"] >= TARGET else "BELOW TARGET"
        print(
            f"{name:<26} {result['native_us']:15.1f} {result['sync_us']:13.1f} "
            f"{result['speedup']:7.1f}x ({verdict})",
            flush=True,
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
