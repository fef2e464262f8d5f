"""Renderers: objects that draw an environment's current state, and the frames they return."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = ["BaseRenderer", "RenderFrame", "Renderer"]

RGBArray: TypeAlias = NDArray[np.uint8]
"""An RGB image: a ``uint8`` array of shape ``(height, width, 3)``, row 0 at the top."""

ANSIString: TypeAlias = str
"""A text frame for terminals, which may hold ANSI escape sequences (colours)."""

RenderFrame: TypeAlias = RGBArray | ANSIString
"""What a renderer returns: an RGB image (most renderers) or a text frame."""

_Self = TypeVar("_Self", bound="BaseRenderer")


@runtime_checkable
class Renderer(Protocol):
    """Draws the current state of an environment as a frame.

    Rendering is not a method of [`Env`][sekai.core.Env] in sekai: a renderer
    is a separate object, injected where frames are needed (e.g.
    [`RecordFrames`][sekai.rendering.RecordFrames]), so one environment can be drawn
    in several ways and an environment never pays for a display it does not
    use. A renderer reads what it needs from the env it is given (attribute
    reads go through wrappers to the base env).

    Any object with these methods is a renderer (``isinstance`` checks
    work); subclassing ``Renderer`` explicitly inherits the context-manager
    methods, which call `close` on exit::

        class PriceChart(Renderer):
            def render(self, env):
                return draw(env.unwrapped.prices)  # an (H, W, 3) uint8 array

            def close(self):
                ...
    """

    def render(self, env: Any) -> RenderFrame:
        """Return a frame of ``env``'s current state.

        Frames are usually RGB images, ``uint8`` arrays of shape ``(H, W, 3)``
        (what [`RecordFrames`][sekai.rendering.RecordFrames] writes as images), or
        text for terminals; a renderer may return anything its consumer
        understands.
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


class BaseRenderer:
    """A convenient base class for renderers: implement `render`, the rest is here.

    It satisfies the `Renderer` protocol: `close` does nothing
    (override it to release windows, figures or files) and ``with renderer:``
    closes the renderer on exit. [`Dashboard`][sekai.rendering.Dashboard] is one.

    Examples:
        >>> class Blank(BaseRenderer):
        ...     def render(self, env):
        ...         return np.zeros((2, 2, 3), np.uint8)
        >>> with Blank() as renderer:
        ...     renderer.render(None).shape
        (2, 2, 3)
        >>> isinstance(renderer, Renderer)
        True
    """

    def render(self, env: Any) -> RenderFrame:
        """Return a frame of ``env``'s current state (subclasses implement this).

        Raises:
            NotImplementedError: The subclass does not implement it.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement render(env)")

    def close(self) -> None:
        """Release the renderer's resources; nothing by default. Safe to call twice."""

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
