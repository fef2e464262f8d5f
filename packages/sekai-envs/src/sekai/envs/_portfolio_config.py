"""Validated parameters of Portfolio-v0, shared by the single and the native env."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai._validation import check_int, check_real
from sekai.envs.samplers import Episode, EpisodeSampler, RegimeSwitchingSampler
from sekai.spaces import Box, Dict

__all__ = ["PortfolioConfig", "PortfolioObs"]

PortfolioObs = dict[str, NDArray[np.float32]]
"""An observation of Portfolio-v0: ``{"returns": ..., "weights": ...}``."""


class PortfolioConfig:
    """Validated parameters of Portfolio-v0 (see :class:`~sekai.envs.PortfolioEnv`)."""

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
        self.n_assets = check_int(n_assets, "n_assets", minimum=1, type_error=ValueError)
        if sampler.n_assets != self.n_assets:
            raise ValueError(
                f"n_assets={self.n_assets} but the sampler {sampler!r} draws "
                f"{sampler.n_assets} assets"
            )
        self.sampler = sampler
        self.lookback = check_int(lookback, "lookback", minimum=1, type_error=ValueError)
        self.episode_length = check_int(
            episode_length, "episode_length", minimum=1, type_error=ValueError
        )
        self.cost = check_real(cost, "cost", minimum=0, maximum=0.5, max_open=True)
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
