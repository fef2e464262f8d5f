"""Wrappers that change observations, actions, rewards and episode control."""

__all__: list[str] = []
