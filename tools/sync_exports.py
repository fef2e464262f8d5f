"""Regenerate the top-level exports of ``sekai/__init__.py`` from the modules' ``__all__``.

The meta-package loads names lazily, so it needs a static name -> module table
(and ``TYPE_CHECKING`` imports for type checkers). This script rewrites the
block between the GENERATED markers; ``--check`` only reports whether it is
current (the meta-package's tests check the same thing).

Usage: ``python tools/sync_exports.py [--check]``
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

INIT = Path(__file__).resolve().parents[1] / "packages" / "sekai" / "src" / "sekai" / "__init__.py"
BEGIN = "# BEGIN GENERATED EXPORTS (tools/sync_exports.py)\n"
END = "# END GENERATED EXPORTS\n"

# Public modules, in priority order: a name exported by several of them (the
# same object re-exported) is taken from the first.
MODULES = (
    "sekai.core",
    "sekai.error",
    "sekai.spaces",
    "sekai.registry",
    "sekai.stats",
    "sekai.utils",
    "sekai.wrappers",
    "sekai.rendering",
    "sekai.vector",
    "sekai.envs",
    "sekai.compat",
)


# Names that stay in their module only (spec/vector.md: ``shared`` is exported
# from sekai.vector, not from the top level).
MODULE_ONLY = {"sekai.vector": {"shared"}}


def exports() -> dict[str, str]:
    """Map every public name of every public module to the module it is loaded from."""
    table: dict[str, str] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if name in MODULE_ONLY.get(module_name, ()):
                continue
            owner = table.get(name)
            if owner is None:
                table[name] = module_name
            elif getattr(importlib.import_module(owner), name) is not getattr(module, name):
                raise SystemExit(f"{name!r} means different objects in {owner} and {module_name}")
    return table


def render(table: dict[str, str]) -> str:
    lines = [BEGIN, "_EXPORTS: dict[str, str] = {\n"]
    lines += [f'    "{name}": "{module}",\n' for name, module in table.items()]
    lines.append("}\n\nif TYPE_CHECKING:\n")
    for module_name in MODULES:
        names = sorted(name for name, owner in table.items() if owner == module_name)
        if names:
            lines.append(f"    from {module_name} import (\n")
            lines += [f"        {name} as {name},\n" for name in names]
            lines.append("    )\n")
    lines.append(END)
    return "".join(lines)


def main() -> int:
    table = exports()
    if "--check" in sys.argv:
        import sekai

        if table != sekai._EXPORTS:
            print(f"{INIT} is out of date: run python tools/sync_exports.py", file=sys.stderr)
            return 1
        return 0
    text = INIT.read_text()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    INIT.write_text(text[:start] + render(table) + text[end:])
    # Let ruff put the generated imports in its canonical order and layout.
    ruff = [sys.executable, "-m", "ruff"]
    subprocess.run([*ruff, "check", "--fix", "--quiet", str(INIT)], check=True)
    subprocess.run([*ruff, "format", "--quiet", str(INIT)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
