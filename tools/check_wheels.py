"""Check the wheels and sdists that ``nox -s build`` produced.

- every distribution of the workspace has a wheel and an sdist;
- only the ``sekai`` meta wheel ships ``sekai/__init__.py`` (a stray one in any
  other wheel would hide every other portion of the namespace);
- no file is shipped by two wheels (uninstalling one would delete it for both);
- every top-level subpackage a wheel ships (``sekai/core``, ...) carries a
  ``py.typed`` marker;
- the files other distributions import from a wheel are in it (``REQUIRED``:
  sekai-core's internal package, ``sekai/_internal``, is not public but every
  other sekai distribution imports it).

Usage: ``python tools/check_wheels.py DIST_DIR``
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from collections import defaultdict
from pathlib import Path

EXPECTED = (
    "sekai_core",
    "sekai_wrappers",
    "sekai_vector",
    "sekai_finance",
    "sekai_envs",
    "sekai_compat",
    "sekai",
)

# Files a wheel must ship although no public module names them: other distributions import them.
REQUIRED = {
    "sekai_core": (
        "sekai/_internal/__init__.py",
        "sekai/_internal/py.typed",
        "sekai/_internal/validation.py",
    ),
}


def _project(wheel: Path) -> str:
    return wheel.name.split("-")[0]


def check(dist: Path) -> list[str]:
    """Return the problems found in ``dist`` (empty when everything is right)."""
    problems: list[str] = []
    wheels = {_project(path): path for path in dist.glob("*.whl")}
    sdists = {path.name.rsplit("-", 1)[0] for path in dist.glob("*.tar.gz")}
    for name in EXPECTED:
        if name not in wheels:
            problems.append(f"no wheel for {name} in {dist}")
        if name not in sdists:
            problems.append(f"no sdist for {name} in {dist}")

    owners: dict[str, list[str]] = defaultdict(list)
    for name, wheel in sorted(wheels.items()):
        with zipfile.ZipFile(wheel) as archive:
            files = [f for f in archive.namelist() if ".dist-info/" not in f]
        for file in files:
            owners[file].append(name)
        if "sekai/__init__.py" in files and name != "sekai":
            problems.append(f"{wheel.name} ships sekai/__init__.py; only the meta wheel may")
        packages = {f.rsplit("/", 1)[0] for f in files if f.endswith("/__init__.py")}
        # PEP 561: a marker in a top-level package (``sekai/core``) covers its
        # subpackages (``sekai/vector/wrappers``).
        top_level = {p for p in packages if p.count("/") <= 1}
        for package in sorted(top_level):
            if f"{package}/py.typed" not in files:
                problems.append(f"{wheel.name}: {package} has no py.typed marker")
        for required in REQUIRED.get(name, ()):
            if required not in files:
                problems.append(f"{wheel.name} does not ship {required}")
        print(f"{wheel.name}: {len(files)} files, packages: {', '.join(sorted(packages))}")
    if "sekai" in wheels:
        with zipfile.ZipFile(wheels["sekai"]) as archive:
            if "sekai/__init__.py" not in archive.namelist():
                problems.append("the meta wheel does not ship sekai/__init__.py")
    for file, names in sorted(owners.items()):
        if len(names) > 1:
            problems.append(f"{file} is shipped by several wheels: {', '.join(names)}")

    for sdist in dist.glob("*.tar.gz"):
        with tarfile.open(sdist) as archive:
            if not any(member.endswith("/pyproject.toml") for member in archive.getnames()):
                problems.append(f"{sdist.name} has no pyproject.toml")
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(Path(sys.argv[1]))
    for problem in problems:
        print(f"ERROR: {problem}", file=sys.stderr)
    if not problems:
        print("wheel checks passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
