"""The Renderer protocol: objects that draw an environment's current state."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol, runtime_checkable

from sekai.core import Env

__all__ = ["Renderer"]


@runtime_checkable
class Renderer(Protocol):
    """Draws the current state of an environment as a frame.

    Rendering is not a method of :class:`~sekai.core.Env` in sekai: a renderer
    is a separate object, injected where frames are needed (e.g.
    :class:`~sekai.rendering.RecordFrames`), so one environment can be drawn
    in several ways and an environment never pays for a display it does not
    use. A renderer reads what it needs from the env it is given (attribute
    reads go through wrappers to the base env).

    Any object with these methods is a renderer (``isinstance`` checks
    work); subclassing ``Renderer`` explicitly inherits the context-manager
    methods, which call :meth:`close` on exit::

        class PriceChart(Renderer):
            def render(self, env):
                return draw(env.unwrapped.prices)  # an (H, W, 3) uint8 array

            def close(self):
                ...
    """

    def render(self, env: Env[Any, Any]) -> Any:
        """Return a frame of ``env``'s current state.

        Frames are usually RGB images, ``uint8`` arrays of shape ``(H, W, 3)``
        (what :class:`~sekai.rendering.RecordFrames` writes as images), but a
        renderer may return anything its consumer understands.
        """
        ...

    def close(self) -> None:
        """Release the renderer's resources (windows, figures, files). Safe to call twice."""
        ...

    def __enter__(self) -> Renderer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
