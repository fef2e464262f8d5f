"""The single market envs: microseconds per step of each, on its defaults and on a history.

Each market model is one kernel that its single env runs with one row and its
native vector env with one row per sub-env; this benchmark watches what that
costs the single env, the env most users start with. Every case steps one env
with random actions from a fixed seed, resetting when an episode ends (the
resets are part of the timing, as in a training loop). Timing: CPU time per
step (``time.process_time``) in interleaved rounds (every case once per round),
reported as the median over the rounds, and the best.

The peer: gym-anytrading 2.0's ``stocks-v0`` (from the ``bench`` dependency
group; ``import gym_anytrading`` registers it with Gymnasium), through
``gymnasium.make``, side by side with Trading-v0 through ``sekai.make`` on the
same series: the closes of gym-anytrading's STOCKS_GOOGL dataset, dated, with
the same 30-row window and one episode over the whole series, each env with
random actions (sell or buy for stocks-v0; short, flat or long for
Trading-v0, which also pays its default 10 basis points and keeps its
accounts). The ratio is sekai's speed over the peer's (the peer's time per
step over sekai's): above 1, sekai is faster. Without gym-anytrading the pair
is skipped.

Run ``python benchmarks/bench_market_single.py [--quick] [cases...]``; results
are printed and written to ``benchmarks/results/bench_market_single.json``.
To compare two revisions, run it in a checkout of each, alternately.
"""

from __future__ import annotations

import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from _peers import peer_row, print_rows  # noqa: E402 - needs the path above

RESULTS = Path(__file__).parent / "results" / "bench_market_single.json"


def _history(n_assets: int, rows: int = 3000) -> np.ndarray:
    steps = np.random.default_rng(1).normal(0.0, 0.01, (rows, n_assets))
    return np.asarray(100.0 * np.exp(np.cumsum(steps, axis=0)))


PEER = "stocks-v0 (gym-anytrading)"
ON_PEER_DATA = "Trading-v0 GOOGL"


def _googl() -> Any:
    """gym-anytrading's STOCKS_GOOGL as a one-asset MarketData of its closes, or None."""
    try:
        from gym_anytrading import datasets
    except ImportError:
        return None
    from sekai.finance import MarketData

    frame = datasets.STOCKS_GOOGL
    closes = frame["Close"].to_numpy(dtype=np.float64)
    return MarketData(closes[:, None], timestamps=frame.index.to_numpy(), assets=("GOOGL",))


def _peer_cases() -> dict[str, Callable[[], Any]]:
    data = _googl()
    if data is None:
        return {}
    import gym_anytrading  # noqa: F401 - registers stocks-v0 with Gymnasium
    import gymnasium

    window = 30  # stocks-v0's window_size; its episode runs from row 30 to the last
    return {
        ON_PEER_DATA: lambda: registry.make(
            "Trading-v0",
            data=data,
            lookback=window,
            episode_length=data.n_steps - window - 1,
            sampler=0,
        ),
        PEER: lambda: gymnasium.make("stocks-v0"),
    }


def _cases() -> dict[str, Callable[[], Any]]:
    return {
        "Trading-v0": lambda: registry.make("Trading-v0"),
        "Trading-v0 history": lambda: registry.make("Trading-v0", prices=_history(1)[:, 0]),
        "Portfolio-v0": lambda: registry.make("Portfolio-v0"),
        "Portfolio-v0 history": lambda: registry.make("Portfolio-v0", prices=_history(5)),
        "Market-v0": lambda: registry.make("Market-v0"),
        "MarketMaking-v0": lambda: registry.make("MarketMaking-v0"),
        "OptimalExecution-v0": lambda: registry.make("OptimalExecution-v0"),
        **_peer_cases(),
    }


def _runner(env: Any, steps: int) -> Callable[[], None]:
    space = env.action_space
    space.seed(0)
    actions = [space.sample() for _ in range(steps)]
    env.reset(seed=0)

    def run() -> None:
        step, reset = env.step, env.reset
        for action in actions:
            result = step(action)
            if result.terminated or result.truncated:
                reset()

    def run_gymnasium() -> None:  # the peer: a step returns a plain tuple
        step, reset = env.step, env.reset
        for action in actions:
            _, _, terminated, truncated, _ = step(action)
            if terminated or truncated:
                reset()

    return run_gymnasium if env.__module__.startswith("gymnasium") else run


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    selected = [arg for arg in argv if not arg.startswith("-")]
    steps, rounds = (500, 5) if quick else (2000, 9)
    runs = {
        name: _runner(build(), steps)
        for name, build in _cases().items()
        if not selected or any(part in name for part in selected)
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name].append((time.process_time() - start) / steps * 1e6)
    median = {name: statistics.median(values) for name, values in times.items()}
    best = {name: min(values, default=math.inf) for name, values in times.items()}
    print(f"{'case':<28} {'median us/step':>15} {'best':>9}")
    for name in runs:
        print(f"{name:<28} {median[name]:15.2f} {best[name]:9.2f}")
    ratio = None
    peer_rows: list[dict[str, Any]] = []
    if PEER in median and ON_PEER_DATA in median:
        ratio = median[PEER] / median[ON_PEER_DATA]
        peer_rows.append(
            peer_row(
                "Trading-v0 single env / gym-anytrading stocks-v0",
                unit="steps/s",
                sekai=1e6 / median[ON_PEER_DATA],
                peer=1e6 / median[PEER],
                peer_name=f"gym-anytrading {version('gym-anytrading')}",
                goal=">= 0.5",
                note=(
                    "both on the closes of gym-anytrading's STOCKS_GOOGL, a 30-row window, "
                    "random actions; Trading-v0 with its default costs and accounting"
                ),
            )
        )
        print_rows(peer_rows)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "numpy": np.__version__,
                "steps": steps,
                "rounds": rounds,
                "us_per_step": median,
                "best_us_per_step": best,
                "speed_ratio_vs_gym_anytrading": ratio,
                "peer_rows": peer_rows,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
