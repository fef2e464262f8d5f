"""CartPole-v1's native vector env, kept at its first import path.

See `sekai.envs.classic_control.cartpole_vector`.
"""

from __future__ import annotations

from sekai.envs.classic_control.cartpole_vector import CartPoleVecEnv

__all__ = ["CartPoleVecEnv"]
