"""Validated parameters of Trading-v0, shared by the single and the native vector env (private)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._validation import check_int, check_real, is_real
from sekai.envs.finance._account_step import check_reward, positive_capital
from sekai.envs.finance._cost_inputs import CostInputs
from sekai.envs.finance._price_sources import History, Source, resolve_source
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel, as_cost_model
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import GBM, MarketModel
from sekai.spaces import Box, Discrete

__all__ = ["TradingConfig"]

_DAY = 1.0 / 252.0


def _positions(positions: Sequence[float], owner: str) -> tuple[float, ...]:
    if isinstance(positions, (str, bytes)) or not isinstance(positions, (Sequence, np.ndarray)):
        raise TypeError(
            f"{owner}: positions must be a sequence of target positions (fractions of equity), "
            f"got {positions!r}"
        )
    values = tuple(positions)
    if not values:
        raise ValueError(f"{owner}: positions must hold at least one target position, got ()")
    for index, value in enumerate(values):
        if not is_real(value):
            raise TypeError(f"{owner}: positions[{index}] must be a real number, got {value!r}")
    return tuple(
        check_real(value, f"{owner}: positions[{index}]") for index, value in enumerate(values)
    )


class TradingConfig:
    """Validated parameters of Trading-v0 (see [`TradingEnv`][sekai.envs.TradingEnv])."""

    owner: str

    def __init__(
        self,
        owner: str,
        *,
        prices: ArrayLike | None,
        data: MarketData | None,
        episode_length: int,
        lookback: int,
        positions: Sequence[float],
        transaction_cost: float | CostModel,
        mu: float,
        sigma: float,
        dt: float | None,
        s0: float,
        model: MarketModel | None,
        reward: RewardFunction | None,
        sampler: str | int | EpisodeSampler,
        capital: float,
    ) -> None:
        self.owner = owner
        self._episode_length = check_int(episode_length, f"{owner}: episode_length", minimum=1)
        self._lookback = check_int(lookback, f"{owner}: lookback", minimum=1)
        self.positions = _positions(positions, owner)
        self.cost_model = as_cost_model(transaction_cost)
        self.transaction_cost = transaction_cost
        self.mu, self.sigma, self.s0 = mu, sigma, s0
        self.reward = check_reward(reward, owner)
        self.capital = positive_capital(capital, owner)

        def default() -> MarketModel:
            return GBM(mu, sigma, s0=s0, dt=_DAY if dt is None else dt)

        self.source: Source = resolve_source(
            owner,
            prices=prices,
            data=data,
            model=model,
            default=default,
            sampler=sampler,
            dt=dt,
            complete=True,
            n_assets=1,
        )
        self.dt = self.source.dt
        largest = max(abs(value) for value in self.positions)
        self.account = AccountConfig(
            allow_short=min(self.positions) < 0.0,
            max_leverage=largest if largest > 0.0 else 1.0,
        )
        self._check()

    def _check(self) -> None:
        source = self.source
        fields: Any = ()
        if isinstance(source, History):
            source.check_length(self._lookback, self._episode_length, self.owner)
            fields = source.data.fields
        self.costs = CostInputs(
            self.cost_model,
            fields=fields,
            has_prices=True,
            lookback=self._lookback,
            owner=self.owner,
        )

    @property
    def episode_length(self) -> int:
        """Decisions per episode."""
        return self._episode_length

    @episode_length.setter
    def episode_length(self, value: int) -> None:
        previous = self._episode_length
        self._episode_length = check_int(value, f"{self.owner}: episode_length", minimum=1)
        try:
            self._check()
        except ValueError:
            self._episode_length = previous
            raise

    @property
    def lookback(self) -> int:
        """Log returns per observation."""
        return self._lookback

    @lookback.setter
    def lookback(self, value: int) -> None:
        previous = self._lookback
        self._lookback = check_int(value, f"{self.owner}: lookback", minimum=1)
        try:
            self._check()
        except ValueError:
            self._lookback = previous
            raise

    @property
    def history(self) -> MarketData | None:
        """The history played, or None for a model."""
        return self.source.data if isinstance(self.source, History) else None

    @property
    def model(self) -> MarketModel | None:
        """The model simulated, or None for a history."""
        return None if isinstance(self.source, History) else self.source.model

    def observation_space(self) -> Box:
        """``Box((lookback + 1,), float32)``: log returns, then the position."""
        return Box(-np.inf, np.inf, (self._lookback + 1,), np.float32)

    def action_space(self) -> Discrete:
        """``Discrete(len(positions))``."""
        return Discrete(len(self.positions))

    def position_array(self) -> NDArray[np.float64]:
        """The target positions as a float64 array (index: the action)."""
        return np.array(self.positions, dtype=np.float64)

    def describe(self) -> str:
        """A short description for ``repr``."""
        source = "history" if isinstance(self.source, History) else type(self.model).__name__
        return (
            f"source={source}, positions={self.positions}, lookback={self._lookback}, "
            f"episode_length={self._episode_length}"
        )
