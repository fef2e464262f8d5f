"""Soak test of ProcVecEnv: a million sub-env steps with autoreset, memory and fds must stay flat.

Runs ``--steps`` sub-env steps (default 10**6) on a ProcVecEnv of short-episode
envs (so autoreset, final observations and reset infos are exercised all the
time), sampling at regular intervals the resident memory (RSS) and the number
of open file descriptors of this process and of every worker. Then runs
``--fault-steps`` sub-env steps (default 10**5) with random failures: sub-envs
raising in ``step`` and ``reset``, and workers killed with SIGKILL (the vector
env is then closed and built again). Then builds and closes the vector env
``--cycles`` times (default 200). After the faults and after the cycles, the
file descriptors, child processes and shared-memory segments must be back to
where they started.

It fails (exit status 1) if, after the warm-up (the first tenth of the run),
the RSS of any process grows by more than ``--rss-slack`` MiB, if any process
gains a file descriptor, or if the faults or the cycles leave a file
descriptor, a process or a segment behind.

Linux only (reads ``/proc``). Run ``python benchmarks/soak_proc.py [--steps N]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.error import ResetRequired, VecEnvWorkerError
from sekai.spaces import Box, Dict, Discrete
from sekai.vector import ProcVecEnv


class ShortEpisodes(Env[Any, Any]):
    """Episodes of 5 to 20 steps; Dict observations with a (16, 8) book and a counter."""

    observation_space = Dict({"book": Box(-1e3, 1e3, (16, 8), np.float32), "t": Discrete(64)})
    action_space = Discrete(3)

    def __init__(self) -> None:
        self.book = np.zeros((16, 8), np.float32)
        self.t = 0
        self.length = 5

    def _obs(self) -> dict[str, Any]:
        return {"book": self.book, "t": self.t}

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.t = 0
        self.length = int(self.rng.integers(5, 21))
        self.book[:] = self.rng.standard_normal((16, 8), np.float32)
        return ResetResult(self._obs(), {"length": self.length})

    def step(self, action: int) -> StepResult[Any]:
        self.t += 1
        self.book[self.t % 16] += action
        done = self.t >= self.length
        return StepResult(self._obs(), float(action), done, False, {"t": self.t})

    def pid(self) -> int:
        return os.getpid()


class Flaky(ShortEpisodes):
    """ShortEpisodes whose step fails about once in 400 calls and reset once in 100."""

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        result = super().reset(seed=seed, options=options)
        if self.rng.random() < 0.01:
            raise RuntimeError("a flaky reset")
        return result

    def step(self, action: int) -> StepResult[Any]:
        if self.rng.random() < 0.0025:
            raise RuntimeError("a flaky step")
        return super().step(action)


def _descendants() -> set[int]:
    """Live processes descending from this one (zombies excluded).

    Not only children: under ``forkserver`` the workers are the fork server's.
    """
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(name))
    found: set[int] = set()
    todo = [os.getpid()]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _leftovers(
    when: str, fds: int, processes: set[int], segments: set[str], rss: float, slack: float
) -> list[str]:
    """What ``when`` left behind compared with the counts taken before it."""
    failures = []
    if _fds(os.getpid()) > fds:
        failures.append(f"{when} leaked {_fds(os.getpid()) - fds} fds")
    extra = _descendants() - processes
    if extra:
        failures.append(f"{when} left processes {sorted(extra)}")
    if _segments() - segments:
        failures.append(f"{when} left shared-memory segments {sorted(_segments() - segments)}")
    grown = _status(os.getpid(), "VmRSS") / 1024 - rss
    if grown > slack:
        failures.append(f"{when} grew this process's RSS by {grown:.1f} MiB")
    return failures


def _faults(steps: int, envs: int, workers: int) -> dict[str, int]:
    """Step through random failures; return how many of each kind happened."""
    rng = np.random.default_rng(1)
    counts = {"sub-env errors": 0, "resets": 0, "workers killed": 0, "rebuilds": 0}
    vec: ProcVecEnv[Any, Any] | None = None
    done = 0
    while done < steps:
        if vec is None:
            vec = ProcVecEnv([Flaky] * envs, num_workers=workers)
            counts["rebuilds"] += 1
            needs_reset = True
        try:
            if needs_reset:
                vec.reset(seed=int(rng.integers(2**31)))
                needs_reset = False
            if rng.random() < 0.002:  # a worker dies mid-run
                victim = int(rng.choice([w.process.pid for w in vec._pool.workers]))
                os.kill(victim, signal.SIGKILL)
                counts["workers killed"] += 1
            vec.step(rng.integers(0, 3, envs))
            done += envs
        except VecEnvWorkerError as error:
            if "died" in str(error):  # a dead worker: build the vector env again
                vec.close()
                vec = None
            else:  # a sub-env raised: the others stepped; carry on
                counts["sub-env errors"] += 1
        except ResetRequired:  # a failed reset
            counts["resets"] += 1
            needs_reset = True
    if vec is not None:
        vec.close()
    return counts


def _status(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _sample(pids: list[int]) -> list[tuple[float, int]]:
    """(RSS in MiB, open fds) of each process."""
    return [(_status(pid, "VmRSS") / 1024, _fds(pid)) for pid in pids]


def _segments() -> set[str]:
    prefix = f"sekai_{os.getpid()}_"
    return {name for name in os.listdir("/dev/shm") if name.startswith(prefix)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="sub-env steps in total")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--samples", type=int, default=10, help="measurements during the run")
    parser.add_argument(
        "--fault-steps", type=int, default=100_000, help="sub-env steps with random failures"
    )
    parser.add_argument("--cycles", type=int, default=200, help="construct/close cycles")
    parser.add_argument("--rss-slack", type=float, default=8.0, help="allowed RSS growth, MiB")
    args = parser.parse_args(argv)
    if not os.path.isdir("/proc/self/fd"):
        print("soak_proc: needs Linux (/proc)")
        return 0

    failures: list[str] = []
    vec = ProcVecEnv([ShortEpisodes] * args.envs, num_workers=args.workers)
    pids = [os.getpid(), *dict.fromkeys(vec.call("pid"))]  # one pid per worker
    names = ["parent"] + [f"worker {i}" for i in range(len(pids) - 1)]
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 3, args.envs) for _ in range(64)]
    vector_steps = max(1, args.steps // args.envs)
    every = max(1, vector_steps // args.samples)
    samples: list[list[tuple[float, int]]] = []
    episodes = 0
    start = time.perf_counter()
    print(f"{'sub-env steps':>14} {'episodes':>9}  " + "  ".join(f"{n:>20}" for n in names))
    for i in range(1, vector_steps + 1):
        result = vec.step(actions[i % 64])
        episodes += int(result.dones.sum())
        if i % every == 0 or i == vector_steps:
            sample = _sample(pids)
            samples.append(sample)
            cells = "  ".join(f"{rss:>9.1f} MiB {fds:>4} fd" for rss, fds in sample)
            print(f"{i * args.envs:>14,} {episodes:>9,}  {cells}", flush=True)
    elapsed = time.perf_counter() - start
    vec.close()
    print(
        f"{vector_steps * args.envs:,} sub-env steps in {elapsed:.1f} s "
        f"({vector_steps * args.envs / elapsed:,.0f} steps/s)"
    )

    baseline = samples[min(1, len(samples) - 1)]  # after the warm-up
    for name, (rss0, fds0), (rss1, fds1) in zip(names, baseline, samples[-1], strict=True):
        if rss1 - rss0 > args.rss_slack:
            failures.append(f"{name}: RSS grew from {rss0:.1f} to {rss1:.1f} MiB")
        if fds1 > fds0:
            failures.append(f"{name}: open fds grew from {fds0} to {fds1}")

    # Random failures, then construct/close cycles: nothing may accumulate.
    fds, processes, segments = _fds(os.getpid()), _descendants(), _segments()
    rss = _status(os.getpid(), "VmRSS") / 1024
    start = time.perf_counter()
    counts = _faults(args.fault_steps, args.envs, args.workers)
    print(
        f"{args.fault_steps:,} sub-env steps with random failures in "
        f"{time.perf_counter() - start:.1f} s: " + ", ".join(f"{n} {k}" for k, n in counts.items())
    )
    failures += _leftovers("the random failures", fds, processes, segments, rss, args.rss_slack)
    start = time.perf_counter()
    for _ in range(args.cycles):
        with ProcVecEnv([ShortEpisodes] * 4, num_workers=2) as cycle:
            cycle.reset()
            cycle.step(np.zeros(4, np.int64))
    print(
        f"{args.cycles} construct/close cycles in {time.perf_counter() - start:.1f} s: "
        f"fds {fds} -> {_fds(os.getpid())}, processes {len(processes)} -> "
        f"{len(_descendants())}, RSS {rss:.1f} -> {_status(os.getpid(), 'VmRSS') / 1024:.1f} MiB"
    )
    failures += _leftovers(
        "the construct/close cycles", fds, processes, segments, rss, args.rss_slack
    )

    for failure in failures:
        print("FAIL:", failure)
    print("soak_proc:", "FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
