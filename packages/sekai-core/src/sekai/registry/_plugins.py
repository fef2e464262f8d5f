"""Finding plugin distributions through their ``sekai.envs`` entry points."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ENTRY_POINT_GROUP", "EntryPointLike", "list_entry_points", "preload_entry_points"]

#: The entry-point group plugin distributions declare their loaders in.
ENTRY_POINT_GROUP = "sekai.envs"

# Listings made ahead of time by `preload_entry_points`, by group: each is used
# once, by the next `list_entry_points` of its group in this process (or in a
# process forked from it, which has its own copy).
_PRELOADED: dict[str, list[Any]] = {}


class EntryPointLike(Protocol):
    """What the registry uses of an `importlib.metadata.EntryPoint`."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> str: ...

    @property
    def module(self) -> str: ...

    def load(self) -> Any: ...


def _read_entry_points(group: str) -> list[EntryPointLike]:
    from importlib import metadata  # slow to import: only when plugins are looked for

    return list(metadata.entry_points(group=group))


def list_entry_points(group: str) -> list[EntryPointLike]:
    """The installed entry points of ``group`` (read at call time, not at import).

    A listing `preload_entry_points` made for ``group`` in this process (or in
    the process this one was forked from) is returned instead of reading the
    metadata again, once.
    """
    preloaded = _PRELOADED.pop(group, None)
    if preloaded is not None:
        return preloaded
    return _read_entry_points(group)


def preload_entry_points(group: str) -> None:
    """Read the entry points of ``group`` now, for the next `list_entry_points` of ``group``.

    Meant for a process that only forks workers (the fork server of
    ``ProcVecEnv``): importing `importlib.metadata` and scanning every
    installed distribution then happens once there instead of in each worker
    that looks up an id. Nothing of a plugin is imported or run.

    Raises:
        Exception: Whatever reading the metadata raised; nothing is preloaded then,
            so the next `list_entry_points` reads (and reports) it again.
    """
    _PRELOADED[group] = _read_entry_points(group)
