"""Write the latest ``nox -s bench`` results into the docs' Performance page.

Reads ``benchmarks/results/compare.json`` and ``bench_proc.json`` (written by
the bench session) and replaces the block between the BENCHMARK RESULTS
markers of ``docs/pages/guides/performance.md`` with their tables; copies the
chart to ``docs/pages/assets/benchmark.png``. Text about the results belongs
after the block, where this script does not touch it.

Usage: ``python tools/benchmark_page.py`` (after ``uv run --locked nox -s bench``).
"""

from __future__ import annotations

import datetime
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "pages" / "guides" / "performance.md"
CHART = ROOT / "docs" / "pages" / "assets" / "benchmark.png"
BLOCK = re.compile(
    r"<!-- BEGIN BENCHMARK RESULTS[^\n]*-->\n.*?<!-- END BENCHMARK RESULTS -->", re.S
)
BEGIN = (
    "<!-- BEGIN BENCHMARK RESULTS: written by tools/benchmark_page.py from the latest "
    "`nox -s bench` run -->"
)
END = "<!-- END BENCHMARK RESULTS -->"

# The Gymnasium backend each sekai backend is compared with.
PEERS = {
    "sekai sync": "gymnasium sync",
    "sekai async": "gymnasium async",
    "sekai proc": "gymnasium async",
    "sekai proc w2": "gymnasium async",
    "sekai native": "gymnasium native",
}


def _rows_table(rows: list[dict[str, Any]]) -> list[str]:
    rates = {(r["scenario"], r["num_envs"], r["backend"]): r["steps_per_second"] for r in rows}
    lines = ["| scenario | N | backend | steps/s | vs Gymnasium |", "|---|---:|---|---:|---:|"]
    for row in rows:
        key = (row["scenario"], row["num_envs"], row["backend"])
        peer = PEERS.get(row["backend"])
        base = rates.get((key[0], key[1], peer)) if peer else None
        versus = f"{row['steps_per_second'] / base:.2f}x" if base else ""
        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {row['steps_per_second']:,.0f} | {versus} |"
        )
    return lines


def _targets_table(compare: dict[str, Any], proc: dict[str, Any] | None) -> list[str]:
    lines = ["| target | measured | goal | |", "|---|---:|---:|---|"]
    for target in compare["targets"]:
        if target["ratio"] is None:
            continue
        sign = ">=" if target["higher_is_better"] else "<="
        verdict = "met" if target["met"] else "not met"
        lines.append(
            f"| {target['target']} | {target['ratio']:.2f}x | "
            f"{sign} {target['threshold']:g}x | {verdict} |"
        )
    for target in (proc or {}).get("results", []):
        verdict = "met" if target["met"] else "not met"
        lines.append(
            f"| {target['target']} | {target['ratio']:.2f}x | {target['goal']} | {verdict} |"
        )
    return lines


def block(compare: dict[str, Any], proc: dict[str, Any] | None, day: str) -> str:
    """The Markdown between (and including) the markers."""
    extras = compare["extras"]
    environment = compare.get("environment", "a shared machine")
    lines = [
        BEGIN,
        f"Measured on {day} with `uv run --locked nox -s bench` on {environment}. "
        "The backends of each scenario are measured in alternating rounds, so that "
        "they share the machine's load; each figure is the median of its rounds. "
        "Ratios move by about ±15% between runs on a shared machine.",
        "",
        "![sub-env steps per second by scenario and backend](../assets/benchmark.png)",
        "",
        *_rows_table(compare["rows"]),
        "",
        f"Raw Pipe round trips: {extras['pipe_round_trips_per_second']:,.0f}/s. "
        f"`import sekai`: {extras['import_sekai_seconds'] * 1e3:.1f} ms; "
        f"`import gymnasium`: {extras['import_gymnasium_seconds'] * 1e3:.1f} ms.",
        "",
        "Every speed target, from `bench_compare.py` and `bench_proc.py` (the latter "
        "times steps and constructions directly, in interleaved repeats):",
        "",
        *_targets_table(compare, proc),
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    compare_path = RESULTS / "compare.json"
    if not compare_path.exists():
        print(f"{compare_path} is missing: run `uv run --locked nox -s bench` first")
        return 1
    compare = json.loads(compare_path.read_text())
    proc_path = RESULTS / "bench_proc.json"
    proc = json.loads(proc_path.read_text()) if proc_path.exists() else None
    page = PAGE.read_text()
    if not BLOCK.search(page):
        print(f"{PAGE} has no BENCHMARK RESULTS markers")
        return 1
    day = datetime.date.today().isoformat()
    PAGE.write_text(BLOCK.sub(lambda _: block(compare, proc, day), page, count=1))
    chart = RESULTS / "compare.png"
    if chart.exists():
        shutil.copyfile(chart, CHART)
    print(f"updated {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
