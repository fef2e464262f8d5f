"""Run every ``python -m pip install`` line of the README's Install section, each in a fresh venv.

Usage: ``python tools/readme_installs.py DIST WORKDIR PINS``

``DIST`` holds the wheels just built, ``PINS`` the locked third-party
requirements of every distribution and extra (``uv export``). Each line gets a
new virtual environment with pip, the pinned third-party packages (from the
package index: no sekai distribution is among them), then the README's line,
run by bash with ``dist/`` pointing at ``DIST`` and ``--no-index`` added: every
sekai distribution must come from a wheel the line names, never from an index.
Then the installed sekai distributions are imported.
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


def run(line: str, dist: Path, workdir: Path, pins: Path) -> str:
    """Install ``line`` into a fresh venv under ``workdir``; the sekai distributions it holds."""
    venv = workdir / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run(["uv", "venv", "--quiet", "--seed", "--python", sys.executable, str(venv)],
                   check=True)  # fmt: skip
    python = venv / "bin" / "python"
    subprocess.run(["uv", "pip", "install", "--quiet", "--python", str(python), "-r", str(pins)],
                   check=True)  # fmt: skip
    command = line.replace("python -m pip install", f"{python} -m pip install --quiet --no-index")
    subprocess.run(["bash", "-c", command.replace("dist/", f"{dist}/")], check=True, cwd=workdir)
    checked = subprocess.run(
        [str(python), "-c", CHECK], check=True, stdout=subprocess.PIPE, text=True, cwd=workdir
    )
    return checked.stdout.strip()


def main(argv: list[str]) -> int:
    built, workdir, pins = (Path(arg).resolve() for arg in argv)
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
        print(f"    installed: {run(line, dist, workdir, pins)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
