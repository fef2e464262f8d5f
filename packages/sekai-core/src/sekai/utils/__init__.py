"""Seeding, running statistics, action masking and the env checker."""

__all__: list[str] = []
