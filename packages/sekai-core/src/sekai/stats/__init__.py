"""Typed episode statistics and the trackers that collect them."""

__all__: list[str] = []
