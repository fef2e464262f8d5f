"""sekai: a reinforcement-learning environment framework.

This module is the top-level API. Every public name of the sekai distributions
is available here (``sekai.Env``, ``sekai.Box``, ``sekai.make``, ...), and so are
the subpackages (``sekai.spaces``, ``sekai.vector``, ...).

Names are loaded on first use, so ``import sekai`` stays cheap and a plugin that
only needs ``sekai.core`` never pays for the vector or wrapper stacks.

The subpackages themselves live in separate distributions (``sekai-core``,
``sekai-wrappers``, ``sekai-vector``, ``sekai-envs``) that share the ``sekai``
namespace. This file belongs to the ``sekai`` meta-package alone.
"""

from __future__ import annotations

import sys
from os import path as _os_path

# ``typing`` and ``pkgutil`` are not imported: they would multiply the cost of
# ``import sekai``. Type checkers treat any ``TYPE_CHECKING`` name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _extend_path(package_path: list[str]) -> list[str]:
    """Add every other ``sekai`` directory on ``sys.path`` to ``package_path``.

    The other distributions install their portions of the ``sekai`` namespace
    in other directories (editable installs put each package's ``src/`` on
    ``sys.path``). This regular package would hide them; listing them in
    ``__path__`` lets ``import sekai.core`` find them (what
    ``pkgutil.extend_path`` does, without importing pkgutil).
    """
    extended = list(package_path)
    for entry in sys.path:
        candidate = _os_path.join(entry or ".", __name__)
        if _os_path.isdir(candidate) and candidate not in extended:
            extended.append(candidate)
    return extended


__path__ = _extend_path(__path__)

__version__ = "0.3.0.dev0"

# Public name -> module that defines it, and the matching imports for type
# checkers. Generated from the modules' __all__; a test checks it is current.
# BEGIN GENERATED EXPORTS (tools/sync_exports.py)
_EXPORTS: dict[str, str] = {
    "AsyncCallPending": "sekai.error",
    "DeprecatedAPI": "sekai.error",
    "EnvAlreadyRegistered": "sekai.error",
    "EnvNotFound": "sekai.error",
    "InvalidAction": "sekai.error",
    "InvalidObservation": "sekai.error",
    "LookAheadError": "sekai.error",
    "ResetRequired": "sekai.error",
    "SekaiError": "sekai.error",
    "SpaceMismatch": "sekai.error",
    "VecEnvClosed": "sekai.error",
    "VecEnvWorkerError": "sekai.error",
    "SeedType": "sekai.utils",
    "SeededRNG": "sekai.utils",
    "make_seed_sequence": "sekai.utils",
    "np_random": "sekai.utils",
}

if TYPE_CHECKING:
    from sekai.error import (
        AsyncCallPending as AsyncCallPending,
        DeprecatedAPI as DeprecatedAPI,
        EnvAlreadyRegistered as EnvAlreadyRegistered,
        EnvNotFound as EnvNotFound,
        InvalidAction as InvalidAction,
        InvalidObservation as InvalidObservation,
        LookAheadError as LookAheadError,
        ResetRequired as ResetRequired,
        SekaiError as SekaiError,
        SpaceMismatch as SpaceMismatch,
        VecEnvClosed as VecEnvClosed,
        VecEnvWorkerError as VecEnvWorkerError,
    )
    from sekai.utils import (
        SeededRNG as SeededRNG,
        SeedType as SeedType,
        make_seed_sequence as make_seed_sequence,
        np_random as np_random,
    )
# END GENERATED EXPORTS

# Subpackages reachable as attributes (``sekai.vector`` after ``import sekai``).
_SUBMODULES: tuple[str, ...] = (
    "core",
    "envs",
    "error",
    "registry",
    "rendering",
    "spaces",
    "stats",
    "utils",
    "vector",
    "wrappers",
)

__all__ = ["__version__", *_EXPORTS, *_SUBMODULES]

if TYPE_CHECKING:
    from sekai import (
        core as core,
        envs as envs,
        error as error,
        registry as registry,
        rendering as rendering,
        spaces as spaces,
        stats as stats,
        utils as utils,
        vector as vector,
        wrappers as wrappers,
    )

if not TYPE_CHECKING:

    def _import(module_name: str) -> Any:
        from importlib import import_module

        return import_module(module_name)

    def __getattr__(name: str) -> Any:
        module_name = _EXPORTS.get(name)
        if module_name is not None:
            value = getattr(_import(module_name), name)
        elif name in _SUBMODULES:
            value = _import(f"{__name__}.{name}")
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # later lookups skip __getattr__
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
