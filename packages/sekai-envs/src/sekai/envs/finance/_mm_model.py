"""The Avellaneda & Stoikov (2008) market-making model (private).

One description of the model, shared by [`MarketMakingEnv`][sekai.envs.MarketMakingEnv]
and its native vector env, so that both run the same arithmetic in the same
floating-point order:

- `MarketMakingConfig` checks the constructor arguments once and holds
  the constants a step needs;
- `draw_session` draws a session's randomness (fill uniforms, mid moves) from
  a generator, in the one order both envs use;
- `avellaneda_stoikov_offsets` is the paper's closed-form (approximate)
  optimal quotes;
- `fill_probability` is the chance that a quote fills within a step.

Every function takes Python floats or numpy arrays alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_int, check_real
from sekai.error import InvalidAction
from sekai.spaces import Box

__all__ = [
    "MarketMakingConfig",
    "avellaneda_stoikov_offsets",
    "checked_offsets",
    "draw_session",
    "fill_probability",
]

_T = TypeVar("_T", float, NDArray[np.float64])


@dataclass(frozen=True)
class MarketMakingConfig:
    """The checked parameters of a MarketMaking-v0 simulation and its step constants.

    Attributes mirror the env's constructor (``A`` is ``fill_intensity``, ``k``
    is ``fill_decay``); the others are derived: ``dt = total_time / n_steps``,
    ``move_scale = sigma * sqrt(dt)`` (the size of a mid move, up or down),
    ``penalty_scale = 0.5 * risk_aversion * sigma**2 * dt`` (the running
    inventory penalty per unit of squared inventory) and ``half_spread_floor``
    ``= log(1 + risk_aversion / k) / risk_aversion`` (``1 / k`` when
    ``risk_aversion`` is 0).
    """

    s0: float
    sigma: float
    total_time: float
    n_steps: int
    A: float
    k: float
    risk_aversion: float
    max_inventory: int
    order_size: int
    max_offset: float

    @classmethod
    def checked(
        cls,
        owner: str,
        *,
        s0: Any,
        sigma: Any,
        total_time: Any,
        n_steps: Any,
        fill_intensity: Any,
        fill_decay: Any,
        risk_aversion: Any,
        max_inventory: Any,
        order_size: Any,
        max_offset: Any,
    ) -> MarketMakingConfig:
        """Check the constructor arguments of ``owner`` and build the config.

        Raises:
            TypeError: An argument has the wrong type.
            ValueError: An argument is out of range.
        """
        size = check_int(order_size, f"{owner}: order_size", minimum=1)
        limit = check_int(max_inventory, f"{owner}: max_inventory", minimum=size)
        return cls(
            s0=check_real(s0, f"{owner}: s0"),
            sigma=check_real(sigma, f"{owner}: sigma", minimum=0.0),
            total_time=check_real(total_time, f"{owner}: total_time", minimum=0.0, min_open=True),
            n_steps=check_int(n_steps, f"{owner}: n_steps", minimum=1),
            A=check_real(fill_intensity, f"{owner}: fill_intensity", minimum=0.0),
            k=check_real(fill_decay, f"{owner}: fill_decay", minimum=0.0, min_open=True),
            risk_aversion=check_real(risk_aversion, f"{owner}: risk_aversion", minimum=0.0),
            max_inventory=limit,
            order_size=size,
            max_offset=check_real(max_offset, f"{owner}: max_offset", minimum=0.0, min_open=True),
        )

    @property
    def dt(self) -> float:
        """The length of one step, ``total_time / n_steps``."""
        return self.total_time / self.n_steps

    @property
    def move_scale(self) -> float:
        """The size of the mid's move over one step, ``sigma * sqrt(dt)`` (up or down)."""
        return self.sigma * math.sqrt(self.dt)

    @property
    def penalty_scale(self) -> float:
        """``0.5 * risk_aversion * sigma**2 * dt``: the step's penalty per squared unit held."""
        return 0.5 * self.risk_aversion * self.sigma * self.sigma * self.dt

    @property
    def half_spread_floor(self) -> float:
        """``log(1 + gamma / k) / gamma``: half the closed-form spread without its time term."""
        gamma = self.risk_aversion
        return math.log1p(gamma / self.k) / gamma if gamma > 0.0 else 1.0 / self.k

    def observation_space(self) -> Box:
        """``Box([-1, 0], [1, 1])``: inventory / max_inventory, fraction of the session left."""
        return Box(
            np.array([-1.0, 0.0], dtype=np.float32),
            np.array([1.0, 1.0], dtype=np.float32),
            dtype=np.float32,
        )

    def action_space(self) -> Box:
        """``Box(0, max_offset, (2,))``: the bid's and the ask's distance from the mid."""
        return Box(0.0, self.max_offset, (2,), np.float32)


def avellaneda_stoikov_offsets(
    inventory: _T,
    time_remaining: _T,
    config: MarketMakingConfig,
    *,
    spread_time_term: bool = False,
) -> tuple[_T, _T]:
    """The paper's approximate optimal distances of the bid and the ask from the mid.

    With ``q`` the inventory, ``tau = T - t`` the time left and ``gamma`` the
    risk aversion, the reservation price is ``r = s - q gamma sigma**2 tau``
    (equation (29) of the paper) and the quotes sit half a spread either side
    of it, so their distances from the mid ``s`` are ``half + q gamma sigma**2
    tau`` (bid) and ``half - q gamma sigma**2 tau`` (ask). The spread is
    ``(2 / gamma) log(1 + gamma / k)``, as in the paper's simulations (its
    table gives this strategy's spread as 1.29 for the default parameters),
    or with ``spread_time_term`` equation (30)'s ``gamma sigma**2 tau + (2 /
    gamma) log(1 + gamma / k)``. Not clipped: a large inventory gives a
    negative distance.
    """
    risk = config.risk_aversion * config.sigma * config.sigma * time_remaining
    skew = inventory * risk
    if spread_time_term:
        half = 0.5 * risk + config.half_spread_floor
        return half + skew, half - skew
    floor = config.half_spread_floor
    return floor + skew, floor - skew


def draw_session(
    rng: np.random.Generator, n_steps: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """A session's randomness: fill uniforms ``(n_steps, 2)`` and mid moves ``(n_steps,)``.

    Column 0 of the uniforms decides the bid's fills, column 1 the ask's (a
    side fills when its uniform is below its `fill_probability`); a move is
    ``+1`` or ``-1`` with probability 1/2 each (the paper's binomial walk, in
    units of ``move_scale``). Both envs draw in this order, so that a sub-env
    of the native vector env replays the single env's session for the same
    seed.
    """
    uniforms = rng.random((n_steps, 2))
    moves = np.where(rng.random(n_steps) < 0.5, 1.0, -1.0)
    return uniforms, moves


def fill_probability(offset: _T, config: MarketMakingConfig) -> _T:
    """``min(1, A exp(-k offset) dt)``: the chance a quote at ``offset`` fills within a step."""
    probability: Any = np.minimum(config.A * np.exp(-config.k * offset) * config.dt, 1.0)
    return probability  # type: ignore[no-any-return]


def checked_offsets(actions: Any, high: float, owner: str, *, batch: bool) -> NDArray[np.float64]:
    """The quotes of an action (or a batch) as float64 distances, or ``InvalidAction``.

    Args:
        actions: One action of shape ``(2,)``, or a batch ``(n, 2)`` when ``batch``.
        high: The largest distance allowed (the action space's bound).
        owner: The env's name, for the error.
        batch: Whether ``actions`` is a batch.
    """
    try:
        offsets = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError):
        offsets = None
    if (
        offsets is None
        or offsets.shape[-1:] != (2,)
        or offsets.ndim != (2 if batch else 1)
        or not bool(np.all((offsets >= 0.0) & (offsets <= high)))
    ):
        raise InvalidAction(
            f"{owner} expects the bid's and the ask's distance from the mid, 2 numbers in "
            f"[0, {high:g}] per env, got {actions!r}"
        )
    return offsets
