"""What the fork server of ``ProcVecEnv`` workers does once, so that no worker does it.

Imported by the fork server (see `sekai.vector._proc_context`), never by a
worker itself. Each worker is forked from the server, so it starts with the
plugin entry points of the global registry already listed: a factory that
calls ``sekai.make(...)`` does not import `importlib.metadata` and scan every
installed distribution again in each worker. The plugins themselves are not
loaded here (a worker loads them on its first lookup, as any process does).
"""

from __future__ import annotations

import contextlib

from sekai.registry import _plugins

__all__: list[str] = []

# A failure is left for the worker to meet (and report) as it would have.
with contextlib.suppress(Exception):
    _plugins.preload_entry_points(_plugins.ENTRY_POINT_GROUP)
