"""Small batches: each native vector env against SyncVecEnv (and EnvPool) at 1 to 8 sub-envs.

``sekai.make_vec(id, N)`` builds the native vector env of every env that has
one (its ``vector_entry_point``), at any ``N``; most users start at ``N = 1``
or a handful. This benchmark measures, for the five classic-control envs and
the market envs Trading, Portfolio, Market, MarketMaking and
OptimalExecution, at ``N`` in (1, 2, 4, 8):

* ``native``: ``make_vec(id, N)`` (the backend it picks is reported too);
* ``sync``: ``make_vec(id, N, vectorization_mode="sync")``, ``SyncVecEnv``
  over ``N`` single envs, the registered time limit applied by both;
* ``envpool``: for the classic envs EnvPool has,
  ``envpool.make(id, env_type="gymnasium", num_envs=N, num_threads=1)`` (the
  bench dependency group brings it; left out when it is not installed).

Each is stepped with the same random actions from a fixed seed, autoreset
included. Timing: wall-clock microseconds per batch step, the median of
interleaved rounds (native, sync, EnvPool in turn, so that other work on the
machine affects all alike). Ratios are speeds relative to native's peer, the
median over rounds of each round's ``sync_us / native_us`` (above 1: native
is faster).

Goal (issue 36): ``native_vs_sync >= 1.0`` for every env and every ``N``
here, so that the default ``make_vec`` picks never loses to ``SyncVecEnv``.

Run ``python benchmarks/bench_small.py [--quick] [ids...]``; results are
printed and written to ``benchmarks/results/bench_small.json``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

RESULTS = Path(__file__).parent / "results" / "bench_small.json"

CLASSIC_IDS = (
    "CartPole-v1",
    "Acrobot-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
)
MARKET_IDS = (
    "Trading-v0",
    "Portfolio-v0",
    "Market-v0",
    "MarketMaking-v0",
    "OptimalExecution-v0",
)
ENV_IDS = CLASSIC_IDS + MARKET_IDS
ENVPOOL_IDS = frozenset(CLASSIC_IDS)  # the classic envs EnvPool implements
NUM_ENVS = (1, 2, 4, 8)
GOAL = 1.0


def _actions(space: Any, num_envs: int, count: int) -> list[Any]:
    """``count`` batches of random actions of the single ``space``, from a fixed seed."""
    rng = np.random.default_rng(0)
    n = getattr(space, "n", None)
    if n is not None:
        return [rng.integers(0, int(n), size=num_envs) for _ in range(count)]
    low = np.broadcast_to(space.low, space.shape)
    high = np.broadcast_to(space.high, space.shape)
    return [
        rng.uniform(low, high, size=(num_envs, *space.shape)).astype(space.dtype)
        for _ in range(count)
    ]


def _runner(step: Callable[[Any], Any], batches: list[Any]) -> Callable[[], None]:
    def run() -> None:
        for batch in batches:
            step(batch)

    return run


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _envpool(env_id: str, num_envs: int) -> Any | None:
    try:
        import envpool  # type: ignore[import-untyped]
    except ImportError:
        return None
    return envpool.make(env_id, env_type="gymnasium", num_envs=num_envs, num_threads=1)


def bench(env_id: str, num_envs: int, steps: int, rounds: int) -> dict[str, Any]:
    """Microseconds per step of each backend at ``num_envs``, and the ratios."""
    native = registry.make_vec(env_id, num_envs)
    sync = registry.make_vec(env_id, num_envs, vectorization_mode="sync")
    batches = _actions(native.action_space, num_envs, steps)
    native.reset(seed=0)
    sync.reset(seed=0)
    runs: dict[str, Callable[[], None]] = {
        "native": _runner(native.step, batches),
        "sync": _runner(sync.step, batches),
    }
    pool = _envpool(env_id, num_envs) if env_id in ENVPOOL_IDS else None
    if pool is not None:
        pool.reset()
        runs["envpool"] = _runner(pool.step, batches)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - start) / steps * 1e6)
    result: dict[str, Any] = {
        "num_envs": num_envs,
        "make_vec_picks": type(native).__name__,
    }
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, micros in medians.items():
        result[f"{name}_us"] = micros
    # The ratio of each round (its runs are seconds apart at most), then their median:
    # steadier than a ratio of medians while the machine's load drifts.
    for peer in ("sync", "envpool"):
        if peer in times:
            ratios = [p / n for p, n in zip(times[peer], times["native"], strict=True)]
            result[f"native_vs_{peer}"] = statistics.median(ratios)
    native.close()
    sync.close()
    if pool is not None:
        pool.close()
    return result


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    selected = [arg for arg in argv if arg in ENV_IDS] or list(ENV_IDS)
    # Short rounds, many of them: load on a shared machine changes within a second.
    steps, rounds = (200, 9) if quick else (500, 21)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "timing": f"median wall-clock us per batch step over {rounds} interleaved rounds "
        f"of {steps} steps; ratios: median of the rounds' ratios",
        "goal": f"native_vs_sync >= {GOAL:g} at N in {NUM_ENVS}",
        "envpool": _version("envpool"),
        "envs": {},
    }
    print(f"python {report['python']}, numpy {report['numpy']}; {report['timing']}")
    print(
        f"{'env':<26} {'N':>2} {'picks':<28} {'native':>8} {'sync':>8} {'envpool':>8} "
        f"{'vs sync':>8} {'vs envpool':>10}"
    )
    for env_id in selected:
        rows = report["envs"][env_id] = []
        for num_envs in NUM_ENVS:
            result = bench(env_id, num_envs, steps, rounds)
            rows.append(result)
            pool = result.get("envpool_us")
            versus = result.get("native_vs_envpool")
            verdict = "" if result["native_vs_sync"] >= GOAL else "  BELOW GOAL"
            print(
                f"{env_id:<26} {num_envs:>2} {result['make_vec_picks']:<28} "
                f"{result['native_us']:8.1f} {result['sync_us']:8.1f} "
                f"{'-' if pool is None else f'{pool:.1f}':>8} "
                f"{result['native_vs_sync']:7.2f}x "
                f"{'-' if versus is None else f'{versus:.2f}x':>10}{verdict}",
                flush=True,
            )
    report["peer_rows"] = _peer_rows(report)
    print_rows(report["peer_rows"])
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


def _peer_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per env, its smallest native / sync ratio over the sizes; EnvPool at N = 1 for context."""
    rows = []
    for env_id, results in report["envs"].items():
        worst = min(results, key=lambda r: r["native_vs_sync"])
        n = worst["num_envs"]
        sizes = ", ".join(str(r["num_envs"]) for r in results)
        rows.append(
            peer_row(
                f"{env_id} native / SyncVecEnv, the least of N = {sizes} (at N = {n})",
                unit="steps/s",
                sekai=n * 1e6 / worst["native_us"],
                peer=n * 1e6 / worst["sync_us"],
                peer_name="sekai SyncVecEnv",
                goal=f">= {GOAL:g}",
                ratio=worst["native_vs_sync"],
                note="what make_vec(id, N) picks (native) against SyncVecEnv over the single env",
            )
        )
        pooled = [r for r in results if "native_vs_envpool" in r]
        if pooled:
            least = min(pooled, key=lambda r: r["native_vs_envpool"])
            n = least["num_envs"]
            rows.append(
                peer_row(
                    f"{env_id} native / EnvPool, the least of N = {sizes} (at N = {n})",
                    unit="steps/s",
                    sekai=n * 1e6 / least["native_us"],
                    peer=n * 1e6 / least["envpool_us"],
                    peer_name=f"EnvPool {report['envpool']} (num_threads=1)",
                    goal=None,
                    ratio=least["native_vs_envpool"],
                )
            )
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
