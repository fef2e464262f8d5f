"""Portfolio-v0: allocate wealth across assets on regime-switching synthetic markets."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs._portfolio_config import PortfolioConfig, PortfolioObs
from sekai.envs._portfolio_math import check_actions, rebalance, target_weights
from sekai.envs.samplers import EpisodeSampler
from sekai.error import ResetRequired
from sekai.utils.seeding import SeedType

__all__ = ["PortfolioEnv"]


class PortfolioEnv(Env[PortfolioObs, NDArray[np.float32]]):
    """Allocate a portfolio across ``n_assets`` risky assets and cash.

    Each episode is drawn by an episode sampler (by default
    :class:`~sekai.envs.samplers.RegimeSwitchingSampler`: log-returns with
    Markov-switching drift and volatility, and occasional trading halts). It
    spans ``lookback + episode_length`` periods: the first ``lookback`` are
    history visible at the reset, then the agent rebalances once per period.
    The portfolio starts as 100% cash with value 1.

    Observation:
        ``Dict`` with ``"returns"``, a float32 ``Box (lookback, n_assets)``
        holding the log-returns of the last ``lookback`` periods up to the
        current time ``t`` included (row ``-1`` is the latest; nothing after
        ``t`` is ever shown), and ``"weights"``, a float32
        ``Box (n_assets + 1,)`` in ``[0, 1]``: the current weights of the
        assets, cash last, summing to 1.

    Action:
        ``Box (n_assets + 1,)`` in ``[0, 1]`` (float32): target weights, cash
        last. The vector is mapped onto the simplex by dividing it by its sum
        (only proportions matter; any non-negative finite vector is accepted;
        all zeros means all cash). Assets that cannot be traded this period
        (``action_mask()`` is ``False`` for them) keep their current weight
        whatever the action says; the rest of the portfolio is split among the
        tradable entries in proportion to their scores.

    Reward:
        The log-change of the portfolio's value over the period,
        ``log(sum_i w*_i exp(r_i)) + log(1 - cost * turnover)``, where ``w*``
        are the target weights, ``r`` the assets' log-returns of the next
        period (cash earns ``risk_free_rate``), and ``turnover`` is
        ``sum_i |w*_i - w_i|`` over the risky assets: costs are proportional
        to the value traded. Rewards add up to the log of the final value.

    Termination:
        Never terminated; ``truncated`` after ``episode_length`` steps, when
        the episode's data runs out. There is no extra time limit.

    Info:
        Every step: ``portfolio_value``, ``turnover``, ``cost`` (fraction of
        value paid) and ``log_return`` (before costs). Reset: ``portfolio_value``.

    Action mask:
        ``action_mask()`` returns a bool array of shape ``(n_assets + 1,)``,
        ``False`` for assets halted at the current time (cash is always
        tradable).

    Reset options:
        ``{"episode": Episode}`` plays the given episode instead of sampling
        one.

    Args:
        n_assets: Number of risky assets (default: the sampler's, 4 for the
            default sampler).
        lookback: Periods of returns in each observation.
        cost: Proportional transaction cost per unit of turnover, in
            ``[0, 0.5)`` (0.001 = 10 basis points).
        episode_length: Steps per episode (252, a trading year of days).
        risk_free_rate: Log-return of cash per period.
        sampler: The :class:`~sekai.envs.samplers.EpisodeSampler` of episodes.
    """

    def __init__(
        self,
        *,
        n_assets: int | None = None,
        lookback: int = 20,
        cost: float = 0.001,
        episode_length: int = 252,
        risk_free_rate: float = 0.0,
        sampler: EpisodeSampler | None = None,
    ) -> None:
        config = PortfolioConfig(n_assets, lookback, cost, episode_length, risk_free_rate, sampler)
        self.config = config
        self.sampler = config.sampler
        self.n_assets = config.n_assets
        self.lookback = config.lookback
        self.episode_length = config.episode_length
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        self._action_shape = (config.n_assets + 1,)
        self._returns: NDArray[np.float64] | None = None
        # 1.0 where an entry can be traded, 0.0 where the asset is halted
        self._tradable = np.ones((0, config.n_assets + 1))
        self._weights: NDArray[np.float64] = np.zeros((1, config.n_assets + 1))
        self._time = 0
        self._steps = 0
        self._value = 1.0

    @property
    def time(self) -> int:
        """Row of the episode's data the agent has seen last (the current time)."""
        return self._time

    @property
    def weights(self) -> NDArray[np.float64]:
        """Current float64 weights (cash last), a copy."""
        weights: NDArray[np.float64] = self._weights[0].copy()
        return weights

    @property
    def portfolio_value(self) -> float:
        """Current value of the portfolio (1 at the reset)."""
        return self._value

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[PortfolioObs]:
        """Draw an episode and start as 100% cash (see the class docstring)."""
        self._set_rng(seed)
        episode = self.config.episode(self.rng, options)
        self._returns = episode.log_returns
        tradable = np.ones((self.config.n_periods, self.n_assets + 1))
        tradable[:, :-1] = ~episode.halted
        self._tradable = tradable
        self._weights = np.zeros((1, self.n_assets + 1))
        self._weights[0, -1] = 1.0
        self._time = self.lookback - 1
        self._steps = 0
        self._value = 1.0
        return ResetResult(self._observe(), {"portfolio_value": 1.0})

    def action_mask(self) -> NDArray[np.bool_]:
        """Which entries of the action can be traded now (``False``: halted)."""
        if self._returns is None:
            raise ResetRequired("Portfolio: call reset() before action_mask()")
        mask: NDArray[np.bool_] = self._tradable[self._time] > 0.0
        return mask

    def step(self, action: NDArray[np.float32]) -> StepResult[PortfolioObs]:
        """Rebalance to the action's target weights and let one period pass.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: The action has the wrong shape or holds a negative,
                NaN or infinite value.
        """
        returns = self._returns
        if returns is None or self._steps >= self.episode_length:
            raise ResetRequired("Portfolio: call reset() to start an episode")
        actions = check_actions(action, self._action_shape, "Portfolio action")[None]
        t = self._time
        target = target_weights(actions, self._weights, self._tradable[t : t + 1])
        weights, reward, turnover, cost, gross_log = rebalance(
            self._weights,
            target,
            returns[t + 1 : t + 2],
            self.config.risk_free_rate,
            self.config.cost,
        )
        self._weights = weights
        self._time = t + 1
        self._steps += 1
        value = self._value * float(np.exp(reward[0]))
        self._value = value
        info = {
            "portfolio_value": value,
            "turnover": float(turnover[0]),
            "cost": float(cost[0]),
            "log_return": float(gross_log[0]),
        }
        truncated = self._steps >= self.episode_length
        return StepResult(self._observe(), float(reward[0]), False, truncated, info)

    def _observe(self) -> PortfolioObs:
        assert self._returns is not None
        t = self._time
        window = self._returns[t + 1 - self.lookback : t + 1]
        return {
            "returns": window.astype(np.float32),
            "weights": self._weights[0].astype(np.float32),
        }
