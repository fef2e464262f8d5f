"""Portfolio-v0: allocate wealth across assets on regime-switching synthetic markets."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs._portfolio_math import check_actions, rebalance, target_weights
from sekai.envs.samplers import Episode, EpisodeSampler, RegimeSwitchingSampler
from sekai.error import ResetRequired
from sekai.spaces import Box, Dict
from sekai.utils.seeding import SeedType

__all__ = ["PortfolioConfig", "PortfolioEnv"]

PortfolioObs = dict[str, NDArray[np.float32]]


def _int_at_least(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


class PortfolioConfig:
    """Validated parameters of Portfolio-v0, shared by the single and native envs.

    Args: see :class:`PortfolioEnv`.
    """

    def __init__(
        self,
        n_assets: int | None,
        lookback: int,
        cost: float,
        episode_length: int,
        risk_free_rate: float,
        sampler: EpisodeSampler | None,
    ) -> None:
        if sampler is None:
            sampler = RegimeSwitchingSampler(4 if n_assets is None else n_assets)
        elif not isinstance(sampler, EpisodeSampler):
            raise TypeError(
                f"sampler must be a sekai.envs.samplers.EpisodeSampler, got {sampler!r}"
            )
        if n_assets is None:
            n_assets = sampler.n_assets
        self.n_assets = _int_at_least(n_assets, "n_assets", 1)
        if sampler.n_assets != self.n_assets:
            raise ValueError(
                f"n_assets={self.n_assets} but the sampler {sampler!r} draws "
                f"{sampler.n_assets} assets"
            )
        self.sampler = sampler
        self.lookback = _int_at_least(lookback, "lookback", 1)
        self.episode_length = _int_at_least(episode_length, "episode_length", 1)
        if isinstance(cost, bool) or not isinstance(cost, (int, float, np.integer, np.floating)):
            raise TypeError(f"cost must be a real number, got {cost!r}")
        if not 0.0 <= float(cost) < 0.5:
            raise ValueError(f"cost must lie in [0, 0.5), got {cost!r}")
        self.cost = float(cost)
        rate = float(risk_free_rate)
        if not np.isfinite(rate):
            raise ValueError(f"risk_free_rate must be finite, got {risk_free_rate!r}")
        self.risk_free_rate = rate
        self.n_periods = self.lookback + self.episode_length

    def observation_space(self) -> Dict:
        """The Dict observation space."""
        return Dict(
            {
                "returns": Box(-np.inf, np.inf, (self.lookback, self.n_assets), np.float32),
                "weights": Box(0.0, 1.0, (self.n_assets + 1,), np.float32),
            }
        )

    def action_space(self) -> Box:
        """The Box of target-weight scores."""
        return Box(0.0, 1.0, (self.n_assets + 1,), np.float32)

    def episode(
        self,
        rng: np.random.Generator,
        options: dict[str, Any] | None,
        sampler: EpisodeSampler | None = None,
    ) -> Episode:
        """The episode of a reset: ``options["episode"]`` if given, else a sample.

        Args:
            rng: The generator to sample with.
            options: The reset options of the env.
            sampler: The sampler to use instead of :attr:`sampler`.
        """
        episode = None if options is None else options.get("episode")
        if episode is None:
            episode = (self.sampler if sampler is None else sampler).sample(rng, self.n_periods)
        if not isinstance(episode, Episode):
            raise TypeError(f"the episode must be an Episode, got {episode!r}")
        expected = (self.n_periods, self.n_assets)
        if episode.log_returns.shape != expected:
            raise ValueError(
                f"Portfolio episodes need log_returns of shape {expected} (lookback + "
                f"episode_length periods, n_assets), got {episode.log_returns.shape}"
            )
        return episode


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
        self._weights = np.zeros((1, config.n_assets + 1))
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
