"""Partial batches (``send`` / ``recv``) against full batches (``step``), in one run.

Sub-envs whose step time is heavy-tailed: lognormal, mean 1 ms, ``sigma`` the
standard deviation of its logarithm. ``num_envs = 3 x batch_size`` in every
case; throughput is sub-env steps per second, and partial / full compares the
two loops over the same envs on the same backend (target >= 1.5x):

1. ``AsyncVecEnv``, I/O waits: each ``async_step`` awaits ``asyncio.sleep`` for
   the drawn time.
2. ``AsyncVecEnv`` over the REST market example (``examples/rest_market``):
   ``RestMarketEnv`` sub-envs, the aiohttp server in a child process with a
   lognormal latency of mean 1 ms. Reported, no target: at this latency the
   HTTP round trip's own CPU cost in the client is of the same order.
3. ``ProcVecEnv(num_workers=2)``, CPU work: each ``step`` busy-loops for the
   drawn time. Full batches lose only the imbalance between the two workers'
   shares, so no scheduling can beat ``E[max(S0, S1)] / E[(S0 + S1) / 2]``
   (``S`` a worker's sum of draws); that ceiling is printed next to the ratio.
4. Constant-time envs, ``step()`` at the default ``batch_size`` (8 trivial
   sub-envs on Sync, Async and Proc with 2 workers): this tree against the last
   commit before partial batches (``BASELINE_REV``, its ``sekai.vector`` taken
   with ``git archive`` into a temporary directory and put first on the path).
   Both run in child processes, alternately; target: within noise (the
   spread of the repeats is printed).

Every figure is the median of interleaved repeats. Run ``python
benchmarks/bench_partial.py [--quick] [--repeats=N] [--baseline=REV]``; the report is
printed and written to ``benchmarks/results/bench_partial.json``.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.vector import AsyncVecEnv, ProcVecEnv, VecEnv

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "bench_partial.json"
EXAMPLES = ROOT / "examples"
BASELINE_REV = "3f9af5ae58921b6cda39a286790e25a3146ae068"
"""The last commit before partial batches (a55c515 added send / recv)."""

MEAN_SECONDS = 1e-3
"""Mean step time of the heavy-tailed sub-envs."""

_T = TypeVar("_T")

# -- sub-envs with a heavy-tailed step time ------------------------------------------------------


def _mu(sigma: float) -> float:
    """The lognormal's location for a mean of MEAN_SECONDS."""
    return math.log(MEAN_SECONDS) - 0.5 * sigma**2


def _spin(seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        pass


class _Timed(Env[Any, Any]):
    """A trivial observation; each step takes a lognormal time drawn from the env's rng."""

    def __init__(self, sigma: float) -> None:
        self.observation_space = Box(-1.0, 1.0, (4,), np.float32)
        self.action_space = Discrete(2)
        self.mu, self.sigma = _mu(sigma), sigma
        self.obs = np.zeros(4, np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        return ResetResult(self.obs, {})

    def _draw(self) -> float:
        return float(self.rng.lognormal(self.mu, self.sigma))


class SleepEnv(_Timed):
    """I/O-bound: the step waits (``asyncio.sleep`` in ``async_step``)."""

    def step(self, action: Any) -> StepResult[Any]:
        time.sleep(self._draw())
        return StepResult(self.obs, 0.0, False, False, {})

    async def async_step(self, action: Any) -> StepResult[Any]:
        await asyncio.sleep(self._draw())
        return StepResult(self.obs, 0.0, False, False, {})


class SpinEnv(_Timed):
    """CPU-bound: the step busy-loops."""

    def step(self, action: Any) -> StepResult[Any]:
        _spin(self._draw())
        return StepResult(self.obs, 0.0, False, False, {})


# -- the two loops ---------------------------------------------------------------------------------


def full_rate(vec: VecEnv[Any, Any], steps: int) -> float:
    """Sub-env steps per second of ``step()`` over every sub-env."""
    n = vec.num_envs
    actions = np.zeros(n, np.int64)
    vec.reset(seed=0)
    for _ in range(max(5, steps // 10)):
        vec.step(actions)
    start = time.perf_counter()
    for _ in range(steps):
        vec.step(actions)
    return n * steps / (time.perf_counter() - start)


def partial_rate(vec: VecEnv[Any, Any], steps: int) -> float:
    """Sub-env steps per second of a send / recv loop, as many sub-env steps as ``full_rate``."""
    n, batch_size = vec.num_envs, vec.batch_size
    recvs = steps * n // batch_size
    actions = np.zeros(batch_size, np.int64)
    vec.reset(seed=0)
    vec.send(np.zeros(n, np.int64))
    for _ in range(max(5, recvs // 10)):
        vec.send(actions, vec.recv().env_ids)
    start = time.perf_counter()
    for _ in range(recvs):
        vec.send(actions, vec.recv().env_ids)
    return batch_size * recvs / (time.perf_counter() - start)


def _sample(build: Callable[[], VecEnv[Any, Any]], rate: Callable[..., float], steps: int) -> float:
    vec = build()
    try:
        return rate(vec, steps)
    finally:
        vec.close()


def _interleaved(candidates: dict[str, Callable[[], _T]], repeats: int) -> dict[str, list[_T]]:
    """Run each candidate ``repeats`` times, round-robin; return every sample."""
    samples: dict[str, list[_T]] = {name: [] for name in candidates}
    for _ in range(repeats):
        for name, run in candidates.items():
            samples[name].append(run())
    return samples


def full_vs_partial(
    build: Callable[[bool], VecEnv[Any, Any]], steps: int, repeats: int
) -> dict[str, list[float]]:
    """Samples of both loops; ``build(partial)`` makes the vector env, with a batch_size if so."""
    return _interleaved(
        {
            "full": lambda: _sample(lambda: build(False), full_rate, steps),
            "partial": lambda: _sample(lambda: build(True), partial_rate, steps),
        },
        repeats,
    )


def ceiling(sigma: float, groups: int, per_group: int, draws: int = 200_000) -> float:
    """``E[max over groups of a group's sum] / E[a group's sum]`` for lognormal draws."""
    rng = np.random.default_rng(0)
    sums = rng.lognormal(_mu(sigma), sigma, (draws, groups, per_group)).sum(axis=-1)
    return float(sums.max(axis=-1).mean() / sums.mean())


# -- 4. constant-time envs against the baseline tree ---------------------------------------------

_CONSTANT_TIME = r"""
import json, sys, time
import numpy as np
import sekai.vector as vector
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete

class Constant(Env):
    observation_space = Box(-1.0, 1.0, (4,), np.float32)
    action_space = Discrete(2)
    def reset(self, *, seed=None, options=None):
        return ResetResult(np.zeros(4, np.float32), {})
    def step(self, action):
        return StepResult(np.zeros(4, np.float32), 0.0, False, False, {})

steps = int(sys.argv[1])
n = 8
builds = {
    "sync": lambda: vector.SyncVecEnv([Constant] * n),
    "async": lambda: vector.AsyncVecEnv([Constant] * n),
    "proc-w2": lambda: vector.ProcVecEnv([Constant] * n, num_workers=2),
}
per_step = {}
actions = np.zeros(n, np.int64)
for name, build in builds.items():
    with build() as vec:
        vec.reset(seed=0)
        count = steps if name == "sync" else steps // 4
        for _ in range(count // 10):
            vec.step(actions)
        start = time.perf_counter()
        for _ in range(count):
            vec.step(actions)
        per_step[name] = (time.perf_counter() - start) / count
print(json.dumps({"partial_batches": hasattr(vector.VecEnv, "send"),
                  "module": vector.__file__, "seconds_per_step": per_step}))
"""


@contextmanager
def baseline_tree(rev: str) -> Iterator[Path | None]:
    """A directory holding ``sekai/vector`` as of ``rev`` (``None`` if git cannot give it)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "packages/sekai-vector/src/sekai/vector"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"bench_partial: no baseline ({error}); the constant-time comparison is skipped")
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="sekai-baseline-") as tmp:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            if hasattr(tarfile, "data_filter"):  # Python >= 3.12, and backports
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)  # our own repository's archive
        yield Path(tmp) / "packages" / "sekai-vector" / "src"


def constant_time(path: Path | None, steps: int) -> dict[str, Any]:
    """One child run of the constant-time script, with ``path`` first on PYTHONPATH."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), *filter(None, [env.get("PYTHONPATH")])])
    child = subprocess.run(
        [sys.executable, "-c", _CONSTANT_TIME, str(steps)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if child.returncode != 0:
        tree = "this tree" if path is None else f"the baseline in {path}"
        raise RuntimeError(f"the constant-time run of {tree} failed:\n{child.stderr}")
    result: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    return result


# -- the report ------------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    """Measure partial against full batches and the constant-time step; print and save."""
    quick = "--quick" in argv
    baseline_rev = next(
        (arg.split("=", 1)[1] for arg in argv if arg.startswith("--baseline=")), BASELINE_REV
    )
    repeats = int(
        next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--repeats=")), 0)
    ) or (3 if quick else 5)
    if __name__ != "__main__":
        import cloudpickle

        # Workers get this file's envs by value, as they would a script's.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    rows: list[dict[str, Any]] = []

    def report(
        target: str, goal: str | None, samples: dict[str, list[float]], **extra: Any
    ) -> None:
        full, partial = statistics.median(samples["full"]), statistics.median(samples["partial"])
        ratio = partial / full
        met = None if goal is None else ratio >= float(goal.split()[1].rstrip("x"))
        rows.append(
            {
                "target": target,
                "goal": goal,
                "ratio": round(ratio, 3),
                "met": met,
                "steps_per_second": {"full": round(full), "partial": round(partial)},
                "samples": {k: [round(v) for v in vs] for k, vs in samples.items()},
                **extra,
            }
        )
        verdict = "" if met is None else f"goal {goal}, {'met' if met else 'NOT met'}; "
        notes = "".join(f", {key} {value}" for key, value in extra.items())
        print(
            f"{target:<62} {ratio:>5.2f}x  ({verdict}full {full:,.0f}/s, "
            f"partial {partial:,.0f}/s{notes})",
            flush=True,
        )

    # 1. AsyncVecEnv, I/O waits.
    sigma, batch_size = 1.0, 4
    n = 3 * batch_size
    steps = 60 if quick else 150
    samples = full_vs_partial(
        lambda partial: AsyncVecEnv(
            [lambda: SleepEnv(sigma)] * n, batch_size=batch_size if partial else None
        ),
        steps,
        repeats,
    )
    report(
        f"Async, sleep lognormal(1 ms, s={sigma}), {batch_size} of {n}",
        ">= 1.5x",
        samples,
        ceiling=round(ceiling(sigma, n, 1), 2),
    )

    # 2. AsyncVecEnv over the REST market, the server in a child process.
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    try:
        from rest_market.env import RestMarketEnv
        from rest_market.server import Latency, serve_in_subprocess
    except ImportError as error:  # aiohttp missing
        print(f"bench_partial: REST example skipped ({error})")
    else:
        for latency_ms in (1.0, 5.0):
            with serve_in_subprocess(Latency(latency_ms / 1e3, sigma), seed=0) as url:
                samples = full_vs_partial(
                    lambda partial: AsyncVecEnv(
                        [lambda: RestMarketEnv(url)] * n, batch_size=batch_size if partial else None
                    ),
                    steps // 2,
                    repeats,
                )
            report(
                f"Async, REST market, latency lognormal({latency_ms:g} ms, s={sigma}), "
                f"{batch_size} of {n}",
                None,
                samples,
            )

    # 3. ProcVecEnv with 2 workers, CPU work.
    batch_size = 2
    n = 3 * batch_size
    steps = 100 if quick else 300
    for sigma in (1.0, 1.5):

        def spinning(partial: bool, sigma: float = sigma) -> VecEnv[Any, Any]:
            return ProcVecEnv(
                [lambda: SpinEnv(sigma)] * n,
                num_workers=2,
                batch_size=batch_size if partial else None,
            )

        samples = full_vs_partial(spinning, steps, repeats)
        report(
            f"Proc w2, spin lognormal(1 ms, s={sigma}), {batch_size} of {n}",
            ">= 1.5x",
            samples,
            ceiling=round(ceiling(sigma, 2, n // 2), 2),
        )

    # 4. Constant-time envs: step() at the default batch_size, this tree vs the baseline.
    constant: dict[str, Any] = {}
    with baseline_tree(baseline_rev) as old:
        if old is not None:
            steps = 4000 if quick else 12000
            runs = _interleaved(
                {
                    "baseline": lambda: constant_time(old, steps),
                    "current": lambda: constant_time(None, steps),
                },
                repeats,
            )
            assert not any(run["partial_batches"] for run in runs["baseline"]), runs["baseline"]
            assert all(run["partial_batches"] for run in runs["current"]), runs["current"]
            for backend in runs["current"][0]["seconds_per_step"]:
                times = {
                    tree: [run["seconds_per_step"][backend] for run in tree_runs]
                    for tree, tree_runs in runs.items()
                }
                now, before = (statistics.median(times[t]) for t in ("current", "baseline"))
                spread = max(
                    (max(values) - min(values)) / statistics.median(values)
                    for values in times.values()
                )
                constant[backend] = {
                    "current_us": round(now * 1e6, 2),
                    "baseline_us": round(before * 1e6, 2),
                    "ratio": round(now / before, 3),
                    "spread_of_repeats": round(spread, 3),
                    "samples_us": {t: [round(v * 1e6, 2) for v in vs] for t, vs in times.items()},
                }
                print(
                    f"{'constant-time N=8 step(), ' + backend + ': now / ' + baseline_rev[:7]:<62} "
                    f"{now / before:>5.2f}x  (goal: within noise, repeats spread "
                    f"{spread:.0%}; now {now * 1e6:,.1f} us, before {before * 1e6:,.1f} us)",
                    flush=True,
                )

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": multiprocessing.cpu_count(),
                "repeats": repeats,
                "mean_step_seconds": MEAN_SECONDS,
                "results": rows,
                "constant_time": {"baseline": baseline_rev, "backends": constant},
            },
            indent=2,
        )
    )
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
