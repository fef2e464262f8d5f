"""OptimalExecution-v0: sell a block of shares with market impact (Almgren & Chriss 2000)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance._optimal_execution_baselines import (
    optimal_holdings,
    schedule_fractions,
    shortfall_moments,
    twap_fractions,
)
from sekai.envs.finance._optimal_execution_kernel import (
    ExecutionConfig,
    ExecutionParameters,
    checked_fractions,
    draw_shocks,
    execute,
    initial_state,
    observe,
    reset_infos,
    step_infos,
)
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["OptimalExecutionEnv", "SeedType"]


class OptimalExecutionEnv(ExecutionParameters, Env[NDArray[np.float32], NDArray[np.float32]]):
    """Liquidate ``X0`` shares over ``n_steps`` periods in the Almgren & Chriss (2000) model.

    Period ``k`` lasts ``tau = total_time / n_steps``. Selling ``n`` shares in
    it executes at ``S - epsilon - eta n / tau`` (temporary impact; no fixed
    cost when nothing is sold), where ``S`` is the mid at the start of the
    period; then the mid moves by ``sigma sqrt(tau) Z - gamma n`` (noise and
    permanent impact). The implementation shortfall of an episode is
    ``X0 s0 - sum n_k price_k``, in dollars. For a static schedule its mean and
    variance are the paper's ``E`` and ``V`` (`expected_shortfall`);
    with ``sigma = 0`` the shortfall equals ``E`` exactly.

    The defaults are the paper's example: one million shares of a $50 stock
    with 30% annual volatility (0.95 $/share/day^1/2), a 1/8 spread
    (``epsilon = 1/16``), ``eta = 2.5e-6``, ``gamma = 2.5e-7``, ``lambda =
    1e-6``, liquidated in 5 days; ``n_steps`` is 25 (the paper uses 5; pass
    ``n_steps=5`` for its grid).

    Observation:
        ``Box([0, 0, -inf], [1, 1, inf], (3,), float32)``: remaining inventory
        / X0, fraction of the horizon remaining, and the mid's move since
        arrival ``(S - s0) / (sigma sqrt(total_time))`` (in dollars when
        ``sigma = 0``).

    Action:
        ``Box(0, 1, (1,), float32)``: the fraction of the remaining inventory
        to sell in this period. Whatever is left is sold in the last period,
        whatever the action.

    Reward:
        In basis points of the arrival value ``X0 s0``:
        ``1e4 (n (price - s0) - risk_aversion sigma**2 tau x**2) / (X0 s0)``
        with ``x`` the shares still held after the period. An episode's rewards
        add up to ``-1e4 (shortfall + risk_aversion V) / (X0 s0)`` for a static
        schedule, so maximising their expectation is the paper's mean-variance
        objective.

    Termination:
        ``terminated`` once everything is sold (a fraction of 1, or the last
        period); ``step`` after that raises ``ResetRequired``.

    Info: ``shares_sold``, ``execution_price`` (NaN in the reset's info),
    ``inventory`` (after the period), ``mid_price`` (after the move),
    ``implementation_shortfall`` (dollars, cumulative: ``sum n_k (s0 -
    price_k)`` so far), ``shortfall_bps`` (the same in basis points of ``X0
    s0``), ``timestamp`` (time elapsed, in the units of ``total_time``) and
    ``dt`` (``tau``).

    Baselines: `almgren_chriss_actions` (the optimal static schedule for
    ``risk_aversion``) and `twap_action` (equal slices).

    Args:
        initial_inventory: ``X0``, the shares to sell.
        s0: The arrival mid-price.
        sigma: Volatility of the mid, dollars per share per square root of
            the time unit.
        total_time: The horizon ``T``.
        n_steps: The number of periods ``N``.
        permanent_impact: ``gamma``, dollars per share per share sold.
        temporary_impact: ``eta``, dollars per share per (share per time unit).
        fixed_cost: ``epsilon``, dollars per share sold (half the spread).
        risk_aversion: ``lambda``, the weight of the variance in the objective.

    Attributes:
        X0: The initial inventory (shares).
        gamma: The permanent impact.
        eta: The temporary impact.
        epsilon: The fixed cost per share.
        tau: The length of a period.
        inventory: The shares still held.
        mid: The current mid-price.
        shortfall: The implementation shortfall so far (dollars).
        config: The checked parameters, which the parameter attributes read.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 10,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:OptimalExecutionRenderer",
    }

    # The parameters, their order and defaults are ExecutionConfig's (a test keeps them equal).
    def __init__(
        self,
        *,
        initial_inventory: float = 1e6,
        s0: float = 50.0,
        sigma: float = 0.95,
        total_time: float = 5.0,
        n_steps: int = 25,
        permanent_impact: float = 2.5e-7,
        temporary_impact: float = 2.5e-6,
        fixed_cost: float = 0.0625,
        risk_aversion: float = 1e-6,
    ) -> None:
        config = ExecutionConfig(
            owner="OptimalExecutionEnv",
            initial_inventory=initial_inventory,
            s0=s0,
            sigma=sigma,
            total_time=total_time,
            n_steps=n_steps,
            permanent_impact=permanent_impact,
            temporary_impact=temporary_impact,
            fixed_cost=fixed_cost,
            risk_aversion=risk_aversion,
        )
        self.config = config
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        self._state = initial_state(config)
        self._done = True
        self._shocks: list[float] = []

    # -- state --------------------------------------------------------------------------------

    @property
    def elapsed_steps(self) -> int:
        """Periods elapsed in the current episode."""
        return self._state.t

    @property
    def inventory(self) -> float:
        """The shares still held (assignable, as in sekai 0.2)."""
        return self._state.inventory

    @inventory.setter
    def inventory(self, value: float) -> None:
        self._state.inventory = value

    @property
    def mid(self) -> float:
        """The current mid-price (assignable, as in sekai 0.2)."""
        return self._state.mid

    @mid.setter
    def mid(self, value: float) -> None:
        self._state.mid = value

    @property
    def shortfall(self) -> float:
        """The implementation shortfall so far, in dollars (assignable, as in sekai 0.2)."""
        return self._state.shortfall

    @shortfall.setter
    def shortfall(self, value: float) -> None:
        self._state.shortfall = value

    # -- the paper's closed forms --------------------------------------------------------------

    def almgren_chriss_trajectory(self) -> NDArray[np.float64]:
        """The optimal holdings ``x_0 = X0, x_1, ..., x_N = 0`` (``N + 1`` values).

        ``x_j = X0 sinh(kappa (T - t_j)) / sinh(kappa T)`` with ``kappa`` from
        ``2 (cosh(kappa tau) - 1) / tau**2 = risk_aversion sigma**2 / eta_tilde``
        and ``eta_tilde = eta - gamma tau / 2``: a straight line (TWAP) without
        risk aversion, front-loaded with it.

        Raises:
            ValueError: ``eta_tilde <= 0`` with a positive risk aversion.
        """
        return optimal_holdings(self.config)

    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The actions that follow `almgren_chriss_trajectory`, shape ``(n_steps, 1)``.

        Row ``k`` is the fraction ``1 - x_{k+1} / x_k`` to sell in period ``k``
        (the trajectory is static: it does not depend on the prices seen).
        """
        return schedule_fractions(optimal_holdings(self.config))

    def twap_action(self) -> NDArray[np.float32]:
        """The TWAP action now: sell ``1 / (periods left)`` of what remains, shape ``(1,)``."""
        return twap_fractions(self.config, self._state.t)

    def expected_shortfall(self, trades: NDArray[Any]) -> tuple[float, float]:
        """The mean and variance of the implementation shortfall of a static schedule.

        ``E = gamma X0**2 / 2 + epsilon sum |n_k| + (eta_tilde / tau) sum n_k**2``
        and ``V = sigma**2 tau sum x_k**2``, in dollars and dollars squared.

        Args:
            trades: The shares sold in each of the ``n_steps`` periods
                (adding up to ``X0``; pad with zeros after an early finish).

        Raises:
            ValueError: ``trades`` has the wrong length, is not finite or does
                not add up to ``X0``.
        """
        return shortfall_moments(self.config, trades)

    # -- episode -------------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start with ``X0`` shares at mid ``s0``; draw the episode's price shocks.

        ``options`` are not used.
        """
        self._set_rng(seed)
        config = self.config
        self._shocks = draw_shocks(config, (self.rng,))[0].tolist()
        self._state = state = initial_state(config)
        self._done = False
        return ResetResult(observe(config, state), reset_infos(config, state))

    def step(self, action: NDArray[np.float32]) -> StepResult[NDArray[np.float32]]:
        """Sell a fraction of the inventory, then move the mid (see the class docstring).

        Raises:
            ResetRequired: Before the first reset or after the episode ended.
            InvalidAction: ``action`` is not one number in ``[0, 1]``.
        """
        if self._done:
            raise ResetRequired("OptimalExecutionEnv: call reset() to start an episode")
        fraction = float(checked_fractions(action, "OptimalExecutionEnv", batch=False)[0])
        config = self.config
        state = self._state
        reward, terminated, sold, price = execute(config, state, fraction, self._shocks[state.t])
        self._done = terminated
        return StepResult(
            observe(config, state),
            reward,
            terminated,
            False,
            step_infos(config, state, sold, price),
        )
