"""Trading-v0's parameters: declared, defaulted and checked once (private).

`TradingConfig.from_arguments` is the one place the env's keywords are
declared with their defaults; [`TradingEnv`][sekai.envs.TradingEnv] repeats
them in its signature for readers and type checkers (a test keeps the two
equal), and [`TradingVecEnv`][sekai.envs.TradingVecEnv] passes its keywords
through.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._internal.validation import check_bool, check_real, is_real
from sekai.envs.finance._account_step import account_config, check_reward, positive_capital
from sekai.envs.finance._episode_config import EpisodeConfig
from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._price_sources import History, Source, resolve_source
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import GBM, MarketModel
from sekai.spaces import Box, Discrete

__all__ = ["TradingConfig", "TradingParameters"]

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


@dataclass(frozen=True)
class TradingConfig(EpisodeConfig):
    """The checked parameters of Trading-v0 (see [`TradingEnv`][sekai.envs.TradingEnv]).

    The episode's settings are `EpisodeConfig`'s (lookback: log returns per
    observation); the rest are Trading-v0's own.

    Attributes:
        source: Where the prices come from (a history or a model).
        positions: The target positions the actions choose from.
        mu: Drift of the default model.
        sigma: Volatility of the default model.
        s0: Start price of the default model.
        cash_rate: Annual rate earned on positive cash.
        margin_rate: Annual rate paid on borrowed cash (None: ``cash_rate``).
        borrow_rate: Annual fee on the value of a short position.
        maintenance_margin: The account's maintenance margin, or None.
        hold_action: Whether the last action keeps the position as it drifted.
        dt: Years per period.
        account: The account's limits (shorting, leverage) the positions imply,
            and its rates.
    """

    source: Source
    positions: tuple[float, ...]
    mu: float
    sigma: float
    s0: float
    cash_rate: float = field(default=0.0, kw_only=True)
    margin_rate: float | None = field(default=None, kw_only=True)
    borrow_rate: float = field(default=0.0, kw_only=True)
    maintenance_margin: float | None = field(default=None, kw_only=True)
    hold_action: bool = field(default=False, kw_only=True)
    dt: float = field(init=False)
    account: AccountConfig = field(init=False, repr=False)

    @classmethod
    def from_arguments(
        cls,
        owner: str,
        prices: ArrayLike | None = None,
        *,
        data: MarketData | None = None,
        episode_length: int = 252,
        lookback: int = 30,
        positions: Sequence[float] = (-1.0, 0.0, 1.0),
        transaction_cost: float | CostModel = 0.001,
        mu: float = 0.05,
        sigma: float = 0.2,
        dt: float | None = None,
        s0: float = 100.0,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: str | int | EpisodeSampler = "random",
        capital: float = 1_000_000.0,
        execution: str = "close",
        cash_rate: float = 0.0,
        margin_rate: float | None = None,
        borrow_rate: float = 0.0,
        maintenance_margin: float | None = None,
        hold_action: bool = False,
    ) -> TradingConfig:
        """Check the keywords of Trading-v0 and build its config.

        Raises:
            TypeError, ValueError: A bad argument (the message names it).
        """

        def default() -> MarketModel:
            return GBM(mu, sigma, s0=s0, dt=_DAY if dt is None else dt)

        source = resolve_source(
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
        return cls(
            owner=owner,
            source=source,
            episode_length=episode_length,
            lookback=lookback,
            positions=_positions(positions, owner),
            transaction_cost=transaction_cost,
            mu=mu,
            sigma=sigma,
            s0=s0,
            reward=check_reward(reward, owner),
            capital=positive_capital(capital, owner),
            execution=execution,
            cash_rate=check_real(cash_rate, f"{owner}: cash_rate"),
            margin_rate=None
            if margin_rate is None
            else check_real(margin_rate, f"{owner}: margin_rate"),
            borrow_rate=check_real(borrow_rate, f"{owner}: borrow_rate", minimum=0.0),
            maintenance_margin=maintenance_margin,
            hold_action=check_bool(hold_action, f"{owner}: hold_action"),
        )

    def __post_init__(self) -> None:
        super().__post_init__()
        largest = max(abs(value) for value in self.positions)
        self._derive(
            dt=self.source.dt,
            account=account_config(
                self.owner,
                allow_short=min(self.positions) < 0.0,
                max_leverage=largest if largest > 0.0 else 1.0,
                cash_rate=self.cash_rate,
                margin_rate=self.margin_rate,
                borrow_rate=self.borrow_rate,
                maintenance_margin=self.maintenance_margin,
            ),
        )

    def observation_space(self) -> Box:
        """``Box((lookback + 1,), float32)``: log returns, then the position."""
        return Box(-np.inf, np.inf, (self.lookback + 1,), np.float32)

    @property
    def n_actions(self) -> int:
        """``len(positions)``, one more with ``hold_action``."""
        return len(self.positions) + self.hold_action

    def action_space(self) -> Discrete:
        """``Discrete(n_actions)``."""
        return Discrete(self.n_actions)

    def position_array(self) -> NDArray[np.float64]:
        """The target of each action as a float64 array; NaN for the hold action."""
        targets = self.positions + ((math.nan,) if self.hold_action else ())
        return np.array(targets, dtype=np.float64)

    def describe(self) -> str:
        """A short description for ``repr``."""
        source = "history" if isinstance(self.source, History) else type(self.model).__name__
        return (
            f"source={source}, positions={self.positions}, lookback={self.lookback}, "
            f"episode_length={self.episode_length}"
        )


class TradingParameters:
    """The parameters of Trading-v0 as attributes of an env, read from its ``config``.

    [`TradingEnv`][sekai.envs.TradingEnv] and [`TradingVecEnv`][sekai.envs.TradingVecEnv] both take
    them from here, so each is declared once (as a field of `TradingConfig`).
    """

    config: TradingConfig

    positions = config_field[tuple[float, ...]]()
    cost_model = config_field[CostModel]()
    transaction_cost = config_field[Any]()
    capital = config_field[float]()
    dt = config_field[float]()
    mu = config_field[float]()
    sigma = config_field[float]()
    s0 = config_field[float]()
    execution = config_field[str]()
    cash_rate = config_field[float]()
    margin_rate = config_field["float | None"]()
    borrow_rate = config_field[float]()
    maintenance_margin = config_field["float | None"]()
    hold_action = config_field[bool]()
