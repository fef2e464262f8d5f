"""A tour: serve the market on 127.0.0.1, step it over HTTP with full and partial batches.

Run from the repository root with ``PYTHONPATH=examples uv run --locked python
-m rest_market [--envs 12] [--batch-size 4] [--steps 300] [--latency-ms 1]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from sekai.vector import AsyncVecEnv, SyncVecEnv

from .env import LocalMarketEnv, RestMarketEnv
from .server import Latency, serve_in_thread
from .simulator import MarketConfig


def main(argv: list[str] | None = None) -> int:
    """Print steps per second of full and partial batches, and check one against the local env."""
    parser = argparse.ArgumentParser(prog="python -m rest_market", description=__doc__)
    parser.add_argument("--envs", type=int, default=12, help="number of sub-envs")
    parser.add_argument("--batch-size", type=int, default=4, help="rows per recv()")
    parser.add_argument("--steps", type=int, default=300, help="sub-env steps per sub-env")
    parser.add_argument("--latency-ms", type=float, default=1.0, help="mean server latency")
    args = parser.parse_args(argv)
    n, batch_size, steps = args.envs, args.batch_size, args.steps
    config = MarketConfig()
    rng = np.random.default_rng(0)

    with serve_in_thread(Latency(mean=args.latency_ms / 1e3, sigma=1.0), seed=0) as url:
        print(f"market server on {url}, lognormal latency with mean {args.latency_ms} ms")
        fns: list[Callable[[], RestMarketEnv]] = [lambda: RestMarketEnv(url, config)] * n

        # Full batches: first checked against the same market in process, then timed.
        actions = [rng.integers(0, config.num_actions, n) for _ in range(steps)]
        # (mypy takes the vector envs for abstract: VecEnv installs their step and
        # reset when the classes are created.)
        with (
            AsyncVecEnv(fns) as vec,
            SyncVecEnv([lambda: LocalMarketEnv(config)] * n) as local,
        ):
            assert vec.reset(seed=1) == local.reset(seed=1)
            for batch in actions[:20]:
                assert vec.step(batch) == local.step(batch), "the REST env diverged"
            print("20 steps over HTTP equal the same steps in process")
            start = time.perf_counter()
            for batch in actions:
                vec.step(batch)
            full = n * steps / (time.perf_counter() - start)
        print(f"full batches ({n} sub-envs per step): {full:8,.0f} sub-env steps/s")

        # Partial batches: the first batch_size sub-envs to answer go on at once.
        with AsyncVecEnv(fns, batch_size=batch_size) as vec:
            vec.reset(seed=1)
            vec.send(rng.integers(0, config.num_actions, n))
            start = time.perf_counter()
            for _ in range(n * steps // batch_size):
                result = vec.recv()
                # A policy would act on result.observations here.
                vec.send(rng.integers(0, config.num_actions, batch_size), result.env_ids)
            partial = n * steps / (time.perf_counter() - start)
        print(f"partial batches ({batch_size} of {n} per recv): {partial:8,.0f} sub-env steps/s")
        print(f"partial / full: {partial / full:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
