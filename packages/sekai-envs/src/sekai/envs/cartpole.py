"""CartPole-v1, kept at its first import path (see `sekai.envs.classic_control.cartpole`)."""

from __future__ import annotations

from sekai.envs.classic_control.cartpole import (
    FORCE_MAG as FORCE_MAG,
    GRAVITY as GRAVITY,
    HALF_LENGTH as HALF_LENGTH,
    MASS_CART as MASS_CART,
    MASS_POLE as MASS_POLE,
    POLE_MASS_LENGTH as POLE_MASS_LENGTH,
    RESET_HIGH as RESET_HIGH,
    RESET_LOW as RESET_LOW,
    TAU as TAU,
    THETA_THRESHOLD as THETA_THRESHOLD,
    TOTAL_MASS as TOTAL_MASS,
    X_THRESHOLD as X_THRESHOLD,
    CartPoleEnv,
    cartpole_reset_bounds,
)

__all__ = ["CartPoleEnv", "cartpole_reset_bounds"]
