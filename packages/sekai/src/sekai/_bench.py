"""Throughput measurement behind ``sekai bench``: steps per second on each backend."""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    from sekai.registry import VectorizationMode

__all__ = ["MODES", "BenchResult", "format_table", "measure", "run_bench", "write_json"]

MODES = ("sync", "async", "proc", "native")
"""Vectorisation modes ``sekai bench`` knows, in the order it runs them."""

# Batched actions are drawn ahead of time and cycled, so the measurement counts
# the env and the backend, not the action sampler.
_ACTION_POOL = 64


@dataclass(frozen=True)
class BenchResult:
    """The throughput of one environment on one vectorisation mode."""

    env_id: str
    mode: str
    num_envs: int
    num_workers: int | None
    steps: int
    seconds: float

    @property
    def steps_per_second(self) -> float:
        """Sub-environment steps per second (``num_envs`` per vector step)."""
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def measure(
    env_id: str,
    mode: str,
    *,
    num_envs: int,
    seconds: float,
    num_workers: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> BenchResult:
    """Step ``num_envs`` copies of ``env_id`` on ``mode`` for about ``seconds``.

    Args:
        env_id: A registered environment id.
        mode: One of `MODES`.
        num_envs: Number of sub-environments.
        seconds: Measurement time, after one reset and a short warm-up.
        num_workers: Worker processes for ``"proc"`` (ignored by other modes).
        progress: Called with the elapsed fraction (0 to 1) during the run.

    Returns:
        The number of sub-env steps taken and the time they took.
    """
    from sekai.registry import make_vec

    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    vector_kwargs: dict[str, Any] = {}
    if mode == "proc" and num_workers is not None:
        vector_kwargs["num_workers"] = num_workers
    vec = make_vec(
        env_id,
        num_envs,
        vectorization_mode=cast("VectorizationMode", mode),
        vector_kwargs=vector_kwargs,
    )
    try:
        space = vec.batch_action_space
        space.seed(0)
        actions = [space.sample() for _ in range(_ACTION_POOL)]
        vec.reset(seed=0)
        for action in actions[:8]:  # warm-up: first-step allocations, caches
            vec.step(action)
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        now = start
        for action in itertools.cycle(actions):
            vec.step(action)
            steps += 1
            if steps % 32 == 0:
                now = time.perf_counter()
                if progress is not None:
                    progress(min(1.0, (now - start) / seconds))
                if now >= deadline:
                    break
        elapsed = now - start
    finally:
        vec.close()
    workers = num_workers if mode == "proc" else None
    return BenchResult(env_id, mode, num_envs, workers, steps * num_envs, elapsed)


def _progress_printer(stream: TextIO, label: str) -> Callable[[float], None]:
    width = 30

    def show(fraction: float) -> None:
        filled = int(fraction * width)
        stream.write(f"\r{label:<28} [{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%}")
        stream.flush()

    return show


def run_bench(
    env_id: str,
    modes: Sequence[str],
    *,
    num_envs: int,
    seconds: float,
    num_workers: int | None = None,
    stream: TextIO | None = None,
) -> list[BenchResult]:
    """Measure ``env_id`` on each mode in turn, showing progress on ``stream``.

    Modes the environment does not support (``"native"`` without a
    ``vector_entry_point``, ``"proc"`` without ``sekai-vector[proc]``) are
    skipped with a note on ``stream`` (default: standard error).
    """
    from sekai.registry import spec

    stream = sys.stderr if stream is None else stream
    env_spec = spec(env_id)
    results: list[BenchResult] = []
    for mode in modes:
        if mode == "native" and env_spec.vector_entry_point is None:
            stream.write(f"{mode:<8} skipped: {env_id} has no native vector implementation\n")
            continue
        label = f"{mode} x{num_envs}"
        try:
            result = measure(
                env_id,
                mode,
                num_envs=num_envs,
                seconds=seconds,
                num_workers=num_workers,
                progress=_progress_printer(stream, label) if stream.isatty() else None,
            )
        except ImportError as error:
            stream.write(f"{mode:<8} skipped: {error}\n")
            continue
        if stream.isatty():
            stream.write("\r\033[K")
        stream.write(f"{label:<28} {result.steps_per_second:>14,.0f} steps/s\n")
        stream.flush()
        results.append(result)
    return results


def format_table(results: Sequence[BenchResult]) -> str:
    """A plain-text table: mode, envs, workers, steps/s, speed-up over sync."""
    baseline = next((r.steps_per_second for r in results if r.mode == "sync"), None)
    header = f"{'mode':<8} {'num_envs':>8} {'workers':>8} {'steps/s':>14} {'vs sync':>8}"
    lines = [header, "-" * len(header)]
    for result in results:
        workers = "-" if result.num_workers is None else str(result.num_workers)
        ratio = f"{result.steps_per_second / baseline:.2f}x" if baseline else "-"
        lines.append(
            f"{result.mode:<8} {result.num_envs:>8} {workers:>8} "
            f"{result.steps_per_second:>14,.0f} {ratio:>8}"
        )
    return "\n".join(lines)


def write_json(results: Sequence[BenchResult], path: Path) -> None:
    """Write ``results`` (with their steps per second) as a JSON list to ``path``."""
    rows = [{**asdict(r), "steps_per_second": r.steps_per_second} for r in results]
    path.write_text(json.dumps(rows, indent=2) + "\n")
