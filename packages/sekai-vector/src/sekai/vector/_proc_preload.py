"""What the fork server of ``ProcVecEnv`` workers does once, so that no worker does it.

Imported by the fork server (see `sekai.vector._proc_context`), never by a
worker itself. Each worker is forked from the server, so it starts with:

* the plugin entry points of the global registry already listed: a factory
  that calls ``sekai.make(...)`` does not import `importlib.metadata` and scan
  every installed distribution again in each worker. The plugins themselves
  are not loaded here (a worker loads them on its first lookup, as any
  process does);
* the module that registers sekai's reference environments (when sekai-envs
  is installed), which a worker's first lookup of an id like
  ``"CartPole-v1"`` runs;
* the modules the vector env that started the server asked for (through
  `sekai.vector._proc_context.PRELOAD_VARIABLE`): those of the entry points of
  the registered env that `make_vec` builds, which every worker would
  otherwise import on its own.

Nothing here may stop the server: a module that fails to import is skipped,
and a worker meets (and reports) the error as it would have.
"""

from __future__ import annotations

import contextlib
import importlib
import os

from sekai.registry import _plugins
from sekai.vector._proc_context import PRELOAD_VARIABLE

__all__: list[str] = []

with contextlib.suppress(Exception):
    _plugins.preload_entry_points(_plugins.ENTRY_POINT_GROUP)

_MODULES = ["sekai.envs._registration"]
_MODULES += filter(None, os.environ.pop(PRELOAD_VARIABLE, "").split(","))
for _name in _MODULES:
    with contextlib.suppress(Exception):
        importlib.import_module(_name)
