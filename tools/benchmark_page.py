"""Write the latest ``nox -s bench`` results into the docs' Performance page.

Two blocks of ``docs/pages/guides/performance.md``, each between its markers:

- ``compare`` (BENCHMARK RESULTS): the backends against Gymnasium's, from
  ``benchmarks/results/compare.json`` and ``bench_proc.json``; the chart is
  copied to ``docs/pages/assets/benchmark.png``;
- ``native`` (NATIVE VECTOR RESULTS): each native vector env against
  ``SyncVecEnv`` over the same env at 1024 sub-envs, from
  ``bench_classic.json``, ``bench_market.json`` and ``bench_market_micro.json``;
- ``peers`` (PEER RESULTS): every side-by-side row with a peer library or a
  floor, gathered from the ``"peer_rows"`` of every results file (see
  ``benchmarks/_peers.py``).

Text about the results belongs outside the blocks, where this script does not
touch it.

Usage: ``python tools/benchmark_page.py [compare] [native] [peers]`` (after
``uv run --locked nox -s bench``): the blocks named, or all of them.
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


def _markers(name: str) -> tuple[re.Pattern[str], str, str]:
    """The pattern of the block named ``name`` on the page, and its two markers."""
    begin = (
        f"<!-- BEGIN {name}: written by tools/benchmark_page.py from the latest "
        "`nox -s bench` run -->"
    )
    end = f"<!-- END {name} -->"
    pattern = re.compile(rf"<!-- BEGIN {re.escape(name)}[^\n]*-->\n.*?{re.escape(end)}", re.S)
    return pattern, begin, end


BLOCK, BEGIN, END = _markers("BENCHMARK RESULTS")
NATIVE_BLOCK, NATIVE_BEGIN, NATIVE_END = _markers("NATIVE VECTOR RESULTS")
PEER_BLOCK, PEER_BEGIN, PEER_END = _markers("PEER RESULTS")

# The native-vs-sync benchmarks: each results file and the key of its table.
NATIVE_BENCHES = (
    ("bench_classic.json", "envs"),
    ("bench_market.json", "cases"),
    ("bench_market_micro.json", "envs"),
)

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
    """The Markdown of the backends' block, between (and including) its markers."""
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
        "Every speed target of the backends, from `bench_compare.py` and `bench_proc.py` "
        "(the latter times steps and constructions directly, in interleaved repeats); "
        "the native vector envs' targets follow in their own table:",
        "",
        *_targets_table(compare, proc),
        "",
        END,
    ]
    return "\n".join(lines)


def _native_table(reports: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| benchmark | env | native vector env | N | native µs/step | SyncVecEnv µs/step "
        "| native vs sync | goal | |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, key in NATIVE_BENCHES:
        report = reports.get(name)
        if report is None:
            continue
        script = name.removesuffix(".json") + ".py"
        for label, result in report[key].items():
            target = float(result.get("target", report["target_speedup"]))
            env_id = result.get("env_id")
            env = f"{env_id} ({label})" if env_id and env_id != label else label
            verdict = "met" if result["speedup"] >= target else "not met"
            lines.append(
                f"| `{script}` | {env} | `{result['native_class']}` | {result['num_envs']} | "
                f"{result['native_us']:,.1f} | {result['sync_us']:,.0f} | "
                f"{result['speedup']:.1f}x | >= {target:g}x | {verdict} |"
            )
    return lines


def _native_environment(reports: dict[str, dict[str, Any]]) -> str:
    """The machine and versions of the native benchmarks' run, in words."""
    report = next(iter(reports.values()))
    if "cpus" not in report:
        return f"a shared machine (Python {report['python']}, NumPy {report['numpy']})"
    return (
        f"a {report['cpus']}-core {report['machine']} machine "
        f"(Python {report['python']}, NumPy {report['numpy']})"
    )


def native_block(reports: dict[str, dict[str, Any]], day: str) -> str:
    """The Markdown of the native vector envs' block, between (and including) its markers."""
    lines = [
        NATIVE_BEGIN,
        f"Measured on {day} with `uv run --locked nox -s bench -- classic market "
        f"market_micro` on {_native_environment(reports)}, a machine shared with other "
        "work: every ratio comes from this one run. Each benchmark steps a native vector "
        "env and `SyncVecEnv` over the same single env, with the same random actions from "
        "the same seed (resets included), the two taking turns over repeats, and keeps "
        "each one's best CPU time per step. A ratio near its goal can land on either side "
        "of it from one run to the next.",
        "",
        *_native_table(reports),
        "",
        NATIVE_END,
    ]
    return "\n".join(lines)


def _run_day(paths: list[Path]) -> str:
    """The day the newest of ``paths`` was written: the day of the run."""
    newest = max(path.stat().st_mtime for path in paths)
    return datetime.date.fromtimestamp(newest).isoformat()


def _write_block(page: str, pattern: re.Pattern[str], text: str) -> str | None:
    """``page`` with the block of ``pattern`` replaced by ``text``; None without the markers."""
    if not pattern.search(page):
        return None
    return pattern.sub(lambda _: text, page, count=1)


def _compare(page: str) -> str | None:
    compare_path = RESULTS / "compare.json"
    if not compare_path.exists():
        print(f"{compare_path} is missing: run `uv run --locked nox -s bench` first")
        return None
    compare = json.loads(compare_path.read_text())
    proc_path = RESULTS / "bench_proc.json"
    proc = json.loads(proc_path.read_text()) if proc_path.exists() else None
    day = _run_day([compare_path] + ([proc_path] if proc else []))
    chart = RESULTS / "compare.png"
    if chart.exists():
        shutil.copyfile(chart, CHART)
    return _write_block(page, BLOCK, block(compare, proc, day))


def _native(page: str) -> str | None:
    paths = [RESULTS / name for name, _ in NATIVE_BENCHES if (RESULTS / name).exists()]
    if not paths:
        print("no native benchmark results: run `uv run --locked nox -s bench` first")
        return None
    reports = {path.name: json.loads(path.read_text()) for path in paths}
    return _write_block(page, NATIVE_BLOCK, native_block(reports, _run_day(paths)))


def _figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def peer_block(reports: dict[str, dict[str, Any]], day: str) -> str:
    """The PEER RESULTS block: one table line per peer row, in the order of the files."""
    lines = [
        PEER_BEGIN,
        f"Measured on {day} with `uv run --locked nox -s bench` on a 2-core x86_64 machine "
        "shared with other work. Each figure is the median of interleaved rounds of sekai "
        "and its peer in the same run; the ratio is sekai's figure over the peer's, in the "
        "row's unit (for a time, below 1 is faster; for a rate, above 1 is).",
        "",
        "| comparison | peer | unit | sekai | peer's | ratio | goal | |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for name, report in reports.items():
        script = name.removesuffix(".json") + ".py"
        for r in report.get("peer_rows", []):
            goal, verdict = "", "(context)"
            if r["goal"] is not None:
                goal, verdict = f"{r['goal']}x", "met" if r["met"] else "not met"
            lines.append(
                f"| {r['row']} (`{script}`) | {r['peer_name']} | {r['unit']} "
                f"| {_figure(r['sekai'])} | {_figure(r['peer'])} | {r['ratio']:.2f}x "
                f"| {goal} | {verdict} |"
            )
    # A note is given once: for its row, or for the rows of one benchmark that share it.
    notes: dict[str, list[tuple[str, str]]] = {}
    for name, report in reports.items():
        for r in report.get("peer_rows", []):
            if r.get("note"):
                notes.setdefault(r["note"], []).append((name, r["row"]))
    notes_lines = []
    for note, rows in notes.items():
        scripts = {name.removesuffix(".json") + ".py" for name, _ in rows}
        if len(rows) == 1:
            subject = rows[0][1]
        elif len(scripts) == 1:
            subject = f"the rows of `{scripts.pop()}`"
        else:
            subject = "; ".join(row for _, row in rows)
        notes_lines.append(f"- {subject}: {note}")
    if notes_lines:
        lines += ["", "Notes:", "", *notes_lines]
    lines += ["", PEER_END]
    return "\n".join(lines)


def _peers(page: str) -> str | None:
    paths = sorted(
        path for path in RESULTS.glob("*.json") if "peer_rows" in json.loads(path.read_text())
    )
    if not paths:
        print("no results with peer rows: run `uv run --locked nox -s bench` first")
        return None
    reports = {path.name: json.loads(path.read_text()) for path in paths}
    return _write_block(page, PEER_BLOCK, peer_block(reports, _run_day(paths)))


WRITERS = {"compare": _compare, "native": _native, "peers": _peers}


def main(argv: list[str]) -> int:
    names = argv or list(WRITERS)
    unknown = [name for name in names if name not in WRITERS]
    if unknown:
        print(f"unknown blocks {unknown!r}: expected some of {list(WRITERS)!r}")
        return 2
    page = PAGE.read_text()
    for name in names:
        updated = WRITERS[name](page)
        if updated is None:
            print(f"{PAGE.relative_to(ROOT)}: the {name!r} block was not written")
            return 1
        page = updated
    PAGE.write_text(page)
    print(f"updated {PAGE.relative_to(ROOT)}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
