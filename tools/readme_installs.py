"""Run every ``python -m pip install`` line of the README's Install section, each in a fresh venv.

Usage: ``python tools/readme_installs.py DIST WORKDIR``

``DIST`` holds the wheels just built. Each line gets a new virtual environment
with pip, then the third-party packages the line's selection needs, pinned
from the lock (``uv export`` of the distributions and extras the line names,
from the package index: no sekai distribution is among them), then the
README's line itself, run by bash with ``dist/`` pointing at ``DIST`` and
``--no-index`` added: every sekai distribution must come from a wheel the line
names, and every third-party requirement of the extras it asks for must be
among the pins of those extras. Then the installed sekai distributions are
imported, and the packages each extra is for.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = (
    "import importlib, importlib.metadata as m; "
    "names = sorted(d.metadata['Name'] for d in m.distributions() "
    "if d.metadata['Name'].startswith('sekai')); "
    "[importlib.import_module(n.replace('-', '.')) for n in names if n != 'sekai']; "
    "print(' '.join(names))"
)


def install_lines(readme: str) -> list[str]:
    """The ``python -m pip install`` lines of the Install section's bash blocks."""
    section = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            command = line.split(" # ", 1)[0].strip()
            if command.startswith("python -m pip install"):
                lines.append(command)
    return lines


# What each extra of the README's lines is for: modules that must import after it.
EXTRA_MODULES = {
    "proc": ["cloudpickle"],
    "gymnasium": ["gymnasium"],
    "pettingzoo": ["pettingzoo"],
    "finance": ["pandas", "pyarrow", "PIL", "imageio", "imageio_ffmpeg"],
}
EXTRA_MODULES["all"] = [*EXTRA_MODULES["finance"], "gymnasium", "pettingzoo", "ray"]

_WHEEL = re.compile(r"dist/([\w*]+?)(?:-\*)?\.whl\)?\"?(?:\[([\w,]+)\])?")


def selection(line: str) -> list[tuple[str | None, list[str]]]:
    """The distributions (None: every one) and extras a line installs, from its wheel names."""
    chosen: list[tuple[str | None, list[str]]] = []
    for stem, extras in _WHEEL.findall(line):
        package = None if "*" in stem else stem.replace("_", "-")
        chosen.append((package, extras.split(",") if extras else []))
    return chosen


def export_pins(line: str, pins: Path) -> list[str]:
    """Write the locked third-party pins of ``line``'s selection to ``pins``; its extras."""
    texts, extras_asked = [], []
    for package, extras in selection(line):
        which = ["--all-packages"] if package is None else ["--package", package]
        options = [arg for extra in extras for arg in ("--extra", extra)]
        exported = subprocess.run(
            ["uv", "export", "--locked", "--quiet", *which, *options, "--no-default-groups",
             "--no-emit-workspace", "--no-hashes"],
            check=True, stdout=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        texts.append(exported.stdout)
        extras_asked += extras
    pins.write_text("\n".join(texts))
    return extras_asked


def run(line: str, dist: Path, workdir: Path) -> str:
    """Install ``line`` into a fresh venv under ``workdir``; the sekai distributions it holds."""
    venv = workdir / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run(["uv", "venv", "--quiet", "--seed", "--python", sys.executable, str(venv)],
                   check=True)  # fmt: skip
    python = venv / "bin" / "python"
    pins = workdir / "pins.txt"
    extras = export_pins(line, pins)
    if pins.read_text().strip():
        subprocess.run(
            ["uv", "pip", "install", "--quiet", "--python", str(python), "-r", str(pins)],
            check=True,
        )
    command = line.replace("python -m pip install", f"{python} -m pip install --quiet --no-index")
    subprocess.run(["bash", "-c", command.replace("dist/", f"{dist}/")], check=True, cwd=workdir)
    checked = subprocess.run(
        [str(python), "-c", CHECK], check=True, stdout=subprocess.PIPE, text=True, cwd=workdir
    )
    modules = sorted({module for extra in extras for module in EXTRA_MODULES[extra]})
    if modules:  # what the extras are for is there
        imports = "; ".join(f"import {module}" for module in modules)
        subprocess.run([str(python), "-c", imports], check=True, cwd=workdir)
    return checked.stdout.strip() + (f" (+ {', '.join(modules)})" if modules else "")


def main(argv: list[str]) -> int:
    built, workdir = (Path(arg).resolve() for arg in argv)
    # The README's dist/ holds what `uv build --all-packages` writes: the example plugin,
    # built beside them by the build session, is not one of them.
    dist = workdir / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    dist.mkdir(parents=True)
    for wheel in built.glob("sekai*.whl"):
        if not wheel.name.startswith("sekai_example"):
            shutil.copy2(wheel, dist)
    lines = install_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    if len(lines) < 3:
        raise SystemExit(f"expected the README's install lines, found {lines}")
    for number, line in enumerate(lines, 1):
        print(f"[{number}/{len(lines)}] {line}", flush=True)
        print(f"    installed: {run(line, dist, workdir)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
