"""Finding plugin distributions through their ``sekai.envs`` entry points."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["ENTRY_POINT_GROUP", "EntryPointLike", "list_entry_points"]

#: The entry-point group plugin distributions declare their loaders in.
ENTRY_POINT_GROUP = "sekai.envs"


class EntryPointLike(Protocol):
    """What the registry uses of an `importlib.metadata.EntryPoint`."""

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> str: ...

    @property
    def module(self) -> str: ...

    def load(self) -> Any: ...


def list_entry_points(group: str) -> list[EntryPointLike]:
    """The installed entry points of ``group`` (read at call time, not at import)."""
    from importlib import metadata  # slow to import: only when plugins are looked for

    return list(metadata.entry_points(group=group))
