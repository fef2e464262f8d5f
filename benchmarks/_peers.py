"""Side-by-side rows: one sekai figure against the same figure of a peer, with a goal.

The benchmarks that measure sekai against another library (or against the
floor of what any implementation could do) describe each comparison as a
``peer row`` and store the list under ``"peer_rows"`` in their JSON report;
``tools/benchmark_page.py`` gathers the rows of every report into one table
of the Performance page.

A row's ratio is sekai's figure divided by the peer's, in the row's own unit:
for a rate (steps per second) above 1 means sekai is faster; for a time
(microseconds per step, a latency) below 1 means sekai is faster. The goal
says which side of its bound the ratio must land on.
"""

from __future__ import annotations

import operator
from typing import Any

_COMPARISONS = {">=": operator.ge, "<=": operator.le}


def peer_row(
    row: str,
    *,
    unit: str,
    sekai: float,
    peer: float,
    peer_name: str,
    goal: str | None,
    note: str = "",
    ratio: float | None = None,
) -> dict[str, Any]:
    """One comparison, ready for a JSON report.

    Args:
        row: What is compared, named as the issue or the page names it
            (``"Trading-v0 single env / gym-anytrading stocks-v0"``).
        unit: The unit of both figures (``"steps/s"``, ``"us/step"``).
        sekai: sekai's figure, a median over interleaved rounds.
        peer: The peer's figure, measured in the same rounds.
        peer_name: Who the peer is, with its version where it has one.
        goal: The bound on ``sekai / peer``: ``">= 0.5"`` or ``"<= 1.5"``;
            None for a comparison shown for context, with no goal.
        note: Anything the reader needs to read the figures right.
        ratio: The ratio when the benchmark computes it otherwise than as
            ``sekai / peer`` (e.g. the median of each round's ratio).
    """
    if ratio is None:
        ratio = sekai / peer
    met = None
    if goal is not None:
        comparison, _, bound = goal.partition(" ")
        if comparison not in _COMPARISONS:
            raise ValueError(f"goal must start with '>=' or '<=', got {goal!r}")
        met = bool(_COMPARISONS[comparison](ratio, float(bound)))
    return {
        "row": row,
        "unit": unit,
        "sekai": sekai,
        "peer": peer,
        "peer_name": peer_name,
        "ratio": ratio,
        "goal": goal,
        "met": met,
        "note": note,
    }


def figure(value: float) -> str:
    """A figure as the reports print it: thousands separated, three digits below 100."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def print_rows(rows: list[dict[str, Any]]) -> None:
    """Print the rows, one line each."""
    for r in rows:
        goal = (
            "no goal"
            if r["goal"] is None
            else f"goal {r['goal']}x: " + ("met" if r["met"] else "NOT MET")
        )
        print(
            f"{r['row']}: sekai {figure(r['sekai'])} {r['unit']} | {r['peer_name']} "
            f"{figure(r['peer'])} {r['unit']} | ratio {r['ratio']:.2f}x ({goal})"
        )
