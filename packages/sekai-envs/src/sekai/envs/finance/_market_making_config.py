"""The parameters of MarketMaking-v0, declared, defaulted and checked in one place (private).

[`MarketMakingEnv`][sekai.envs.MarketMakingEnv] spells the same parameters in
its signature (sekai 0.2's, which a test keeps equal to this class's fields);
[`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv] passes its keyword
arguments here as they come.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import InitVar, dataclass
from functools import cached_property

import numpy as np

from sekai._internal.validation import check_int, check_real
from sekai.envs.finance._kernel import config_field
from sekai.spaces import Box

__all__ = ["MarketMakingConfig", "MarketMakingParameters"]


@dataclass(frozen=True, kw_only=True)
class MarketMakingConfig:
    """The checked parameters of a MarketMaking-v0 session and the constants a step needs.

    The fields are the env's constructor arguments, with its defaults (the
    paper's simulation). Building a config checks them and turns them into
    plain ``float`` and ``int``; the errors name ``owner``, the class whose
    arguments they were.

    The derived constants are computed once per config: `dt`, `move_scale`,
    `penalty_scale`, `half_spread_floor` and `action_bound`.

    Args:
        owner: The name errors give for the class being built (not a field).

    Raises:
        TypeError: A parameter has the wrong type.
        ValueError: A parameter is out of range.
    """

    s0: float = 100.0
    """The mid-price at the start of a session."""
    sigma: float = 2.0
    """Volatility of the mid, in price units per square root of time (>= 0)."""
    total_time: float = 1.0
    """The length of a session, ``T`` (> 0)."""
    n_steps: int = 200
    """Decisions per session (>= 1)."""
    fill_intensity: float = 140.0
    """``A``: the arrival rate of the orders that reach a quote at the mid (>= 0)."""
    fill_decay: float = 1.5
    """``k``: how fast the arrival rate decays with a quote's distance from the mid (> 0)."""
    risk_aversion: float = 0.1
    """``gamma``: weighs the inventory penalty and sets the closed-form quotes (>= 0)."""
    max_inventory: int = 50
    """The largest inventory, long or short (>= order_size)."""
    order_size: int = 1
    """Units traded per fill (>= 1)."""
    max_offset: float = 5.0
    """The largest distance of a quote from the mid (> 0)."""
    owner: InitVar[str] = "MarketMakingConfig"

    def __post_init__(self, owner: str) -> None:
        size = check_int(self.order_size, f"{owner}: order_size", minimum=1)
        checked = {
            "s0": check_real(self.s0, f"{owner}: s0"),
            "sigma": check_real(self.sigma, f"{owner}: sigma", minimum=0.0),
            "total_time": check_real(
                self.total_time, f"{owner}: total_time", minimum=0.0, min_open=True
            ),
            "n_steps": check_int(self.n_steps, f"{owner}: n_steps", minimum=1),
            "fill_intensity": check_real(
                self.fill_intensity, f"{owner}: fill_intensity", minimum=0.0
            ),
            "fill_decay": check_real(
                self.fill_decay, f"{owner}: fill_decay", minimum=0.0, min_open=True
            ),
            "risk_aversion": check_real(self.risk_aversion, f"{owner}: risk_aversion", minimum=0.0),
            "max_inventory": check_int(self.max_inventory, f"{owner}: max_inventory", minimum=size),
            "order_size": size,
            "max_offset": check_real(
                self.max_offset, f"{owner}: max_offset", minimum=0.0, min_open=True
            ),
        }
        for name, value in checked.items():
            # Frozen: the checked value (a float for an int given, ...) replaces the raw one.
            object.__setattr__(self, name, value)

    @classmethod
    def parameter_names(cls) -> tuple[str, ...]:
        """The parameters, in the order of the env's signature."""
        return tuple(field.name for field in dataclasses.fields(cls))

    # -- derived constants (computed on first use, then plain attribute reads) -----------------

    @cached_property
    def dt(self) -> float:
        """The length of one step, ``total_time / n_steps``."""
        return self.total_time / self.n_steps

    @cached_property
    def move_scale(self) -> float:
        """``sigma * sqrt(dt)``: the size of the mid's move over one step, up or down."""
        return self.sigma * math.sqrt(self.dt)

    @cached_property
    def penalty_scale(self) -> float:
        """``0.5 * risk_aversion * sigma**2 * dt``: a step's penalty per squared unit held."""
        return 0.5 * self.risk_aversion * self.sigma * self.sigma * self.dt

    @cached_property
    def half_spread_floor(self) -> float:
        """``log(1 + gamma / k) / gamma`` (``1 / k`` when ``gamma`` is 0).

        Half the closed-form spread without its time term.
        """
        gamma = self.risk_aversion
        return math.log1p(gamma / self.fill_decay) / gamma if gamma > 0.0 else 1.0 / self.fill_decay

    @cached_property
    def action_bound(self) -> float:
        """The largest distance an action may hold: `max_offset` as the float32 space stores it."""
        return float(np.float32(self.max_offset))

    # -- spaces ---------------------------------------------------------------------------------

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


class MarketMakingParameters:
    """The parameters of MarketMaking-v0 as attributes of an env, read from its ``config``.

    Both [`MarketMakingEnv`][sekai.envs.MarketMakingEnv] and
    [`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv] take them from here,
    so each is declared once (as a field of `MarketMakingConfig`).
    """

    config: MarketMakingConfig

    s0 = config_field[float]()
    sigma = config_field[float]()
    total_time = config_field[float]()
    n_steps = config_field[int]()
    A = config_field[float]("fill_intensity")
    k = config_field[float]("fill_decay")
    risk_aversion = config_field[float]()
    max_inventory = config_field[int]()
    order_size = config_field[int]()
    max_offset = config_field[float]()
    dt = config_field[float]()
