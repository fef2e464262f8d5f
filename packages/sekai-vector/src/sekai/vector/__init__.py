"""Vectorised environments: Sync, Async, Proc and native batched backends."""

__all__: list[str] = []
