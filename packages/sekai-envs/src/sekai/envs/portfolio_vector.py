"""The native vector implementation of Portfolio-v0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs._portfolio_config import PortfolioConfig, PortfolioObs
from sekai.envs._portfolio_math import check_actions, rebalance, target_weights
from sekai.envs.samplers import EpisodeSampler
from sekai.vector import InfoArrays, NativeVecEnv

__all__ = ["PortfolioVecEnv"]


class PortfolioVecEnv(NativeVecEnv[PortfolioObs, NDArray[np.float32]]):
    """``num_envs`` Portfolio-v0 simulations advanced together with numpy.

    ``sekai.make_vec("Portfolio-v0", num_envs=N)`` builds this env by
    default. Observations, actions, rewards, infos, termination and the
    action mask are those of :class:`~sekai.envs.portfolio.PortfolioEnv`,
    batched along a leading ``num_envs`` axis; the accounting runs through the
    same functions, so given the same episodes and actions the results are
    bit-identical to ``num_envs`` single envs.

    The env spawns one episode sampler per sub-env from ``sampler`` (or from
    the default :class:`~sekai.envs.samplers.RegimeSwitchingSampler`), as
    ``make_vec`` does for the sub-envs of the other backends, and sub-env
    ``i`` draws its episodes from its own generator, ``rngs[i]``. As in the
    single env, an episode is drawn whole at its reset and a step draws
    nothing, so for the same seed and actions the trajectories, autoresets
    included, are identical to those of ``SyncVecEnv``, ``AsyncVecEnv`` or
    ``ProcVecEnv`` over :class:`~sekai.envs.portfolio.PortfolioEnv`. A
    sub-env that finished is reset within the step, or frozen with
    ``autoreset=False`` (its data is then never read past its end).

    Args:
        num_envs: Number of sub-envs.
        n_assets: See :class:`~sekai.envs.portfolio.PortfolioEnv`.
        lookback: See :class:`~sekai.envs.portfolio.PortfolioEnv`.
        cost: See :class:`~sekai.envs.portfolio.PortfolioEnv`.
        episode_length: See :class:`~sekai.envs.portfolio.PortfolioEnv`.
        risk_free_rate: See :class:`~sekai.envs.portfolio.PortfolioEnv`.
        sampler: The sampler spawned once per sub-env.
        autoreset: Reset finished sub-envs within the step (else freeze them).
        max_episode_steps: Optional extra time limit per episode.

    Attributes:
        samplers: The sub-envs' samplers, one per sub-env.
    """

    def __init__(
        self,
        num_envs: int,
        *,
        n_assets: int | None = None,
        lookback: int = 20,
        cost: float = 0.001,
        episode_length: int = 252,
        risk_free_rate: float = 0.0,
        sampler: EpisodeSampler | None = None,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        config = PortfolioConfig(n_assets, lookback, cost, episode_length, risk_free_rate, sampler)
        super().__init__(
            num_envs,
            config.observation_space(),
            config.action_space(),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.config = config
        self.n_assets = config.n_assets
        self.lookback = config.lookback
        self.episode_length = config.episode_length
        self.samplers = [config.sampler.spawn() for _ in range(self.num_envs)]
        n, p, m = self.num_envs, config.n_periods, config.n_assets
        self._rows = np.arange(n)
        self._window = np.arange(1 - config.lookback, 1)
        self._returns = np.zeros((n, p, m))
        self._tradable = np.ones((n, p, m + 1))  # 1.0 tradable, 0.0 halted
        self._weights: NDArray[np.float64] = np.zeros((n, m + 1))
        self._weights[:, -1] = 1.0
        self._time = np.full(n, config.lookback - 1, dtype=np.intp)
        self._steps = np.zeros(n, dtype=np.int64)
        self._value = np.ones(n)
        self._action_shape = (n, m + 1)

    @property
    def time(self) -> NDArray[np.intp]:
        """Each sub-env's current row of its episode data (a copy)."""
        time: NDArray[np.intp] = self._time.copy()
        return time

    @property
    def weights(self) -> NDArray[np.float64]:
        """``(num_envs, n_assets + 1)`` float64 weights (a copy)."""
        weights: NDArray[np.float64] = self._weights.copy()
        return weights

    @property
    def portfolio_value(self) -> NDArray[np.float64]:
        """Each sub-env's portfolio value (a copy)."""
        value: NDArray[np.float64] = self._value.copy()
        return value

    def action_mask(self) -> NDArray[np.bool_]:
        """``(num_envs, n_assets + 1)`` bool: which entries can be traded now."""
        mask: NDArray[np.bool_] = self._tradable[self._rows, self._time] > 0.0
        return mask

    def _reset_envs(
        self, indices: NDArray[np.intp], options: Sequence[dict[str, Any] | None]
    ) -> None:
        config = self.config
        rngs = self.rngs
        for index, option in zip(indices.tolist(), options, strict=True):
            episode = config.episode(rngs[index], option, self.samplers[index])
            self._returns[index] = episode.log_returns
            self._tradable[index, :, :-1] = ~episode.halted
        self._weights[indices] = 0.0
        self._weights[indices, -1] = 1.0
        self._time[indices] = config.lookback - 1
        self._steps[indices] = 0
        self._value[indices] = 1.0

    def _reset_infos(self, indices: NDArray[np.intp]) -> InfoArrays:
        return {"portfolio_value": np.ones(len(indices))}

    def _observe(self) -> PortfolioObs:
        windows = self._returns[self._rows[:, None], self._time[:, None] + self._window]
        return {
            "returns": windows.astype(np.float32),
            "weights": self._weights.astype(np.float32),
        }

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], InfoArrays]:
        config = self.config
        scores = check_actions(actions, self._action_shape, "PortfolioVecEnv actions")
        rows, time = self._rows, self._time
        last = config.n_periods - 1
        target = target_weights(scores, self._weights, self._tradable[rows, time])
        next_returns = self._returns[rows, np.minimum(time + 1, last)]
        weights, reward, turnover, cost, gross_log = rebalance(
            self._weights, target, next_returns, config.risk_free_rate, config.cost
        )
        value = self._value * np.exp(reward)
        frozen = self.frozen
        if not self.autoreset and frozen.any():
            # A finished sub-env keeps its state: its data has no next period.
            active = ~frozen
            self._weights[active] = weights[active]
            self._value[active] = value[active]
            self._time[active] += 1
            self._steps[active] += 1
        else:
            self._weights = weights
            self._value = value
            self._time += 1
            self._steps += 1
        truncated = self._steps >= config.episode_length
        infos = {
            "portfolio_value": self._value.copy(),
            "turnover": turnover,
            "cost": cost,
            "log_return": gross_log,
        }
        return reward, np.zeros(self.num_envs, dtype=np.bool_), truncated, infos

    def __repr__(self) -> str:
        return f"PortfolioVecEnv(num_envs={self.num_envs}, n_assets={self.n_assets})"
