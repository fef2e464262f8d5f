"""Price simulators: N paths in one vectorised call vs stepping N single paths in a loop.

Measured, in one run, for ``GBM`` and ``Heston`` with N = 1024 paths:

1. ``model.simulate(rng, n_steps, n_paths=1024)``: all paths in one numpy call;
2. the baseline: 1024 single paths stepped one after another at every step, the
   way 1024 independent single-path simulators would advance (same scheme:
   exact log-normal step for GBM, full-truncation Euler for Heston; one draw
   per path and step from the generator). Target: (1) >= 50x faster per step.
3. for information, 1024 calls of ``model.simulate(rng, n_steps)`` (one path
   each, as 1024 single envs would call it at reset).

Both one asset per path (the headline: 1024 paths of one price) and five
correlated assets per path are run. Times are microseconds per simulated step
of all 1024 paths, best CPU time over interleaved repeats. Run ``python
benchmarks/run.py simulators [--quick]``; results are printed and written to
``benchmarks/results/bench_simulators.json``.
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

from sekai.finance.simulators import GBM, Heston, MarketModel

RESULTS = Path(__file__).parent / "results" / "bench_simulators.json"
N_PATHS = 1024
TARGET = 50.0


def _correlation(n: int) -> np.ndarray | None:
    if n == 1:
        return None
    corr = np.full((n, n), 0.3)
    np.fill_diagonal(corr, 1.0)
    return corr


def _models(n: int) -> dict[str, MarketModel]:
    corr = _correlation(n)
    return {
        "gbm": GBM(0.05, 0.2, corr=corr, n_assets=n),
        "heston": Heston(0.05, 2.0, 0.04, 0.3, -0.7, corr=corr, n_assets=n),
    }


# -- the baseline: one path at a time, one step at a time -------------------------------------


class GBMPath:
    """One GBM path advanced a step at a time (exact log-normal step)."""

    def __init__(self, model: GBM, rng: np.random.Generator) -> None:
        self.rng = rng
        self.n = model.n_assets
        self.drift = (model.mu - model.sigma**2 / 2) * model.dt
        self.vol = model.sigma * math.sqrt(model.dt)
        self.factor = None if self.n == 1 else np.linalg.cholesky(model.corr)
        self.log_price = np.log(model.s0)
        self.price = model.s0.copy()

    def step(self) -> None:
        z = self.rng.standard_normal(self.n)
        if self.factor is not None:
            z = self.factor @ z
        self.log_price = self.log_price + self.drift + self.vol * z
        self.price = np.exp(self.log_price)


class HestonPath:
    """One Heston path advanced a step at a time (full-truncation Euler)."""

    def __init__(self, model: Heston, rng: np.random.Generator) -> None:
        self.rng = rng
        self.n = model.n_assets
        self.dt = model.dt
        self.mu, self.kappa, self.theta, self.xi = model.mu, model.kappa, model.theta, model.xi
        self.rho = model.rho
        self.rho_perp = np.sqrt(1 - model.rho**2)
        self.factor = None if self.n == 1 else np.linalg.cholesky(model.corr)
        self.variance = model.v0.copy()
        self.log_price = np.log(model.s0)
        self.price = model.s0.copy()

    def step(self) -> None:
        z = self.rng.standard_normal((2, self.n))
        w = z[0] if self.factor is None else self.factor @ z[0]
        positive = np.maximum(self.variance, 0.0)
        root = np.sqrt(positive * self.dt)
        self.log_price = self.log_price + (self.mu - positive / 2) * self.dt + root * w
        self.variance = (
            self.variance
            + self.kappa * (self.theta - positive) * self.dt
            + self.xi * root * (self.rho * w + self.rho_perp * z[1])
        )
        self.price = np.exp(self.log_price)


# -- timing -------------------------------------------------------------------------------------


def _compare(runs: dict[str, tuple[Callable[[], None], int]], repeats: int) -> dict[str, float]:
    """Best CPU microseconds per step of each run (``(run, steps)``), the runs interleaved.

    CPU time of this process and interleaved candidates, as in bench_vector,
    so that other work on the machine affects every candidate alike.
    """
    best = dict.fromkeys(runs, math.inf)
    for _ in range(repeats):
        for name, (run, steps) in runs.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], (time.process_time() - start) / steps * 1e6)
    return best


def bench_model(
    name: str, model: MarketModel, n_steps: int, loop_steps: int, repeats: int
) -> dict[str, Any]:
    rng = np.random.default_rng(0)

    def vectorised() -> None:
        model.simulate(rng, n_steps, n_paths=N_PATHS)

    stepper = GBMPath if isinstance(model, GBM) else HestonPath

    def stepped() -> None:
        paths = [stepper(model, rng) for _ in range(N_PATHS)]  # type: ignore[arg-type]
        for _ in range(loop_steps):
            for path in paths:
                path.step()

    def single_calls() -> None:
        for _ in range(N_PATHS):
            model.simulate(rng, n_steps)

    times = _compare(
        {
            "vectorised": (vectorised, n_steps),
            "stepped_loop": (stepped, loop_steps),
            "single_path_calls": (single_calls, n_steps),
        },
        repeats,
    )
    return {
        "model": name,
        "n_assets": model.n_assets,
        "n_paths": N_PATHS,
        "n_steps": n_steps,
        "vectorised_us_per_step": times["vectorised"],
        "stepped_loop_us_per_step": times["stepped_loop"],
        "single_path_calls_us_per_step": times["single_path_calls"],
        "ratio_vs_stepped_loop": times["stepped_loop"] / times["vectorised"],
        "ratio_vs_single_path_calls": times["single_path_calls"] / times["vectorised"],
    }


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    n_steps, loop_steps, repeats = (63, 5, 2) if quick else (252, 20, 5)
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "target": f"vectorised >= {TARGET:g}x the stepped loop (1024 paths of one asset)",
        "timing": "best CPU time per step (all 1024 paths) over interleaved repeats",
        "runs": [],
    }
    print(f"python {report['python']}, numpy {report['numpy']}, {N_PATHS} paths")
    for n in (1, 5):
        for name, model in _models(n).items():
            r = bench_model(name, model, n_steps, loop_steps, repeats)
            report["runs"].append(r)
            headline = n == 1
            verdict = ""
            if headline:
                ok = r["ratio_vs_stepped_loop"] >= TARGET
                verdict = f" (>= {TARGET:g}x: {'ok' if ok else 'BELOW TARGET'})"
            print(
                f"{name:<7} {n} asset(s): vectorised {r['vectorised_us_per_step']:8.1f} us/step"
                f" | stepped loop {r['stepped_loop_us_per_step']:9.1f} us/step"
                f" | ratio {r['ratio_vs_stepped_loop']:6.1f}x{verdict}"
                f" | 1024 single-path calls {r['single_path_calls_us_per_step']:8.1f} us/step"
                f" ({r['ratio_vs_single_path_calls']:.1f}x)"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
