"""Environment base classes, wrapper base classes and result types."""

__all__: list[str] = []
