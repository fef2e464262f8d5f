"""Portfolio-v0's parameters: declared, defaulted and checked once (private).

`PortfolioConfig.from_arguments` is the one place the env's keywords are
declared with their defaults; [`PortfolioEnv`][sekai.envs.PortfolioEnv]
repeats them in its signature for readers and type checkers (a test keeps the
two equal), and [`PortfolioVecEnv`][sekai.envs.PortfolioVecEnv] passes its
keywords through.

Portfolio-v0 plays one of three kinds of data, its config's ``source``:

- a **history** (``prices=`` / ``data=``, a `History`) played in windows
  chosen by a start sampler;
- a **model** (``model=``, or correlated geometric Brownian motion built from
  ``mu`` / ``sigma`` / ``corr``; with nothing given, 5 assets; a `Simulated`)
  simulated at every reset;
- **windows of log returns** (this project's first Portfolio-v0, a
  `Windows`): a window sampler (a `sekai.finance.sampling.WindowSampler`)
  given as ``sampler`` draws each episode's returns and trading halts.

The defaults (lookback 30, capital 1,000,000) are the same for all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.envs.finance._account_step import account_config, check_reward, positive_capital
from sekai.envs.finance._episode_config import EpisodeConfig
from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._price_sources import History, Simulated, resolve_source
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import Episode, EpisodeSampler, WindowSampler, as_sampler
from sekai.finance.simulators import GBM, MarketModel
from sekai.spaces import Box, Dict

__all__ = ["PortfolioConfig", "PortfolioObs", "PortfolioParameters", "PortfolioSource", "Windows"]

PortfolioObs = dict[str, NDArray[np.float32]]
"""An observation of Portfolio-v0: ``{"returns": ..., "weights": ...}``."""

_DAY = 1.0 / 252.0
_COST = 0.001
_N_ASSETS = 5  # of the default simulated market
_CORRELATION = 0.3  # pairwise, of the default simulated market
_LOOKBACK = 30
_CAPITAL = 1_000_000.0


class Windows:
    """Episodes of log returns and halts, each drawn whole by a window sampler (no prices).

    Args:
        sampler: The window sampler (one per env: a vector env spawns one per
            sub-env).
        dt: Years per period.

    Attributes:
        sampler: The window sampler.
        dt: Years per period.
    """

    is_history = False

    def __init__(self, sampler: WindowSampler, dt: float) -> None:
        self.sampler = sampler
        self.dt = dt

    @property
    def n_assets(self) -> int:
        """Number of assets of every episode (the sampler's)."""
        return int(self.sampler.n_assets)

    def episode(
        self,
        rng: np.random.Generator,
        options: Mapping[str, Any],
        n_periods: int,
        sampler: WindowSampler | None = None,
    ) -> Episode:
        """The episode of a reset: ``options["episode"]`` if given, else a sample.

        Args:
            rng: The generator to sample with.
            options: The (checked) reset options.
            n_periods: Rows the episode must have (``lookback + episode_length``).
            sampler: The sampler to use instead of `sampler` (a vector env's
                sub-env copy).

        Raises:
            TypeError: ``options["episode"]`` is not an Episode.
            ValueError: The episode has the wrong shape.
        """
        episode = options.get("episode")
        if episode is None:
            episode = (self.sampler if sampler is None else sampler).sample(rng, n_periods)
        if not isinstance(episode, Episode):
            raise TypeError(f"the episode must be an Episode, got {episode!r}")
        expected = (n_periods, self.n_assets)
        if episode.log_returns.shape != expected:
            raise ValueError(
                f"Portfolio episodes need log_returns of shape {expected} (lookback + "
                f"episode_length periods, n_assets), got {episode.log_returns.shape}"
            )
        return episode


PortfolioSource = History | Simulated | Windows
"""Where Portfolio-v0's data comes from."""


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


def _count(n_assets: object, owner: str) -> int:
    return check_int(n_assets, f"{owner}: n_assets", minimum=1, type_error=ValueError)


def _check_sources(owner: str, given: list[str], gbm: list[str], windowed: bool) -> None:
    """Refuse combinations of data arguments that describe different markets."""
    if given and gbm:
        raise ValueError(
            f"{owner}: {', '.join(gbm)} describe(s) the default simulated market; they cannot "
            f"be combined with {' and '.join(given)}"
        )
    if windowed and (given or gbm):
        raise ValueError(
            f"{owner}: a window sampler draws whole episodes of returns; it cannot be "
            f"combined with {' and '.join(given + gbm)} (use a start sampler such as "
            "'random' to play prices)"
        )


def _windows(owner: str, sampler: WindowSampler, n_assets: int | None, dt: float | None) -> Windows:
    count = _count(sampler.n_assets if n_assets is None else n_assets, owner)
    if sampler.n_assets != count:
        raise ValueError(
            f"{owner}: n_assets={count} but the sampler {sampler!r} draws {sampler.n_assets} assets"
        )
    years = check_real(_DAY if dt is None else dt, f"{owner}: dt", minimum=0.0, min_open=True)
    return Windows(sampler, years)


def _cost_argument(
    owner: str, transaction_cost: float | CostModel | None, cost: float | None
) -> float | CostModel | None:
    """The rate or model to charge: ``transaction_cost``, or ``cost`` (its former name)."""
    if cost is None:
        return transaction_cost
    if isinstance(transaction_cost, CostModel) or transaction_cost != _COST:
        raise ValueError(
            f"{owner}: give transaction_cost or its former name cost, not both; got "
            f"transaction_cost={transaction_cost!r} and cost={cost!r}"
        )
    check_real(cost, f"{owner}: cost", minimum=0, maximum=0.5, max_open=True)
    return cost


@dataclass(frozen=True)
class PortfolioConfig(EpisodeConfig):
    """The checked parameters of Portfolio-v0 (see [`PortfolioEnv`][sekai.envs.PortfolioEnv]).

    The episode's settings are `EpisodeConfig`'s (``transaction_cost`` as
    given, or ``cost``'s; ``capital``: the portfolio's value at each start);
    the rest are Portfolio-v0's own.

    Attributes:
        source: Where the data comes from (a history, a model or a window sampler).
        n_assets: Number of assets.
        allow_short: Whether target weights may be negative.
        max_leverage: The largest gross exposure of the assets.
        mu: The ``mu`` argument.
        sigma: The ``sigma`` argument.
        corr: The ``corr`` argument.
        dt: Years per period.
        risk_free_rate: Log return of cash per period.
        borrow_rate: Annual fee on the value of short positions.
        maintenance_margin: The account's maintenance margin, or None.
        account: The account's rules and rates.
        bounded: Whether weights stay in ``[0, 1]`` (long-only without leverage).
        action_shape: The shape of one action: ``(n_assets,)`` with shorts,
            else ``(n_assets + 1,)``.
    """

    _int_error: ClassVar[type[Exception]] = ValueError  # as Portfolio-v0 has always refused them

    source: PortfolioSource
    n_assets: int
    allow_short: bool
    max_leverage: float
    mu: Any
    sigma: Any
    corr: Any
    dt: float
    risk_free_rate: float
    borrow_rate: float = field(default=0.0, kw_only=True)
    maintenance_margin: float | None = field(default=None, kw_only=True)
    account: AccountConfig = field(init=False, repr=False)
    bounded: bool = field(init=False, repr=False)
    action_shape: tuple[int] = field(init=False, repr=False)

    @classmethod
    def from_arguments(
        cls,
        owner: str,
        prices: ArrayLike | None = None,
        *,
        data: MarketData | None = None,
        n_assets: int | None = None,
        episode_length: int = 252,
        lookback: int = 30,
        transaction_cost: float | CostModel = 0.001,
        allow_short: bool = False,
        mu: ArrayLike | None = None,
        sigma: ArrayLike | None = None,
        corr: ArrayLike | None = None,
        dt: float | None = None,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: str | int | EpisodeSampler | WindowSampler = "random",
        capital: float = 1_000_000.0,
        max_leverage: float = 1.0,
        cost: float | None = None,
        risk_free_rate: float = 0.0,
        execution: str = "close",
        borrow_rate: float = 0.0,
        maintenance_margin: float | None = None,
    ) -> PortfolioConfig:
        """Check the keywords of Portfolio-v0 and build its config.

        ``lookback=None`` and ``capital=None`` mean the defaults, as they
        always have.

        Raises:
            TypeError, ValueError: A bad argument (the message names it).
        """
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
        windowed = isinstance(sampler, WindowSampler)
        _check_sources(owner, given, gbm, windowed)
        source: PortfolioSource
        if isinstance(sampler, WindowSampler):
            source = _windows(owner, sampler, n_assets, dt)
        else:
            if sampler is not None:
                try:
                    as_sampler(sampler)
                except TypeError:
                    raise TypeError(
                        f"{owner}: sampler must be a window sampler (sekai.finance.sampling), "
                        "'random', 'sequential', an int or a start sampler "
                        f"(sekai.finance.EpisodeSampler), got {sampler!r}"
                    ) from None
            source = resolve_source(
                owner,
                prices=prices,
                data=data,
                model=model,
                default=lambda: _default_gbm(n_assets, mu, sigma, corr, dt),
                sampler="random" if sampler is None else sampler,
                dt=dt,
                complete=True,
                n_assets=None if n_assets is None else _count(n_assets, owner),
            )
        rate = check_real(risk_free_rate, f"{owner}: risk_free_rate", type_error=ValueError)
        return cls(
            owner=owner,
            source=source,
            n_assets=source.n_assets,
            episode_length=episode_length,
            lookback=_LOOKBACK if lookback is None else lookback,
            transaction_cost=_cost_argument(owner, transaction_cost, cost),
            allow_short=check_bool(allow_short, f"{owner}: allow_short"),
            max_leverage=check_real(
                max_leverage, f"{owner}: max_leverage", minimum=0.0, min_open=True
            ),
            mu=mu,
            sigma=sigma,
            corr=corr,
            dt=source.dt,
            reward=check_reward(reward, owner),
            capital=positive_capital(_CAPITAL if capital is None else capital, owner),
            risk_free_rate=rate,
            execution=execution,
            borrow_rate=check_real(borrow_rate, f"{owner}: borrow_rate", minimum=0.0),
            maintenance_margin=maintenance_margin,
        )

    def __post_init__(self) -> None:
        super().__post_init__()
        self._derive(
            account=account_config(
                self.owner,
                allow_short=self.allow_short,
                max_leverage=self.max_leverage,
                cash_rate=self.risk_free_rate / self.dt,
                borrow_rate=self.borrow_rate,
                maintenance_margin=self.maintenance_margin,
            ),
            bounded=not self.allow_short and self.max_leverage <= 1.0,
            action_shape=(self.n_assets,) if self.allow_short else (self.n_assets + 1,),
        )

    @property
    def has_prices(self) -> bool:
        """Whether the episodes carry prices: not with a window sampler's returns."""
        return not isinstance(self.source, Windows)

    # -- what the data is -----------------------------------------------------------------------

    @property
    def windowed(self) -> bool:
        """Whether episodes are windows of log returns (a window sampler)."""
        return isinstance(self.source, Windows)

    @property
    def sampler(self) -> WindowSampler | EpisodeSampler | None:
        """The window sampler, or the history's start sampler, or None for a model."""
        return None if isinstance(self.source, Simulated) else self.source.sampler

    @property
    def n_periods(self) -> int:
        """Rows of returns an episode covers: ``lookback + episode_length``."""
        return self.lookback + self.episode_length

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self) -> Dict:
        """The Dict observation space."""
        low, high = (0.0, 1.0) if self.bounded else (-np.inf, np.inf)
        return Dict(
            {
                "returns": Box(-np.inf, np.inf, (self.lookback, self.n_assets), np.float32),
                "weights": Box(low, high, (self.n_assets + 1,), np.float32),
            }
        )

    def action_space(self) -> Box:
        """Scores ``Box(0, 1, (n + 1,))``, or weights ``Box(-1, 1, (n,))`` with shorts."""
        if self.allow_short:
            return Box(-1.0, 1.0, (self.n_assets,), np.float32)
        return Box(0.0, 1.0, (self.n_assets + 1,), np.float32)

    def spawn_sampler(self) -> Any:
        """An independent copy of the sampler for a sub-env (None for a model)."""
        sampler = self.sampler
        return None if sampler is None else sampler.spawn()

    def describe(self) -> str:
        """A short description for ``repr``."""
        source = self.source
        if isinstance(source, Windows):
            kind = type(source.sampler).__name__
        else:
            kind = "history" if isinstance(source, History) else type(source.model).__name__
        return f"n_assets={self.n_assets}, source={kind}, lookback={self.lookback}"


class PortfolioParameters:
    """The parameters of Portfolio-v0 as attributes of an env, read from its ``config``.

    [`PortfolioEnv`][sekai.envs.PortfolioEnv] and
    [`PortfolioVecEnv`][sekai.envs.PortfolioVecEnv] both take them from here,
    so each is declared once (as a field of `PortfolioConfig`).
    """

    config: PortfolioConfig

    n_assets = config_field[int]()
    allow_short = config_field[bool]()
    cost_model = config_field[CostModel]()
    transaction_cost = config_field[Any]()
    capital = config_field[float]()
    dt = config_field[float]()
    mu = config_field[Any]()
    sigma = config_field[Any]()
    corr = config_field[Any]()
    execution = config_field[str]()
    borrow_rate = config_field[float]()
    maintenance_margin = config_field["float | None"]()
