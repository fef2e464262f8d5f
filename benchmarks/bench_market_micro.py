"""Market microstructure: the native MarketMaking and OptimalExecution vector envs vs SyncVecEnv.

For MarketMaking-v0 (Avellaneda-Stoikov) and OptimalExecution-v0
(Almgren-Chriss), at 1024 sub-envs: the native vector env
(``MarketMakingVecEnv``, ``OptimalExecutionVecEnv``) vs ``SyncVecEnv`` over
1024 single envs, stepped with the same random actions from the same seed (the
two give the same trajectories, autoresets included: episodes last 200 and 25
steps, so the timed runs cross several resets). Target: native >= 50x sync.

Timing and report: `_native_vs_sync`.
Run ``python benchmarks/bench_market_micro.py [--quick] [names...]`` (names:
``MarketMaking``, ``OptimalExecution``); results are printed and written to
``benchmarks/results/bench_market_micro.json``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _native_vs_sync import NUM_ENVS, compare, run_report

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


def bench_env(name: str, num_envs: int, steps: int, repeats: int) -> dict[str, Any]:
    """Microseconds per step of the native and the sync vector env, and their ratio."""
    single, native_class = ENVS[name]
    return compare(native_class(num_envs), SyncVecEnv([single] * num_envs), steps, repeats)


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    selected = [arg for arg in argv if arg in ENVS] or list(ENVS)
    steps, repeats = (50, 3) if quick else (400, 5)
    benches = {name: partial(bench_env, name, NUM_ENVS, steps, repeats) for name in selected}
    run_report(RESULTS, "envs", benches, width=20)


if __name__ == "__main__":
    main(sys.argv[1:])
