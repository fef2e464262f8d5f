"""Draw one frame of each classic-control env into the docs' assets.

Plays each env from a fixed seed with a simple controller for a fixed number
of steps (so the frame shows the task in motion, the same every run) and
writes ``docs/pages/assets/classic-<name>.png`` with the env's renderer from
``sekai.envs.classic_control.rendering``. The reference-environments guide
shows them.

Usage: ``python tools/render_classic_frames.py`` (needs Pillow:
``sekai-envs[render]``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai.registry as registry
from sekai.envs.classic_control.rendering import (
    AcrobotRenderer,
    CartPoleRenderer,
    MountainCarRenderer,
    PendulumRenderer,
)

ASSETS = Path(__file__).resolve().parents[1] / "docs" / "pages" / "assets"


def _balance(obs: np.ndarray) -> int:
    return int(obs[2] + 0.5 * obs[3] > 0)


def _with_velocity(obs: np.ndarray) -> int:
    return 2 if obs[1] >= 0 else 0


def _throttle(obs: np.ndarray) -> np.ndarray:
    return np.array([1.0 if obs[1] >= 0 else -1.0], dtype=np.float32)


def _swing(obs: np.ndarray) -> np.ndarray:
    return np.array([2.0 if obs[2] >= 0 else -2.0], dtype=np.float32)


def _pump(obs: np.ndarray) -> int:
    return 2 if obs[5] > 0 else 0


# name: (env id, renderer, controller, steps before the frame)
FRAMES: dict[str, tuple[str, Any, Callable[[np.ndarray], Any], int]] = {
    "cartpole": ("CartPole-v1", CartPoleRenderer(480, 320), _balance, 40),
    "mountain-car": ("MountainCar-v0", MountainCarRenderer(480, 320), _with_velocity, 70),
    "mountain-car-continuous": (
        "MountainCarContinuous-v0",
        MountainCarRenderer(480, 320),
        _throttle,
        45,
    ),
    "pendulum": ("Pendulum-v1", PendulumRenderer(320, 320), _swing, 27),
    "acrobot": ("Acrobot-v1", AcrobotRenderer(320, 320), _pump, 50),
}


def render(name: str) -> Path:
    """Play the env of ``name`` to its frame and write it; return the file's path."""
    from PIL import Image

    env_id, renderer, controller, steps = FRAMES[name]
    env = registry.make(env_id)
    observation = env.reset(seed=0).observation
    for _ in range(steps):
        observation = env.step(controller(observation)).observation
    path = ASSETS / f"classic-{name}.png"
    Image.fromarray(renderer.render(env)).save(path, optimize=True)
    env.close()
    return path


def main(argv: list[str]) -> int:
    ASSETS.mkdir(parents=True, exist_ok=True)
    for name in argv or sorted(FRAMES):
        print(render(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
