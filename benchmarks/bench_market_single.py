"""The single market envs: microseconds per step of each, on its defaults and on a history.

Each market model is one kernel that its single env runs with one row and its
native vector env with one row per sub-env; this benchmark watches what that
costs the single env, the env most users start with. Every case steps one env
with random actions from a fixed seed, resetting when an episode ends (the
resets are part of the timing, as in a training loop). Timing: best CPU time
per step (``time.process_time``) over repeats, the cases taking turns.

Run ``python benchmarks/bench_market_single.py [--quick] [cases...]``; results
are printed and written to ``benchmarks/results/bench_market_single.json``.
To compare two revisions, run it in a checkout of each, alternately.
"""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry

RESULTS = Path(__file__).parent / "results" / "bench_market_single.json"


def _history(n_assets: int, rows: int = 3000) -> np.ndarray:
    steps = np.random.default_rng(1).normal(0.0, 0.01, (rows, n_assets))
    return np.asarray(100.0 * np.exp(np.cumsum(steps, axis=0)))


def _cases() -> dict[str, Callable[[], Any]]:
    return {
        "Trading-v0": lambda: registry.make("Trading-v0"),
        "Trading-v0 history": lambda: registry.make("Trading-v0", prices=_history(1)[:, 0]),
        "Portfolio-v0": lambda: registry.make("Portfolio-v0"),
        "Portfolio-v0 history": lambda: registry.make("Portfolio-v0", prices=_history(5)),
        "Market-v0": lambda: registry.make("Market-v0"),
        "MarketMaking-v0": lambda: registry.make("MarketMaking-v0"),
        "OptimalExecution-v0": lambda: registry.make("OptimalExecution-v0"),
    }


def _runner(env: Any, steps: int) -> Callable[[], None]:
    space = env.action_space
    space.seed(0)
    actions = [space.sample() for _ in range(steps)]
    env.reset(seed=0)

    def run() -> None:
        step, reset = env.step, env.reset
        for action in actions:
            result = step(action)
            if result.terminated or result.truncated:
                reset()

    return run


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    selected = [arg for arg in argv if not arg.startswith("-")]
    steps, repeats = (300, 3) if quick else (2000, 7)
    runs = {
        name: _runner(build(), steps)
        for name, build in _cases().items()
        if not selected or any(part in name for part in selected)
    }
    best = dict.fromkeys(runs, math.inf)
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], (time.process_time() - start) / steps * 1e6)
    print(f"{'case':<24} {'us/step':>9}")
    for name, micros in best.items():
        print(f"{name:<24} {micros:9.2f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "numpy": np.__version__,
                "steps": steps,
                "repeats": repeats,
                "us_per_step": best,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
