"""RayVecEnv against ProcVecEnv and per-env Ray actors, for CPU-heavy envs, in one run.

Measured, for sub-envs burning 1, 5 and 20 ms of CPU per step, N=16 sub-envs:

- ``ray``: RayVecEnv with 2 actors (8 sub-envs each): one remote call per actor
  per step;
- ``proc``: ProcVecEnv with 2 worker processes (8 sub-envs each);
- ``per-env``: RayVecEnv with one actor per sub-env, i.e. one remote call per
  sub-env per step, as RLlib's remote envs (``remote_worker_envs``) do;
- ``floor``: the least any Ray backend pays: a round trip to each of 2 actors
  that do no work and answer with the payload of 8 sub-envs (a stacked
  observation batch, rewards, flags, infos).

Every vector env is built once and its per-step CPU cost changed with
``set_attr`` between measurements, which are interleaved (round-robin,
``--repeats`` times) so every backend sees the same machine load; the report
gives medians. From them: the overhead of a step (its time minus the compute
time of the busiest worker, 8 sub-envs x the step cost), the throughput ratios,
and the step cost at which RayVecEnv reaches 0.8x ProcVecEnv's throughput on
this machine (a linear model of each backend: compute + a fixed overhead).

Needs ``sekai-vector[ray]`` (Ray and cloudpickle); skipped without it. Run
``python benchmarks/bench_ray.py [--quick] [--repeats=N]`` or
``nox -s bench -- ray``; the report is printed and written to
``benchmarks/results/bench_ray.json``. A Ray session already initialised (e.g.
``ray.init(address="auto")`` on a cluster) is used as it is; otherwise a local
one is started for the run with every CPU of this machine.
"""

from __future__ import annotations

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

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete

# Ray (>= 2.47) runs workers through `uv run` when the driver descends from
# `uv run` (as under `uv run nox -s bench`): each worker would sync its own
# environment. This machine's interpreter is the one to measure.
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

RESULTS = Path(__file__).parent / "results" / "bench_ray.json"
NUM_ENVS = 16
WORKERS = 2
COSTS_MS = (1.0, 5.0, 20.0)
OBS_SIZE = 8


class SpinEnv(Env[Any, int]):
    """A CPU-bound simulator: every step burns ``cost`` seconds of CPU (settable).

    CPU time of the stepping thread, not wall time: sub-envs that share a core
    take longer, as real simulators do (a wall-clock spin would finish on time
    however many processes compete, and flatter the backends that run more).
    """

    observation_space = Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
    action_space = Discrete(2)

    def __init__(self) -> None:
        self.cost = 0.001
        self.t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(np.zeros(OBS_SIZE, np.float32), {})

    def step(self, action: int) -> StepResult[Any]:
        clock = time.thread_time
        deadline = clock() + self.cost
        while clock() < deadline:
            pass
        self.t += 1
        obs = np.full(OBS_SIZE, (self.t % 100) / 100, np.float32)
        return StepResult(obs, 1.0, False, self.t >= 1000, {"t": self.t})


class Echo:
    """The floor: an actor that does no work and answers with a group's payload."""

    def __init__(self, count: int) -> None:
        self.payload = (
            [{"t": 1}] * count,
            np.zeros((count, OBS_SIZE), np.float32),
            [1.0] * count,
            [False] * count,
            [False] * count,
            (),
        )

    def step(self, actions: Any) -> Any:
        return self.payload


def _step_time(vec: Any, actions: Any, steps: int) -> float:
    """Seconds per vector step, after a short warm-up."""
    for _ in range(2):
        vec.step(actions)
    start = time.perf_counter()
    for _ in range(steps):
        vec.step(actions)
    return (time.perf_counter() - start) / steps


def _floor_time(actors: list[Any], actions: Any, steps: int) -> float:
    import ray

    parts = np.array_split(actions, len(actors))
    for _ in range(2):
        ray.get([actor.step.remote(part) for actor, part in zip(actors, parts, strict=True)])
    start = time.perf_counter()
    for _ in range(steps):
        ray.get([actor.step.remote(part) for actor, part in zip(actors, parts, strict=True)])
    return (time.perf_counter() - start) / steps


def _steps_for(cost: float, quick: bool) -> int:
    """Enough steps for about a second of measurement (half with --quick)."""
    per_step = cost * NUM_ENVS / WORKERS
    budget = 0.5 if quick else 1.0
    return max(5, min(200, int(budget / per_step)))


def main(argv: list[str]) -> None:
    """Measure RayVecEnv, ProcVecEnv, per-env actors and the floor; print and save the report."""
    quick = "--quick" in argv
    repeats = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("--repeats=")), 0)
    repeats = repeats or (3 if quick else 5)
    try:
        import cloudpickle
        import ray

        from sekai.vector import ProcVecEnv, RayVecEnv
    except ImportError as error:
        print(f"bench_ray: skipped, {error} (needs the sekai-vector[ray] extra: nox -s bench)")
        return
    module = sys.modules.get(__name__)
    if module is not None and __name__ != "__main__":
        # Workers get this file's classes by value, as they would get a script's.
        cloudpickle.register_pickle_by_value(module)
        ray.cloudpickle.register_pickle_by_value(module)

    started_here = not ray.is_initialized()
    start = time.perf_counter()
    if started_here:
        ray.init(include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - start
    cpus = int(ray.cluster_resources().get("CPU", 0))
    print(
        f"Ray {ray.__version__}, {cpus} CPUs in the cluster"
        + (f", local cluster started in {startup:.1f} s" if started_here else ""),
        flush=True,
    )
    fns = [SpinEnv] * NUM_ENVS
    actions = np.zeros(NUM_ENVS, np.int64)
    builders: dict[str, Callable[[], Any]] = {
        "ray": lambda: RayVecEnv(fns, num_workers=WORKERS, num_cpus=0),
        "proc": lambda: ProcVecEnv(fns, num_workers=WORKERS),
        "per-env": lambda: RayVecEnv(fns, num_workers=NUM_ENVS, num_cpus=0),
    }
    vecs: dict[str, Any] = {}
    built: dict[str, float] = {}
    echo = ray.remote(Echo)
    floor = [echo.options(num_cpus=0).remote(NUM_ENVS // WORKERS) for _ in range(WORKERS)]
    try:
        for name, build in builders.items():
            start = time.perf_counter()
            vecs[name] = build()
            vecs[name].reset(seed=0)
            built[name] = time.perf_counter() - start
        rows = []
        for cost_ms in COSTS_MS:
            cost = cost_ms / 1000
            steps = _steps_for(cost, quick)
            for vec in vecs.values():
                vec.set_attr("cost", cost)
            samples: dict[str, list[float]] = {name: [] for name in (*vecs, "floor")}
            for _ in range(repeats):
                for name, vec in vecs.items():
                    samples[name].append(_step_time(vec, actions, steps))
                samples["floor"].append(_floor_time(floor, actions, steps * 4))
            rows.append(_row(cost, {name: statistics.median(s) for name, s in samples.items()}))
            _print_row(rows[-1])
    finally:
        for vec in vecs.values():
            vec.close()
        for actor in floor:
            ray.kill(actor)
        if started_here:
            ray.shutdown()
    summary = _summary(rows)
    over = summary["overhead_ms"]
    print(
        f"fixed cost of a step (intercept of step time vs cost): Ray {over['ray']:.2f} ms, "
        f"Proc {over['proc']:.2f} ms, per-env actors {over['per-env']:.2f} ms, Ray floor "
        f"{over['floor']:.2f} ms; slope (ideal {NUM_ENVS // WORKERS}): "
        + ", ".join(f"{name} {value:.2f}" for name, value in summary["slope"].items())
        + f"; RayVecEnv reaches 0.8x ProcVecEnv from {summary['cost_for_0.8x_ms']:.2f} ms "
        "of CPU per sub-env step",
        flush=True,
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
                "ray": ray.__version__,
                "num_envs": NUM_ENVS,
                "workers": WORKERS,
                "repeats": repeats,
                "construction_seconds": {name: round(t, 3) for name, t in built.items()},
                "results": rows,
                "summary": summary,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"written to {RESULTS}")


def _row(cost: float, medians: dict[str, float]) -> dict[str, Any]:
    compute = cost * NUM_ENVS / WORKERS  # the busiest worker's CPU time per step
    per_env_compute = cost * NUM_ENVS / max(1, os.cpu_count() or 1)
    return {
        "cost_ms": cost * 1000,
        "step_ms": {name: round(t * 1000, 3) for name, t in medians.items()},
        "env_steps_per_s": {
            name: round(NUM_ENVS / t, 1) for name, t in medians.items() if name != "floor"
        },
        # The time above the busiest worker's compute time: the backend's overhead,
        # plus what other processes competing for the cores cost it.
        "above_compute_ms": {
            "ray": round((medians["ray"] - compute) * 1000, 3),
            "proc": round((medians["proc"] - compute) * 1000, 3),
            "per-env": round((medians["per-env"] - per_env_compute) * 1000, 3),
        },
        "ray_vs_proc": round(medians["proc"] / medians["ray"], 3),
        "ray_vs_per_env": round(medians["per-env"] / medians["ray"], 3),
    }


def _print_row(row: dict[str, Any]) -> None:
    steps, rates = row["step_ms"], row["env_steps_per_s"]
    print(
        f"{row['cost_ms']:>5.1f} ms/step x {NUM_ENVS}: "
        + ", ".join(
            f"{name} {steps[name]:.2f} ms ({rates[name]:,.0f} env-steps/s)" for name in rates
        )
        + f", floor {steps['floor']:.2f} ms | Ray/Proc {row['ray_vs_proc']:.2f}x, "
        f"Ray/per-env {row['ray_vs_per_env']:.2f}x",
        flush=True,
    )


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A line ``step = overhead + slope x cost`` per backend (least squares over the costs).

    The intercept is the fixed cost of a step (the overhead), the slope how
    much of the sub-env step cost a vector step pays (ideally NUM_ENVS /
    WORKERS: the busiest worker's share). RayVecEnv's throughput is 0.8x
    ProcVecEnv's where ``proc(c) / ray(c) = 0.8``.
    """
    costs = [row["cost_ms"] for row in rows]
    fits = {}
    for name in ("ray", "proc", "per-env", "floor"):
        slope, intercept = np.polyfit(costs, [row["step_ms"][name] for row in rows], 1)
        fits[name] = (float(intercept), float(slope))
    (a_ray, b_ray), (a_proc, b_proc) = fits["ray"], fits["proc"]
    if 0.8 * a_ray <= a_proc:
        at = 0.0  # already there for the cheapest steps
    elif b_proc - 0.8 * b_ray > 0:
        at = (0.8 * a_ray - a_proc) / (b_proc - 0.8 * b_ray)
    else:
        at = float("inf")  # never, on this machine
    return {
        "overhead_ms": {name: round(fit[0], 3) for name, fit in fits.items()},
        "slope": {name: round(fit[1], 3) for name, fit in fits.items()},
        "ideal_slope": NUM_ENVS / WORKERS,
        "cost_for_0.8x_ms": round(at, 3),
    }


if __name__ == "__main__":
    main(sys.argv[1:])
