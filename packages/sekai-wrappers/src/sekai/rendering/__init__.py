"""Rendering: the Renderer protocol and frame recording."""

__all__: list[str] = []
