"""Validated parameters of Market-v0 (private).

The data side (features by name, their causality check, exogenous series)
and the spaces live here; `sekai.envs.finance.market_env` plays the
episodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sekai._validation import check_bool, check_int, check_real
from sekai.envs.finance._account_step import check_reward, positive_capital
from sekai.envs.finance._cost_inputs import CostInputs
from sekai.envs.finance._price_sources import History, Simulated, resolve_source
from sekai.error import LookAheadError
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel, as_cost_model
from sekai.finance.data import MarketData
from sekai.finance.features import add_features, check_causal, compute_feature
from sekai.finance.rewards import RewardFunction
from sekai.finance.simulators import MarketModel
from sekai.spaces import Box, Dict, MaskedBox, Space

__all__ = ["MarketConfig"]

_CAUSAL_ROWS = 256  # rows of data the causality check of a feature recomputes it on


def _names(values: Sequence[str], what: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"MarketEnv: {what} must be a sequence of names, got {values!r}")
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"MarketEnv: {what} must hold names (str), got {value!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"MarketEnv: {what} names a series twice: {list(values)!r}")
    return tuple(values)


def check_features(data: MarketData, features: tuple[str, ...]) -> MarketData:
    """``data`` with every feature added as a field, after checking each is causal.

    A registered feature (not a field of the data) is recomputed on the
    first rows of the prices with the later rows perturbed
    ([`check_causal`][sekai.finance.features.check_causal]); one whose past changes
    reads the future and is refused.

    Raises:
        ValueError: An unknown name (the message lists fields and features).
        LookAheadError: A feature reads rows after the one it describes.
    """
    sample = data.prices[: min(data.n_steps, _CAUSAL_ROWS)]
    for name in features:
        if name in data.fields:
            continue
        try:
            compute_feature(data[:2], name)
        except KeyError as error:
            raise ValueError(f"MarketEnv: {error.args[0]}") from None

        def feature(prices: Any, name: str = name) -> Any:
            return compute_feature(MarketData(prices), name)

        try:
            check_causal(feature, sample)
        except LookAheadError as error:
            raise LookAheadError(
                f"MarketEnv: feature {name!r} reads the future ({error}); a feature's row t "
                "must depend on rows up to t only"
            ) from None
    return add_features(data, features)


class MarketConfig:
    """Validated parameters of Market-v0 (see [`MarketEnv`][sekai.envs.MarketEnv])."""

    def __init__(
        self,
        *,
        default: Callable[[], MarketModel],
        data: MarketData | None,
        model: MarketModel | None,
        max_assets: int | None,
        features: Sequence[str],
        exogenous: Sequence[str],
        lookback: int,
        episode_length: int,
        sampler: Any,
        transaction_cost: float | CostModel,
        reward: RewardFunction | None,
        allow_short: bool,
        max_leverage: float,
        cash_rate: float,
        margin_rate: float | None,
        borrow_rate: float,
        capital: float,
        dt: float | None,
        delisting_return: float,
        privileged_state: bool,
    ) -> None:
        owner = "MarketEnv"
        self.source = resolve_source(
            owner,
            prices=None,
            data=data,
            model=model,
            default=default,
            sampler=sampler,
            dt=dt,
            complete=False,
        )
        self.dt = self.source.dt
        self.n_total = self.source.n_assets
        self.max_assets = check_int(
            self.n_total if max_assets is None else max_assets, f"{owner}: max_assets", minimum=1
        )
        self.features = _names(features, "features")
        self.exogenous = _names(exogenous, "exogenous")
        self._lookback = check_int(lookback, f"{owner}: lookback", minimum=1)
        self._episode_length = check_int(episode_length, f"{owner}: episode_length", minimum=1)
        self.cost_model = as_cost_model(transaction_cost)
        self.transaction_cost = transaction_cost
        self.reward = check_reward(reward, owner)
        self.account = AccountConfig(
            allow_short=check_bool(allow_short, f"{owner}: allow_short"),
            max_leverage=max_leverage,
            cash_rate=cash_rate,
            margin_rate=margin_rate,
            borrow_rate=borrow_rate,
        )
        self.capital = positive_capital(capital, owner)
        self.delisting_return = check_real(
            delisting_return, f"{owner}: delisting_return", minimum=-1.0
        )
        self.privileged_state = check_bool(privileged_state, f"{owner}: privileged_state")
        self.history: MarketData | None = None
        self.widths: dict[str, int] = {}
        self.state_spec: dict[str, tuple[int, ...]] = {}
        self.state_size = 0
        if isinstance(self.source, History):
            self._init_history(self.source)
        else:
            self._init_model(self.source)
        self._check()

    def _init_history(self, source: History) -> None:
        if self.privileged_state:
            raise ValueError(
                "MarketEnv: privileged_state=True shows a simulation's latent state; a history "
                "has none (pass model= instead of data=)"
            )
        for name in self.exogenous:
            if name not in source.data.exogenous:
                raise ValueError(
                    f"MarketEnv: no exogenous series {name!r} in the data; it has "
                    f"{sorted(source.data.exogenous)!r}"
                )
            self.widths[name] = source.data.exogenous_width(name)
        self.history = check_features(source.data, self.features)

    def _init_model(self, source: Simulated) -> None:
        if self.exogenous:
            raise ValueError(
                "MarketEnv: exogenous series come with data (MarketData.exogenous); a model has "
                f"none, got exogenous={list(self.exogenous)!r}"
            )
        if self.features:
            probe = source.model.simulate(np.random.default_rng(0), _CAUSAL_ROWS)
            check_features(Simulated.as_data(probe), self.features)
        self.state_spec = dict(sorted(source.model.state_spec().items()))
        self.state_size = sum(
            int(np.prod(shape, dtype=np.int64)) for shape in self.state_spec.values()
        )
        if self.privileged_state and self.state_size == 0:
            raise ValueError(
                f"MarketEnv: privileged_state=True, but the model {source.model!r} has no latent "
                "state to show"
            )

    def _check(self) -> None:
        fields: Any = ()
        if isinstance(self.source, History):
            self.source.check_length(self._lookback, self._episode_length, "MarketEnv")
            assert self.history is not None
            fields = self.history.fields
        self.costs = CostInputs(
            self.cost_model,
            fields=fields,
            has_prices=True,
            lookback=self._lookback,
            owner="MarketEnv",
        )

    def _set(self, name: str, value: int) -> None:
        previous = getattr(self, name)
        setattr(self, name, check_int(value, f"MarketEnv: {name.lstrip('_')}", minimum=1))
        try:
            self._check()
        except ValueError:
            setattr(self, name, previous)
            raise

    @property
    def lookback(self) -> int:
        """Rows per observation window."""
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
    def bounded(self) -> bool:
        """Whether weights stay in ``[0, 1]`` (long-only without leverage)."""
        return not self.account.allow_short and self.account.max_leverage <= 1.0

    @property
    def model(self) -> MarketModel | None:
        """The simulated model, or None."""
        return self.source.model if isinstance(self.source, Simulated) else None

    def observation_space(self) -> Dict:
        """The Dict observation space (see [`MarketEnv`][sekai.envs.MarketEnv])."""
        width = 2 + len(self.features)
        low, high = (0.0, 1.0) if self.bounded else (-np.inf, np.inf)
        spaces: dict[str, Space[Any]] = {
            "assets": MaskedBox(-np.inf, np.inf, (self._lookback, width), max_size=self.max_assets),
            "portfolio": Box(low, high, (self.max_assets + 1,), np.float32),
            "account": Box(-np.inf, np.inf, (2,), np.float32),
        }
        if self.exogenous:
            columns = sum(self.widths.values())
            spaces["market"] = Box(-np.inf, np.inf, (self._lookback, columns), np.float32)
        if self.privileged_state:
            spaces["state"] = Box(-np.inf, np.inf, (self.state_size,), np.float32)
        return Dict(spaces)

    def action_space(self) -> Box:
        """Long-only scores ``(max_assets + 1,)`` or long/short weights ``(max_assets,)``."""
        if self.account.allow_short:
            return Box(-1.0, 1.0, (self.max_assets,), np.float32)
        return Box(0.0, 1.0, (self.max_assets + 1,), np.float32)
