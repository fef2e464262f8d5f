"""ProcVecEnv speed targets, side by side with Gymnasium's AsyncVectorEnv in one run.

Measured (every number is the median of repeated runs, interleaved so both
libraries see the same machine load):

1. Large observations: float32 ``(100, 40)`` order-book snapshots, 8 envs.
   ``ProcVecEnv`` with one worker per env vs ``AsyncVectorEnv(shared_memory=True)``
   (target >= 1.5x as fast), and with ``num_workers=2`` (target >= 3x).
2. Cheap envs: CartPole, 64 envs. ``ProcVecEnv(num_workers=2)`` vs
   ``AsyncVectorEnv`` with 64 envs (target >= 4x).
3. One trivial env: a ProcVecEnv step vs the floor of any process backend, a
   shared-memory write in the worker plus a one-byte Pipe signal each way
   (target: at most 2x the floor).
4. Construction of 8 envs with default settings: ``ProcVecEnv`` vs
   ``AsyncVectorEnv(8)`` (target <= 0.3x the time). Gymnasium's default start
   method is the platform's (``fork`` on Linux before Python 3.14), sekai's is
   ``forkserver``; both are also shown with the other library's method.

The same dynamics code runs behind both APIs, so the ratios compare backends.
5. ProcVecEnv against its own floor, CartPole N=8 with 2 workers (4 sub-envs
   each): a raw pipe + shared-memory round trip written here with the same
   CartPole (the parent writes the actions into shared memory and one byte to
   each worker; each worker steps its sub-envs, writes observations, rewards
   and flags into shared memory and answers with one byte). Target >= 0.6x the
   floor's speed, on an idle machine and with two CPU hogs (``yes``) started
   and stopped by the benchmark (no collapse under load).
6. Default workers, CartPole N=8: what ``make_vec(..., vectorization_mode="proc")``
   now starts (one worker per CPU the process may use, at most N) against
   ``num_workers=2`` and against one process per sub-env (the default before).

The same dynamics code runs behind both APIs, so the ratios compare backends.
Run ``python benchmarks/bench_proc.py [--quick] [--floor-only]`` (needs
``gymnasium``; ``--floor-only`` runs sections 5 and 6 alone and writes no file); the report is
printed and written to ``benchmarks/results/bench_proc.json``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult, TimeLimit
from sekai.spaces import Box, Discrete
from sekai.vector import ProcVecEnv

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

RESULTS = HERE / "results" / "bench_proc.json"
BOOK_SHAPE = (100, 40)

# -- dynamics shared by both APIs ---------------------------------------------------------


class Book:
    """An order-book snapshot that shifts a little every step."""

    def __init__(self) -> None:
        self.book = np.zeros(BOOK_SHAPE, np.float32)
        self.t = 0

    def reset(self) -> np.ndarray:
        self.book[:] = 0
        self.t = 0
        return self.book

    def step(self, action: int) -> np.ndarray:
        self.t += 1
        self.book[self.t % BOOK_SHAPE[0]] = float(action)
        return self.book


class CartPole:
    """CartPole-v1 dynamics (Euler), in plain Python, as in Gymnasium."""

    def __init__(self) -> None:
        self.state = [0.0, 0.0, 0.0, 0.0]
        self.rng = np.random.default_rng()

    def reset(self) -> list[float]:
        self.state = self.rng.uniform(-0.05, 0.05, 4).tolist()
        return self.state

    def step(self, action: int) -> tuple[list[float], bool]:
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot**2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos**2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * x_acc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc
        self.state = [x, x_dot, theta, theta_dot]
        done = x < -2.4 or x > 2.4 or theta < -0.2095 or theta > 0.2095
        return self.state, done


# -- sekai flavours --------------------------------------------------------------------------


class SekaiBook(Env[Any, Any]):
    observation_space = Box(-1e3, 1e3, BOOK_SHAPE, np.float32)
    action_space = Discrete(3)

    def __init__(self) -> None:
        self.sim = Book()

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(self.sim.reset(), {})

    def step(self, action: int) -> StepResult[Any]:
        return StepResult(self.sim.step(action), 0.0, False, False, {})


class SekaiCartPole(Env[Any, Any]):
    observation_space = Box(-np.inf, np.inf, (4,), np.float32)
    action_space = Discrete(2)

    def __init__(self) -> None:
        self.sim = CartPole()

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(np.array(self.sim.reset(), np.float32), {})

    def step(self, action: int) -> StepResult[Any]:
        state, done = self.sim.step(action)
        return StepResult(np.array(state, np.float32), 1.0, done, False, {})


class SekaiTrivial(Env[Any, Any]):
    observation_space = Box(-1, 1, (4,), np.float32)
    action_space = Discrete(2)

    def __init__(self) -> None:
        self.obs = np.zeros(4, np.float32)

    def reset(self, *, seed: Any = None, options: Any = None) -> ResetResult[Any]:
        return ResetResult(self.obs, {})

    def step(self, action: int) -> StepResult[Any]:
        return StepResult(self.obs, 0.0, False, False, {})


def sekai_cartpole() -> Env[Any, Any]:
    return TimeLimit(SekaiCartPole(), 500)


# -- Gymnasium flavours (built only when gymnasium is importable) --------------------------------


def _gym_classes() -> dict[str, Any]:
    import gymnasium as gym

    class GymBook(gym.Env):
        observation_space = gym.spaces.Box(-1e3, 1e3, BOOK_SHAPE, np.float32)
        action_space = gym.spaces.Discrete(3)

        def __init__(self) -> None:
            self.sim = Book()

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return self.sim.reset(), {}

        def step(self, action: Any) -> Any:
            return self.sim.step(int(action)), 0.0, False, False, {}

    class GymCartPole(gym.Env):
        observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float32)
        action_space = gym.spaces.Discrete(2)

        def __init__(self) -> None:
            self.sim = CartPole()

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return np.array(self.sim.reset(), np.float32), {}

        def step(self, action: Any) -> Any:
            state, done = self.sim.step(int(action))
            return np.array(state, np.float32), 1.0, done, False, {}

    def gym_cartpole() -> Any:
        return gym.wrappers.TimeLimit(GymCartPole(), 500)

    return {
        "AsyncVectorEnv": gym.vector.AsyncVectorEnv,
        "book": GymBook,
        "cartpole": gym_cartpole,
    }


# -- timing helpers -----------------------------------------------------------------------------


def _step_time(vec: Any, actions: list[Any], steps: int) -> float:
    """Seconds per vector step, after a warm-up."""
    vec.reset(seed=0)
    for i in range(min(20, steps)):
        vec.step(actions[i % len(actions)])
    start = time.perf_counter()
    for i in range(steps):
        vec.step(actions[i % len(actions)])
    return (time.perf_counter() - start) / steps


def _interleaved(
    candidates: dict[str, Callable[[], float]], repeats: int
) -> dict[str, list[float]]:
    """Run each candidate ``repeats`` times, round-robin; return every sample."""
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(repeats):
        for name, run in candidates.items():
            samples[name].append(run())
    return samples


def _stepper(build: Callable[[], Any], actions: list[Any], steps: int) -> Callable[[], float]:
    def run() -> float:
        vec = build()
        try:
            return _step_time(vec, actions, steps)
        finally:
            vec.close()

    return run


def _echo_worker(conn: Any, name: str, shape: tuple[int, ...]) -> None:
    from multiprocessing import shared_memory

    block = shared_memory.SharedMemory(name)
    view = np.ndarray(shape, np.float32, buffer=block.buf)
    obs = np.zeros(shape[1:], np.float32)
    while conn.recv_bytes() != b"q":
        view[0] = obs
        conn.send_bytes(b"k")
    del view
    block.close()


def _floor_step_time(steps: int) -> float:
    """A shared-memory write in a worker plus a one-byte signal each way."""
    from multiprocessing import shared_memory

    import cloudpickle

    from sekai.vector._proc_context import get_context

    context = get_context(None)  # the start method ProcVecEnv uses by default
    block = shared_memory.SharedMemory(create=True, size=64)
    parent, child = context.Pipe()
    # benchmarks/run.py loads this file without registering it as a module, so
    # the worker function travels by value, started through the builtin exec.
    code = "import cloudpickle; cloudpickle.loads(blob)(conn, name, shape)"
    namespace = {
        "blob": cloudpickle.dumps(_echo_worker),
        "conn": child,
        "name": block.name,
        "shape": (1, 4),
    }
    process = context.Process(  # type: ignore[attr-defined]
        target=exec, args=(code, namespace), daemon=True
    )
    try:
        process.start()
        child.close()
        send, recv = parent.send_bytes, parent.recv_bytes
        for _ in range(100):
            send(b"s")
            recv()
        start = time.perf_counter()
        for _ in range(steps):
            send(b"s")
            recv()
        return (time.perf_counter() - start) / steps
    finally:
        if process.is_alive():
            parent.send_bytes(b"q")
            process.join()
        block.close()
        block.unlink()


def _cartpole_floor_worker(fd: int, name: str, n: int, first: int, count: int) -> None:
    """The worker side of the floor: step ``count`` CartPoles on one byte, answer one byte."""
    import os
    from multiprocessing import shared_memory

    block = shared_memory.SharedMemory(name)
    buf = block.buf
    obs = np.ndarray((n, 4), np.float32, buffer=buf)
    rewards = np.ndarray((n,), np.float64, buffer=buf, offset=128)
    terminated = np.ndarray((n,), np.bool_, buffer=buf, offset=256)
    truncated = np.ndarray((n,), np.bool_, buffer=buf, offset=320)
    actions = np.ndarray((n,), np.int64, buffer=buf, offset=384)
    envs = [sekai_cartpole() for _ in range(count)]
    for k, env in enumerate(envs):
        obs[first + k] = env.reset(seed=first + k).observation
    read, write = os.read, os.write
    while read(fd, 1) == b"s":
        for k, action in enumerate(actions[first : first + count].tolist()):
            env = envs[k]
            result = env.step(action)
            observation = result.observation
            if result.terminated or result.truncated:
                observation = env.reset().observation
            i = first + k
            obs[i] = observation
            rewards[i] = result.reward
            terminated[i] = result.terminated
            truncated[i] = result.truncated
        write(fd, b"k")
    del obs, rewards, terminated, truncated, actions, buf
    block.close()


def _cartpole_floor_step_time(steps: int, n: int = 8, workers: int = 2) -> float:
    """The floor of a process backend for CartPole: a raw pipe + shared-memory round trip.

    The parent writes the actions into shared memory and one byte to each
    worker; each worker steps its sub-envs (the same CartPole, with its time
    limit and autoreset), writes observations, rewards and flags into shared
    memory and answers with one byte; the parent copies the results out.
    """
    import os
    from multiprocessing import shared_memory

    import cloudpickle

    from sekai.vector._proc_context import get_context

    context = get_context(None)
    block = shared_memory.SharedMemory(create=True, size=512)
    buf = block.buf
    obs = np.ndarray((n, 4), np.float32, buffer=buf)
    rewards = np.ndarray((n,), np.float64, buffer=buf, offset=128)
    terminated = np.ndarray((n,), np.bool_, buffer=buf, offset=256)
    truncated = np.ndarray((n,), np.bool_, buffer=buf, offset=320)
    shared_actions = np.ndarray((n,), np.int64, buffer=buf, offset=384)
    code = "import cloudpickle; cloudpickle.loads(blob)(conn.fileno(), name, n, first, count)"
    blob = cloudpickle.dumps(_cartpole_floor_worker)
    size, extra = divmod(n, workers)
    ends, processes, first = [], [], 0
    for w in range(workers):
        count = size + (1 if w < extra else 0)
        parent, child = context.Pipe()
        namespace = {"blob": blob, "conn": child, "name": block.name, "n": n}
        namespace.update(first=first, count=count)
        process = context.Process(target=exec, args=(code, namespace), daemon=True)  # type: ignore[attr-defined]
        process.start()
        child.close()
        ends.append(parent)
        processes.append(process)
        first += count
    fds = [end.fileno() for end in ends]
    rng = np.random.default_rng(0)
    batches = [rng.integers(0, 2, n) for _ in range(16)]
    read, write = os.read, os.write

    def step(
        actions: Any,
        obs: Any = obs,
        rewards: Any = rewards,
        terminated: Any = terminated,
        truncated: Any = truncated,
        shared_actions: Any = shared_actions,
    ) -> Any:
        shared_actions[:] = actions
        for fd in fds:
            write(fd, b"s")
        for fd in fds:
            read(fd, 1)
        return obs.copy(), rewards.copy(), terminated.copy(), truncated.copy()

    try:
        for i in range(100):
            step(batches[i % 16])
        start = time.perf_counter()
        for i in range(steps):
            step(batches[i % 16])
        return (time.perf_counter() - start) / steps
    finally:
        for fd in fds:
            write(fd, b"q")
        for process in processes:
            process.join()
        for end in ends:
            end.close()
        del step, obs, rewards, terminated, truncated, shared_actions, buf
        block.close()
        block.unlink()


def _construction_time(build: Callable[[], Any]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        vec = build()
        elapsed = time.perf_counter() - start
        vec.close()
        return elapsed

    return run


# -- the report ------------------------------------------------------------------------------------


def main(argv: list[str]) -> None:
    """Measure the ProcVecEnv targets and print them as ratios against Gymnasium."""
    quick = "--quick" in argv
    repeats = 3 if quick else 5
    try:
        gym = _gym_classes()
    except ImportError:
        print("bench_proc: gymnasium is not installed; nothing to compare with")
        return
    if __name__ != "__main__":
        import cloudpickle

        # Workers get the env factories of this file by value, as they would
        # get a script's: importing the file again in each worker would
        # measure that import, not the backends.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []

    def report(
        target: str, goal: str, ours: str, theirs: str, samples: dict[str, list[float]]
    ) -> None:
        a, b = statistics.median(samples[ours]), statistics.median(samples[theirs])
        ratio = b / a if goal.startswith(">=") else a / b
        bound = float(goal.split()[1].rstrip("x"))
        met = ratio >= bound if goal.startswith(">=") else ratio <= bound
        rows.append(
            {
                "target": target,
                "goal": goal,
                "ratio": round(ratio, 3),
                "met": met,
                "medians_seconds": {ours: a, theirs: b},
            }
        )
        print(
            f"{target:<58} {ratio:>7.2f}x  (goal {goal}, {'met' if met else 'NOT met'})  "
            f"{ours}: {a * 1e6:,.0f} us, {theirs}: {b * 1e6:,.0f} us",
            flush=True,
        )

    floor_only = "--floor-only" in argv
    if not floor_only:
        _peer_rows(quick, repeats, gym, rng, report)
    peer_rows = _floor_rows(quick, repeats, report)
    print_rows(peer_rows)
    if floor_only:
        return  # a partial run: the results file keeps the last full run

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": multiprocessing.cpu_count(),
                "repeats": repeats,
                "results": rows,
                "peer_rows": peer_rows,
            },
            indent=2,
        )
    )
    print(f"written to {RESULTS}")


def _usable_cpus() -> int:
    """The CPUs this process may use, as make_vec counts them for ``"proc"``."""
    import os

    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class _Hogs:
    """Two busy processes (``yes > /dev/null``) beside the measurement, stopped on exit."""

    def __enter__(self) -> _Hogs:
        import subprocess

        self.processes = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(2)]
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()


def _floor_rows(quick: bool, repeats: int, report: Callable[..., None]) -> list[dict[str, Any]]:
    """Sections 5 and 6: ProcVecEnv against its floor (idle, under load) and default workers.

    Returns them as peer rows (vector steps per second, medians of the rounds).
    """
    n, workers = 8, 2
    rng = np.random.default_rng(1)
    actions = [rng.integers(0, 2, n) for _ in range(16)]
    steps = 1000 if quick else 4000
    candidates = {
        "proc-w2": _stepper(
            lambda: ProcVecEnv([sekai_cartpole] * n, num_workers=workers), actions, steps
        ),
        "floor": lambda: _cartpole_floor_step_time(steps, n, workers),
    }
    idle = _interleaved(candidates, repeats)
    report("CartPole N=8: Proc w2 / raw pipe + shm round trip", ">= 0.6x", "proc-w2", "floor", idle)
    with _Hogs():
        loaded = _interleaved(
            {
                "proc-w2": _stepper(
                    lambda: ProcVecEnv([sekai_cartpole] * n, num_workers=workers),
                    actions,
                    steps // 4,
                ),
                "floor": lambda: _cartpole_floor_step_time(steps // 4, n, workers),
            },
            repeats,
        )
    report(
        "CartPole N=8, 2 CPU hogs: Proc w2 / raw pipe + shm round trip",
        ">= 0.6x",
        "proc-w2",
        "floor",
        loaded,
    )
    default = min(n, _usable_cpus())
    steps = 300 if quick else 1000
    samples = _interleaved(
        {
            "proc-make-vec-default": _stepper(
                lambda: ProcVecEnv([sekai_cartpole] * n, num_workers=default), actions, steps
            ),
            "proc-w2": _stepper(
                lambda: ProcVecEnv([sekai_cartpole] * n, num_workers=2), actions, steps
            ),
            "proc-per-env": _stepper(lambda: ProcVecEnv([sekai_cartpole] * n), actions, steps),
        },
        repeats,
    )
    report(
        f"CartPole N=8: make_vec default ({default} workers) / num_workers=2",
        ">= 0.9x",
        "proc-make-vec-default",
        "proc-w2",
        samples,
    )
    report(
        f"CartPole N=8: make_vec default ({default} workers) / one per sub-env (before)",
        ">= 1x",
        "proc-make-vec-default",
        "proc-per-env",
        samples,
    )

    def rate(values: list[float]) -> float:
        return 1.0 / statistics.median(values)

    floor_note = (
        "the floor: the parent writes the actions into shared memory and one byte per "
        "worker; each worker steps its 4 CartPoles (time limit, reset), writes observations, "
        "rewards and flags into shared memory and answers one byte"
    )
    return [
        peer_row(
            "ProcVecEnv (2 workers) / raw pipe + shared-memory round trip, CartPole N=8",
            unit="steps/s",
            sekai=rate(idle["proc-w2"]),
            peer=rate(idle["floor"]),
            peer_name="raw round trip (in the benchmark)",
            goal=">= 0.6",
            note=floor_note,
        ),
        peer_row(
            "ProcVecEnv (2 workers) / raw round trip, CartPole N=8, beside 2 CPU hogs",
            unit="steps/s",
            sekai=rate(loaded["proc-w2"]),
            peer=rate(loaded["floor"]),
            peer_name="raw round trip (in the benchmark)",
            goal=">= 0.6",
            note="two `yes` processes run during these rounds (no collapse under load)",
        ),
        peer_row(
            f"ProcVecEnv through make_vec, default workers ({default}) / one process per "
            "sub-env (the default before), CartPole N=8",
            unit="steps/s",
            sekai=rate(samples["proc-make-vec-default"]),
            peer=rate(samples["proc-per-env"]),
            peer_name="ProcVecEnv, one process per sub-env",
            goal=">= 1",
            note=(
                "make_vec now starts one worker per CPU the process may use (at most N); "
                "ProcVecEnv's own default, documented as one process per sub-env, is unchanged. "
                "Against num_workers=2 in the same rounds: "
                f"{rate(samples['proc-make-vec-default']) / rate(samples['proc-w2']):.2f}x"
            ),
        ),
    ]


def _peer_rows(
    quick: bool, repeats: int, gym: dict[str, Any], rng: Any, report: Callable[..., None]
) -> None:
    """Sections 1 to 4: ProcVecEnv against Gymnasium's AsyncVectorEnv."""
    AsyncVectorEnv = gym["AsyncVectorEnv"]
    # 1. Large observations, 8 envs.
    n, steps = 8, 60 if quick else 200
    book_actions = [rng.integers(0, 3, n) for _ in range(16)]
    samples = _interleaved(
        {
            "proc": _stepper(lambda: ProcVecEnv([SekaiBook] * n), book_actions, steps),
            "proc-w2": _stepper(
                lambda: ProcVecEnv([SekaiBook] * n, num_workers=2), book_actions, steps
            ),
            "gym": _stepper(
                lambda: AsyncVectorEnv([gym["book"]] * n, shared_memory=True), book_actions, steps
            ),
        },
        repeats,
    )
    report("order book (100, 40) N=8: Proc vs AsyncVectorEnv", ">= 1.5x", "proc", "gym", samples)
    report(
        "order book (100, 40) N=8: Proc w2 vs AsyncVectorEnv", ">= 3x", "proc-w2", "gym", samples
    )

    # 2. CartPole, 64 envs.
    n, steps = 64, 30 if quick else 100
    cart_actions = [rng.integers(0, 2, n) for _ in range(16)]
    samples = _interleaved(
        {
            "proc-w2": _stepper(
                lambda: ProcVecEnv([sekai_cartpole] * n, num_workers=2), cart_actions, steps
            ),
            "gym": _stepper(lambda: AsyncVectorEnv([gym["cartpole"]] * n), cart_actions, steps),
        },
        repeats,
    )
    report("CartPole N=64: Proc w2 vs AsyncVectorEnv(64)", ">= 4x", "proc-w2", "gym", samples)

    # 3. One trivial env vs the floor.
    steps = 1000 if quick else 4000
    trivial_actions = [np.zeros(1, np.int64)]
    samples = _interleaved(
        {
            "proc": _stepper(lambda: ProcVecEnv([SekaiTrivial]), trivial_actions, steps),
            "floor": lambda: _floor_step_time(steps),
        },
        repeats,
    )
    report(
        "trivial env N=1: Proc step / (shm write + 1-byte signals)",
        "<= 2x",
        "proc",
        "floor",
        samples,
    )

    # 4. Construction, 8 envs, default settings (and each library with the other's method).
    n = 8
    default_method = multiprocessing.get_start_method(allow_none=False)
    samples = _interleaved(
        {
            "proc": _construction_time(lambda: ProcVecEnv([sekai_cartpole] * n)),
            "gym": _construction_time(lambda: AsyncVectorEnv([gym["cartpole"]] * n)),
            "proc-platform": _construction_time(
                lambda: ProcVecEnv([sekai_cartpole] * n, context=default_method)
            ),
            "gym-forkserver": _construction_time(
                lambda: AsyncVectorEnv([gym["cartpole"]] * n, context="forkserver")
            ),
        },
        repeats + 1,
    )
    for key in samples:
        samples[key] = samples[key][1:]  # the first construction starts the fork server
    report("construction N=8, defaults: Proc / AsyncVectorEnv", "<= 0.3x", "proc", "gym", samples)
    report(
        f"construction N=8, both {default_method}: Proc / AsyncVectorEnv",
        "<= 0.3x",
        "proc-platform",
        "gym",
        samples,
    )
    report(
        "construction N=8, both forkserver: Proc / AsyncVectorEnv",
        "<= 0.3x",
        "proc",
        "gym-forkserver",
        samples,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
