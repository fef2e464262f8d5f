"""An adapter's renderer: the one passed, or the env's default (``metadata["renderer"]``)."""

from __future__ import annotations

import pkgutil
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

__all__ = [
    "RendererLike",
    "Rendering",
    "close_if_owned",
    "declared_render_modes",
    "resolve_renderer",
]


class RendererLike(Protocol):
    """Anything with ``render(env)``, e.g. a ``sekai.rendering.Renderer``."""

    def render(self, env: Any) -> Any:
        """Return a frame of ``env``'s current state."""
        ...


class Rendering(NamedTuple):
    """How an adapter renders: what `resolve_renderer` decided."""

    renderer: RendererLike | None
    """The object whose ``render(env)`` gives the frames, or ``None``."""
    render_mode: str | None
    """The render mode in use, or ``None`` (``render()`` returns ``None``)."""
    render_modes: list[str]
    """What the adapter's ``metadata["render_modes"]`` lists: the mode in use, if any."""
    owned: bool
    """The adapter built the renderer (the env's default one), so it closes it."""


def _metadata(env: Any) -> Mapping[str, Any]:
    metadata = getattr(getattr(env, "unwrapped", env), "metadata", None)
    return metadata if isinstance(metadata, Mapping) else {}


def _name(env: Any) -> str:
    name = type(getattr(env, "unwrapped", env)).__name__
    spec = getattr(env, "spec", None)
    env_id = getattr(spec, "id", None)
    return f"{env_id} ({name})" if isinstance(env_id, str) else name


def declared_render_modes(env: Any) -> list[str]:
    """The modes of the default renderer ``env`` declares; ``[]`` when it declares none.

    Read from the base env's ``metadata``: ``"render_modes"``, or
    ``["rgb_array"]`` when only ``"renderer"`` is set.
    """
    metadata = _metadata(env)
    if metadata.get("renderer") is None:
        return []
    return [str(mode) for mode in metadata.get("render_modes", ["rgb_array"])]


def _default_renderer(owner: str, env: Any, render_mode: str) -> RendererLike:
    """Build the renderer ``env``'s base env names in ``metadata["renderer"]``."""
    name = _name(env)
    factory = _metadata(env).get("renderer")
    if factory is None:
        raise ValueError(
            f"{owner}: render_mode={render_mode!r} needs a renderer, and {name} declares no "
            "default one (metadata['renderer']); pass renderer=..., an object with render(env)"
        )
    modes = declared_render_modes(env)
    if render_mode not in modes:
        raise ValueError(
            f"{owner}: render_mode={render_mode!r} is not a mode of {name}'s default renderer, "
            f"which has {modes}; pass renderer=... for other modes"
        )
    if isinstance(factory, str):
        try:
            # Imported now, not with the env: drawing libraries load only when asked for.
            factory = pkgutil.resolve_name(factory)
        except ValueError as error:
            raise ValueError(
                f"{owner}: {name}'s metadata['renderer'] must be a 'module:Class' string or a "
                f"callable, got {factory!r}"
            ) from error
    if not callable(factory):
        raise TypeError(
            f"{owner}: {name}'s metadata['renderer'] must name a callable that builds a "
            f"renderer, got {factory!r}"
        )
    renderer = factory()
    if not callable(getattr(renderer, "render", None)):
        raise TypeError(
            f"{owner}: {name}'s default renderer has no render(env) method, got {renderer!r}"
        )
    return renderer  # type: ignore[no-any-return]


def resolve_renderer(owner: str, env: Any, renderer: Any, render_mode: str | None) -> Rendering:
    """Decide an adapter's renderer and render mode.

    - With a ``renderer`` (it needs a ``render(env)`` method), the mode
      defaults to ``"rgb_array"``.
    - Without one, a ``render_mode`` builds the default renderer named by
      ``metadata["renderer"]`` of ``env.unwrapped``: a ``"module:Class"``
      string, imported now, or a callable; either is called with no
      arguments. The mode must be one of its modes (`declared_render_modes`).
    - ``render_modes`` lists the mode in use alone (empty without one), so
      that Gymnasium's checker renders only envs that were asked to render
      (it remakes the env in every listed mode, which would need the
      drawing library).

    Raises:
        ValueError: ``render_mode`` is given without a renderer and the env
            declares no default one (or one without that mode).
        TypeError: ``renderer`` (or the default one) has no ``render`` method.
        ImportError: The default renderer's module (or its drawing library)
            is not installed.
    """
    if renderer is not None:
        if not callable(getattr(renderer, "render", None)):
            raise TypeError(f"{owner}: renderer must have a render(env) method, got {renderer!r}")
        mode = "rgb_array" if render_mode is None else render_mode
        return Rendering(renderer, mode, [mode], owned=False)
    if render_mode is None:
        return Rendering(None, None, [], owned=False)
    default = _default_renderer(owner, env, render_mode)
    return Rendering(default, render_mode, [render_mode], owned=True)


def close_if_owned(rendering: Rendering) -> None:
    """Close the renderer if the adapter built it; one passed in belongs to the caller."""
    close = getattr(rendering.renderer, "close", None)
    if rendering.owned and callable(close):
        close()
