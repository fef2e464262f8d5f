"""MarketMaking-v0: a dealer quoting around a random mid-price (Avellaneda & Stoikov 2008)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance._market_making_config import MarketMakingConfig, MarketMakingParameters
from sekai.envs.finance._market_making_kernel import (
    advance,
    avellaneda_stoikov_action,
    checked_offsets,
    draw_session,
    fill_probability,
    observe,
    reset_infos,
    start_sessions,
    step_infos,
    time_remaining,
)
from sekai.envs.finance._market_making_state import ScalarState, state_field
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["MarketMakingEnv", "SeedType"]


class MarketMakingEnv(MarketMakingParameters, Env[NDArray[np.float32], NDArray[np.float32]]):
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
    the market-microstructure guide for the numbers. The closed form is not
    the optimum of this env's reward: [`market_making_optimum`][sekai.envs.market_making_optimum]
    solves it exactly, and expects 66.87 per episode against the closed
    form's 63.94.

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
        config: The checked parameters. ``s0``, ``sigma``, ``total_time``,
            ``n_steps``, ``risk_aversion``, ``max_inventory``, ``order_size``
            and ``max_offset`` read it (read-only: build a new env to change
            one), as do the three below.
        A: ``fill_intensity``.
        k: ``fill_decay``.
        dt: The length of a step, ``total_time / n_steps``.
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

    # The session's state (assignable, e.g. to try the closed form in another state).
    mid = state_field[float]("The current mid-price.")
    inventory = state_field[int]("The units held (negative when short).")
    cash = state_field[float]("The cash account (0 at the start).")
    bid = state_field[float]("The last bid price (NaN if not quoted).")
    ask = state_field[float]("The last ask price (NaN if not quoted).")
    bid_filled = state_field[bool]("Whether the last bid was hit.")
    ask_filled = state_field[bool]("Whether the last ask was lifted.")

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
        self.config = config = MarketMakingConfig(
            owner="MarketMakingEnv",
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
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        self._state = ScalarState()
        start_sessions(config, self._state)
        self._started = False
        # The session's draws, as Python numbers: a step reads them without numpy.
        self._uniforms: list[list[float]] = []
        self._moves: list[float] = []

    # -- state ---------------------------------------------------------------------------------

    @property
    def elapsed_steps(self) -> int:
        """Steps taken in the current episode."""
        return self._state.t

    @property
    def time_remaining(self) -> float:
        """``T - t``: the session time left, in the units of ``total_time``."""
        remaining: float = time_remaining(self.config, self._state)
        return remaining

    @property
    def wealth(self) -> float:
        """Mark-to-market wealth, ``cash + inventory * mid``."""
        return self._state.wealth

    def fill_probability(self, offset: float) -> float:
        """The chance that a quote ``offset`` away from the mid fills within a step.

        ``min(1, A exp(-k offset) dt)``, the paper's discretisation of the
        arrival rate ``A exp(-k offset)``.
        """
        return float(fill_probability(float(offset), self.config, self._state))

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
        return avellaneda_stoikov_action(
            self.config, self._state, spread_time_term=spread_time_term
        )

    # -- episode -------------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start a session: mid at ``s0``, no inventory, no cash; draw its randomness.

        ``options`` are not used.
        """
        self._set_rng(seed)
        config = self.config
        uniforms, moves = draw_session(self.rng, config.n_steps)
        self._uniforms, self._moves = uniforms.tolist(), moves.tolist()
        state = self._state
        start_sessions(config, state)
        self._started = True
        return ResetResult(observe(config, state), reset_infos(config, state))

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Quote, fill, move the mid (see the class docstring).

        Raises:
            ResetRequired: Before the first reset or after the session ended.
            InvalidAction: ``action`` is not two distances in ``[0, max_offset]``.
        """
        config = self.config
        state = self._state
        t = state.t
        if not self._started or t >= config.n_steps:
            raise ResetRequired("MarketMakingEnv: call reset() to start a session")
        offsets = checked_offsets(action, config.action_bound, "MarketMakingEnv", batch=False)
        pnl, reward = advance(config, state, offsets, self._uniforms[t], self._moves[t])
        return StepResult(
            observe(config, state),
            reward,
            state.t >= config.n_steps,
            False,
            step_infos(config, state, pnl),
        )
