"""Smoke test of ``sekai-core`` installed alone from its wheel.

The env-author imports work, no other sekai distribution is importable, and the
example plugin (which depends on sekai-core alone) is found through its entry
point.
"""

from __future__ import annotations

import importlib
from importlib import metadata


def main() -> None:
    for name in ("sekai.core", "sekai.error", "sekai.spaces", "sekai.registry",
                 "sekai.stats", "sekai.utils"):  # fmt: skip
        importlib.import_module(name)
    for name in ("sekai.wrappers", "sekai.vector", "sekai.envs"):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        raise AssertionError(f"{name} is importable with only sekai-core installed")
    import sekai

    assert getattr(sekai, "__file__", None) is None, "the meta-package must not be installed"

    names = {ep.name for ep in metadata.entry_points(group="sekai.envs")}
    assert "example" in names, f"example plugin entry point missing: {sorted(names)}"
    print("core-only smoke test passed")


if __name__ == "__main__":
    main()
