"""Observation and action spaces, and the utilities that operate on them."""

__all__: list[str] = []
