"""Adapters between sekai and Gymnasium / PettingZoo."""

__all__: list[str] = []
