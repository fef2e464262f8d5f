"""MarketData shared with ProcVecEnv workers: resident memory and construction time.

Measured:

1. Memory. A dataset of ``--size-mb`` MB (default 1024: float64 prices of 500
   assets, plus their availability mask) is shared with ``MarketData.share()``
   and handed to 8 ``ProcVecEnv`` workers, one env each; every worker then
   reads every price, so each maps every page. Resident memory is the sum of
   PSS (``/proc/<pid>/smaps_rollup``) over this process and the workers, a
   measure that splits shared pages among the processes mapping them. What
   the workers add is the total minus this process's PSS before they started
   (it had read the whole dataset too). The same run over a 1 MB dataset gives
   what 8 workers cost by themselves (interpreters, numpy, sekai); the
   difference is what the data costs in the workers. Goal: < 10% of one copy.
   For contrast, unshared data (pickled into each worker by value) at
   ``--copy-mb`` MB (default 64): every worker holds its own copies (two per
   worker here: the arrays and the pickle they were read from).
2. Construction time of the 8-worker ProcVecEnv holding the shared data, for
   a dataset 16 times smaller and the full one (median of interleaved
   repeats, after a first construction that starts the fork server). Goal:
   the large one takes at most 1.25x the small one's time: only a handle
   travels, so the size does not matter. ``share()`` itself copies the data
   once; its time is shown for information.

Run ``python benchmarks/bench_data.py [--quick] [--size-mb=N] [--copy-mb=N]``
(``--quick``: 256 MB, fewer repeats). The report is printed and written to
``benchmarks/results/bench_data.json``.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.finance.data import MarketData
from sekai.spaces import Box, Discrete
from sekai.vector import ProcVecEnv

RESULTS = Path(__file__).parent / "results" / "bench_data.json"
N_WORKERS = 8
N_ASSETS = 500
MB = 1 << 20


class DataEnv(Env[Any, Any]):
    """A trading-like env over a MarketData: observes the latest prices."""

    observation_space = Box(-np.inf, np.inf, (N_ASSETS,), np.float64)
    action_space = Discrete(2)

    def __init__(self, data: MarketData) -> None:
        self.data = data
        self.t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self.t = 0
        return ResetResult(self.data.at(0).prices.latest, {})

    def step(self, action: Any) -> StepResult[Any]:
        self.t = (self.t + 1) % self.data.n_steps
        return StepResult(self.data.at(self.t).prices.latest, 0.0, False, False, {})

    def touch(self) -> float:
        """Read every price and availability flag (maps every page of the dataset)."""
        return float(np.nansum(self.data.prices)) + float(self.data.mask.sum())

    def pid(self) -> int:
        return os.getpid()


def dataset(size_mb: float) -> MarketData:
    """Prices of N_ASSETS assets taking about ``size_mb`` MB (float64)."""
    n_steps = max(2, int(size_mb * MB / 8 / N_ASSETS))
    prices = np.empty((n_steps, N_ASSETS))
    rng = np.random.default_rng(0)
    for start in range(0, n_steps, 4096):  # in chunks: no temporary of the full size
        chunk = prices[start : start + 4096]
        chunk[...] = 100.0 + rng.random(chunk.shape)
    return MarketData(prices, timestamps=np.arange(n_steps, dtype=np.int64))


def pss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    raise RuntimeError(f"no Pss line for process {pid}")


def nbytes(data: MarketData) -> int:
    return data.prices.nbytes + data.mask.nbytes + data.timestamps.nbytes


def workers_memory(data: MarketData) -> dict[str, float]:
    """MB: this process before the workers, the workers' addition, and one copy."""
    data_touch = float(np.nansum(data.prices)) + float(data.mask.sum())
    gc.collect()
    before = pss_kb(os.getpid())
    vec = ProcVecEnv([lambda: DataEnv(data)] * N_WORKERS)
    try:
        assert all(total == data_touch for total in vec.call("touch"))
        pids = vec.call("pid")
        assert len(set(pids)) == N_WORKERS
        total = pss_kb(os.getpid()) + sum(pss_kb(pid) for pid in pids)
    finally:
        vec.close()
    return {
        "parent_before_mb": before / 1024,
        "added_mb": (total - before) / 1024,
        "copy_mb": nbytes(data) / MB,
    }


def construction_time(data: MarketData) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        vec = ProcVecEnv([lambda: DataEnv(data)] * N_WORKERS)
        elapsed = time.perf_counter() - start
        vec.close()
        return elapsed

    return run


def main(argv: list[str]) -> None:
    """Measure what 8 workers add over a shared dataset, and how construction scales."""
    if not os.path.isdir("/proc/self") or not os.path.isdir("/dev/shm"):
        print("bench_data: needs Linux (/proc PSS and /dev/shm)")
        return
    quick = "--quick" in argv
    options = dict(arg.removeprefix("--").split("=", 1) for arg in argv if "=" in arg)
    size_mb = float(options.get("size-mb", 256 if quick else 1024))
    copy_mb = float(options.get("copy-mb", 64))
    repeats = 3 if quick else 5
    if __name__ != "__main__":
        import cloudpickle

        # Workers get this file's env by value, as they would get a script's.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    rows: list[dict[str, Any]] = []

    def record(target: str, goal: str, value: float, met: bool, **details: Any) -> None:
        row = {"target": target, "goal": goal, "value": round(value, 4), "met": met}
        rows.append({**row, **details})
        verdict = "met" if met else "NOT met"
        print(f"{target:<62} {value:>9.3f}  (goal {goal}, {verdict})", flush=True)

    # 1. Memory: a tiny dataset (the workers' own cost), then the large one.
    with dataset(1).share() as tiny:
        baseline = workers_memory(tiny)
    large = dataset(size_mb)
    start = time.perf_counter()
    shared = large.share()
    share_seconds = time.perf_counter() - start
    del large
    gc.collect()
    with shared:
        measured = workers_memory(shared)
        data_cost = measured["added_mb"] - baseline["added_mb"]
        share = data_cost / measured["copy_mb"]
        record(
            f"{N_WORKERS} workers over {measured['copy_mb']:,.0f} MB shared: added / one copy",
            "< 0.10",
            share,
            share < 0.10,
            data_mb=round(data_cost, 1),
            workers_added_mb=round(measured["added_mb"], 1),
            workers_added_tiny_mb=round(baseline["added_mb"], 1),
            parent_before_mb=round(measured["parent_before_mb"], 1),
            share_seconds=round(share_seconds, 3),
        )
        print(
            f"  workers added {measured['added_mb']:,.1f} MB ({baseline['added_mb']:,.1f} MB over "
            f"a 1 MB dataset); share() took {share_seconds:.2f} s",
            flush=True,
        )

        # 2. Construction time, small vs large, interleaved.
        small = dataset(size_mb / 16).share()
        with small:
            construction_time(small)()  # starts the fork server
            samples: dict[str, list[float]] = {"small": [], "large": []}
            for _ in range(repeats):
                samples["small"].append(construction_time(small)())
                samples["large"].append(construction_time(shared)())
        small_s, large_s = (statistics.median(samples[k]) for k in ("small", "large"))
        ratio = large_s / small_s
        record(
            f"construction N={N_WORKERS}: {size_mb:,.0f} MB / {size_mb / 16:,.0f} MB",
            "<= 1.25x",
            ratio,
            ratio <= 1.25,
            medians_seconds={"small": small_s, "large": large_s},
        )

    # Contrast: unshared data is copied into every worker.
    copied = workers_memory(dataset(copy_mb))
    per_copy = (copied["added_mb"] - baseline["added_mb"]) / copied["copy_mb"]
    print(
        f"  for contrast, unshared {copied['copy_mb']:,.0f} MB: the workers add "
        f"{per_copy:.2f} copies",
        flush=True,
    )
    contrast = "unshared (contrast): copies added by the workers"
    rows.append({"target": contrast, "value": round(per_copy, 2), "copy_mb": copied["copy_mb"]})

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": multiprocessing.cpu_count(),
                "size_mb": size_mb,
                "workers": N_WORKERS,
                "repeats": repeats,
                "results": rows,
            },
            indent=2,
        )
    )
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
