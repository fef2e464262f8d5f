"""Classic control: each native vector env against SyncVecEnv over the same env.

For CartPole-v1, MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1 and
Acrobot-v1, at 1024 sub-envs: ``sekai.make_vec(id, 1024)`` (the native
implementation, its ``vector_entry_point``) vs ``make_vec(id, 1024,
vectorization_mode="sync")``, the registered time limit applied by both,
stepped with the same random actions from the same seed (the two give the
same trajectories). Target: native >= 50x as fast as sync.

Timing: best CPU time per step (``time.process_time``) over repeats, the two
backends taking turns, so that other work on the machine affects both alike.
Run ``python benchmarks/bench_classic.py [--quick] [ids...]`` (ids as
``CartPole-v1``); results are printed and written to
``benchmarks/results/bench_classic.json``.
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

RESULTS = Path(__file__).parent / "results" / "bench_classic.json"

ENV_IDS = (
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
)
NUM_ENVS = 1024
TARGET = 50.0


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


def bench_env(env_id: str, num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    native = registry.make_vec(env_id, num_envs)
    sync = registry.make_vec(env_id, num_envs, vectorization_mode="sync")
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
    selected = [arg for arg in argv if arg in ENV_IDS] or list(ENV_IDS)
    steps, repeats = (50, 3) if quick else (200, 5)
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
    print(f"{'env':<26} {'native us/step':>15} {'sync us/step':>13} {'speedup':>8}")
    for env_id in selected:
        result = bench_env(env_id, NUM_ENVS, steps, repeats)
        report["envs"][env_id] = result
        verdict = "ok" if result["speedup"] >= TARGET else "BELOW TARGET"
        print(
            f"{env_id:<26} {result['native_us']:15.1f} {result['sync_us']:13.1f} "
            f"{result['speedup']:7.1f}x ({verdict})",
            flush=True,
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
