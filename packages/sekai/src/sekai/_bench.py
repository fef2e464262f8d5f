"""Throughput measurement behind ``sekai bench``: steps per second on each backend."""

from __future__ import annotations

import functools
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    from sekai.registry import VectorizationMode

__all__ = [
    "MODES",
    "BenchResult",
    "Progress",
    "format_table",
    "measure",
    "notes",
    "run_bench",
    "title",
    "to_json",
    "write_json",
]

MODES = ("sync", "async", "proc", "native")
"""Vectorisation modes ``sekai bench`` knows, in the order it runs them.

Public modes of `make_vec` only (not the alias ``"vector_entry_point"``); Ray is
left out, as starting a cluster is no part of a quick measurement.
"""

# Batched actions are drawn ahead of time and cycled, so the measurement counts
# the env and the backend, not the action sampler.
_ACTION_POOL = 64


class Progress:
    """Progress of a long command, drawn on one line of a terminal.

    Built with ``stream=None`` it draws nothing, so callers need not check
    whether progress is wanted; `Progress.on_terminal` decides that.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self._shown = ""

    @classmethod
    def on_terminal(cls, *, enabled: bool = True) -> Progress:
        """Progress on standard error if it is a terminal and ``enabled`` (else none).

        Never in a pipe or a file, so redirected output stays clean.
        """
        stream = sys.stderr
        is_terminal = getattr(stream, "isatty", None)
        return cls(stream if enabled and callable(is_terminal) and is_terminal() else None)

    def status(self, text: str) -> None:
        """Replace the progress line with ``text``."""
        if self.stream is not None and text != self._shown:
            self.stream.write(f"\r\033[K{text}")
            self.stream.flush()
            self._shown = text

    def bar(self, label: str, fraction: float) -> None:
        """Show ``label`` with a bar filled to ``fraction`` (0 to 1)."""
        if self.stream is None:
            return
        width = 30
        fraction = min(max(fraction, 0.0), 1.0)
        filled = int(fraction * width)
        self.status(f"{label:<28} [{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%}")

    def clear(self) -> None:
        """Erase the progress line."""
        self.status("")


@dataclass(frozen=True)
class BenchResult:
    """The throughput of one environment on one vectorisation mode.

    A mode that was not run has no steps and says why: ``skipped`` when the
    env or the installation does not offer it (e.g. ``"native"`` for an env
    without a native vector implementation), ``failed`` when building or
    stepping it raised (``"RuntimeError: ..."``).
    """

    env_id: str
    mode: str
    num_envs: int
    num_workers: int | None
    steps: int
    seconds: float
    skipped: str | None = None
    failed: str | None = None

    @property
    def ran(self) -> bool:
        """Whether the mode was measured (neither skipped nor failed)."""
        return self.skipped is None and self.failed is None

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
    workers = num_workers if mode == "proc" else None
    vec = make_vec(
        env_id,
        num_envs,
        vectorization_mode=cast("VectorizationMode", mode),
        vector_kwargs={} if workers is None else {"num_workers": workers},
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
    return BenchResult(env_id, mode, num_envs, workers, steps * num_envs, elapsed)


def run_bench(
    env_id: str,
    modes: Sequence[str],
    *,
    num_envs: int,
    seconds: float,
    num_workers: int | None = None,
    progress: Progress | None = None,
) -> list[BenchResult]:
    """Measure ``env_id`` on each mode in turn, showing ``progress`` (default: none).

    Every mode keeps its row. A mode the environment or the installation does
    not offer (``"native"`` without a ``vector_entry_point``, the others without
    an ``entry_point``, a backend whose distribution or extra is not installed,
    i.e. an ImportError, such as ``"proc"`` without ``sekai-vector[proc]``) gives
    a result whose ``skipped`` says why. A mode that raises anything else while
    it is built or stepped gives a result whose ``failed`` names the error; the
    other modes still run. The progress line is erased at the end, also when an
    exception (e.g. KeyboardInterrupt) stops the run.
    """
    from sekai.registry import spec

    shown = Progress(None) if progress is None else progress
    env_spec = spec(env_id)
    results: list[BenchResult] = []
    try:
        for number, mode in enumerate(modes, start=1):
            workers = num_workers if mode == "proc" else None
            skipped: str | None = None
            if mode == "native" and env_spec.vector_entry_point is None:
                skipped = f"{env_id} has no native vector implementation"
            elif mode != "native" and env_spec.entry_point is None:
                skipped = f"{env_id} has only a native vector implementation (no entry_point)"
            if skipped is not None:
                results.append(BenchResult(env_id, mode, num_envs, workers, 0, 0.0, skipped))
                continue
            label = f"{env_id} {mode} x{num_envs} ({number}/{len(modes)})"
            shown.bar(label, 0.0)
            try:
                result = measure(
                    env_id,
                    mode,
                    num_envs=num_envs,
                    seconds=seconds,
                    num_workers=num_workers,
                    progress=functools.partial(shown.bar, label),
                )
            except ImportError as error:  # a backend (or its extra) that is not installed
                result = BenchResult(env_id, mode, num_envs, workers, 0, 0.0, skipped=str(error))
            except Exception as error:  # the env or the backend broke: keep the other rows
                reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
                reason = reason.splitlines()[0]
                result = BenchResult(env_id, mode, num_envs, workers, 0, 0.0, failed=reason)
            results.append(result)
    finally:
        shown.clear()
    return results


def format_table(results: Sequence[BenchResult]) -> str:
    """A plain-text table: mode, envs, workers, steps/s, speed-up over sync.

    A skipped or failed mode keeps its row, with ``-`` for the numbers and
    ``skipped: REASON`` or ``failed: ERROR`` after them.
    """
    baseline = next((r.steps_per_second for r in results if r.mode == "sync" and r.ran), None)
    header = f"{'mode':<8} {'num_envs':>8} {'workers':>8} {'steps/s':>14} {'vs sync':>8}"
    lines = [header, "-" * len(header)]
    for result in results:
        workers = "-" if result.num_workers is None else str(result.num_workers)
        row = f"{result.mode:<8} {result.num_envs:>8} {workers:>8} "
        if not result.ran:
            note = (
                f"skipped: {result.skipped}"
                if result.failed is None
                else f"failed: {result.failed}"
            )
            lines.append(f"{row}{'-':>14} {'-':>8}  {note}")
            continue
        ratio = f"{result.steps_per_second / baseline:.2f}x" if baseline else "-"
        lines.append(f"{row}{result.steps_per_second:>14,.0f} {ratio:>8}")
    return "\n".join(lines)


def title(results: Sequence[BenchResult], seconds: float) -> str:
    """The line above the table: the env, the unit and what the ratios compare with."""
    first = results[0]
    return (
        f"{first.env_id}, {first.num_envs} sub-envs, about {seconds:g} s per backend: sub-env "
        "steps per second (higher is better). 'vs sync' is the speed-up over sync, a plain "
        "loop stepping the sub-envs one by one in this process, as a Gymnasium vector env does."
    )


_PAYS_OFF = {
    "native": "one numpy step for the whole batch: it gains most with many sub-envs "
    "(try --num-envs 256)",
    "async": "steps that wait rather than compute (a remote simulator, a live feed, I/O)",
    "proc": "steps heavy enough that running them in parallel on several cores beats "
    "sending actions and observations between processes (a millisecond or more per step)",
}


def notes(results: Sequence[BenchResult]) -> list[str]:
    """The lines below the table: when each backend pays off, measured against this run.

    A backend slower than sync here gets the reason: a step of this env is too
    light (its cost per sub-env step, from the sync row, is given) or waits on
    nothing.
    """
    sync = next((r for r in results if r.mode == "sync" and r.ran), None)
    lines = ["When each backend pays off:"]
    for result in results:
        if result.mode not in _PAYS_OFF:
            continue
        line = f"  {result.mode:<7} {_PAYS_OFF[result.mode]}"
        if sync is not None and result.ran and result.steps_per_second < sync.steps_per_second:
            cost = 1e6 / sync.steps_per_second
            line += (
                f"; slower than sync here: a sub-env step of {result.env_id} costs about "
                f"{cost:,.0f} us, "
                + (
                    "and waits on nothing"
                    if result.mode == "async"
                    else f"too little for the traffic between processes to pay off on "
                    f"{os.cpu_count() or 1} core(s)"
                )
            )
        lines.append(line)
    lines.append(
        "Next: 'sekai bench ID --num-envs 256' for your env or another (see 'sekai list'), "
        "and the Performance guide (docs/pages/guides/performance.md)."
    )
    return lines


def to_json(results: Sequence[BenchResult]) -> str:
    """``results`` as a JSON list, with their steps per second (``null`` when not run)."""
    rows: list[dict[str, Any]] = [
        {**asdict(r), "steps_per_second": r.steps_per_second if r.ran else None} for r in results
    ]
    return json.dumps(rows, indent=2)


def write_json(results: Sequence[BenchResult], path: Path) -> None:
    """Write ``results`` as a JSON list (see `to_json`) to ``path``."""
    path.write_text(to_json(results) + "\n")
