"""The Renderer protocol: structural checks and the inherited context manager."""

from __future__ import annotations

import numpy as np

from sekai.rendering import Renderer


class Drawn(Renderer):
    def __init__(self) -> None:
        self.closed = 0

    def render(self, env):
        return np.zeros((2, 2, 3), np.uint8)

    def close(self) -> None:
        self.closed += 1


class Structural:
    def render(self, env):
        return None

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *args) -> None:
        self.close()


class RenderOnly:
    def render(self, env):
        return None


def test_subclass_gets_a_context_manager_that_closes() -> None:
    renderer = Drawn()
    with renderer as entered:
        assert entered is renderer
    assert renderer.closed == 1


def test_isinstance_is_structural() -> None:
    assert isinstance(Drawn(), Renderer)
    assert isinstance(Structural(), Renderer)
    assert not isinstance(RenderOnly(), Renderer)
