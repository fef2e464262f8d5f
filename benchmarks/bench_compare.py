"""sekai next to Gymnasium, in one run: sub-env steps per second on every backend.

Scenarios: CartPole (N = 1, 8, 64, and 1024 for the natively batched backends),
an order-book env with float32 (100, 40) observations (N = 8), a CPU-bound env
burning ~200 us per step (N = 8) and Portfolio-v0 (N = 8, sekai only; on the
regime-switching windows of returns of its first default, 4 assets and a
lookback of 20, so the numbers stay comparable across versions). Each is
run on sekai's Sync, Async, Proc (one worker per env, and two workers) and
Native backends, on Gymnasium's SyncVectorEnv, AsyncVectorEnv (shared memory)
and native CartPole vector env, and as a plain Python loop over the same sekai
env objects (the floor). A raw Pipe round trip and the import times of both
libraries complete the picture.

Every number is the median of repeated runs; the backends of a scenario are
measured in alternating rounds, so they see the same machine load. The report prints a table, the
ratios sekai / Gymnasium, and each speed target with its measured ratio; it
writes ``benchmarks/results/compare.json`` and, when matplotlib is installed,
``benchmarks/results/compare.png``.

Usage: ``python benchmarks/bench_compare.py [--quick]`` (or ``nox -s bench``).
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _bench_envs  # noqa: E402 - needs the path above

Stepper = Callable[[], None]


@dataclass
class Row:
    """One measurement: sub-env steps per second of a backend on a scenario."""

    scenario: str
    num_envs: int
    backend: str
    steps_per_second: float
    setup_seconds: float


@dataclass
class Settings:
    seconds: float = 0.4
    repeats: int = 3


# -- env factories -------------------------------------------------------------------------


def _sekai_fns(scenario: str, n: int) -> list[Callable[[], Any]]:
    import sekai

    if scenario == "cartpole":
        return [lambda: sekai.make("CartPole-v1") for _ in range(n)]
    if scenario == "orderbook":
        return [_bench_envs.OrderBookEnv for _ in range(n)]
    if scenario == "cpu":
        return [_bench_envs.SpinEnv for _ in range(n)]
    if scenario == "portfolio":
        return [lambda: sekai.make("Portfolio-v0", **_portfolio_kwargs()) for _ in range(n)]
    raise ValueError(scenario)


def _portfolio_kwargs() -> dict[str, Any]:
    """The Portfolio-v0 scenario: windows of regime-switching returns (the first default)."""
    from sekai.envs import RegimeSwitchingSampler

    return {"sampler": RegimeSwitchingSampler(4), "lookback": 20, "capital": 1.0}


def _gym_fns(scenario: str, n: int) -> list[Callable[[], Any]] | None:
    import gymnasium

    if scenario == "cartpole":
        return [lambda: gymnasium.make("CartPole-v1") for _ in range(n)]
    book, spin = _bench_envs.gymnasium_envs()
    if scenario == "orderbook":
        return [book for _ in range(n)]
    if scenario == "cpu":
        return [spin for _ in range(n)]
    return None


# -- steppers: build a backend, return (step function, close function) ---------------------


def _action_cycle(space: Any) -> Iterator[Any]:
    space.seed(0)
    return itertools.cycle([space.sample() for _ in range(64)])


def _sekai_vec(kind: str, scenario: str, n: int, workers: int | None = None) -> Any:
    import sekai
    import sekai.vector

    if kind == "native":
        if scenario == "portfolio":
            return sekai.make_vec(
                "Portfolio-v0", n, vectorization_mode="native", **_portfolio_kwargs()
            )
        return sekai.make_vec("CartPole-v1", n, vectorization_mode="native")
    fns = _sekai_fns(scenario, n)
    if kind == "sync":
        return sekai.vector.SyncVecEnv(fns)
    if kind == "async":
        return sekai.vector.AsyncVecEnv(fns)
    kwargs = {} if workers is None else {"num_workers": workers}
    return sekai.vector.ProcVecEnv(fns, **kwargs)


def _gym_vec(kind: str, scenario: str, n: int) -> Any:
    import gymnasium

    if kind == "native":
        return gymnasium.make_vec("CartPole-v1", n, vectorization_mode="vector_entry_point")
    fns = _gym_fns(scenario, n)
    if kind == "sync":
        return gymnasium.vector.SyncVectorEnv(fns)
    return gymnasium.vector.AsyncVectorEnv(fns, shared_memory=True)


def _vec_stepper(vec: Any, gym: bool) -> Stepper:
    vec.reset(seed=0)
    actions = _action_cycle(vec.action_space if gym else vec.batch_action_space)
    step = vec.step
    return lambda: step(next(actions))


def _loop_stepper(scenario: str, n: int) -> tuple[Stepper, list[Any]]:
    envs = [fn() for fn in _sekai_fns(scenario, n)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    actions = _action_cycle(envs[0].action_space)

    def step() -> None:
        # The least a vector env must do: step each env, reset the finished
        # ones, and hand the policy one batch of observations and rewards.
        observations = []
        rewards = []
        for env in envs:
            result = env.step(next(actions))
            rewards.append(result.reward)
            observations.append(env.reset().observation if result.done else result.observation)
        np.stack(observations)
        np.array(rewards)

    return step, envs


# -- measurement ----------------------------------------------------------------------------


def _rate(step: Stepper, n: int, settings: Settings) -> float:
    for _ in range(5):  # warm-up
        step()
    rates = []
    for _ in range(settings.repeats):
        count = 0
        start = time.perf_counter()
        deadline = start + settings.seconds
        now = start
        while now < deadline:
            step()
            count += 1
            now = time.perf_counter()
        rates.append(count * n / (now - start))
    return statistics.median(rates)


Closer = Callable[[], None]
Build = Callable[[], tuple[Stepper, Closer]]


def _vec_backend(build: Callable[[], Any], gym: bool) -> Build:
    def make() -> tuple[Stepper, Closer]:
        vec = build()
        try:
            return _vec_stepper(vec, gym), vec.close
        except BaseException:
            vec.close()
            raise

    return make


def _loop_backend(scenario: str, n: int) -> Build:
    def make() -> tuple[Stepper, Closer]:
        step, envs = _loop_stepper(scenario, n)

        def close() -> None:
            for env in envs:
                env.close()

        return step, close

    return make


def _measure(
    rows: list[Row],
    scenario: str,
    n: int,
    backends: list[tuple[str, Build]],
    settings: Settings,
) -> None:
    """Measure the backends of one scenario in alternating rounds.

    A shared machine's speed drifts over seconds; measured one after the
    other, two backends can see different machines. Here every round
    measures each backend once, so the medians (and their ratios) come from
    the same periods.
    """
    built: list[tuple[str, Stepper, Closer, float]] = []
    try:
        for backend, make in backends:
            start = time.perf_counter()
            try:
                step, close = make()
            except (ImportError, AttributeError, KeyError) as error:
                print(f"  {scenario:<10} N={n:<5} {backend:<18} skipped ({error})", flush=True)
                continue
            built.append((backend, step, close, time.perf_counter() - start))
        rounds = max(3, 3 * settings.repeats)
        window = Settings(seconds=settings.seconds / 3, repeats=1)
        rates: dict[str, list[float]] = {backend: [] for backend, *_ in built}
        for _ in range(rounds):
            for backend, step, _close, _setup in built:
                rates[backend].append(_rate(step, n, window))
    finally:
        for _backend, _step, close, _setup in built:
            close()
    for backend, _step, _close, setup in built:
        rate = statistics.median(rates[backend])
        rows.append(Row(scenario, n, backend, rate, setup))
        print(f"  {scenario:<10} N={n:<5} {backend:<18} {rate:>14,.0f} steps/s", flush=True)


def _pipe_echo(conn: Any) -> None:
    while True:
        message = conn.recv_bytes()
        if not message:
            return
        conn.send_bytes(message)


def _pipe_round_trips(settings: Settings) -> float:
    ctx = multiprocessing.get_context("forkserver")
    parent, child = ctx.Pipe()
    process = ctx.Process(target=_pipe_echo, args=(child,), daemon=True)
    process.start()

    def trip() -> None:
        parent.send_bytes(b"x")
        parent.recv_bytes()

    try:
        return _rate(trip, 1, settings)
    finally:
        parent.send_bytes(b"")
        process.join(5)


def _import_seconds(module: str, repeats: int = 7) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(repeats)
    ]
    return statistics.median(times)


# -- the run --------------------------------------------------------------------------------


def _run_scenario(rows: list[Row], scenario: str, n: int, settings: Settings) -> None:
    backends: list[tuple[str, Build]] = [
        ("sekai sync", _vec_backend(lambda: _sekai_vec("sync", scenario, n), False)),
        ("sekai async", _vec_backend(lambda: _sekai_vec("async", scenario, n), False)),
        ("sekai proc", _vec_backend(lambda: _sekai_vec("proc", scenario, n), False)),
    ]
    if n > 2:
        backends.append(
            ("sekai proc w2", _vec_backend(lambda: _sekai_vec("proc", scenario, n, 2), False))
        )
    if scenario in ("cartpole", "portfolio"):
        backends.append(
            ("sekai native", _vec_backend(lambda: _sekai_vec("native", scenario, n), False))
        )
    if _gym_fns(scenario, 1) is not None:
        backends.append(
            ("gymnasium sync", _vec_backend(lambda: _gym_vec("sync", scenario, n), True))
        )
        backends.append(
            ("gymnasium async", _vec_backend(lambda: _gym_vec("async", scenario, n), True))
        )
        if scenario == "cartpole":
            backends.append(
                ("gymnasium native", _vec_backend(lambda: _gym_vec("native", scenario, n), True))
            )
    backends.append(("python loop", _loop_backend(scenario, n)))
    _measure(rows, scenario, n, backends, settings)


def run(settings: Settings) -> tuple[list[Row], dict[str, float]]:
    import cloudpickle

    # The benchmark envs live in a module workers cannot import by name.
    cloudpickle.register_pickle_by_value(_bench_envs)
    rows: list[Row] = []
    plan: list[tuple[str, int]] = [
        ("cartpole", 1),
        ("cartpole", 8),
        ("cartpole", 64),
        ("orderbook", 8),
        ("cpu", 8),
        ("portfolio", 8),
    ]
    for scenario, n in plan:
        _run_scenario(rows, scenario, n, settings)
    _measure(
        rows,
        "cartpole",
        1024,
        [
            ("sekai sync", _vec_backend(lambda: _sekai_vec("sync", "cartpole", 1024), False)),
            ("sekai native", _vec_backend(lambda: _sekai_vec("native", "cartpole", 1024), False)),
            (
                "gymnasium native",
                _vec_backend(lambda: _gym_vec("native", "cartpole", 1024), True),
            ),
        ],
        settings,
    )

    extras = {
        "pipe_round_trips_per_second": _pipe_round_trips(settings),
        "import_sekai_seconds": _import_seconds("sekai"),
        "import_gymnasium_seconds": _import_seconds("gymnasium"),
    }
    return rows, extras


def _find(rows: list[Row], scenario: str, n: int, backend: str) -> float | None:
    for row in rows:
        if (row.scenario, row.num_envs, row.backend) == (scenario, n, backend):
            return row.steps_per_second
    return None


def targets(rows: list[Row], extras: dict[str, float]) -> list[dict[str, Any]]:
    """Each speed target of the project with its measured ratio and verdict."""

    def ratio(a: tuple[str, int, str], b: tuple[str, int, str]) -> float | None:
        x, y = _find(rows, *a), _find(rows, *b)
        return None if x is None or y is None or y == 0 else x / y

    checks: list[tuple[str, float | None, float, bool]] = [
        (
            "Sync CartPole N=8 vs Gymnasium SyncVectorEnv",
            ratio(("cartpole", 8, "sekai sync"), ("cartpole", 8, "gymnasium sync")),
            1.2,
            True,
        ),
        (
            "Sync order book N=8 vs Gymnasium SyncVectorEnv",
            ratio(("orderbook", 8, "sekai sync"), ("orderbook", 8, "gymnasium sync")),
            1.2,
            True,
        ),
        (
            "Sync CartPole N=64 vs plain Python loop",
            ratio(("cartpole", 64, "sekai sync"), ("cartpole", 64, "python loop")),
            0.85,
            True,
        ),
        (
            "Native CartPole N=1024 vs sekai Sync",
            ratio(("cartpole", 1024, "sekai native"), ("cartpole", 1024, "sekai sync")),
            50,
            True,
        ),
        (
            "Native CartPole N=1024 vs Gymnasium native",
            ratio(("cartpole", 1024, "sekai native"), ("cartpole", 1024, "gymnasium native")),
            1.0,
            True,
        ),
        (
            "Proc order book N=8 vs Gymnasium AsyncVectorEnv",
            ratio(("orderbook", 8, "sekai proc"), ("orderbook", 8, "gymnasium async")),
            1.5,
            True,
        ),
        (
            "Proc w2 order book N=8 vs Gymnasium AsyncVectorEnv",
            ratio(("orderbook", 8, "sekai proc w2"), ("orderbook", 8, "gymnasium async")),
            3.0,
            True,
        ),
        (
            "Proc w2 CartPole N=64 vs Gymnasium AsyncVectorEnv",
            ratio(("cartpole", 64, "sekai proc w2"), ("cartpole", 64, "gymnasium async")),
            4.0,
            True,
        ),
        (
            "import sekai vs import gymnasium (lower is better)",
            extras["import_sekai_seconds"] / extras["import_gymnasium_seconds"],
            0.3,
            False,
        ),
    ]
    out = []
    for name, value, threshold, higher_is_better in checks:
        met = (
            None
            if value is None
            else (value >= threshold if higher_is_better else value <= threshold)
        )
        out.append(
            {
                "target": name,
                "ratio": value,
                "threshold": threshold,
                "met": met,
                "higher_is_better": higher_is_better,
            }
        )
    return out


def report(rows: list[Row], extras: dict[str, float], checks: list[dict[str, Any]]) -> str:
    """The plain-text report: steps/s per scenario, then the targets."""
    lines = [f"{'scenario':<10} {'N':>5} {'backend':<18} {'steps/s':>14} {'vs gymnasium':>13}"]
    peers = {
        "sekai sync": "gymnasium sync",
        "sekai async": "gymnasium async",
        "sekai proc": "gymnasium async",
        "sekai proc w2": "gymnasium async",
        "sekai native": "gymnasium native",
    }
    for row in rows:
        peer = peers.get(row.backend)
        base = _find(rows, row.scenario, row.num_envs, peer) if peer else None
        versus = f"{row.steps_per_second / base:.2f}x" if base else ""
        lines.append(
            f"{row.scenario:<10} {row.num_envs:>5} {row.backend:<18} "
            f"{row.steps_per_second:>14,.0f} {versus:>13}"
        )
    lines.append("")
    lines.append(f"raw Pipe round trips/s: {extras['pipe_round_trips_per_second']:,.0f}")
    lines.append(
        f"import sekai: {extras['import_sekai_seconds'] * 1e3:.1f} ms, "
        f"import gymnasium: {extras['import_gymnasium_seconds'] * 1e3:.1f} ms"
    )
    lines.append("")
    lines.append("targets:")
    for check in checks:
        sign = ">=" if check["higher_is_better"] else "<="
        value = "n/a" if check["ratio"] is None else f"{check['ratio']:.2f}x"
        verdict = {True: "met", False: "NOT met", None: "not measured"}[check["met"]]
        lines.append(
            f"  {check['target']:<52} {value:>8} (target {sign} {check['threshold']:g}x): {verdict}"
        )
    return "\n".join(lines)


def chart(rows: list[Row], path: Path) -> bool:
    """Draw a grouped bar chart of steps/s (log scale); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    cases = list(dict.fromkeys((r.scenario, r.num_envs) for r in rows))
    backends = list(dict.fromkeys(r.backend for r in rows))
    width = 0.8 / len(backends)
    fig, ax = plt.subplots(figsize=(12, 5))
    for i, backend in enumerate(backends):
        values = [_find(rows, s, n, backend) or 0.0 for s, n in cases]
        ax.bar(np.arange(len(cases)) + i * width, values, width, label=backend)
    ax.set_xticks(np.arange(len(cases)) + 0.4 - width / 2)
    ax.set_xticklabels([f"{s}\nN={n}" for s, n in cases])
    ax.set_yscale("log")
    ax.set_ylabel("sub-env steps / s")
    ax.set_title("sekai vs Gymnasium (higher is better)")
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _environment() -> str:
    """The machine and versions, in words (for the docs' Performance page)."""
    import platform

    try:
        import gymnasium

        peer = f", Gymnasium {gymnasium.__version__}"
    except ImportError:
        peer = ""
    cores = multiprocessing.cpu_count()
    return (
        f"a {cores}-core {platform.machine()} machine (Python {platform.python_version()}, "
        f"NumPy {np.__version__}{peer})"
    )


def main(argv: list[str]) -> None:
    settings = Settings(seconds=0.15, repeats=1) if "--quick" in argv else Settings()
    print(f"sekai vs Gymnasium, {settings.repeats} x {settings.seconds} s per case", flush=True)
    rows, extras = run(settings)
    checks = targets(rows, extras)
    text = report(rows, extras, checks)
    print()
    print(text)
    RESULTS.mkdir(exist_ok=True)
    payload = {
        "environment": _environment(),
        "rows": [asdict(r) for r in rows],
        "extras": extras,
        "targets": checks,
    }
    (RESULTS / "compare.json").write_text(json.dumps(payload, indent=2) + "\n")
    (RESULTS / "compare.txt").write_text(text + "\n")
    if chart(rows, RESULTS / "compare.png"):
        print(f"\nwrote {RESULTS / 'compare.json'} and {RESULTS / 'compare.png'}")


if __name__ == "__main__":
    main(sys.argv[1:])
