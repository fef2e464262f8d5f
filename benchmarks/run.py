"""Run every benchmark module in this folder (``bench_*.py``) and print their reports.

Each module defines ``main(argv) -> None``. Results are written to
``benchmarks/results/`` by the modules themselves.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main(argv: list[str]) -> int:
    selected = [arg for arg in argv if not arg.startswith("-")]
    for path in sorted(HERE.glob("bench_*.py")):
        if selected and path.stem.removeprefix("bench_") not in selected:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Registered before it runs: dataclasses and pickling look modules up by name.
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        print(f"== {path.stem} ==", flush=True)
        # The names above select modules; a module's own arguments are the options.
        module.main([arg for arg in argv if arg.startswith("-")])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
