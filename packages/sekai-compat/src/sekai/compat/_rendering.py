"""The structural type of the renderers the adapters accept."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["RendererLike", "check_renderer"]


class RendererLike(Protocol):
    """Anything with ``render(env)``, e.g. a ``sekai.rendering.Renderer``."""

    def render(self, env: Any) -> Any:
        """Return a frame of ``env``'s current state."""
        ...


def check_renderer(owner: str, renderer: Any, render_mode: str | None) -> str | None:
    """Validate an adapter's ``renderer`` / ``render_mode`` pair; return the render mode.

    A render mode needs a renderer; a renderer needs a ``render(env)`` method and
    makes the mode default to ``"rgb_array"``.

    Raises:
        ValueError: ``render_mode`` is given without a renderer.
        TypeError: ``renderer`` has no ``render`` method.
    """
    if renderer is None and render_mode is not None:
        raise ValueError(
            f"{owner}: render_mode={render_mode!r} needs a renderer (an object with "
            "render(env)), got renderer=None"
        )
    if renderer is not None and not callable(getattr(renderer, "render", None)):
        raise TypeError(f"{owner}: renderer must have a render(env) method, got {renderer!r}")
    if renderer is not None and render_mode is None:
        return "rgb_array"
    return render_mode
