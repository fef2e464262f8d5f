"""Smoke test of the sekai distributions installed from wheels in one site-packages.

With the meta-package, ``import sekai`` must give the top-level API and every
subpackage must resolve from its own distribution. With ``--no-meta`` (the meta
wheel uninstalled), the subpackages must still import as a namespace package.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from pathlib import Path

SUBPACKAGES = {
    "sekai.core": "sekai-core",
    "sekai.error": "sekai-core",
    "sekai.spaces": "sekai-core",
    "sekai.registry": "sekai-core",
    "sekai.stats": "sekai-core",
    "sekai.utils": "sekai-core",
    "sekai.wrappers": "sekai-wrappers",
    "sekai.rendering": "sekai-wrappers",
    "sekai.vector": "sekai-vector",
    "sekai.finance": "sekai-finance",
    "sekai.envs": "sekai-envs",
    "sekai.compat": "sekai-compat",
}


def _owner(module_file: str) -> str:
    """The installed distribution whose RECORD lists ``module_file``."""
    target = Path(module_file).resolve()
    for dist in metadata.distributions():
        for file in dist.files or ():
            if Path(str(dist.locate_file(file))).resolve() == target:
                return str(dist.metadata["Name"])
    raise AssertionError(f"no installed distribution owns {module_file}")


def main() -> None:
    no_meta = "--no-meta" in sys.argv
    import sekai

    if no_meta:
        assert getattr(sekai, "__file__", None) is None, "sekai should be a namespace package"
    else:
        assert sekai.__file__ is not None
        assert _owner(sekai.__file__) == "sekai"
        assert "sekai.core" not in sys.modules, "import sekai must not load subpackages"
        assert sekai.SekaiError is importlib.import_module("sekai.error").SekaiError
    for name, distribution in SUBPACKAGES.items():
        module = importlib.import_module(name)
        assert module.__file__ is not None
        owner = _owner(module.__file__)
        assert owner == distribution, f"{name} comes from {owner}, expected {distribution}"
        if not no_meta:
            assert getattr(sekai, name.split(".")[1]) is module
    print(f"wheel smoke test passed ({'without' if no_meta else 'with'} the meta-package)")


if __name__ == "__main__":
    main()
