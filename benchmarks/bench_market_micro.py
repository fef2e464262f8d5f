"""Market microstructure: the native MarketMaking and OptimalExecution vector envs vs SyncVecEnv.

For MarketMaking-v0 (Avellaneda-Stoikov) and OptimalExecution-v0
(Almgren-Chriss), at 1024 sub-envs: the native vector env
(``MarketMakingVecEnv``, ``OptimalExecutionVecEnv``) vs ``SyncVecEnv`` over
1024 single envs, stepped with the same random actions from the same seed (the
two give the same trajectories, autoresets included: episodes last 200 and 25
steps, so the timed runs cross several resets). Target: native >= 50x sync.

Timing: best CPU time per step (``time.process_time``) over repeats, the two
backends taking turns, so that other work on the machine affects both alike.
Run ``python benchmarks/bench_market_micro.py [--quick] [names...]`` (names:
``MarketMaking``, ``OptimalExecution``); results are printed and written to
``benchmarks/results/bench_market_micro.json``.
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

from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.market_making_vector import MarketMakingVecEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution_vector import OptimalExecutionVecEnv
from sekai.vector import SyncVecEnv

RESULTS = Path(__file__).parent / "results" / "bench_market_micro.json"

ENVS: dict[str, tuple[Callable[[], Any], Callable[[int], Any]]] = {
    "MarketMaking": (MarketMakingEnv, MarketMakingVecEnv),
    "OptimalExecution": (OptimalExecutionEnv, OptimalExecutionVecEnv),
}
NUM_ENVS = 1024
TARGET = 50.0


def _actions(vec: Any, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` batches of random actions from the single action space (a Box)."""
    rng = np.random.default_rng(seed)
    space = vec.action_space
    return [
        rng.uniform(space.low, space.high, size=(vec.num_envs, *space.shape)).astype(space.dtype)
        for _ in range(count)
    ]


def _runner(vec: Any, batches: list[np.ndarray]) -> Callable[[], None]:
    def run() -> None:
        step = vec.step
        for batch in batches:
            step(batch)

    return run


def bench_env(name: str, num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    single, native_class = ENVS[name]
    native = native_class(num_envs)
    sync = SyncVecEnv([single] * num_envs)
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
        for run_name, (run, count) in runs.items():
            start = time.process_time()
            run()
            best[run_name] = min(best[run_name], (time.process_time() - start) / count * 1e6)
    native.close()
    sync.close()
    return {
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
    selected = [arg for arg in argv if arg in ENVS] or list(ENVS)
    steps, repeats = (50, 3) if quick else (400, 5)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "timing": "best CPU time per step over interleaved repeats",
        "target": f"native >= {TARGET:g}x sync at {NUM_ENVS} sub-envs",
        "target_speedup": TARGET,
        "envs": {},
    }
    print(f"python {report['python']}, numpy {report['numpy']}; {NUM_ENVS} sub-envs")
    print(f"{'env':<20} {'native us/step':>15} {'sync us/step':>13} {'speedup':>8}")
    for name in selected:
        result = bench_env(name, NUM_ENVS, steps, repeats)
        report["envs"][name] = result
        verdict = "ok" if result["speedup"] >= TARGET else "BELOW TARGET"
        print(
            f"{name:<20} {result['native_us']:15.1f} {result['sync_us']:13.1f} "
            f"{result['speedup']:7.1f}x ({verdict})",
            flush=True,
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
