"""A native vector env against SyncVecEnv over the same env: the timing and the report.

Shared by ``bench_classic``, ``bench_market`` and ``bench_market_micro``. Both
backends are stepped with the same random actions from the same seed (they
give the same trajectories). Timing: best CPU time per step
(``time.process_time``) over repeats, the two backends taking turns, so that
other work on the machine affects both alike.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

NUM_ENVS = 1024
TARGET = 50.0


def random_actions(vec: Any, count: int, seed: int = 0) -> list[np.ndarray]:
    """``count`` batches of random actions from the single action space."""
    rng = np.random.default_rng(seed)
    space = vec.action_space
    n = getattr(space, "n", None)
    if n is not None:
        return [rng.integers(0, int(n), size=vec.num_envs) for _ in range(count)]
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


def compare(native: Any, sync: Any, steps: int, repeats: int) -> dict[str, Any]:
    """Microseconds per step of ``native`` and ``sync``, and their ratio; closes both."""
    num_envs: int = native.num_envs
    batches = random_actions(native, steps)
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
        "num_envs": num_envs,
        "native_class": type(native).__name__,
        "native_us": best["native"],
        "sync_us": best["sync"],
        "speedup": best["sync"] / best["native"],
        "native_sub_env_steps_per_second": num_envs / best["native"] * 1e6,
        "sync_sub_env_steps_per_second": num_envs / best["sync"] * 1e6,
    }


def run_report(
    results: Path,
    key: str,
    benches: Mapping[str, Callable[[], dict[str, Any]]],
    width: int = 26,
) -> None:
    """Run ``benches`` (name -> a `compare` result), print a table, write ``results``.

    The JSON holds the versions, the machine, the target and, under ``key``,
    one result per name (what ``tools/benchmark_page.py`` reads); a result with
    a ``target`` of its own is held to that one instead.
    """
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "timing": "best CPU time per step over interleaved repeats",
        "target": f"native >= {TARGET:g}x sync at {NUM_ENVS} sub-envs",
        "target_speedup": TARGET,
        key: {},
    }
    print(f"python {report['python']}, numpy {report['numpy']}; {NUM_ENVS} sub-envs")
    label = key.rstrip("s")
    print(f"{label:<{width}} {'native us/step':>15} {'sync us/step':>13} {'speedup':>8}")
    for name, bench in benches.items():
        result = bench()
        report[key][name] = result
        verdict = "ok" if result["speedup"] >= result.get("target", TARGET) else "BELOW TARGET"
        print(
            f"{name:<{width}} {result['native_us']:15.1f} {result['sync_us']:13.1f} "
            f"{result['speedup']:7.1f}x ({verdict})",
            flush=True,
        )
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(report, indent=2) + "\n")
