"""ProcVecEnv construction speed, side by side with Gymnasium's AsyncVectorEnv in one run.

Measured: the wall time to build a vector env of 8 CartPole-v1 sub-envs and
reset it once (closing it is not timed), in the two ways users build one:

1. Through the registry: ``sekai.make_vec("CartPole-v1", 8,
   vectorization_mode="proc")`` vs ``gymnasium.make_vec("CartPole-v1", 8,
   vectorization_mode="async")`` (target: at most 1.5x Gymnasium's time).
2. With a list of 8 factories, each calling the registry's ``make`` inside its
   worker: ``ProcVecEnv([make_sekai_cartpole] * 8)`` vs
   ``AsyncVectorEnv([make_gym_cartpole] * 8)`` (target: at most 1.5x).

Each is measured with ProcVecEnv's default number of workers and with
``num_workers=8``, one process per sub-env as AsyncVectorEnv has. Each library
runs with its default start method (sekai's ``forkserver``, Gymnasium's the
platform's) and its own CartPole.

Every number is the median of interleaved rounds (one construction of each
candidate per round, so all see the same machine load); the first round is
discarded, as it starts sekai's fork server. Each scenario runs in a fresh
interpreter, as a user's script would: the fork server preloads what the first
vector env of a process needs, so scenarios sharing a process would borrow
each other's preloads. Run ``python benchmarks/bench_construct.py [--quick]``
(needs ``gymnasium``); the report is printed and written to
``benchmarks/results/bench_construct.json``."""

from __future__ import annotations

import importlib.metadata
import json
import multiprocessing
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

RESULTS = HERE / "results" / "bench_construct.json"
NUM_ENVS = 8
ENV_ID = "CartPole-v1"


# -- the factories a user script would write -------------------------------------------------------


def make_sekai_cartpole() -> Any:
    """One sekai CartPole, looked up in the registry inside the worker."""
    import sekai.registry

    return sekai.registry.make(ENV_ID)


def make_gym_cartpole() -> Any:
    """One Gymnasium CartPole, looked up in its registry inside the worker."""
    import gymnasium

    return gymnasium.make(ENV_ID)


# -- timing ----------------------------------------------------------------------------------------


def _construct_and_reset(build: Callable[[], Any]) -> Callable[[], float]:
    """Seconds to build the vector env and reset it once (closing it is not timed)."""

    def run() -> float:
        start = time.perf_counter()
        vec = build()
        try:
            vec.reset(seed=0)
            return time.perf_counter() - start
        finally:
            vec.close()

    return run


def _interleaved(candidates: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Run each candidate once per round, round-robin; return every sample."""
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, run in candidates.items():
            samples[name].append(run())
    return samples


# -- one scenario per process ---------------------------------------------------------------------

# Each scenario runs in a fresh interpreter: the fork server sekai starts with
# its first vector env preloads what that env needs, so scenarios sharing one
# process would see each other's preloads.
SCENARIOS = ("make_vec", "factories")


def _candidates(scenario: str) -> dict[str, Callable[[], float]]:
    import gymnasium

    import sekai.registry
    from sekai.vector import ProcVecEnv

    n = NUM_ENVS
    if scenario == "make_vec":
        return {
            "sekai": _construct_and_reset(
                lambda: sekai.registry.make_vec(ENV_ID, n, vectorization_mode="proc")
            ),
            "sekai-w8": _construct_and_reset(
                lambda: sekai.registry.make_vec(
                    ENV_ID, n, vectorization_mode="proc", vector_kwargs={"num_workers": n}
                )
            ),
            "gym": _construct_and_reset(
                lambda: gymnasium.make_vec(ENV_ID, n, vectorization_mode="async")
            ),
        }
    return {
        "sekai": _construct_and_reset(lambda: ProcVecEnv([make_sekai_cartpole] * n)),
        "sekai-w8": _construct_and_reset(
            lambda: ProcVecEnv([make_sekai_cartpole] * n, num_workers=n)
        ),
        "gym": _construct_and_reset(
            lambda: gymnasium.vector.AsyncVectorEnv([make_gym_cartpole] * n)
        ),
    }


def _scenario_main(scenario: str, rounds: int) -> None:
    """Run one scenario here and print its samples as JSON (the child side of `main`)."""
    samples = _interleaved(_candidates(scenario), rounds + 1)
    # The first round starts sekai's fork server (and imports what each library needs).
    print(json.dumps({name: values[1:] for name, values in samples.items()}))


def _run_scenario(scenario: str, rounds: int) -> dict[str, list[float]]:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--scenario", scenario, str(rounds)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench_construct: scenario {scenario!r} failed:\n{done.stderr}")
    samples: dict[str, list[float]] = json.loads(done.stdout.splitlines()[-1])
    return samples


# -- the report ------------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    """Measure ProcVecEnv construction and print it as ratios against Gymnasium."""
    if "--scenario" in argv:
        at = argv.index("--scenario")
        _scenario_main(argv[at + 1], int(argv[at + 2]))
        return
    quick = "--quick" in argv
    rounds = 3 if quick else 7
    try:
        import gymnasium  # noqa: F401
    except ImportError:
        print("bench_construct: gymnasium is not installed; nothing to compare with")
        return
    rows: list[dict[str, Any]] = []
    samples_seconds: dict[str, dict[str, list[float]]] = {}
    version = importlib.metadata.version("gymnasium")

    def report(
        target: str,
        ours: str,
        theirs: str,
        samples: dict[str, list[float]],
        goal: str | None = "<= 1.5",
    ) -> None:
        a, b = statistics.median(samples[ours]), statistics.median(samples[theirs])
        rows.append(
            peer_row(
                target,
                unit="ms",
                sekai=a * 1e3,
                peer=b * 1e3,
                peer_name=f"Gymnasium {version} AsyncVectorEnv",
                goal=goal,
                note="construction and one reset; each library's default start method",
            )
        )
        samples_seconds[target] = {ours: samples[ours], theirs: samples[theirs]}

    n = NUM_ENVS
    for scenario in SCENARIOS:
        samples = _run_scenario(scenario, rounds)
        if scenario == "make_vec":
            what = f"make_vec({ENV_ID!r}, {n}): proc / gymnasium async"
        else:
            what = f"{n} factories calling make({ENV_ID!r}): ProcVecEnv / AsyncVectorEnv"
        report(what, "sekai", "gym", samples)
        # One process per sub-env, as AsyncVectorEnv has: shown beside the defaults.
        report(f"{what}, num_workers={n}", "sekai-w8", "gym", samples, goal=None)
    print_rows(rows)

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": multiprocessing.cpu_count(),
                "rounds": rounds,
                "peer_rows": rows,
                "samples_seconds": samples_seconds,
            },
            indent=2,
        )
    )
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
