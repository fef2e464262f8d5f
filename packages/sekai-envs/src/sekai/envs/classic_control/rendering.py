"""Renderers of the classic-control envs: RGB frames drawn on a `sekai.rendering.Canvas`.

Each renderer is a [`sekai.rendering.BaseRenderer`][sekai.rendering.BaseRenderer]:
``render(env)`` draws the current state of ``env`` (wrapped or not; the
renderer reads ``env.unwrapped``) and returns an ``(height, width, 3)``
``uint8`` RGB array; ``close()`` releases nothing and may be called twice.
Pass one to [`sekai.rendering.RecordFrames`][sekai.rendering.RecordFrames] to record episodes. Each
env names its renderer as its default one (``metadata["renderer"]``), so
[`sekai.compat.to_gymnasium`][sekai.compat.to_gymnasium] with ``render_mode="rgb_array"``
draws with it.

Drawing needs ``sekai.rendering`` (the sekai-wrappers distribution) and
Pillow, which the ``sekai-envs[render]`` distribution brings. This module is
imported when a renderer is asked for; a renderer is built only with Pillow,
and an ``ImportError`` saying what to install is raised otherwise.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

try:
    from sekai.rendering import BaseRenderer, Canvas, rotate
except ImportError as error:  # pragma: no cover (sekai-wrappers is missing)
    raise ModuleNotFoundError(
        "sekai.envs.classic_control.rendering draws with sekai.rendering (the sekai-wrappers "
        "distribution) and Pillow; install the sekai-envs[render] distribution, which brings "
        "them (or sekai-wrappers[render])"
    ) from error

from sekai._internal.validation import check_int
from sekai.core import Env
from sekai.error import ResetRequired
from sekai.finance._renamed import either

__all__ = ["AcrobotRenderer", "CartPoleRenderer", "MountainCarRenderer", "PendulumRenderer"]

Point = tuple[float, float]
Color = tuple[int, int, int]

_WHITE: Color = (255, 255, 255)
_BLACK: Color = (0, 0, 0)
_GREY: Color = (160, 160, 160)
_POLE: Color = (202, 152, 101)
_AXLE: Color = (129, 132, 203)
_ROD: Color = (204, 77, 77)
_LINK: Color = (0, 204, 204)
_FLAG: Color = (204, 204, 0)


def _placed(points: ArrayLike, angle: float, at: Point) -> NDArray[np.float64]:
    """``points`` turned by ``angle`` about the origin (``rotate``), then moved to ``at``."""
    placed: NDArray[np.float64] = rotate(points, angle) + np.asarray(at, dtype=np.float64)
    return placed


def _rectangle(x0: float, y0: float, x1: float, y1: float) -> list[Point]:
    """The corners of the rectangle from ``(x0, y0)`` to ``(x1, y1)``, counterclockwise."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


class _ClassicRenderer(BaseRenderer):
    """A frame of ``width`` x ``height`` pixels in world coordinates (y up), drawn on a Canvas.

    Frames are antialiased (the canvas draws at twice the size and halves the result).
    """

    _owner = "Renderer"

    def __init__(self, width: int, height: int, *, width_name: str = "width") -> None:
        self.width = check_int(width, f"{self._owner}: {width_name}", minimum=16)
        self.height = check_int(height, f"{self._owner}: height", minimum=16)
        try:
            Canvas(1, 1)  # fails early when Pillow is missing
        except ImportError as error:
            raise ImportError(
                f"{self._owner} draws with Pillow; install the sekai-envs[render] distribution "
                "(or `pip install pillow`)"
            ) from error
        self.closed = False
        # Set by _frame for each drawing: pixels per world unit and the world origin.
        self._scale = 1.0
        self._origin: Point = (0.0, 0.0)
        self._canvas: Any = None  # the Canvas being drawn on, during render

    def render(self, env: Env[Any, Any]) -> NDArray[np.uint8]:
        """Draw ``env``'s current state.

        Returns:
            An ``(height, width, 3)`` ``uint8`` RGB array.

        Raises:
            ResetRequired: The env has not been reset yet.
            TypeError: ``env`` is not the env this renderer draws.
        """
        canvas = Canvas(self.width, self.height, _WHITE, antialias=True)
        self._canvas = canvas
        try:
            self._draw(env.unwrapped)
        finally:
            self._canvas = None
        return canvas.to_array()

    def close(self) -> None:
        """Nothing to release; marks the renderer closed (safe to call twice)."""
        self.closed = True

    def __repr__(self) -> str:
        return f"{type(self).__name__}(width={self.width}, height={self.height})"

    # -- drawing ------------------------------------------------------------------------

    def _draw(self, env: Any) -> None:
        raise NotImplementedError

    def _state(self, env: Any, kind: type) -> NDArray[np.float64]:
        if not isinstance(env, kind):
            raise TypeError(f"{self._owner} draws a {kind.__name__}, got {env!r}")
        state = getattr(env, "state", None)
        if state is None:
            raise ResetRequired(f"{self._owner}: reset the env before rendering it")
        return np.asarray(state, dtype=np.float64)

    def _frame(self, scale: float, origin: Point) -> None:
        """World to pixels: ``scale`` pixels per unit; ``origin`` in pixels from the bottom left."""
        self._scale = scale
        self._origin = origin

    def _centred_frame(self, bound: float) -> None:
        """The world's origin at the centre, ``±bound`` units filling the shorter side."""
        self._frame(min(self.width, self.height) / (2 * bound), (self.width / 2, self.height / 2))

    def _pixels(self, points: ArrayLike) -> NDArray[np.float64]:
        """World points (shape ``(n, 2)``) as canvas pixels."""
        pixels: NDArray[np.float64] = np.asarray(points, dtype=np.float64) * self._scale
        pixels += self._origin
        return pixels

    def _polygon(self, points: ArrayLike, color: Color) -> None:
        self._canvas.polygon(self._pixels(points), color)

    def _line(self, points: ArrayLike, color: Color, width: float) -> None:
        self._canvas.polyline(self._pixels(points), color, width * self._scale)

    def _disc(self, center: Point, radius: float, color: Color) -> None:
        x, y = self._pixels(center)
        self._canvas.circle(float(x), float(y), radius * self._scale, color)

    def _bar(self, start: Point, end: Point, width: float, color: Color) -> None:
        """A rectangle of ``width`` from ``start`` to ``end``, with round ends."""
        (x0, y0), (x1, y1) = start, end
        length = math.hypot(x1 - x0, y1 - y0)
        angle = math.atan2(y1 - y0, x1 - x0)
        half = width / 2
        self._polygon(_placed(_rectangle(0, -half, length, half), angle, start), color)
        self._disc(start, half, color)
        self._disc(end, half, color)


class CartPoleRenderer(_ClassicRenderer):
    """Draws a [`CartPoleEnv`][sekai.envs.CartPoleEnv]: the cart on its track and the pole.

    The visible track spans ``±2 * x_threshold`` (the observation bounds);
    the pole is drawn with its full length (``2 * length``).

    Args:
        width: Frame width in pixels (>= 16).
        height: Frame height in pixels (>= 16).

    Raises:
        TypeError: ``width`` or ``height`` is not an int.
        ValueError: ``width`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "CartPoleRenderer"

    def __init__(self, width: int = 600, height: int = 400) -> None:
        super().__init__(width, height)

    def _draw(self, env: Any) -> None:
        from sekai.envs.classic_control.cartpole import CartPoleEnv

        x, _, theta, _ = self._state(env, CartPoleEnv)
        span = 4 * float(env.x_threshold)
        self._frame(self.width / span, (self.width / 2, self.height / 4))
        cart_width, cart_height = 0.4 * span / 4.8, 0.24 * span / 4.8
        self._line([(-span / 2, 0.0), (span / 2, 0.0)], _BLACK, 0.01 * span / 4.8)
        self._polygon(_rectangle(x - cart_width / 2, 0.0, x + cart_width / 2, cart_height), _BLACK)
        axle = (x, 0.75 * cart_height)
        pole = 2 * float(env.length)
        tip = (axle[0] + pole * math.sin(theta), axle[1] + pole * math.cos(theta))
        self._bar(axle, tip, 0.08 * span / 4.8, _POLE)
        self._disc(axle, 0.04 * span / 4.8, _AXLE)


class MountainCarRenderer(_ClassicRenderer):
    """Draws a [`MountainCarEnv`][sekai.envs.MountainCarEnv] or ``ContinuousMountainCarEnv``.

    The track ``0.45 sin(3x) + 0.55``, the car on it (tilted with the
    slope) and the flag at ``goal_position``.

    Args:
        width: Frame width in pixels (>= 16).
        height: Frame height in pixels (>= 16).

    Raises:
        TypeError: ``width`` or ``height`` is not an int.
        ValueError: ``width`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "MountainCarRenderer"

    def __init__(self, width: int = 600, height: int = 400) -> None:
        super().__init__(width, height)

    def _draw(self, env: Any) -> None:
        from sekai.envs.classic_control.continuous_mountain_car import ContinuousMountainCarEnv
        from sekai.envs.classic_control.mountain_car import MountainCarEnv, height

        kind = (
            ContinuousMountainCarEnv
            if isinstance(env, ContinuousMountainCarEnv)
            else MountainCarEnv
        )
        position = float(self._state(env, kind)[0])
        low, high = float(env.min_position), float(env.max_position)
        self._frame(self.width / (high - low), (-low * self.width / (high - low), 0.0))
        unit = (high - low) / 1.8  # sizes below are for the default track
        xs = np.linspace(low, high, 100)
        self._line(list(zip(xs.tolist(), height(xs).tolist(), strict=True)), _BLACK, 0.005 * unit)
        goal = float(env.goal_position)
        base = float(height(goal))
        self._line([(goal, base), (goal, base + 0.15 * unit)], _BLACK, 0.004 * unit)
        self._polygon(
            [
                (goal, base + 0.15 * unit),
                (goal, base + 0.11 * unit),
                (goal + 0.075 * unit, base + 0.13 * unit),
            ],
            _FLAG,
        )
        # The car: a body tilted with the track, on two wheels.
        angle = math.atan(1.35 * math.cos(3 * position))
        lift = 0.033 * unit
        ground = (position, float(height(position)))
        body_w, body_h = 0.12 * unit, 0.06 * unit
        body = _rectangle(-body_w / 2, lift, body_w / 2, lift + body_h)
        self._polygon(_placed(body, angle, ground), _BLACK)
        for wheel in _placed([(-body_w / 3, lift), (body_w / 3, lift)], angle, ground):
            self._disc(wheel, 0.025 * unit, _GREY)


class _SquareRenderer(_ClassicRenderer):
    """A square frame by default: ``size`` (sekai 0.2's argument) is its width and height.

    ``height`` gives another height, ``width=`` names the width as the other
    renderers do (the same argument as ``size``).
    """

    def __init__(
        self, size: int | None = None, height: int | None = None, *, width: int | None = None
    ) -> None:
        side = either(self._owner, "size", size, "width", width)
        name = "width" if width is not None else "size"
        side = 500 if side is None else side
        super().__init__(side, side if height is None else height, width_name=name)


class PendulumRenderer(_SquareRenderer):
    """Draws a [`PendulumEnv`][sekai.envs.PendulumEnv]: the rod, its pivot and the torque.

    The last step's torque is shown as an arc around the pivot, its length
    proportional to the torque, its side the torque's direction.

    Args:
        size: Frame width, and height unless ``height`` is given, in pixels
            (>= 16); 500 by default.
        height: Frame height in pixels (>= 16), if not ``size``.
        width: Another name of ``size``.

    Raises:
        TypeError: ``size`` or ``height`` is not an int, or both ``size``
            and ``width`` are given.
        ValueError: ``size`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "PendulumRenderer"

    def _draw(self, env: Any) -> None:
        from sekai.envs.classic_control.pendulum import PendulumEnv

        theta = float(self._state(env, PendulumEnv)[0])
        self._centred_frame(1.3)
        tip = (-math.sin(theta), math.cos(theta))  # θ = 0 points up, counterclockwise
        self._bar((0.0, 0.0), tip, 0.16, _ROD)
        torque = env.last_u
        if torque is not None and float(torque) != 0.0:
            share = max(-1.0, min(1.0, float(torque) / float(env.max_torque)))
            start = theta + math.pi / 2
            sweep = [start + share * math.pi * k / 20 for k in range(21)]
            arc = [(0.45 * math.cos(a), 0.45 * math.sin(a)) for a in sweep]
            self._line(arc, _BLACK, 0.025)
            end, before = sweep[-1], sweep[-2]
            direction = 1.0 if end > before else -1.0
            head = (0.45 * math.cos(end), 0.45 * math.sin(end))
            along = (-math.sin(end) * direction, math.cos(end) * direction)
            across = (math.cos(end), math.sin(end))
            self._polygon(
                [
                    (head[0] + 0.08 * along[0], head[1] + 0.08 * along[1]),
                    (head[0] + 0.05 * across[0], head[1] + 0.05 * across[1]),
                    (head[0] - 0.05 * across[0], head[1] - 0.05 * across[1]),
                ],
                _BLACK,
            )
        self._disc((0.0, 0.0), 0.04, _BLACK)


class AcrobotRenderer(_SquareRenderer):
    """Draws an [`AcrobotEnv`][sekai.envs.AcrobotEnv]: both links and the goal line.

    The goal line is at height 1 above the pivot, the height the tip must
    pass (``-cos θ1 - cos(θ1 + θ2) > 1``).

    Args:
        size: Frame width, and height unless ``height`` is given, in pixels
            (>= 16); 500 by default.
        height: Frame height in pixels (>= 16), if not ``size``.
        width: Another name of ``size``.

    Raises:
        TypeError: ``size`` or ``height`` is not an int, or both ``size``
            and ``width`` are given.
        ValueError: ``size`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "AcrobotRenderer"

    def _draw(self, env: Any) -> None:
        from sekai.envs.classic_control.acrobot import AcrobotEnv

        theta1, theta2 = (float(v) for v in self._state(env, AcrobotEnv)[:2])
        l1, l2 = float(env.LINK_LENGTH_1), float(env.LINK_LENGTH_2)
        bound = l1 + l2 + 0.2
        self._centred_frame(bound)
        self._line([(-bound, 1.0), (bound, 1.0)], _BLACK, 0.02)
        elbow = (l1 * math.sin(theta1), -l1 * math.cos(theta1))
        tip = (
            elbow[0] + l2 * math.sin(theta1 + theta2),
            elbow[1] - l2 * math.cos(theta1 + theta2),
        )
        self._bar((0.0, 0.0), elbow, 0.2, _LINK)
        self._bar(elbow, tip, 0.2, _LINK)
        self._disc((0.0, 0.0), 0.1, _FLAG)
        self._disc(elbow, 0.1, _FLAG)
