"""Market-v0's parameters: declared, defaulted and checked once (private).

`MarketConfig.from_arguments` is the one place the env's keywords are
declared with their defaults; [`MarketEnv`][sekai.envs.MarketEnv] repeats them
in its signature for readers and type checkers (a test keeps the two equal),
and [`MarketVecEnv`][sekai.envs.MarketVecEnv] passes its keywords through.
The data side lives here too: features by name (checked to be causal, added
to a history once), exogenous series, a model's latent state, and the spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sekai._internal.validation import check_bool, check_int, check_real
from sekai.envs.finance._account_step import account_config, check_reward, positive_capital
from sekai.envs.finance._episode_config import EpisodeConfig
from sekai.envs.finance._kernel import config_field
from sekai.envs.finance._price_sources import History, Simulated, Source, resolve_source
from sekai.error import LookAheadError
from sekai.finance.account import AccountConfig
from sekai.finance.costs import CostModel
from sekai.finance.data import MarketData
from sekai.finance.features import add_features, check_causal, compute_feature
from sekai.finance.rewards import RewardFunction
from sekai.finance.sampling import EpisodeSampler
from sekai.finance.simulators import MarketModel
from sekai.spaces import Box, Dict, MaskedBox, Space

__all__ = ["MarketConfig", "MarketParameters", "check_features"]

_CAUSAL_ROWS = 256  # rows of data the causality check of a feature recomputes it on


def _names(values: Sequence[str], what: str, owner: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"{owner}: {what} must be a sequence of names, got {values!r}")
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{owner}: {what} must hold names (str), got {value!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"{owner}: {what} names a series twice: {list(values)!r}")
    return tuple(values)


def check_features(data: MarketData, features: tuple[str, ...], owner: str) -> MarketData:
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
            raise ValueError(f"{owner}: {error.args[0]}") from None

        def feature(prices: Any, name: str = name) -> Any:
            return compute_feature(MarketData(prices), name)

        try:
            check_causal(feature, sample)
        except LookAheadError as error:
            raise LookAheadError(
                f"{owner}: feature {name!r} reads the future ({error}); a feature's row t "
                "must depend on rows up to t only"
            ) from None
    return add_features(data, features)


def _with_features(source: Source, features: tuple[str, ...], owner: str) -> Source:
    """The source with the features checked; a history gets them added as fields, once."""
    if isinstance(source, History):
        return History(
            check_features(source.data, features, owner),
            source.sampler,
            source.dt,
            calendar=source.row_years is not None,
        )
    if features:  # a simulation computes them per episode: check them on a probe path
        probe = source.model.simulate(np.random.default_rng(0), _CAUSAL_ROWS)
        check_features(Simulated.as_data(probe), features, owner)
    return source


@dataclass(frozen=True)
class MarketConfig(EpisodeConfig):
    """The checked parameters of Market-v0 (see [`MarketEnv`][sekai.envs.MarketEnv]).

    The episode's settings are `EpisodeConfig`'s (lookback: rows per
    observation window; a history's data holds the features as fields); the
    rest are Market-v0's own.

    Attributes:
        source: Where the prices come from: a history or a model.
        max_assets: Slots.
        features: The feature names.
        exogenous: The exogenous series names.
        account: The account's rules and rates.
        delisting_return: Return of an asset over the period it delists.
        privileged_state: Whether the observation shows the model's latent state.
        dt: Years per row.
        n_total: Assets in the data or model.
        assets: The asset label of each column of the data or model.
        widths: Columns of each exogenous series, by name.
        state_spec: The model's latent state shapes, by name (sorted), else empty.
        state_size: Numbers in the flattened latent state.
    """

    source: Source
    max_assets: int
    features: tuple[str, ...]
    exogenous: tuple[str, ...]
    account: AccountConfig
    delisting_return: float
    privileged_state: bool
    dt: float = field(init=False)
    n_total: int = field(init=False)
    assets: tuple[Any, ...] = field(init=False, repr=False)
    widths: dict[str, int] = field(init=False, repr=False)
    state_spec: dict[str, tuple[int, ...]] = field(init=False, repr=False)
    state_size: int = field(init=False, repr=False)

    @classmethod
    def from_arguments(
        cls,
        owner: str,
        data: MarketData | None = None,
        *,
        model: MarketModel | None = None,
        max_assets: int | None = None,
        features: Sequence[str] = (),
        exogenous: Sequence[str] = (),
        lookback: int = 20,
        episode_length: int = 252,
        sampler: str | int | EpisodeSampler = "random",
        transaction_cost: float | CostModel = 0.001,
        reward: RewardFunction | None = None,
        allow_short: bool = False,
        max_leverage: float = 1.0,
        cash_rate: float = 0.0,
        margin_rate: float | None = None,
        borrow_rate: float = 0.0,
        capital: float = 1_000_000.0,
        dt: float | None = None,
        delisting_return: float = 0.0,
        privileged_state: bool = False,
        execution: str = "close",
        maintenance_margin: float | None = None,
    ) -> MarketConfig:
        """Check the keywords of Market-v0 and build its config.

        Raises:
            TypeError, ValueError: A bad argument (the message names it).
            LookAheadError: A feature reads rows after the one it describes.
        """
        # Imported here: market_env imports this module, and defines the default model.
        from sekai.envs.finance.market_env import default_market

        source = resolve_source(
            owner,
            prices=None,
            data=data,
            model=model,
            default=default_market,
            sampler=sampler,
            dt=dt,
            complete=False,
        )
        n_total = source.n_assets
        slots = check_int(
            n_total if max_assets is None else max_assets, f"{owner}: max_assets", minimum=1
        )
        feature_names = _names(features, "features", owner)
        exogenous_names = _names(exogenous, "exogenous", owner)
        account = account_config(
            owner,
            allow_short=check_bool(allow_short, f"{owner}: allow_short"),
            max_leverage=max_leverage,
            cash_rate=cash_rate,
            margin_rate=margin_rate,
            borrow_rate=borrow_rate,
            maintenance_margin=maintenance_margin,
        )
        privileged = check_bool(privileged_state, f"{owner}: privileged_state")
        _check_source(owner, source, exogenous_names, privileged)
        return cls(
            owner=owner,
            source=_with_features(source, feature_names, owner),
            max_assets=slots,
            features=feature_names,
            exogenous=exogenous_names,
            lookback=lookback,
            episode_length=episode_length,
            transaction_cost=transaction_cost,
            reward=check_reward(reward, owner),
            account=account,
            capital=positive_capital(capital, owner),
            delisting_return=check_real(
                delisting_return, f"{owner}: delisting_return", minimum=-1.0
            ),
            privileged_state=privileged,
            execution=execution,
        )

    def __post_init__(self) -> None:
        super().__post_init__()
        source = self.source
        spec: dict[str, tuple[int, ...]] = {}
        if isinstance(source, History):
            data = source.data
            assets = data.assets
            widths = {name: data.exogenous_width(name) for name in self.exogenous}
        else:
            assets = tuple(range(source.n_assets))  # MarketData's labels of a simulated path
            widths = {}
            spec = dict(sorted(source.model.state_spec().items()))
        self._derive(
            dt=source.dt,
            n_total=source.n_assets,
            assets=assets,
            widths=widths,
            state_spec=spec,
            state_size=sum(int(np.prod(shape, dtype=np.int64)) for shape in spec.values()),
        )

    @property
    def bounded(self) -> bool:
        """Whether weights stay in ``[0, 1]`` (long-only without leverage)."""
        return not self.account.allow_short and self.account.max_leverage <= 1.0

    def observation_space(self) -> Dict:
        """The Dict observation space (see [`MarketEnv`][sekai.envs.MarketEnv])."""
        width = 2 + len(self.features)
        low, high = (0.0, 1.0) if self.bounded else (-np.inf, np.inf)
        spaces: dict[str, Space[Any]] = {
            "assets": MaskedBox(-np.inf, np.inf, (self.lookback, width), max_size=self.max_assets),
            "portfolio": Box(low, high, (self.max_assets + 1,), np.float32),
            "account": Box(-np.inf, np.inf, (2,), np.float32),
        }
        if self.exogenous:
            columns = sum(self.widths.values())
            spaces["market"] = Box(-np.inf, np.inf, (self.lookback, columns), np.float32)
        if self.privileged_state:
            spaces["state"] = Box(-np.inf, np.inf, (self.state_size,), np.float32)
        return Dict(spaces)

    def action_space(self) -> Box:
        """Long-only scores ``(max_assets + 1,)`` or long/short weights ``(max_assets,)``."""
        if self.account.allow_short:
            return Box(-1.0, 1.0, (self.max_assets,), np.float32)
        return Box(0.0, 1.0, (self.max_assets + 1,), np.float32)

    def describe(self) -> str:
        """A short description for ``repr``."""
        source = "history" if isinstance(self.source, History) else type(self.model).__name__
        return (
            f"source={source}, max_assets={self.max_assets}, features={list(self.features)!r}, "
            f"lookback={self.lookback}"
        )


def _check_source(owner: str, source: Source, exogenous: tuple[str, ...], privileged: bool) -> None:
    """Refuse exogenous series and latent state the source does not have."""
    if isinstance(source, History):
        if privileged:
            raise ValueError(
                f"{owner}: privileged_state=True shows a simulation's latent state; a history "
                "has none (pass model= instead of data=)"
            )
        for name in exogenous:
            if name not in source.data.exogenous:
                raise ValueError(
                    f"{owner}: no exogenous series {name!r} in the data; it has "
                    f"{sorted(source.data.exogenous)!r}"
                )
        return
    if exogenous:
        raise ValueError(
            f"{owner}: exogenous series come with data (MarketData.exogenous); a model has "
            f"none, got exogenous={list(exogenous)!r}"
        )
    sizes = [int(np.prod(shape, dtype=np.int64)) for shape in source.model.state_spec().values()]
    if privileged and sum(sizes) == 0:
        raise ValueError(
            f"{owner}: privileged_state=True, but the model {source.model!r} has no latent "
            "state to show"
        )


class MarketParameters:
    """The parameters of Market-v0 as attributes of an env, read from its ``config``.

    [`MarketEnv`][sekai.envs.MarketEnv] and [`MarketVecEnv`][sekai.envs.MarketVecEnv] both take
    them from here, so each is declared once (as a field of `MarketConfig`).
    """

    config: MarketConfig

    cost_model = config_field[CostModel]()
    capital = config_field[float]()
    dt = config_field[float]()
    max_assets = config_field[int]()
    n_total = config_field[int]()
    features = config_field[tuple[str, ...]]()
    exogenous = config_field[tuple[str, ...]]()
    delisting_return = config_field[float]()
    privileged_state = config_field[bool]()
    execution = config_field[str]()
