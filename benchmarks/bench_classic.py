"""Classic control: each native vector env against SyncVecEnv over the same env.

For CartPole-v1, MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1 and
Acrobot-v1, at 1024 sub-envs: ``sekai.make_vec(id, 1024)`` (the native
implementation, its ``vector_entry_point``) vs ``make_vec(id, 1024,
vectorization_mode="sync")``, the registered time limit applied by both,
stepped with the same random actions from the same seed (the two give the
same trajectories). Target: native >= 50x as fast as sync.

Timing and report: `_native_vs_sync`.
Run ``python benchmarks/bench_classic.py [--quick] [ids...]`` (ids as
``CartPole-v1``); results are printed and written to
``benchmarks/results/bench_classic.json``.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

from _native_vs_sync import NUM_ENVS, compare, run_report

import sekai.registry as registry

RESULTS = Path(__file__).parent / "results" / "bench_classic.json"

ENV_IDS = (
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
)


def bench_env(env_id: str, num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    native = registry.make_vec(env_id, num_envs)
    sync = registry.make_vec(env_id, num_envs, vectorization_mode="sync")
    return compare(native, sync, steps, repeats)


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    selected = [arg for arg in argv if arg in ENV_IDS] or list(ENV_IDS)
    steps, repeats = (50, 3) if quick else (200, 5)
    benches = {env_id: partial(bench_env, env_id, NUM_ENVS, steps, repeats) for env_id in selected}
    run_report(RESULTS, "envs", benches)


if __name__ == "__main__":
    main(sys.argv[1:])
