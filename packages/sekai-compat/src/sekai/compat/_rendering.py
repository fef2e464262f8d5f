"""The structural type of the renderers the adapters accept."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["RendererLike"]


class RendererLike(Protocol):
    """Anything with ``render(env)``, e.g. a ``sekai.rendering.Renderer``."""

    def render(self, env: Any) -> Any:
        """Return a frame of ``env``'s current state."""
        ...
