"""Portfolio-v0: allocate wealth across assets and cash, on returns windows or on prices."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.core import Env, ResetResult, StepResult
from sekai.envs.finance._cost_inputs import window_volatility
from sekai.envs.finance._portfolio_config import PortfolioConfig, PortfolioObs
from sekai.envs.finance._portfolio_weights import (
    check_actions,
    rebalance,
    short_targets,
    target_weights,
)
from sekai.envs.finance._price_sources import History, Simulated, check_options
from sekai.error import ResetRequired
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData, Past, PointInTime
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler, WindowSampler
from sekai.finance.simulators import MarketModel
from sekai.utils.seeding import SeedType

__all__ = ["PortfolioEnv", "SeedType", "equal_weight"]

F64 = NDArray[np.float64]
_TINY = float(np.finfo(np.float64).tiny)


def equal_weight(env: Any) -> NDArray[np.float32]:
    """The baseline policy of Portfolio-v0 and Market-v0: the same weight in every asset.

    The ``1/N`` portfolio (DeMiguel, Garlappi and Uppal, 2009), rebalanced
    every period, is hard to beat out of sample. For a long-only action space
    (scores, cash last) it scores every asset 1 and cash 0; for long/short
    weights it targets ``1 / n`` long in each asset. Where the env has an
    ``action_mask()`` (halted assets, unlisted slots of Market-v0), masked
    entries get 0, so the weight is spread over what can be traded.

    Args:
        env: A Portfolio-v0 or Market-v0 env (or a wrapper of one).

    Returns:
        A float32 action of the env's action space.
    """
    space = env.action_space
    width = int(space.shape[-1])
    short = bool(np.min(space.low) < 0.0)
    mask = getattr(env, "action_mask", None)
    allowed = np.ones(width, dtype=np.bool_) if mask is None else np.asarray(mask(), dtype=bool)
    action = np.ones(width, dtype=np.float32)
    if not short:
        action[-1] = 0.0  # nothing in cash
    action[~allowed] = 0.0
    count = int(np.count_nonzero(action))
    if short and count:
        action /= count
    return action


class PortfolioEnv(Env[PortfolioObs, NDArray[np.float32]]):
    """Allocate a portfolio across ``n_assets`` risky assets and cash.

    Two kinds of data (see also the guide):

    * **Prices** (sekai 0.2's constructor, the default): a history given as
      ``prices`` (a ``(T, n)`` array or a DataFrame) or ``data`` (a complete
      [`MarketData`][sekai.finance.MarketData]), played in windows whose first
      row ``sampler`` chooses (``"random"``, ``"sequential"``, an int or a
      start sampler); or a ``model`` simulated at every reset; or, with none
      of the three, correlated geometric Brownian motion built from ``mu``,
      ``sigma`` and ``corr`` (by default 5 assets with drift 0.05, volatility
      0.2 and pairwise correlation 0.3 per year, daily steps). Reads go
      through ``data.at(t)``: nothing after the decision row is seen, the
      trade executes at the next row's prices.
    * **Windows of log returns** (this project's first Portfolio-v0), when
      ``sampler`` is a window sampler (a `sekai.finance.sampling.WindowSampler`): at every reset
      it draws an episode of ``lookback + episode_length`` periods of log
      returns and trading halts, e.g. a
      [`RegimeSwitchingSampler`][sekai.envs.RegimeSwitchingSampler] (assets
      whose drift and volatility follow a hidden Markov chain, with occasional
      halts). ``n_assets`` is the sampler's.

    The defaults are sekai 0.2's whatever the data: a lookback of 30 and a
    starting value (``capital``) of 1,000,000. The first Portfolio-v0's
    defaults were a regime-switching sampler of 4 assets, a lookback of 20 and
    a starting value of 1: ``PortfolioEnv(sampler=RegimeSwitchingSampler(4),
    lookback=20, capital=1.0)`` plays it.

    Observation:
        ``Dict`` with ``"returns"``, a float32 ``Box (lookback, n_assets)``
        of the log returns of the last ``lookback`` periods up to now (row
        ``-1`` the latest), and ``"weights"``, a float32 ``Box (n_assets + 1,)``:
        the current (drifted) weights, cash last, summing to 1; in ``[0, 1]``
        for a long-only account without leverage, unbounded otherwise.

    Action:
        Long-only (default): ``Box(0, 1, (n_assets + 1,))`` scores, cash last,
        divided by their sum (all zeros: all cash); with ``max_leverage`` > 1
        the assets' share is scaled by it and cash borrowed. With
        ``allow_short=True``: ``Box(-1, 1, (n_assets,))`` target weights of the
        assets, scaled down together when their gross exposure exceeds
        ``max_leverage`` ([`project_weights`][sekai.finance.account.project_weights]);
        cash is the rest. Halted assets (window samplers; ``action_mask()``
        False) keep their weight whatever the action says.

    Reward:
        ``reward(outcome)`` of the step's [`StepOutcome`][sekai.finance.StepOutcome],
        by default its log growth net of costs:
        ``log(gross) + log(1 - cost)`` with ``cost`` the cost model's price of
        the rebalance (``transaction_cost * turnover`` for a rate, turnover
        ``sum_i |target_i - w_i|`` over the assets). Cash earns
        ``risk_free_rate`` (a log return per period).

    Termination:
        ``terminated`` when the portfolio is wiped out (only possible with
        shorts, leverage or costs of 100%); ``truncated`` after
        ``episode_length`` steps.

    Info:
        Every step: ``portfolio_value`` (also ``equity``), ``weights``
        (drifted, cash last), ``turnover``, ``cost`` (fraction of value),
        ``log_return`` (before costs), ``asset_returns`` (simple returns of
        the period), ``timestamp`` and ``dt``. Reset: ``portfolio_value``.

    Reset options:
        ``{"episode": Episode}`` plays the given episode (window samplers);
        ``{"start": t}`` starts a history at row or time ``t``.

    Baseline:
        `equal_weight`.

    Args:
        prices: A price history ``(T, n_assets)`` (array or DataFrame).
        data: A complete MarketData.
        n_assets: Number of assets (default: the data's, the model's, the
            window sampler's, the length of ``mu`` / ``sigma`` / ``corr``, or 5).
        episode_length: Steps per episode (252, a trading year of days).
        lookback: Returns per observation.
        transaction_cost: A proportional rate (default 0.001) or a
            [`CostModel`][sekai.finance.CostModel].
        allow_short: Target weights may be negative.
        mu: Drifts of the default simulated market (per year).
        sigma: Volatilities of the default simulated market (per year).
        corr: Correlation matrix of the default simulated market.
        dt: Years per period (default: the data's, the model's, or 1/252).
        model: A market model simulated at every reset.
        reward: The reward function (the env keeps its own copy).
        sampler: For a history, where episodes start: ``"random"``,
            ``"sequential"``, an int or a start sampler (checked, then unused,
            with a model); or a window sampler (a `sekai.finance.sampling.WindowSampler`) to
            play windows of log returns instead of prices.
        capital: Starting value of the portfolio.
        max_leverage: The largest gross exposure of the assets.
        cost: The former name of ``transaction_cost`` (a rate in ``[0, 0.5)``).
        risk_free_rate: Log return of cash per period.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - copied per subclass
        "render_fps": 30,
        "render_modes": ["rgb_array"],
        "renderer": "sekai.envs.finance.rendering:PortfolioRenderer",
    }

    def __init__(
        self,
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
    ) -> None:
        config = PortfolioConfig(
            "PortfolioEnv",
            prices=prices,
            data=data,
            n_assets=n_assets,
            episode_length=episode_length,
            lookback=lookback,
            transaction_cost=transaction_cost,
            cost=cost,
            allow_short=allow_short,
            max_leverage=max_leverage,
            mu=mu,
            sigma=sigma,
            corr=corr,
            dt=dt,
            model=model,
            reward=reward,
            sampler=sampler,
            capital=capital,
            risk_free_rate=risk_free_rate,
        )
        self.config = config
        self.sampler = config.sampler
        self.n_assets = config.n_assets
        self.allow_short = config.allow_short
        self.cost_model = config.cost_model
        self.transaction_cost = config.transaction_cost
        self.capital = config.capital
        self.dt = config.dt
        self.mu, self.sigma, self.corr = mu, sigma, corr
        self._reward = config.reward
        self.observation_space = config.observation_space()
        self.action_space = config.action_space()
        n = config.n_assets
        self._action_shape = (n,) if config.allow_short else (n + 1,)
        self._returns: F64 | None = None  # window samplers: the episode's log returns
        self._data: MarketData | None = None  # prices: the data of the episode
        self._offset = 0  # data row of time index t is t + offset
        self._tradable = np.ones((0, n + 1))  # 1.0 where an entry can be traded
        self._weights: F64 = np.zeros((1, n + 1))
        self._time = 0
        self._steps = 0
        self._value = config.capital
        self._over = True

    # -- properties ------------------------------------------------------------------------

    @property
    def data(self) -> MarketData | None:
        """The history played (``prices=`` / ``data=``), or None."""
        return self.config.history

    @property
    def model(self) -> MarketModel | None:
        """The market model simulated, or None."""
        return self.config.model

    @property
    def prices(self) -> F64 | None:
        """The whole price history ``(T, n_assets)`` (read-only), or None."""
        history = self.config.history
        return None if history is None else history.prices

    @property
    def lookback(self) -> int:
        """Returns per observation; a new value applies from the next reset."""
        return self.config.lookback

    @lookback.setter
    def lookback(self, value: int) -> None:
        self.config.lookback = value
        self.observation_space = self.config.observation_space()
        self._over = True

    @property
    def episode_length(self) -> int:
        """Steps per episode; a new value applies from the next reset."""
        return self.config.episode_length

    @episode_length.setter
    def episode_length(self, value: int) -> None:
        self.config.episode_length = value
        self._over = True

    @property
    def reward_fn(self) -> RewardFunction:
        """The reward function (assignable; the new one is used as given)."""
        return self._reward

    @reward_fn.setter
    def reward_fn(self, value: RewardFunction) -> None:
        if not isinstance(value, RewardFunction):
            raise TypeError(f"PortfolioEnv: reward_fn must be a RewardFunction, got {value!r}")
        self._reward = value

    @property
    def time(self) -> int:
        """Row of the episode's returns the agent has seen last (``lookback - 1`` at a reset)."""
        return self._time

    @property
    def elapsed_steps(self) -> int:
        """Steps taken in the current episode."""
        return self._steps

    @property
    def weights(self) -> F64:
        """Current float64 weights (cash last), a copy."""
        weights: F64 = self._weights[0].copy()
        return weights

    @property
    def portfolio_value(self) -> float:
        """Current value of the portfolio (``capital`` at the reset)."""
        return self._value

    @property
    def equity(self) -> float:
        """The same as `portfolio_value`."""
        return self._value

    def _now(self) -> PointInTime:
        if self._data is None:
            raise ResetRequired("PortfolioEnv: no prices yet (call reset()), or a window sampler")
        return self._data.at(self._time + self._offset)

    @property
    def price_history(self) -> Past | None:
        """The prices up to now, ``(t + 1, n_assets)`` (reads past now raise LookAheadError).

        None with a window sampler (it draws returns, not prices).
        """
        return None if self._data is None else self._now().prices

    @property
    def timestamp(self) -> Any:
        """The current row's timestamp (its index in the episode with a window sampler)."""
        return self._time if self._data is None else self._now().time

    def action_mask(self) -> NDArray[np.bool_]:
        """Which entries of the action can be traded now (``False``: halted)."""
        if self._returns is None and self._data is None:
            raise ResetRequired("Portfolio: call reset() before action_mask()")
        mask: NDArray[np.bool_] = self._tradable[self._time] > 0.0
        return mask[: self.n_assets] if self.allow_short else mask

    def action_to_weights(self, action: Any) -> F64:
        """The ``(n_assets + 1,)`` target weights (cash last) ``action`` asks for now.

        Raises:
            ResetRequired: Before the first reset.
            InvalidAction: A malformed action.
        """
        if self._returns is None and self._data is None:
            raise ResetRequired("Portfolio: call reset() before action_to_weights()")
        weights: F64 = self._targets(action)[0]
        return weights

    def _targets(self, action: Any) -> F64:
        config = self.config
        actions = check_actions(
            action, self._action_shape, "Portfolio action", signed=config.allow_short
        )
        tradable = self._tradable[self._time : self._time + 1]
        if config.allow_short:
            return short_targets(actions[None], self._weights, tradable, config.account)
        return target_weights(actions[None], self._weights, tradable, config.account.max_leverage)

    # -- the env API ---------------------------------------------------------------------------

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[PortfolioObs]:
        """Draw an episode and start as 100% cash (see the class docstring)."""
        self._set_rng(seed)
        config = self.config
        n, lookback, length = config.n_assets, config.lookback, config.episode_length
        source = config.source
        tradable = np.ones((config.n_periods, n + 1))
        if source is None:
            episode = config.episode(self.rng, check_options(options, ("episode",), "Portfolio"))
            self._returns = episode.log_returns
            tradable[:, :-1] = ~episode.halted
        elif isinstance(source, History):
            start = check_options(options, ("start",), "PortfolioEnv").get("start")
            row = source.first_row(self.rng, start, lookback, length)
            self._data = source.data
            self._offset = row - (lookback - 1)
        else:
            check_options(options, (), "PortfolioEnv")
            self._data = Simulated.as_data(source.simulate(self.rng, lookback, length))
            self._offset = 1
        self._tradable = tradable
        self._weights = np.zeros((1, n + 1))
        self._weights[0, -1] = 1.0
        self._time = lookback - 1
        self._steps = 0
        self._value = config.capital
        self._over = False
        self._reward.reset()
        return ResetResult(self._observe(), {"portfolio_value": self._value})

    def step(self, action: NDArray[np.float32]) -> StepResult[PortfolioObs]:
        """Rebalance to the action's target weights and let one period pass.

        Raises:
            ResetRequired: Before the first reset, or after the episode ended.
            InvalidAction: The action has the wrong shape or holds a negative
                (long-only), NaN or infinite value.
        """
        if self._over:
            raise ResetRequired("Portfolio: call reset() to start an episode")
        config = self.config
        target = self._targets(action)
        t = self._time
        equity = np.array([self._value])
        market: dict[str, Any] = {"equity": equity}
        if self._returns is not None:
            window = self._returns[t + 1 - config.lookback : t + 1]
            returns = np.expm1(self._returns[t + 1 : t + 2])
        else:
            now = self._now()
            window = now.log_returns(config.lookback)
            price = now.prices.latest
            returns = (now.execution_price() / price - 1.0)[None]
            market["prices"] = price[None]
            for name in config.costs.fields:
                market[name] = now.field(name).latest[None]
        if config.costs.volatility:
            market["volatility"] = window_volatility(window[None])
        weights, step = rebalance(
            self._weights,
            target,
            returns,
            dt=self.dt,
            config=config.account,
            cost_model=config.cost_model,
            market=market,
            equity=equity,
            bounded=config.bounded,
        )
        reward = float(np.asarray(self._reward(step.outcome))[0])
        self._weights = weights
        self._time = t + 1
        self._steps += 1
        self._value = float(step.equity[0])
        terminated = bool(step.wiped_out[0])
        truncated = not terminated and self._steps >= config.episode_length
        self._over = terminated or truncated
        info = {
            "portfolio_value": self._value,
            "equity": self._value,
            "weights": weights[0].copy(),
            "turnover": float(step.turnover[0]),
            "cost": float(step.cost[0]),
            "log_return": float(np.log(np.maximum(step.gross, _TINY))[0]),
            "asset_returns": returns[0],
            "timestamp": self.timestamp,
            "dt": self.dt,
        }
        return StepResult(self._observe(), reward, terminated, truncated, info)

    def _observe(self) -> PortfolioObs:
        lookback = self.config.lookback
        if self._returns is not None:
            t = self._time
            window = self._returns[t + 1 - lookback : t + 1]
        else:
            window = self._now().log_returns(lookback)
        return {
            "returns": window.astype(np.float32),
            "weights": self._weights[0].astype(np.float32),
        }

    def __repr__(self) -> str:
        return f"PortfolioEnv({self.config.describe()})"
