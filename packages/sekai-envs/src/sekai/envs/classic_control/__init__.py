"""Classic control: CartPole, MountainCar, MountainCarContinuous, Pendulum and Acrobot.

Each task reproduces Gymnasium's environment of the same id step for step
(bit-identical observations, rewards and flags from the same seed and
actions) and has a native vector env that gives the same trajectories as
``SyncVecEnv`` over the single env, with every sub-env simulated in numpy
arrays. The renderers of `sekai.envs.classic_control.rendering` draw them
(the ``sekai-envs[render]`` distribution brings Pillow).

Environments (id: single env / native vector env / renderer):

- ``CartPole-v1``: `CartPoleEnv` / `CartPoleVecEnv` /
  `CartPoleRenderer`;
- ``MountainCar-v0``: `MountainCarEnv` / `MountainCarVecEnv` /
  `MountainCarRenderer`;
- ``MountainCarContinuous-v0``: `ContinuousMountainCarEnv` /
  `ContinuousMountainCarVecEnv` / `MountainCarRenderer`;
- ``Pendulum-v1``: `PendulumEnv` / `PendulumVecEnv` /
  `PendulumRenderer`;
- ``Acrobot-v1``: `AcrobotEnv` / `AcrobotVecEnv` /
  `AcrobotRenderer`.

Importing this package is cheap: each class is imported on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sekai.envs.classic_control.acrobot import AcrobotEnv as AcrobotEnv
    from sekai.envs.classic_control.acrobot_vector import AcrobotVecEnv as AcrobotVecEnv
    from sekai.envs.classic_control.cartpole import CartPoleEnv as CartPoleEnv
    from sekai.envs.classic_control.cartpole_vector import CartPoleVecEnv as CartPoleVecEnv
    from sekai.envs.classic_control.continuous_mountain_car import (
        ContinuousMountainCarEnv as ContinuousMountainCarEnv,
    )
    from sekai.envs.classic_control.continuous_mountain_car_vector import (
        ContinuousMountainCarVecEnv as ContinuousMountainCarVecEnv,
    )
    from sekai.envs.classic_control.mountain_car import MountainCarEnv as MountainCarEnv
    from sekai.envs.classic_control.mountain_car_vector import (
        MountainCarVecEnv as MountainCarVecEnv,
    )
    from sekai.envs.classic_control.pendulum import PendulumEnv as PendulumEnv
    from sekai.envs.classic_control.pendulum_vector import PendulumVecEnv as PendulumVecEnv
    from sekai.envs.classic_control.rendering import (
        AcrobotRenderer as AcrobotRenderer,
        CartPoleRenderer as CartPoleRenderer,
        MountainCarRenderer as MountainCarRenderer,
        PendulumRenderer as PendulumRenderer,
    )

__all__ = [
    "AcrobotEnv",
    "AcrobotRenderer",
    "AcrobotVecEnv",
    "CartPoleEnv",
    "CartPoleRenderer",
    "CartPoleVecEnv",
    "ContinuousMountainCarEnv",
    "ContinuousMountainCarVecEnv",
    "MountainCarEnv",
    "MountainCarRenderer",
    "MountainCarVecEnv",
    "PendulumEnv",
    "PendulumRenderer",
    "PendulumVecEnv",
]

_LAZY: dict[str, str] = {
    "AcrobotEnv": "acrobot",
    "AcrobotVecEnv": "acrobot_vector",
    "CartPoleEnv": "cartpole",
    "CartPoleVecEnv": "cartpole_vector",
    "ContinuousMountainCarEnv": "continuous_mountain_car",
    "ContinuousMountainCarVecEnv": "continuous_mountain_car_vector",
    "MountainCarEnv": "mountain_car",
    "MountainCarVecEnv": "mountain_car_vector",
    "PendulumEnv": "pendulum",
    "PendulumVecEnv": "pendulum_vector",
    "AcrobotRenderer": "rendering",
    "CartPoleRenderer": "rendering",
    "MountainCarRenderer": "rendering",
    "PendulumRenderer": "rendering",
}


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
