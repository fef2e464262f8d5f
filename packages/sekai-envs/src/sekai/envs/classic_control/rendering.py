"""Renderers of the classic-control envs: RGB frames drawn with Pillow.

Each renderer implements the [`sekai.rendering.Renderer`][sekai.rendering.Renderer] protocol:
``render(env)`` draws the current state of ``env`` (wrapped or not; the
renderer reads ``env.unwrapped``) and returns an ``(height, width, 3)``
``uint8`` RGB array; ``close()`` releases nothing and may be called twice.
Pass one to [`sekai.rendering.RecordFrames`][sekai.rendering.RecordFrames] to record episodes, or to
[`sekai.compat.to_gymnasium`][sekai.compat.to_gymnasium] to give the Gymnasium env an
``"rgb_array"`` render mode.

Drawing needs Pillow, which the ``sekai-envs[render]`` distribution brings. It is imported
when a renderer is built, which raises an ``ImportError`` saying so when
Pillow is missing.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from types import ModuleType, TracebackType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_int
from sekai.core import Env
from sekai.error import ResetRequired

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
_SUPERSAMPLE = 2  # drawn at twice the size, then downscaled: smooth edges


def _pillow(owner: str) -> tuple[ModuleType, ModuleType]:
    """Import ``PIL.Image`` and ``PIL.ImageDraw``, or raise an ImportError naming the extra."""
    try:
        return importlib.import_module("PIL.Image"), importlib.import_module("PIL.ImageDraw")
    except ImportError as error:
        raise ImportError(
            f"{owner} draws with Pillow; install the sekai-envs[render] distribution "
            "(or `pip install pillow`)"
        ) from error


def _rotate(points: Sequence[Point], angle: float) -> list[Point]:
    """``points`` turned counterclockwise by ``angle`` radians about the origin (y up)."""
    cos, sin = math.cos(angle), math.sin(angle)
    return [(x * cos - y * sin, x * sin + y * cos) for x, y in points]


def _placed(points: Sequence[Point], angle: float, at: Point) -> list[Point]:
    """``points`` turned by ``angle`` about the origin (`_rotate`), then moved to ``at``."""
    return [(at[0] + x, at[1] + y) for x, y in _rotate(points, angle)]


def _rectangle(x0: float, y0: float, x1: float, y1: float) -> list[Point]:
    """The corners of the rectangle from ``(x0, y0)`` to ``(x1, y1)``, counterclockwise."""
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


class _PillowRenderer:
    """A frame of ``width`` x ``height`` pixels in world coordinates (y up), drawn by Pillow."""

    _owner = "Renderer"

    def __init__(self, width: int, height: int) -> None:
        self.width = check_int(width, f"{self._owner}: width", minimum=16)
        self.height = check_int(height, f"{self._owner}: height", minimum=16)
        _pillow(self._owner)  # fails early when Pillow is missing
        self.closed = False
        # Set by _frame for each drawing: pixels per world unit and the world origin.
        self._scale = 1.0
        self._origin: Point = (0.0, 0.0)
        self._canvas: Any = None

    def render(self, env: Env[Any, Any]) -> NDArray[np.uint8]:
        """Draw ``env``'s current state.

        Returns:
            An ``(height, width, 3)`` ``uint8`` RGB array.

        Raises:
            ResetRequired: The env has not been reset yet.
            TypeError: ``env`` is not the env this renderer draws.
        """
        pil_image, pil_draw = _pillow(self._owner)
        size = (self.width * _SUPERSAMPLE, self.height * _SUPERSAMPLE)
        image = pil_image.new("RGB", size, _WHITE)
        self._canvas = pil_draw.Draw(image)
        try:
            self._draw(env.unwrapped)
        finally:
            self._canvas = None
        frame = image.resize((self.width, self.height), pil_image.Resampling.LANCZOS)
        pixels: NDArray[np.uint8] = np.array(frame, dtype=np.uint8)
        return pixels

    def close(self) -> None:
        """Nothing to release; marks the renderer closed (safe to call twice)."""
        self.closed = True

    def __enter__(self) -> _PillowRenderer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

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
        self._scale = scale * _SUPERSAMPLE
        self._origin = (origin[0] * _SUPERSAMPLE, origin[1] * _SUPERSAMPLE)

    def _centred_frame(self, bound: float) -> None:
        """The world's origin at the centre, ``±bound`` units filling the shorter side."""
        self._frame(min(self.width, self.height) / (2 * bound), (self.width / 2, self.height / 2))

    def _pixel(self, point: Point) -> Point:
        x, y = point
        return (
            self._origin[0] + x * self._scale,
            self.height * _SUPERSAMPLE - (self._origin[1] + y * self._scale),
        )

    def _polygon(self, points: Sequence[Point], color: Color) -> None:
        self._canvas.polygon([self._pixel(p) for p in points], fill=color)

    def _line(self, points: Sequence[Point], color: Color, width: float) -> None:
        pixels = max(1, round(width * self._scale))
        self._canvas.line([self._pixel(p) for p in points], fill=color, width=pixels)

    def _disc(self, center: Point, radius: float, color: Color) -> None:
        x, y = self._pixel(center)
        r = radius * self._scale
        self._canvas.ellipse([x - r, y - r, x + r, y + r], fill=color)

    def _bar(self, start: Point, end: Point, width: float, color: Color) -> None:
        """A rectangle of ``width`` from ``start`` to ``end``, with round ends."""
        (x0, y0), (x1, y1) = start, end
        length = math.hypot(x1 - x0, y1 - y0)
        angle = math.atan2(y1 - y0, x1 - x0)
        half = width / 2
        self._polygon(_placed(_rectangle(0, -half, length, half), angle, start), color)
        self._disc(start, half, color)
        self._disc(end, half, color)


class CartPoleRenderer(_PillowRenderer):
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


class MountainCarRenderer(_PillowRenderer):
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


class PendulumRenderer(_PillowRenderer):
    """Draws a [`PendulumEnv`][sekai.envs.PendulumEnv]: the rod, its pivot and the torque.

    The last step's torque is shown as an arc around the pivot, its length
    proportional to the torque, its side the torque's direction.

    Args:
        width: Frame width in pixels (>= 16).
        height: Frame height in pixels (>= 16).

    Raises:
        TypeError: ``width`` or ``height`` is not an int.
        ValueError: ``width`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "PendulumRenderer"

    def __init__(self, width: int = 500, height: int = 500) -> None:
        super().__init__(width, height)

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


class AcrobotRenderer(_PillowRenderer):
    """Draws an [`AcrobotEnv`][sekai.envs.AcrobotEnv]: both links and the goal line.

    The goal line is at height 1 above the pivot, the height the tip must
    pass (``-cos θ1 - cos(θ1 + θ2) > 1``).

    Args:
        width: Frame width in pixels (>= 16).
        height: Frame height in pixels (>= 16).

    Raises:
        TypeError: ``width`` or ``height`` is not an int.
        ValueError: ``width`` or ``height`` is below 16.
        ImportError: Pillow is not installed.
    """

    _owner = "AcrobotRenderer"

    def __init__(self, width: int = 500, height: int = 500) -> None:
        super().__init__(width, height)

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
