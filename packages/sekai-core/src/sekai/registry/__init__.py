"""The environment registry: ids, specs, make and make_vec."""

__all__: list[str] = []
