"""Validated parameters of Portfolio-v0, shared by the single and the native env (private).

Portfolio-v0 plays one of two kinds of data:

- **prices** (sekai 0.2's constructor, the default): a history (``prices=`` /
  ``data=``) played in windows chosen by a start sampler, or a model simulated
  at every reset (``model=``, or correlated geometric Brownian motion built
  from ``mu`` / ``sigma`` / ``corr``; with nothing given, 5 assets);
- **windows of log returns** (this project's first Portfolio-v0): a window
  sampler ([`WindowSampler`][sekai.envs.EpisodeSampler], e.g. a
  [`RegimeSwitchingSampler`][sekai.envs.RegimeSwitchingSampler]) given as
  ``sampler`` draws each episode's returns and trading halts.

The defaults (lookback 30, capital 1,000,000) are the same for both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_bool, check_int, check_real
from sekai.envs.finance._account_step import check_reward, positive_capital
from sekai.envs.finance._cost_inputs import CostInputs
from sekai.envs.finance._price_sources import History, Simulated, resolve_source
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel, ProportionalCost, as_cost_model
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import Episode, EpisodeSampler, WindowSampler, as_sampler
from sekai.finance.simulators import GBM, MarketModel
from sekai.spaces import Box, Dict

__all__ = ["PortfolioConfig", "PortfolioObs"]

PortfolioObs = dict[str, NDArray[np.float32]]
"""An observation of Portfolio-v0: ``{"returns": ..., "weights": ...}``."""

_DAY = 1.0 / 252.0
_COST = 0.001
_N_ASSETS = 5  # of the default simulated market
_CORRELATION = 0.3  # pairwise, of the default simulated market
_LOOKBACK = 30
_CAPITAL = 1_000_000.0


def _default_gbm(
    n_assets: int | None, mu: Any, sigma: Any, corr: Any, dt: float | None
) -> MarketModel:
    """Correlated GBM: 5 assets unless the arguments say otherwise, pairwise correlation 0.3."""
    mu = 0.05 if mu is None else mu
    sigma = 0.2 if sigma is None else sigma
    if n_assets is None:
        sizes = [np.shape(value)[0] for value in (mu, sigma, corr) if np.ndim(value) >= 1]
        n_assets = sizes[0] if sizes else _N_ASSETS
    if corr is None and n_assets > 1:
        corr = np.full((n_assets, n_assets), _CORRELATION)
        np.fill_diagonal(corr, 1.0)
    return GBM(mu, sigma, corr=corr, dt=_DAY if dt is None else dt, n_assets=n_assets)


class PortfolioConfig:
    """Validated parameters of Portfolio-v0 (see [`PortfolioEnv`][sekai.envs.PortfolioEnv]).

    Attributes:
        source: The price source (a history or a model), or None with a window
            sampler.
        sampler: The window sampler, or the history's start sampler, or None
            for a model.
        windowed: Whether episodes are windows of log returns (a window sampler).
    """

    def __init__(
        self,
        owner: str,
        *,
        prices: ArrayLike | None = None,
        data: MarketData | None = None,
        n_assets: int | None = None,
        episode_length: int = 252,
        lookback: int | None = _LOOKBACK,
        transaction_cost: float | CostModel | None = _COST,
        cost: float | None = None,
        allow_short: bool = False,
        max_leverage: float = 1.0,
        mu: ArrayLike | None = None,
        sigma: ArrayLike | None = None,
        corr: ArrayLike | None = None,
        dt: float | None = None,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: Any = "random",
        capital: float | None = _CAPITAL,
        risk_free_rate: float = 0.0,
    ) -> None:
        self.owner = owner
        given = [
            name
            for name, value in (("prices", prices), ("data", data), ("model", model))
            if value is not None
        ]
        gbm = [
            name
            for name, value in (("mu", mu), ("sigma", sigma), ("corr", corr))
            if value is not None
        ]
        if given and gbm:
            raise ValueError(
                f"{owner}: {', '.join(gbm)} describe(s) the default simulated market; they cannot "
                f"be combined with {' and '.join(given)}"
            )
        windowed = isinstance(sampler, WindowSampler)
        if windowed and (given or gbm):
            raise ValueError(
                f"{owner}: a window sampler draws whole episodes of returns; it cannot be "
                f"combined with {' and '.join(given + gbm)} (use a start sampler such as "
                "'random' to play prices)"
            )
        if not windowed and sampler is not None:
            try:
                as_sampler(sampler)
            except TypeError:
                raise TypeError(
                    f"{owner}: sampler must be a window sampler (sekai.finance.sampling), "
                    "'random', 'sequential', an int or a start sampler "
                    f"(sekai.finance.EpisodeSampler), got {sampler!r}"
                ) from None
        self.windowed = windowed
        self.source: History | Simulated | None = None
        self.sampler: WindowSampler | EpisodeSampler | None = None
        if windowed:
            self._init_window_sampler(sampler, n_assets)
        else:
            self.source = resolve_source(
                owner,
                prices=prices,
                data=data,
                model=model,
                default=lambda: _default_gbm(n_assets, mu, sigma, corr, dt),
                sampler="random" if sampler is None else sampler,
                dt=dt,
                complete=True,
                n_assets=None if n_assets is None else self._count(n_assets),
            )
            self.n_assets = self.source.n_assets
            self.sampler = self.source.sampler if isinstance(self.source, History) else None
        self.dt = (
            self.source.dt
            if self.source is not None
            else check_real(_DAY if dt is None else dt, f"{owner}: dt", minimum=0.0, min_open=True)
        )
        self._lookback = check_int(
            _LOOKBACK if lookback is None else lookback,
            "lookback",
            minimum=1,
            type_error=ValueError,
        )
        self._episode_length = check_int(
            episode_length, "episode_length", minimum=1, type_error=ValueError
        )
        self.cost_model = self._cost_model(transaction_cost, cost)
        self.transaction_cost = transaction_cost if cost is None else cost
        rate = check_real(risk_free_rate, f"{owner}: risk_free_rate", type_error=ValueError)
        self.risk_free_rate = rate
        self.allow_short = check_bool(allow_short, f"{owner}: allow_short")
        self.account = AccountConfig(
            allow_short=self.allow_short,
            max_leverage=check_real(
                max_leverage, f"{owner}: max_leverage", minimum=0.0, min_open=True
            ),
            cash_rate=rate / self.dt,
        )
        self.reward = check_reward(reward, owner)
        self.capital = positive_capital(_CAPITAL if capital is None else capital, owner)
        self._check()

    # -- construction helpers ---------------------------------------------------------------

    def _count(self, n_assets: object) -> int:
        return check_int(n_assets, "n_assets", minimum=1, type_error=ValueError)

    def _init_window_sampler(self, sampler: WindowSampler, n_assets: int | None) -> None:
        if n_assets is None:
            n_assets = sampler.n_assets
        self.n_assets = self._count(n_assets)
        if sampler.n_assets != self.n_assets:
            raise ValueError(
                f"n_assets={self.n_assets} but the sampler {sampler!r} draws "
                f"{sampler.n_assets} assets"
            )
        self.sampler = sampler

    def _cost_model(self, transaction_cost: Any, cost: float | None) -> CostModel:
        if cost is None:
            return as_cost_model(transaction_cost)
        if isinstance(transaction_cost, CostModel) or transaction_cost != _COST:
            raise ValueError(
                f"{self.owner}: give transaction_cost or its former name cost, not both; got "
                f"transaction_cost={transaction_cost!r} and cost={cost!r}"
            )
        rate = check_real(cost, "cost", minimum=0, maximum=0.5, max_open=True)
        return ProportionalCost(rate)

    def _check(self) -> None:
        fields: Any = ()
        if isinstance(self.source, History):
            self.source.check_length(self._lookback, self._episode_length, self.owner)
            fields = self.source.data.fields
        self.costs = CostInputs(
            self.cost_model,
            fields=fields,
            has_prices=self.source is not None,
            lookback=self._lookback,
            owner=self.owner,
        )

    # -- settable lengths ---------------------------------------------------------------------

    def _set(self, name: str, value: int) -> None:
        previous = getattr(self, name)
        setattr(self, name, check_int(value, name.lstrip("_"), minimum=1, type_error=ValueError))
        try:
            self._check()
        except ValueError:
            setattr(self, name, previous)
            raise

    @property
    def lookback(self) -> int:
        """Returns per observation."""
        return self._lookback

    @lookback.setter
    def lookback(self, value: int) -> None:
        self._set("_lookback", value)

    @property
    def episode_length(self) -> int:
        """Decisions per episode."""
        return self._episode_length

    @episode_length.setter
    def episode_length(self, value: int) -> None:
        self._set("_episode_length", value)

    @property
    def n_periods(self) -> int:
        """Rows of returns an episode covers: ``lookback + episode_length``."""
        return self._lookback + self._episode_length

    @property
    def history(self) -> MarketData | None:
        """The history played, or None."""
        return self.source.data if isinstance(self.source, History) else None

    @property
    def model(self) -> MarketModel | None:
        """The model simulated, or None."""
        return self.source.model if isinstance(self.source, Simulated) else None

    @property
    def bounded(self) -> bool:
        """Whether weights stay in ``[0, 1]`` (long-only without leverage)."""
        return not self.allow_short and self.account.max_leverage <= 1.0

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self) -> Dict:
        """The Dict observation space."""
        low, high = (0.0, 1.0) if self.bounded else (-np.inf, np.inf)
        return Dict(
            {
                "returns": Box(-np.inf, np.inf, (self._lookback, self.n_assets), np.float32),
                "weights": Box(low, high, (self.n_assets + 1,), np.float32),
            }
        )

    def action_space(self) -> Box:
        """Scores ``Box(0, 1, (n + 1,))``, or weights ``Box(-1, 1, (n,))`` with shorts."""
        if self.allow_short:
            return Box(-1.0, 1.0, (self.n_assets,), np.float32)
        return Box(0.0, 1.0, (self.n_assets + 1,), np.float32)

    # -- episodes of the window sampler --------------------------------------------------------

    def episode(
        self,
        rng: np.random.Generator,
        options: Mapping[str, Any] | None,
        sampler: WindowSampler | None = None,
    ) -> Episode:
        """The episode of a reset: ``options["episode"]`` if given, else a sample.

        Args:
            rng: The generator to sample with.
            options: The reset options of the env.
            sampler: The sampler to use instead of `sampler`.
        """
        episode = None if options is None else options.get("episode")
        if episode is None:
            chosen = self.sampler if sampler is None else sampler
            assert isinstance(chosen, WindowSampler)
            episode = chosen.sample(rng, self.n_periods)
        if not isinstance(episode, Episode):
            raise TypeError(f"the episode must be an Episode, got {episode!r}")
        expected = (self.n_periods, self.n_assets)
        if episode.log_returns.shape != expected:
            raise ValueError(
                f"Portfolio episodes need log_returns of shape {expected} (lookback + "
                f"episode_length periods, n_assets), got {episode.log_returns.shape}"
            )
        return episode

    def spawn_sampler(self) -> Any:
        """An independent copy of the sampler for a sub-env (None for a model)."""
        return None if self.sampler is None else self.sampler.spawn()

    def describe(self) -> str:
        """A short description for ``repr``."""
        if self.windowed:
            source = type(self.sampler).__name__
        else:
            source = "history" if self.history is not None else type(self.model).__name__
        return f"n_assets={self.n_assets}, source={source}, lookback={self._lookback}"
