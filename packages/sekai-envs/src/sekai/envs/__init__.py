"""Reference environments: classic control and financial-market tasks."""

__all__: list[str] = []
