"""MarketMaking-v0: a dealer quoting around a random mid-price (Avellaneda & Stoikov 2008)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance._mm_model import (
    MarketMakingConfig,
    avellaneda_stoikov_offsets,
    checked_offsets,
    draw_session,
    fill_probability,
)
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["MarketMakingEnv", "SeedType"]

_NAN = math.nan


class MarketMakingEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """A single market maker in the model of Avellaneda & Stoikov (2008).

    The session is the paper's simulation (its section 4). The mid-price ``S``
    is a binomial random walk, the paper's discretisation of an arithmetic
    Brownian motion: each step it moves by ``+sigma sqrt(dt)`` or ``-sigma
    sqrt(dt)`` with probability 1/2 each. At every step the agent quotes a
    bid at ``S_t - delta_b`` and an ask at ``S_t + delta_a``; each quote is
    hit within the step with probability ``lambda(delta) dt = A exp(-k
    delta) dt`` (capped at 1), independently of the other side and of the
    price move (both sides may fill in one step), and a fill trades
    ``order_size`` units at the quoted price. Then the mid moves. A side
    whose fill would take the inventory beyond ``±max_inventory`` is not
    quoted. The session lasts ``total_time`` in ``n_steps`` steps of ``dt =
    total_time / n_steps``; its profit is the final ``cash + inventory *
    S_T``.

    The defaults are the paper's simulation: ``s0 = 100``, ``sigma = 2``,
    ``T = 1``, ``dt = 0.005`` (200 steps), ``A = 140``, ``k = 1.5`` and
    ``gamma = 0.1``. Following `avellaneda_stoikov_action` then
    reproduces the paper's table for its inventory strategy (profit 62.94,
    std 5.89; final inventory std 2.80) to within 5%, and constant quotes
    ``0.645`` from the mid its symmetric strategy (67.21, 13.43; 8.66); see
    the market-microstructure guide for the numbers.

    Observation:
        ``Box([-1, 0], [1, 1], (2,), float32)``: inventory / max_inventory and
        the fraction of the session remaining.

    Action:
        ``Box(0, max_offset, (2,), float32)``: the distances ``(delta_b,
        delta_a)`` of the bid and of the ask from the mid.

    Reward:
        The change of mark-to-market wealth ``cash + inventory * mid`` over the
        step, minus ``0.5 * risk_aversion * sigma**2 * dt * inventory**2`` (the
        inventory held while the mid moves). The rewards of an episode add up
        to the final profit minus the running penalty.

    Termination:
        ``terminated`` after ``n_steps`` steps (the clock is observed); no
        truncation. ``step`` after that raises ``ResetRequired``.

    Info (after each step; the reset's info has the same keys with no quotes):
        ``mid_price`` (after the move), ``inventory``, ``cash``, ``wealth``
        (``cash + inventory * mid_price``), ``pnl`` (the step's change of
        wealth, for [`RecordPerformance`][sekai.finance.RecordPerformance]),
        ``bid`` and ``ask`` (the quoted prices, NaN for a side not quoted),
        ``bid_filled`` and ``ask_filled`` (bools), ``timestamp`` (session
        time, in the units of ``total_time``) and ``dt``.

    Randomness: the uniforms that decide the fills and the moves of the mid
    are drawn for the whole episode at ``reset``, so the native
    [`MarketMakingVecEnv`][sekai.envs.MarketMakingVecEnv] gives the same
    episodes for the same seeds and actions.

    Args:
        s0: The mid-price at the start.
        sigma: Volatility of the mid (price units per square root of time).
        total_time: The length of the session, ``T``.
        n_steps: Decisions per session.
        fill_intensity: ``A``, the arrival rate of orders that reach a quote
            at the mid.
        fill_decay: ``k``, how fast the arrival rate decays with the distance.
        risk_aversion: ``gamma``, used by the reward's inventory penalty and
            by the closed-form quotes.
        max_inventory: The largest inventory, long or short (>= order_size).
        order_size: Units traded per fill.
        max_offset: The largest distance of a quote from the mid.

    Attributes:
        A: ``fill_intensity``.
        k: ``fill_decay``.
        dt: The length of a step.
        mid: The current mid-price.
        inventory: The units held (negative when short).
        cash: The cash account (0 at the start).
        bid: The last bid price (NaN if not quoted).
        ask: The last ask price (NaN if not quoted).
        bid_filled: Whether the last bid was hit.
        ask_filled: Whether the last ask was lifted.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 20,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:MarketMakingRenderer",
    }

    def __init__(
        self,
        *,
        s0: float = 100.0,
        sigma: float = 2.0,
        total_time: float = 1.0,
        n_steps: int = 200,
        fill_intensity: float = 140.0,
        fill_decay: float = 1.5,
        risk_aversion: float = 0.1,
        max_inventory: int = 50,
        order_size: int = 1,
        max_offset: float = 5.0,
    ) -> None:
        config = MarketMakingConfig.checked(
            "MarketMakingEnv",
            s0=s0,
            sigma=sigma,
            total_time=total_time,
            n_steps=n_steps,
            fill_intensity=fill_intensity,
            fill_decay=fill_decay,
            risk_aversion=risk_aversion,
            max_inventory=max_inventory,
            order_size=order_size,
            max_offset=max_offset,
        )
        self.config = config
        self.s0 = config.s0
        self.sigma = config.sigma
        self.total_time = config.total_time
        self.n_steps = config.n_steps
        self.A = config.A
        self.k = config.k
        self.risk_aversion = config.risk_aversion
        self.max_inventory = config.max_inventory
        self.order_size = config.order_size
        self.max_offset = config.max_offset
        self.dt = config.dt
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        self._high = float(self.action_space.high[0])
        self._move_scale = config.move_scale
        self._penalty_scale = config.penalty_scale
        self.mid = self.s0
        self.inventory = 0
        self.cash = 0.0
        self.bid = _NAN
        self.ask = _NAN
        self.bid_filled = False
        self.ask_filled = False
        self._t = 0
        self._wealth = 0.0
        self._started = False
        self._uniforms: list[list[float]] = []
        self._moves: list[float] = []

    # -- state ---------------------------------------------------------------------------------

    @property
    def elapsed_steps(self) -> int:
        """Steps taken in the current episode."""
        return self._t

    @property
    def time_remaining(self) -> float:
        """``T - t``: the session time left, in the units of ``total_time``."""
        return (self.n_steps - self._t) * self.dt

    @property
    def wealth(self) -> float:
        """Mark-to-market wealth, ``cash + inventory * mid``."""
        return self._wealth

    def fill_probability(self, offset: float) -> float:
        """The chance that a quote ``offset`` away from the mid fills within a step.

        ``min(1, A exp(-k offset) dt)``, the paper's discretisation of the
        arrival rate ``A exp(-k offset)``.
        """
        return float(fill_probability(float(offset), self.config))

    def avellaneda_stoikov_action(self, *, spread_time_term: bool = False) -> NDArray[np.float32]:
        """The closed-form quotes of Avellaneda & Stoikov in the current state.

        The reservation price ``r = mid - inventory * gamma * sigma**2 * (T - t)``
        and the spread ``(2 / gamma) log(1 + gamma / k)`` give the distances
        ``(mid - r + spread / 2, r + spread / 2 - mid)``, clipped into the
        action space. Following them at every step is the paper's "inventory
        strategy" of its simulations, the baseline to beat.

        Args:
            spread_time_term: Add the ``gamma * sigma**2 * (T - t)`` term of
                the paper's spread formula (30) to the spread. The paper's
                simulations leave it out: its table gives this strategy's
                spread as ``(2 / gamma) log(1 + gamma / k)`` (1.29 with the
                defaults, 1.49 on average with the term), and only without it
                do the simulated profits match the table's dispersion.

        Returns:
            A float32 action ``(delta_b, delta_a)`` in `action_space`.
        """
        bid, ask = avellaneda_stoikov_offsets(
            float(self.inventory),
            self.time_remaining,
            self.config,
            spread_time_term=spread_time_term,
        )
        offsets = np.clip(np.array([bid, ask], dtype=np.float64), 0.0, self.max_offset)
        action: NDArray[np.float32] = offsets.astype(np.float32)
        return action

    # -- episode -------------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start a session: mid at ``s0``, no inventory, no cash; draw its randomness.

        ``options`` are not used.
        """
        self._set_rng(seed)
        uniforms, moves = draw_session(self.rng, self.n_steps)
        self._uniforms, self._moves = uniforms.tolist(), moves.tolist()
        self.mid = self.s0
        self.inventory = 0
        self.cash = 0.0
        self.bid = self.ask = _NAN
        self.bid_filled = self.ask_filled = False
        self._t = 0
        self._wealth = 0.0
        self._started = True
        return ResetResult(self._observe(), self._info(0.0))

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Quote, fill, move the mid (see the class docstring).

        Raises:
            ResetRequired: Before the first reset or after the session ended.
            InvalidAction: ``action`` is not two distances in ``[0, max_offset]``.
        """
        t = self._t
        if not self._started or t >= self.n_steps:
            raise ResetRequired("MarketMakingEnv: call reset() to start a session")
        bid_offset, ask_offset = checked_offsets(
            action, self._high, "MarketMakingEnv", batch=False
        ).tolist()
        config = self.config
        size = self.order_size
        u_bid, u_ask = self._uniforms[t]
        mid = self.mid
        inventory = self.inventory
        cash = self.cash
        bid = ask = _NAN
        bid_filled = ask_filled = False
        if inventory + size <= self.max_inventory:
            bid = mid - bid_offset
            bid_filled = bool(u_bid < fill_probability(bid_offset, config))
        if inventory - size >= -self.max_inventory:
            ask = mid + ask_offset
            ask_filled = bool(u_ask < fill_probability(ask_offset, config))
        if bid_filled:
            inventory += size
            cash -= size * bid
        if ask_filled:
            inventory -= size
            cash += size * ask
        mid = mid + self._move_scale * self._moves[t]
        wealth = cash + inventory * mid
        pnl = wealth - self._wealth
        reward = pnl - self._penalty_scale * inventory * inventory
        self.mid, self.inventory, self.cash, self._wealth = mid, inventory, cash, wealth
        self.bid, self.ask, self.bid_filled, self.ask_filled = bid, ask, bid_filled, ask_filled
        self._t = t = t + 1
        return StepResult(self._observe(), reward, t >= self.n_steps, False, self._info(pnl))

    def _observe(self) -> NDArray[np.float32]:
        return np.array(
            [self.inventory / self.max_inventory, (self.n_steps - self._t) / self.n_steps],
            dtype=np.float32,
        )

    def _info(self, pnl: float) -> dict[str, Any]:
        return {
            "mid_price": self.mid,
            "inventory": self.inventory,
            "cash": self.cash,
            "wealth": self._wealth,
            "pnl": pnl,
            "bid": self.bid,
            "ask": self.ask,
            "bid_filled": self.bid_filled,
            "ask_filled": self.ask_filled,
            "timestamp": self._t * self.dt,
            "dt": self.dt,
        }
